"""The students' hand-outs of the course lessons: solutions removed, every cell run.

A lesson in ``notebooks/course/`` keeps each exercise's solution between a ``### BEGIN SOLUTION``
line and a ``### END SOLUTION`` line (nbgrader's markers), after the line the student fills in,
``answer_N = None  # your answer (unit)``. The hand-out drops those blocks and every output, then
runs the notebook top to bottom in the hand-out folder, so its tables and plots are shown and each
exercise's check says "not answered yet" (``model.course.check``). What a check expects is computed
in ``model.course``, not in the lesson, so the hand-out shows neither the value nor its formula. The
instructors' lessons stay as they are, solutions and outputs included.

Usage: ``python -m model.handout [--out FOLDER] [LESSON.ipynb ...]`` (``make handout``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from . import paths
from .errors import UserError

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
LESSONS = paths.NOTEBOOKS / "course"
HANDOUTS = paths.PROJECT_ROOT / "handouts"
CELL_TIMEOUT_S = 300


class HandoutStopped(Exception):
    """A hand-out whose run stopped before its end: a lesson cell needs an answer it should not."""


def split(source: str, where: str) -> tuple[str, list[list[str]]]:
    """A cell's source without its solution blocks (markers included), and each block's lines."""
    kept: list[str] = []
    blocks: list[list[str]] = []
    inside = False
    for line in source.splitlines():
        marker = line.strip()
        if marker == BEGIN:
            if inside:
                raise UserError(where, BEGIN, f"opens a block inside another; close it with {END}")
            blocks.append([])
            inside = True
        elif marker == END:
            if not inside:
                raise UserError(where, END, f"closes no block; open one with {BEGIN}")
            inside = False
        else:
            (blocks[-1] if inside else kept).append(line)
    if inside:
        raise UserError(where, BEGIN, f"is never closed; end the solution with {END}")
    return "\n".join(kept), blocks


def handout(lesson: nbformat.NotebookNode, name: str) -> tuple[nbformat.NotebookNode, int]:
    """The students' copy of a lesson, not yet run, and how many solutions it lost."""
    copy = nbformat.from_dict(lesson)
    removed = 0
    for i, cell in enumerate(copy.cells):
        if cell.cell_type != "code":
            continue
        cell.source, blocks = split(cell.source, f"{name} cell {i}")
        cell.outputs, cell.execution_count = [], None
        removed += len(blocks)
    return copy, removed


def build(
    out_dir: Path = HANDOUTS, lessons: list[Path] | None = None, timeout_s: int = CELL_TIMEOUT_S
) -> list[Path]:
    """Write and run the hand-out of each lesson (every lesson by default) in ``out_dir``."""
    lessons = sorted(LESSONS.glob("*.ipynb")) if lessons is None else [Path(p) for p in lessons]
    for lesson in lessons:
        if not lesson.is_file():
            raise UserError(paths.shown(lesson), None, "no such notebook")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for lesson in lessons:
        copy, removed = handout(nbformat.read(lesson, as_version=4), paths.shown(lesson))
        target = out_dir / lesson.name
        start = time.perf_counter()
        client = NotebookClient(
            copy,
            timeout=timeout_s,
            kernel_name="python3",
            resources={"metadata": {"path": str(out_dir)}},
        )
        try:
            client.execute()
        except CellExecutionError as exc:
            raise HandoutStopped(
                f"{paths.shown(target)} stops before its end: {exc.ename}: {exc.evalue}"
            ) from exc
        finally:  # a hand-out that stops is still written, to show where
            nbformat.write(copy, target)
        cells = sum(cell.cell_type == "code" for cell in copy.cells)
        print(
            f"{paths.shown(target)}: {removed} solutions removed, {cells} code cells run "
            f"in {time.perf_counter() - start:.1f} s"
        )
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m model.handout", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("lessons", nargs="*", type=Path, help="lessons (default: every one)")
    parser.add_argument("--out", type=Path, default=HANDOUTS, help="folder (default: handouts/)")
    args = parser.parse_args(argv)
    try:
        build(args.out, args.lessons or None)
    except UserError as exc:
        print(exc.line(), file=sys.stderr)
        return exc.exit_status
    except HandoutStopped as exc:
        print(exc, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
