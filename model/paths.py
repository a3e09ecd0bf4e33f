"""Every path the project uses, derived from one root (never from the working directory)."""

import os
import stat
from collections.abc import Iterator
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
    except (ValueError, OSError, RuntimeError):  # outside the project, or a loop of links
        return str(path)


def openable(path: Path) -> str:
    """A path as a user can open it from the folder they ran the command in: relative to that
    folder when it lies in it or below it, else absolute (a file the project wrote, which
    ``shown``'s project-relative form would name wrongly from any other folder)."""
    try:
        path = Path(path).resolve()
        return str(path.relative_to(Path.cwd().resolve()))
    except (ValueError, OSError, RuntimeError):  # outside the working folder, gone, or a loop
        return str(path)


def is_file(path: Path) -> bool:
    """Whether ``path`` names a regular file (links followed); a name the system cannot look up (one
    longer than it allows, a NUL byte, a loop of links) names none, rather than raising."""
    try:
        return Path(path).is_file()
    except (OSError, ValueError):
        return False


def is_dir(path: Path) -> bool:
    """Whether ``path`` names a folder (links followed); a name the system cannot look up names
    none."""
    try:
        return Path(path).is_dir()
    except (OSError, ValueError):
        return False


# what a path may name, by its mode (stat(2)), in words
KINDS = (
    (stat.S_ISREG, "a regular file"),
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def kind(path: Path) -> str | None:
    """What ``path`` names (links followed), in words (``KINDS``), found without opening it: a
    FIFO opened for reading waits for a writer. None where nothing is, or for a name the system
    cannot look up."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    return next((words for test, words in KINDS if test(mode)), "not a regular file")


def exists(path: Path) -> bool:
    """Whether anything is at ``path``; a name the system cannot look up names nothing."""
    try:
        return Path(path).exists()
    except (OSError, ValueError):
        return False


def is_project_notebook(path: Path) -> bool:
    """Whether ``path`` is one of the project's notebooks: in ``notebooks/`` or its ``course/``,
    not in a folder a grid brought below them (its own notebook, which a sweep runs only on
    ``--trust-notebook``: one in notebooks/study/ had been trusted for where it lay, the review)."""
    try:
        parent = Path(path).resolve().parent
    except (OSError, ValueError, RuntimeError):
        return False
    return parent in (NOTEBOOKS.resolve(), (NOTEBOOKS / "course").resolve())


def inside(folder: Path, name: str | Path) -> Path | None:
    """``name`` (relative to ``folder``, or absolute) resolved, links followed, when it lies in
    ``folder`` or below it; else None: how a file named in a user's file is kept to its folder."""
    folder = Path(folder).resolve()
    try:
        file = (folder / name).resolve()
    except (OSError, ValueError, RuntimeError):  # a loop of links (RuntimeError on Python
        return None  # 3.11's resolve, OSError on 3.13's), a NUL byte
    return file if file.is_relative_to(folder) else None


def _links(folder: Path, name: str | Path) -> Iterator[tuple[Path, Path, bool]]:
    """The symbolic links on ``name``'s way from ``folder`` (resolved), walked a component at a
    time as the system walks it (a link's target in its place, ``..`` from where that leads): each
    link, where it leads (resolved) and whether it is the name's last component."""
    here = folder
    parts = Path(name).parts
    for i, part in enumerate(parts):
        step = here.parent if part == ".." else here / part
        if part != ".." and step.is_symlink():
            target = step.resolve()
            yield step, target, i == len(parts) - 1
            step = target
        here = step


def _through(last: bool) -> str:
    """How a name meets a symbolic link: as its last component, or on its way."""
    return "is a symbolic link" if last else "leads through a symbolic link"


def outside(folder: Path, name: str | Path, must: str) -> str:
    """The refusal of ``name``, which ``inside`` found outside ``folder``: ``must`` (what the key
    takes, "must be a file in FOLDER or below it") and the name given; where a symbolic link in
    ``folder`` on its way leads out of it, that first (a link beside a scenario to a parts file
    elsewhere was refused as if named outside the folder it is in: the quote audit), the way
    walked as the system walks it (``_links``: ``dirlink/../sub/x.yaml``, its ``..`` from where
    the link leads, had been read as ``sub/x.yaml`` here, the review). Such a link stays
    unfollowed."""
    folder = Path(folder).resolve()
    try:
        target = (folder / name).resolve()
        out = next(
            (
                last
                for link, to, last in _links(folder, name)
                if link.is_relative_to(folder) and not to.is_relative_to(folder)
            ),
            None,
        )
    except (OSError, ValueError, RuntimeError):  # a loop of links, a NUL byte
        return f"{must}, got {str(name)!r}"
    if out is None:
        return f"{must}, got {str(name)!r}"
    return (
        f"{str(name)!r} {_through(out)} to {shown(target)}, outside {shown(folder)}, and a link "
        f"out of it is not followed: {must}"
    )


def dangling(folder: Path, name: str | Path) -> str | None:
    """Where ``name``, read in ``folder``, reaches nothing through a symbolic link on its way,
    that in words (''dangling.yaml' is a symbolic link to a missing file FILE'); else None. Its
    refusal had named the missing file the link leads to as if the user had typed it (the
    review)."""
    folder = Path(folder).resolve()
    try:
        target = (folder / name).resolve()
        links = [last for _, _, last in _links(folder, name)]
        if not links or exists(target):
            return None
    except (OSError, ValueError, RuntimeError):  # a loop of links, a NUL byte
        return None
    return f"{str(name)!r} {_through(links[-1])} to a missing file {shown(target)}"


def identity(path: Path) -> tuple[int, int]:
    """The file ``path`` names as the system knows it, its device and inode: one for each of its
    names, a hard link's and a symbolic link's alike (a parts file given by a hard link and by its
    other name had been read twice, its parts refused as defined again: the review). ``path`` is
    a file its caller found."""
    found = os.stat(path)
    return found.st_dev, found.st_ino
