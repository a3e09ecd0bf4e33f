"""The measured tables of ``data/measured/``: every figure the five reports give, as tidy rows.

Each row names the scenario and overrides that give its configuration, its role (``result`` to be
predicted, ``setting`` an input the report states, ``derived`` a figure the report computes from
others), the metric, the value in the report's own unit, and its source: the report's file name
(the key of ``data/measured/sources.yaml``) and the place in it. What a reader is shown cites the
report by its title, authors and date instead (``cite``). See ``data/measured/README.md``.
"""

from __future__ import annotations

import csv
import functools
from dataclasses import dataclass, replace
from pathlib import Path

from . import paths
from .errors import UserError
from .yamlio import safe_load

SOURCES = paths.MEASURED / "sources.yaml"
# Published measurements of current hardware, outside the five reports: predicted from datasheets,
# never fitted (model/calibrate.py leaves them out); one table, its sources cited by key and URL.
EXTERNAL = paths.MEASURED / "external"
EXTERNAL_TABLE = "external"
EXTERNAL_SOURCES = EXTERNAL / "sources.yaml"
EXTERNAL_SOURCE_FIELDS = ("title", "authors", "date", "url")

LEADING = ("id", "scenario", "overrides", "role")
TRAILING = ("metric", "value", "unit", "relative_to", "bound", "source", "note")
BOUNDS = ("", "lower", "upper")
ROLES = ("result", "setting", "derived")

# Each unit a result may be reported in: (the Result field's canonical unit, factor to it).
RATE = {
    "MB/s": 1.0,
    "MiB/s": 1.048576,
    "GB/s": 1e3,
    "TB/h": 1e6 / 3600,
    "Mbit/s": 0.125,
    "Gbit/s": 125.0,
    "kB/s": 1e-3,
}
TIME = {"s": 1.0, "ms": 1e-3, "min": 60.0, "h": 3600.0}
CANONICAL = {
    "throughput_MBps": ("MB/s", RATE),
    "elapsed_s": ("s", TIME),
    "cpu_user_s": ("s", TIME),
    "cpu_sys_s": ("s", TIME),
    "cpu_s": ("s", TIME),
    "cpu_util_pct": ("%", {"%": 1.0}),
    "io_wait_pct": ("%", {"%": 1.0}),
}

# The reports print most figures to two significant figures ("45", "170", "nearly 800"): half a unit
# in the second figure is at most 5 % of the value, the allowance a printed measurement gets past
# its path's capacity (tests/test_readings.py, the fit's floors, the intervals' cap).
ROUNDING = 0.05


@dataclass(frozen=True)
class Row:
    table: str
    id: str
    scenario: str
    overrides: tuple[str, ...]
    role: str
    config: dict[str, str]
    metric: str
    value: float
    unit: str
    relative_to: tuple[str, ...] | None
    bound: str  # "lower": the report says "exceeding"; "upper": "less than"; "": the value itself
    source: str
    note: str

    def to_canonical(self, value: float) -> float:
        """``value`` in this row's unit, converted to the metric's canonical unit."""
        return value * CANONICAL[self.metric][1][self.unit]

    def from_canonical(self, value: float) -> float:
        return value / CANONICAL[self.metric][1][self.unit]


def split_overrides(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(";") if part.strip())


def _row(table: str, where: str, line: int, raw: dict[str, str]) -> Row:
    role = raw["role"]
    if role not in ROLES:
        raise UserError(
            where, f"line {line}: role", f"must be one of {', '.join(ROLES)}, got {role!r}"
        )
    try:
        value = float(raw["value"])
    except ValueError:
        raise UserError(
            where, f"line {line}: value", f"must be a number, got {raw['value']!r}"
        ) from None
    relative = raw["relative_to"].strip()
    if raw["bound"] not in BOUNDS:
        raise UserError(
            where, f"line {line}: bound", f"must be empty, lower or upper, got {raw['bound']!r}"
        )
    if role == "result" and raw["metric"] in CANONICAL:
        allowed = ["%"] if relative else list(CANONICAL[raw["metric"]][1])
        if raw["unit"] not in allowed:
            raise UserError(
                where,
                f"line {line}: unit",
                f"for {raw['metric']} must be one of {', '.join(allowed)}, got {raw['unit']!r}",
            )
    config = {k: v for k, v in raw.items() if k not in LEADING + TRAILING}
    return Row(
        table=table,
        id=raw["id"],
        scenario=raw["scenario"],
        overrides=split_overrides(raw["overrides"]),
        role=role,
        config=config,
        metric=raw["metric"],
        value=value,
        unit=raw["unit"],
        relative_to=split_overrides(relative) if relative else None,
        bound=raw["bound"],
        source=raw["source"],
        note=raw["note"],
    )


def load_table(path: Path) -> list[Row]:
    where = paths.shown(path)
    with path.open(newline="") as handle:
        reader = csv.DictReader(handle)
        header = tuple(reader.fieldnames or ())
        if header[:4] != LEADING or header[-len(TRAILING) :] != TRAILING:
            raise UserError(
                where,
                "header",
                f"must start with {','.join(LEADING)} and end with {','.join(TRAILING)}",
            )
        return [_row(path.stem, where, i + 2, raw) for i, raw in enumerate(reader)]


def load_all() -> dict[str, list[Row]]:
    """Every table of the five reports in ``data/measured/``, by name (the file name without
    ``.csv``): what the fit uses. The external table is ``load_external``."""
    return {p.stem: load_table(p) for p in sorted(paths.MEASURED.glob("*.csv"))}


def load_external() -> dict[str, list[Row]]:
    """The published measurements of ``data/measured/external/*.csv`` as one table, ``external``.
    Each row's ``source`` starts with a key of ``external/sources.yaml``."""
    rows = [
        replace(row, table=EXTERNAL_TABLE)
        for path in sorted(EXTERNAL.glob("*.csv"))
        for row in load_table(path)
    ]
    where = paths.shown(EXTERNAL_SOURCES)
    for row in rows:
        if report_of(row.source) not in external_sources():
            raise UserError(
                where, report_of(row.source) or row.id, f"row {row.id} cites no listed source"
            )
    return {EXTERNAL_TABLE: rows} if rows else {}


def is_external(row: Row) -> bool:
    """Whether ``row`` is a published measurement outside the reports (never fitted)."""
    return row.table == EXTERNAL_TABLE


@functools.cache
def sources() -> dict[str, dict]:
    """``data/measured/sources.yaml``: each report's title, authors, date and where to find it, by
    the file name the tables use as its key."""
    return safe_load(SOURCES.read_text())


@functools.cache
def external_sources() -> dict[str, dict]:
    """``data/measured/external/sources.yaml``: each published source's title, authors, date and
    URL, by the key the external table's ``source`` column starts with."""
    entries = safe_load(EXTERNAL_SOURCES.read_text()) if EXTERNAL_SOURCES.exists() else {}
    where = paths.shown(EXTERNAL_SOURCES)
    for key, entry in (entries or {}).items():
        missing = [
            f for f in EXTERNAL_SOURCE_FIELDS if not isinstance(entry, dict) or f not in entry
        ]
        if missing:
            raise UserError(
                where, key, f"needs {', '.join(EXTERNAL_SOURCE_FIELDS)}; missing {missing}"
            )
        if not str(entry["url"]).startswith(("https://", "http://")):
            raise UserError(where, f"{key}.url", f"must be an http(s) URL, got {entry['url']!r}")
    return entries or {}


def report_of(source: str) -> str:
    """The report's key (its file name): what a ``source`` cell or a catalog ``reports:`` entry
    starts with."""
    return source.split()[0] if source.strip() else ""


def title(key: str) -> str:
    """A report by its title, authors and date: how a reader is shown it."""
    entry = sources().get(key)
    if entry is None and key in external_sources():
        entry = external_sources()[key]
        date = entry["date"] or "date not stated"
        return f'"{entry["title"]}" ({entry["authors"]}, {date}, {entry["url"]})'
    if entry is None:
        where = paths.shown(SOURCES)
        raise UserError(where, key, "no such report: every source must be listed here")
    date = entry["date"] or "date not stated"
    return f'"{entry["title"]}" ({entry["authors"]}, {date})'


def cite(source: str) -> str:
    """A ``source`` cell (``001_4cf980d67b39ffac.txt slide 9``) with the report cited by its title,
    authors and date in place of its file name: the form every output shows."""
    key = report_of(source)
    return title(key) + source.strip()[len(key) :]
