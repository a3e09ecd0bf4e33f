"""The measured tables of ``data/measured/``: every figure the five reports give, as tidy rows.

Each row names the scenario and overrides that give its configuration, its role (``result`` to be
predicted, ``setting`` an input the report states, ``derived`` a figure the report computes from
others), the metric, the value in the report's own unit, and its source. See
``data/measured/README.md``.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from . import paths
from .errors import UserError

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
    """Every table in ``data/measured/``, by name (the file name without ``.csv``)."""
    return {p.stem: load_table(p) for p in sorted(paths.MEASURED.glob("*.csv"))}
