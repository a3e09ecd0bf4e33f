"""Every path the project uses, derived from one root (never from the working directory)."""

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
DATA = PROJECT_ROOT / "data"
MEASURED = DATA / "measured"
HARDWARE = DATA / "hardware"
SCENARIOS = DATA / "scenarios"
CALIBRATED = DATA / "calibrated"
CALIBRATED_PARAMETERS = CALIBRATED / "parameters.json"
REPORTS = PROJECT_ROOT / "reports"
NOTEBOOKS = PROJECT_ROOT / "notebooks"


def shown(path: Path) -> str:
    """A path as a user should read it in a message: relative to the project when inside it."""
    path = Path(path)
    try:
        return str(path.resolve().relative_to(PROJECT_ROOT))
    except ValueError:
        return str(path)


def inside(folder: Path, name: str | Path) -> Path | None:
    """``name`` (relative to ``folder``, or absolute) resolved, links followed, when it lies in
    ``folder`` or below it; else None: how a file named in a user's file is kept to its folder."""
    folder = Path(folder).resolve()
    try:
        file = (folder / name).resolve()
    except (OSError, ValueError):  # a loop of links, a NUL byte
        return None
    return file if file.is_relative_to(folder) else None
