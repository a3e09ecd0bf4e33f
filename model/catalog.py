"""The hardware catalog: every part the reports name, with datasheet parameters and their sources.

One YAML file per category in ``data/hardware/``; each part is a mapping of parameters whose names
carry their units, plus ``sources`` (the public source of every numeric value). The same WD 7200
rpm drive is one entry used by every scenario that contains it. Beside the reports' parts, the
catalog holds current parts for proposed hardware: solid-state drives (``ssds``), SAS expanders
(``expanders``), drive enclosures (``enclosures``) and server processors (``cpus``).

This module loads the files (once, and kept on disk for the next process), checks the references
between parts and looks parts up; what each kind of part describes is ``model.parts``, the user's
own parts files join a catalog through ``model.user_parts``, and how a NIC's cards reach their host
and their wire is ``model.nic_links``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import functools
import hashlib
import os
import pickle
import re
import sys
import tempfile
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

import yaml

from . import nic_links, paths, yamlio
from .errors import UserError
from .parts import CATEGORIES, Bus, Cpu, Enclosure, Expander, Host, Nic, Part, Ssd
from .schema import build_dataclass

_SINGULAR = {"buses": "bus"}  # the category name without its plural s
# The line codes each new part's links may run on: an NVMe drive on PCIe 3.0 or later (128b/130b),
# a SATA drive on an 8b/10b serial link, a SAS drive and an expander's or enclosure's lanes on SAS's
# 8b/10b (to 12 Gb/s) or 24G SAS's 128b/150b.
_SAS_ENCODINGS = ("8b10b", "128b150b")
_SERIAL_ENCODING = {"nvme": ("128b130b",), "sata": ("8b10b",), "sas": _SAS_ENCODINGS}
_LINK_WORDS = {
    ("128b130b",): "PCI Express 3.0 or later",
    ("8b10b",): "an 8b/10b serial link",
    _SAS_ENCODINGS: "an 8b/10b or 128b/150b (24G SAS) serial link",
}


@dataclass(frozen=True)
class Catalog:
    parts: dict[str, dict[str, Part]]
    with_users_parts: bool = False  # parts files of the user's joined the project's

    @functools.cached_property
    def users_parts(self) -> tuple[tuple[str, str, str], ...]:
        """The parts the user added to the project's catalog, as (category, id, repr): what sets
        two catalogs apart (empty for the project's own)."""
        base = load().parts
        return tuple(
            (category, pid, repr(part))
            for category, table in sorted(self.parts.items())
            for pid, part in sorted(table.items())
            if base.get(category, {}).get(pid) is not part
        )

    def with_parts_of(self, other: Catalog | None, where: str) -> Catalog:
        """This catalog with the parts ``other`` adds to the project's (those of a scenario this
        one names, ``where``); an id both give different parts is refused, so that each file's
        ids keep their meaning."""
        if other is None or not other.users_parts:
            return self
        parts = {c: dict(table) for c, table in self.parts.items()}
        for category, pid, _ in other.users_parts:
            part = other.parts[category][pid]
            if parts[category].get(pid, part) != part:
                raise UserError(
                    where,
                    f"{category}.{pid}",
                    "is defined here and, differently, by the scenario that names this one; "
                    "give one of them another id",
                )
            parts[category][pid] = part
        return Catalog(parts, with_users_parts=True)

    def get(self, category: str, part_id: str, where: str, key: str) -> Part:
        """The part ``part_id`` of ``category``; a missing one is the user's mistake at ``key``."""
        return self.get_one_of((category,), part_id, where, key)

    def get_one_of(self, categories: tuple[str, ...], part_id: str, where: str, key: str) -> Part:
        """The part ``part_id`` of the first of ``categories`` that has it (a drive is a disk or an
        ssd); a part none has is the user's mistake at ``key``."""
        for category in categories:
            if part_id in self.parts[category]:
                return self.parts[category][part_id]
        kinds = " or ".join(_SINGULAR.get(c, c[:-1]) for c in categories)
        known = [p for c in categories for p in sorted(self.parts[c])]
        offered = ids_offered(part_id, known, categories, self.with_users_parts)
        raise UserError(where, key, f"unknown {kinds} {part_id!r}; {offered}")


# what a refusal of an id close to none asks (a scenario whose parts file was not given)
YOUR_OWN = (
    "a part of your own? give its parts file: --catalog FILE, or catalogs: [FILE] in the scenario"
)

# the most ids a refusal of an unknown one lists whole; past it, the closest to what was written,
# how many there are and where they are listed (a bus id typed wrong was told all 37 of them)
SHORT_LIST = 10


def ids_offered(
    given: object, known: list[str], categories: tuple[str, ...], users: bool = False
) -> str:
    """What a refusal of ``given``, no id of ``known`` (the ids of ``categories``, with the
    parts a user's file or scenario adds where ``users``), offers in its place."""
    files = ", ".join(f"data/hardware/{c}.yaml" for c in categories)
    held = f"{files}, with the parts this scenario adds" if users else files
    close = _closest(str(given), known)
    if len(known) <= SHORT_LIST:  # all of them, and the closest where one is (a typo in a list)
        nearest = f"; the closest: {', '.join(close)}" if close else f"; {YOUR_OWN}"
        return f"the catalog ({held}) has: {', '.join(known) or 'none'}{nearest}"
    schema = " and ".join(f"python -m model schema {c}" for c in categories)
    # schema lists the catalog's files, not the parts a scenario adds
    listed = f"{schema} {'lists' if len(categories) == 1 else 'list'} " + (
        f"those of {files}" if users else "them"
    )
    nearest = f"the closest: {', '.join(close)}" if close else f"none close to it ({YOUR_OWN})"
    return f"the catalog ({held}) has {len(known)} ({listed}), {nearest}"


def _closest(given: str, known: list[str], n: int = 3) -> list[str]:
    """The ``n`` ids of ``known`` closest to ``given``: those holding each of its words, shortest
    first (sr665 for lenovo_sr665_v3, which difflib finds too far from it), then difflib's."""
    words = [w for w in re.split(r"[\W_]+", given.lower()) if w]
    holding = sorted((k for k in known if words and all(w in k.lower() for w in words)), key=len)
    alike = difflib.get_close_matches(given, known, n=n)
    return list(dict.fromkeys(holding + alike))[:n]


# the catalog a scenario's body is being built against (``building``, set by model.scenario while
# it builds one): a body's checks that need a part's figures to tell a mistake in the order it is
# made read it (a drive in a bay its shelf does not have, before the layout's arithmetic that the
# extra drive broke); None where a body is built with no catalog in view
_BUILDING: ContextVar[Catalog | None] = ContextVar("building", default=None)


@contextlib.contextmanager
def building(catalog: Catalog) -> Iterator[None]:
    """Build a scenario's body with ``catalog`` in view of its checks (``being_built``)."""
    token = _BUILDING.set(catalog)
    try:
        yield
    finally:
        _BUILDING.reset(token)


def being_built() -> Catalog | None:
    """The catalog the body being built names its parts from, or None (``building``)."""
    return _BUILDING.get()


def _load_category(
    category: str, cls: type[Part], cpus: dict[str, Part] | None = None
) -> dict[str, Part]:
    path = paths.HARDWARE / f"{category}.yaml"
    where = paths.shown(path)
    if not path.exists():
        return {}
    data = yamlio.safe_load(yamlio.read_text(path, where), where) or {}
    if not isinstance(data, dict):
        raise UserError(where, None, "must be a mapping from part id to its parameters")
    if category == "hosts":
        data = {pid: with_cpu(spec, cpus or {}, where, str(pid)) for pid, spec in data.items()}
    return {str(pid): build_part(category, spec, where, str(pid)) for pid, spec in data.items()}


def build_part(category: str, spec: object, where: str, at: str) -> Part:
    """The part ``spec`` of ``category``, at key ``at`` of ``where``; one listed under the wrong
    category is told so, where another category fits it whole (``_category_of``: an NVMe drive
    under disks: had been refused as "host_bus: unknown key", the parts audit)."""
    if isinstance(spec, dict):
        unknown = sorted(set(spec) - _keys(CATEGORIES[category]))
        other = _category_of(spec) if len(unknown) >= FOREIGN_KEYS else None
        if other is not None:
            raise UserError(
                where,
                at,
                f"{', '.join(unknown)} are keys of {other} parts, not of {category}: "
                f"list it under {other}:",
            )
    return build_dataclass(CATEGORIES[category], spec, where, at)


# the keys foreign to its category a part must have to be told to list itself under another: one
# is as likely a key typed wrong, which the unknown-key line, listing what is allowed, tells (a
# link's rate_Gbps for capacity_Gbps, with the link's name and sources, has all a NIC's keys but
# host_bus; a link's lanes or kind, all a bus's)
FOREIGN_KEYS = 2


def _category_of(spec: dict) -> str | None:
    """The category whose parts have every key of ``spec`` and whose required keys it has all
    of; None where none does."""
    return next(
        (
            category
            for category, cls in CATEGORIES.items()
            if set(spec) <= _keys(cls) and _required(cls) <= set(spec)
        ),
        None,
    )


def _keys(cls: type[Part]) -> set[str]:
    return {f.name for f in dataclasses.fields(cls) if f.init}


def _required(cls: type[Part]) -> set[str]:
    return {
        f.name
        for f in dataclasses.fields(cls)
        if f.init and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    }


# the host figures its processor (``Host.cpu``) gives
CPU_KEYS = (
    "cores_per_cpu",
    "threads_per_core",
    "clock_GHz",
    "copy_rate_MBps",
    "memory_type",
    "memory_bandwidth_MBps",
)


def with_cpu(
    spec: object, cpus: dict[str, Part], where: str, at: str, users: bool = False
) -> object:
    """A host's parameters with what its ``cpu`` (a part of data/hardware/cpus.yaml, or of the
    user's where ``users``) gives and the host leaves out: cores a CPU, threads a core, clock (the
    base clock), one core's copy rate, memory type, and the memory bandwidth of its sockets; each
    with the CPU entry's source."""
    if not isinstance(spec, dict) or spec.get("cpu") is None:
        return spec
    name = spec["cpu"]
    if not isinstance(name, str) or name not in cpus:
        offered = ids_offered(name, sorted(cpus), ("cpus",), users)
        raise UserError(where, f"{at}.cpu", f"names no cpu; {offered}")
    cpu: Cpu = cpus[name]
    entry = f"data/hardware/cpus.yaml {name}"

    def source(key: str) -> str:  # the CPU entry's own, then where it comes from
        return f"{cpu.sources.get(key, '')} ({entry})"

    given = {
        "cores_per_cpu": (cpu.cores, source("cores")),
        "threads_per_core": (cpu.threads_per_core, source("threads_per_core")),
        "clock_GHz": (cpu.base_clock_GHz, source("base_clock_GHz")),
        "copy_rate_MBps": (cpu.copy_rate_MBps, source("copy_rate_MBps")),
        "memory_type": (f"{cpu.memory_type}-{cpu.memory_MTps:g}", ""),
    }
    if isinstance(spec.get("cpus"), int):
        given["memory_bandwidth_MBps"] = (
            spec["cpus"] * cpu.peak_memory_MBps,
            f"{spec['cpus']} socket(s) x {cpu.memory_channels} channels x "
            f"{cpu.memory_MTps:g} MT/s x 8 B; " + source("memory_channels"),
        )
    out = dict(spec)
    sources = dict(out.get("sources") or {})
    for key, (value, source) in given.items():
        if key not in out:
            out[key] = value
            if source:
                sources.setdefault(key, source)
    out["sources"] = sources
    return out


def _check_lane_encoding(part: Part, key: str, bus: Bus, where: str, pid: str) -> None:
    """An NVMe drive's bus is PCIe 3.0+, a SATA drive's an 8b/10b serial link, a SAS drive's and
    a shelf's lanes 8b/10b or 24G SAS's 128b/150b (``_SERIAL_ENCODING``)."""
    if isinstance(part, Ssd):
        wanted = _SERIAL_ENCODING[part.interface]
    elif isinstance(part, (Expander, Enclosure)):
        wanted = _SAS_ENCODINGS
    else:
        return
    if bus.kind != "serial" or bus.encoding not in wanted:
        raise UserError(where, f"{pid}.{key}", f"must name {_LINK_WORDS[wanted]}, got {bus.name!r}")


def check_references(
    catalog: Catalog, table: dict[str, Part], where: str, prefix: str = ""
) -> None:
    """Every bus, controller and NIC a part names is in ``catalog``; a key is named as the file
    names it (``prefix``: a scenario's ``parts.CATEGORY.``)."""
    for pid, part in table.items():
        pid = f"{prefix}{pid}"
        for key in ("host_bus", "channel_bus", "lane_bus", "host_lane_bus", "drive_lane_bus"):
            if hasattr(part, key):
                bus = catalog.get("buses", getattr(part, key), where, f"{pid}.{key}")
                _check_lane_encoding(part, key, bus, where, pid)
        if getattr(part, "bridged_bus", None) is not None:
            bridged = catalog.get("buses", part.bridged_bus, where, f"{pid}.bridged_bus")
            if not bridged.multidrop:
                raise UserError(
                    where,
                    f"{pid}.bridged_bus",
                    "must name a PCI or PCI-X bus (the segment below the bridge), "
                    f"got {bridged.name!r}",
                )
        if isinstance(part, Nic) and part.form_factor == "ocp":
            own = catalog.get("buses", part.host_bus, where, f"{pid}.host_bus")
            if own.protocol != "pcie":  # an OCP NIC 3.0 module's edge carries PCI Express lanes
                raise UserError(
                    where,
                    f"{pid}.form_factor",
                    "ocp is an OCP NIC 3.0 module, whose host interface is PCI Express, and "
                    f"host_bus is {part.host_bus} ({own.name}): a PCI Express host_bus, or "
                    "form_factor card",
                )
        if isinstance(part, Host):
            for i, slot in enumerate(part.buses):
                catalog.get("buses", slot.bus, where, f"{pid}.buses[{i}].bus")
            for i, slot in enumerate(part.ocp_slots):
                bus = catalog.get("buses", slot.bus, where, f"{pid}.ocp_slots[{i}].bus")
                if bus.protocol != "pcie":  # an OCP NIC 3.0 connector carries PCI Express lanes
                    raise UserError(
                        where,
                        f"{pid}.ocp_slots[{i}].bus",
                        "must name a PCI Express link (an OCP NIC 3.0 slot carries up to 16 "
                        f"PCI Express lanes: pcie4_x16, pcie5_x8), got {slot.bus} ({bus.name})",
                    )
            for i, c in enumerate(part.controllers):
                catalog.get("controllers", c, where, f"{pid}.controllers[{i}]")
            for i, n in enumerate(part.nics):
                catalog.get("nics", n, where, f"{pid}.nics[{i}]")
            nic_links.check_nic_slots(catalog, part, where, f"{pid}.nics")


@functools.cache
def load() -> Catalog:
    """The whole catalog, loaded once per process; cross references checked.

    A process whose catalog files, and the code that reads and checks them, are those an earlier
    process loaded takes that one's result back from a file (``_cache_file``) instead of parsing and
    checking the same bytes again: a papermill sweep starts a kernel for each point, and the files
    took 30 ms of each. Any change to a file or to that code names another file, built afresh."""
    cache = _cache_file()
    try:
        with open(cache, "rb") as f:
            found = pickle.load(f)
        if isinstance(found, Catalog):
            return found
    except Exception:  # none yet, cut short, or unreadable: built and checked again
        pass
    catalog = _load_and_check()
    _keep(cache, catalog)
    return catalog


# The modules that read and check the catalog's files: a change to one invalidates a kept catalog.
_LOADED_BY = (
    "catalog.py",
    "nic_links.py",  # its checks of a host's NIC slots run as the catalog loads
    "parts.py",
    "schema.py",
    "unknowns.py",
    "units.py",  # a refused number's words (model.schema)
    "yamlio.py",
    "errors.py",
    "paths.py",
)
_KEPT_IN = Path(__file__).parent / "__pycache__"  # beside the package's bytecode


def _cache_file() -> Path:
    """Where a catalog loaded from the current files by the current code is kept: in ``_KEPT_IN``,
    named by a hash of Python's and PyYAML's versions, the project's and the
    catalog's folders (messages name the files relative to the project), each category's file and
    the modules of ``_LOADED_BY``."""
    package = Path(__file__).parent
    folders = f"{paths.PROJECT_ROOT}\0{paths.HARDWARE.resolve()}"
    digest = hashlib.sha256(f"{sys.version}\0{yaml.__version__}\0{folders}".encode())
    for category in CATEGORIES:
        file = paths.HARDWARE / f"{category}.yaml"
        digest.update(f"\0{category}\0".encode() + (file.read_bytes() if file.exists() else b""))
    for name in _LOADED_BY:
        digest.update(f"\0{name}\0".encode() + (package / name).read_bytes())
    return _KEPT_IN / f"catalog-{digest.hexdigest()[:16]}.pickle"


def _keep(file: Path, catalog: Catalog) -> None:
    """Write ``catalog`` to ``file`` whole or not at all (written beside, then renamed), removing
    the catalogs other files or code left; where the folder cannot be written nothing is kept."""
    partial = None
    try:
        file.parent.mkdir(exist_ok=True)
        for old in file.parent.glob("catalog-*.pickle"):
            old.unlink(missing_ok=True)
        with tempfile.NamedTemporaryFile(dir=file.parent, prefix=".catalog-", delete=False) as f:
            partial = Path(f.name)
            pickle.dump(catalog, f, pickle.HIGHEST_PROTOCOL)
        partial.chmod(0o644)  # as a .pyc beside it: another user of the checkout reads it too
        os.replace(partial, file)
    except OSError:
        if partial is not None:
            partial.unlink(missing_ok=True)


def _load_and_check() -> Catalog:
    cpus = _load_category("cpus", Cpu)  # a host may name its processor
    parts = {
        category: cpus if category == "cpus" else _load_category(category, cls, cpus)
        for category, cls in CATEGORIES.items()
    }
    catalog = Catalog(parts)
    for category, table in parts.items():
        check_references(catalog, table, paths.shown(paths.HARDWARE / f"{category}.yaml"))
    return catalog
