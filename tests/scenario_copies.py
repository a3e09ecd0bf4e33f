"""A shipped scenario copied into a test's folder with a few edits: the way a user makes their own
from one of data/scenarios/, and what tests of files naming files (a store, a sender's storage,
their parts) start from."""

from pathlib import Path

from model import paths

SCENARIOS = paths.PROJECT_ROOT / "data" / "scenarios"


def copy_scenario(folder: Path, name: str, out: str, *changes: tuple[str, str], head: str = ""):
    """``data/scenarios/NAME.yaml`` written to ``folder/out``, ``head`` before it and each (old,
    new) of ``changes`` replaced (each must be there); its path, as text."""
    text = (SCENARIOS / f"{name}.yaml").read_text()
    for old, new in changes:
        assert old in text, f"{name}.yaml has no {old!r}"
        text = text.replace(old, new)
    path = folder / out
    path.write_text(head + text)
    return str(path)
