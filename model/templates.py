"""Starter scenarios for ``python -m model new TEMPLATE [--out FILE]``.

Each template is a commented YAML file of ``data/templates/``: a small, valid scenario built from
catalog parts, with a comment on every key saying what to change and in which unit. Its first line,
a comment, says what it models; ``new`` without a template lists them.
"""

from __future__ import annotations

from pathlib import Path

from . import paths
from .errors import UserError

FOLDER = paths.DATA / "templates"


def available() -> dict[str, Path]:
    """Every template, by name (its file's stem)."""
    return {path.stem: path for path in sorted(FOLDER.glob("*.yaml"))}


def listing() -> str:
    """One line per template: its name and the first sentence of its comment."""
    lines = ["templates (python -m model new TEMPLATE [--out FILE]):"]
    found = available()
    width = max(map(len, found), default=0)
    for name, path in found.items():
        lines.append(f"  {name:<{width}}  {_first_sentence(path)}")
    return "\n".join(lines)


def _first_sentence(path) -> str:
    """The template's opening comment up to its first full stop (it may wrap over lines)."""
    words = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        words.append(line.lstrip("# ").strip())
    sentence, stop, _ = " ".join(words).partition(". ")
    return sentence + ("." if stop else "")


def text(name: str) -> str:
    """The template's YAML, comments and all."""
    found = available()
    if name not in found:
        raise UserError("new", name, f"no such template; allowed: {', '.join(found)}")
    return found[name].read_text(encoding="utf-8")


def write(text: str, out: str) -> str:
    """Write ``text`` to the new file ``out`` (never over an existing one); say what was done."""
    path = Path(out)
    if out.endswith(("/", "\\")) or path.suffix not in (".yaml", ".yml"):
        # a folder's name wrote a file of that name, and a name without .yaml would not be read back
        # as a file: predict takes a plain name for one of the project's scenarios
        raise UserError(
            "--out", out, "must be a file name ending in .yaml (mine.yaml, dir/mine.yaml)"
        )
    try:
        with path.open("x", encoding="utf-8") as handle:
            handle.write(text)
    except FileExistsError:
        raise UserError("--out", out, "already exists; choose a new file name") from None
    except OSError as exc:
        raise UserError("--out", out, f"cannot be written: {exc.strerror}") from None
    return f"wrote {out}; check it with: python -m model predict {out}"
