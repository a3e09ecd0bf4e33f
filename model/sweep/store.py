"""A sweep's results on disk: one parquet file per finished point, written atomically.

A point's file appears whole or not at all (written beside, then renamed), so an interrupted run
leaves only finished points; running the grid again skips them. ``results.parquet`` gathers the
grid's current points into one tidy table: points run for superseded inputs (another calibration,
catalog or scenario, which change every point's id) stay on disk but out of it.

One sweep at a time writes a folder: a second one on the same folder is refused (an advisory
lock, which the system drops with its process however it ends), and the one holding the lock
removes what a killed run left half-written. A write that fails (a full disk) removes its partial
file and stops the sweep with one line; the points stored before it stay. A papermill point's
notebook joins the finished ones in ``notebooks/`` with its record, not before
(``unkept_notebook``).

A symbolic link where the sweep writes or deletes in its folder (``.lock``, ``points/``,
``notebooks/``, ``results.parquet``, ``drivers.csv`` or a file in ``points/`` or ``notebooks/``) is
refused with one line: a results folder someone else prepared could otherwise take the sweep's
writes, and its clean-up, wherever the link points (a ``.lock`` linked to another file was
truncated and overwritten with the sweep's pid). So is a folder with a ``results.parquet`` or
``drivers.csv`` but no ``points/``, a file no sweep wrote, which the sweep would overwrite.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from .. import paths
from ..errors import UserError
from .point import UNKEPT, unkept_notebook

# the tables a sweep writes in its folder (drivers.csv: the ranking of a grid with intervals), and
# all it writes there besides its two folders' files
TABLES = ("results.parquet", "drivers.csv")
WRITTEN = (".lock", "points", "notebooks", *TABLES)


def _refuse_link(path: Path) -> None:
    """Refuse ``path`` with one line naming it (not where it points) when it is a symbolic link."""
    if path.is_symlink():
        raise UserError(
            str(Path(paths.shown(path.parent)) / path.name),
            None,
            "is a symbolic link, which the sweep would write through; remove it or choose "
            "another --out (a sweep writes only inside its results folder)",
        )


def _refuse_foreign(out: Path, points: Path) -> None:
    """Refuse a folder holding a file of a name the sweep writes (``results.parquet``,
    ``drivers.csv``) but no ``points/``: no sweep wrote it, and the sweep would overwrite it."""
    if points.exists():
        return
    for name in TABLES:
        if (out / name).exists():
            raise UserError(
                str(Path(paths.shown(out)) / name),
                None,
                "has no points/ beside it, as a sweep's folder has: a sweep did not write it "
                "(or its points/ was removed), and this one would overwrite it; move it or "
                "choose another --out",
            )


class Stopped(UserError):
    """A sweep stopped before its end (interrupted, a full disk, a lost scheduler): one line and
    ``exit_status`` (1, or 130 for Ctrl-C); the points finished are stored."""

    def __init__(self, where: str, key: str | None, message: str, exit_status: int = 1):
        super().__init__(where, key, message)
        self.exit_status = exit_status


def _one_kind(column: pd.Series) -> pd.Series:
    """A column parquet can store: one whose points gave values of several kinds (a number here, a
    word there) holds them as text, a word as it is and anything else as its JSON text; a missing
    value stays missing."""
    present = column[column.notna()]
    if len({type(v) for v in present}) <= 1:
        return column
    return column.map(
        lambda v: v if v is None or isinstance(v, str) or v != v else json.dumps(v, default=str)
    )


def point_id(
    grid_target: str,
    engine: str,
    seed: int,
    base: tuple[str, ...],
    repeat: int,
    point: dict[str, Any],
) -> str:
    """A stable name for a point: the same grid point always gets the same id, wherever the grid
    lists it (a value added to a product moves the others' places: 96 of 100 points ran again).
    ``repeat``, how many equal points come before it in the grid, keeps apart equal points of a
    sampled design (Saltelli's design repeats some on purpose)."""
    text = json.dumps(
        {
            "target": grid_target,
            "engine": engine,
            "seed": seed,
            "base": list(base),
            "repeat": repeat,
            "point": point_settings(point),
        },
        sort_keys=True,
    )
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def point_settings(point: dict[str, Any]) -> list[tuple[str, str]]:
    """A point's settings in one order, each value as its repr: equal points give equal ones."""
    return sorted((k, repr(v)) for k, v in point.items())


def _rows(file: Path, columns: list[str] | None = None) -> list[dict[str, Any]]:
    """A point's file's row (its ``columns`` only, when given); a file that is not one (cut short,
    or put there by hand) is named."""
    try:
        return pq.read_table(file, columns=columns).to_pylist()
    except (OSError, pa.ArrowException):
        raise UserError(
            paths.shown(file),
            None,
            "not a point's parquet file (damaged, or not written by a sweep); delete it and run "
            "the sweep again to run its point again",
        ) from None


class Store:
    def __init__(self, out: Path):
        self.out = Path(out)
        self.points = self.out / "points"
        self.notebooks = self.out / "notebooks"
        try:  # a name longer than the system takes fails even the check for a link
            for name in WRITTEN:
                _refuse_link(self.out / name)
            _refuse_foreign(self.out, self.points)
            self.points.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(
                paths.shown(self.out), None, f"cannot create it ({exc.strerror})"
            ) from None

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the folder for this sweep alone; refuse with one line when another holds it, or
        when a point's file or notebook is a symbolic link. Removes what a run killed while
        writing left."""
        path = self.out / ".lock"
        try:  # never through a link, which would truncate the file it points to
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        except OSError as exc:
            _refuse_link(path)  # a link made since the store was opened
            raise UserError(
                paths.shown(self.out), None, f"cannot write it ({exc.strerror})"
            ) from None
        with open(fd, "r+") as f:  # closing it ends the lock
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                f.seek(0)
                holder = f.read().strip() or "unknown"
                raise UserError(
                    paths.shown(self.out),
                    None,
                    f"another sweep (pid {holder}) is writing this folder; "
                    "wait for it to end or choose another --out",
                ) from None
            f.seek(0)
            f.truncate()
            f.write(f"{os.getpid()}\n")  # a file in the user's folder ends its line
            f.flush()
            for stale in [
                *self.out.glob(".results.*.partial"),
                *self.points.glob(".*.partial"),
                *self.notebooks.glob(f".*{UNKEPT}"),  # its points' notebooks, never stored
            ]:
                stale.unlink(missing_ok=True)  # left by a run killed while writing (a link too)
            for folder in (self.points, self.notebooks):
                for entry in folder.iterdir() if folder.is_dir() else ():
                    _refuse_link(entry)
            yield

    def done(self, ok_only: bool = False) -> set[str]:
        """Ids of the points already finished (successfully or not; with ``ok_only``, only those
        that succeeded)."""
        files = self.points.glob("*.parquet")
        if not ok_only:
            return {p.stem for p in files}
        return {p.stem for p in files if _rows(p, ["status"])[0]["status"] == "ok"}

    def _atomic(self, final: Path, partial: Path, table: pa.Table) -> None:
        try:  # a new file: never one a link there points to
            with open(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644), "wb") as f:
                pq.write_table(table, f)
            os.replace(partial, final)  # replaces a link at final, never writes through it
        except BaseException as exc:
            partial.unlink(missing_ok=True)
            if isinstance(exc, OSError):
                raise Stopped(
                    paths.shown(final),
                    None,
                    f"cannot write it ({exc.strerror or exc}); the points stored before stay, "
                    "run the sweep again to resume",
                ) from None
            raise

    def keep_notebook(self, point_id: str, sweep: str) -> None:
        """Keep the notebook the point ``point_id`` of the sweep ``sweep`` left
        (``unkept_notebook``) among the finished ones, where it left one: done just before its
        record is written, so that a sweep killed between the two runs the point again rather
        than keep its record without its notebook. A notebook that cannot be kept (the folder
        another user's, a folder in the notebook's place) stops the sweep in one line, as a record
        that cannot be written does."""
        kept = self.notebooks / f"{point_id}.ipynb"
        try:
            os.replace(unkept_notebook(self.out, point_id, sweep), kept)
        except FileNotFoundError:
            return
        except OSError as exc:
            raise Stopped(
                paths.shown(kept),
                None,
                f"cannot keep the point's notebook there ({exc.strerror or exc}); the points "
                "stored before stay, run the sweep again to resume",
            ) from None

    def write(self, record: dict[str, Any]) -> None:
        final = self.points / f"{record['point_id']}.parquet"
        partial = self.points / f".{record['point_id']}.{os.getpid()}.partial"
        self._atomic(final, partial, pa.Table.from_pylist([record]))  # one row: no pandas needed

    def table(self, ids: dict[str, int] | None = None) -> pd.DataFrame:
        """The finished points (those of ``ids`` only, when given: each id's place in the grid as
        it is now, its ``point_index``), one row each, in the grid's order (``point_index``): a
        point's file is named by its id, a hash of its inputs, whose order changes with every
        change to them and means nothing to a reader, and a point run when the grid listed it
        elsewhere keeps its figures."""
        files = sorted(f for f in self.points.glob("*.parquet") if ids is None or f.stem in ids)
        if not files:
            return pd.DataFrame()
        rows = [row for f in files for row in _rows(f)]
        if ids is not None:
            rows = [dict(row, point_index=ids[row["point_id"]]) for row in rows]
        table = pd.DataFrame.from_records(rows)
        for column in table.select_dtypes(include="object").columns:
            table[column] = _one_kind(table[column])
        return table.sort_values("point_index", kind="stable", ignore_index=True)

    def gather(self, ids: dict[str, int]) -> Path:
        """Write the finished points of ``ids`` (each id's place in the grid) into
        ``results.parquet`` (atomically); its path."""
        path = self.out / "results.parquet"
        table = pa.Table.from_pandas(self.table(ids), preserve_index=False)
        self._atomic(path, self.out / f".results.{os.getpid()}.partial", table)
        return path
