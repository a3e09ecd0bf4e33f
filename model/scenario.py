"""Scenarios: hardware plus workload, loaded from YAML into validated, frozen dataclasses.

A scenario file names its ``model`` (which builder simulates it), the parts it uses (ids from the
hardware catalog) and its workload. ``variants`` are named sets of overrides for the
configurations one experiment compares (RAID against SATA, thin against distributed client);
``variant=NAME`` selects one, and ``--set dotted.key=value`` changes any key. Defaults live only in
the dataclass fields below.
"""
from __future__ import annotations

import copy
import functools
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from . import paths
from .errors import UserError
from .schema import (NonNegativeFloat, PositiveFloat, PositiveInt, allowed_keys, build_dataclass,
                     field_type)

RaidLevel = Literal["single", "raid0", "raid1", "raid5", "raid6", "raid10"]


# ----------------------------------------------------------------------------- storage


@dataclass(frozen=True)
class BusSegment:
    """One bus segment of the host (a PCI bus, a hub link) that controllers share."""

    part: str


@dataclass(frozen=True)
class ControllerSlot:
    """A controller plugged into a bus segment of the host (``bus`` names a segment).

    ``transfer`` is how the driver moves data: by DMA, or by programmed I/O when DMA is off (as on
    the IBM x330 under Red Hat 7.3). ``write_back`` is a RAID controller's cache policy.
    ``driver_cost`` names the free parameter for the host CPU this controller's driver path costs
    per byte written on this system (the Penn State report's 64-bit RAID write problem), paid by
    whoever submits the write: the writing process once it is throttled, the flusher threads before.
    """

    part: str
    bus: str
    transfer: Literal["dma", "pio"] = "dma"
    write_back: bool = False
    driver_cost: str | None = None  # a declared free parameter: host CPU (ns) its driver path costs per byte written


@dataclass(frozen=True)
class DiskSet:
    """``count`` identical drives; ``attach`` lists the ``controller.channel`` of each, in order."""

    part: str
    count: PositiveInt
    attach: tuple[str, ...]

    def check(self, where: str, key: str) -> None:
        if self.count > len(self.attach):
            raise UserError(where, f"{key}.count", f"must be at most {len(self.attach)}, the number of "
                                                   f"attach points listed in {key}.attach, got {self.count}")


@dataclass(frozen=True)
class FileSystem:
    type: Literal["raw", "ext2", "ext3", "xfs"] = "ext2"
    block_KiB: PositiveFloat = 4.0


@dataclass(frozen=True)
class Volume:
    """A block device the workload uses: drives in one or more RAID groups, optionally joined by LVM.

    ``engine`` says who keeps each group's layout: Linux md (``md``) or a hardware RAID controller
    (``controller``, whose groups are the LUNs the host sees). ``groups`` splits the drives into that
    many equal groups of ``level``; LVM joins them ``linear`` (a stream fills the first) or
    ``striped`` over ``lvm_stripes`` groups (all when omitted) in ``chunk_KiB`` stripes.
    ``group_paths`` names the bus segments that carry each group's traffic to the host, in turn
    (the SAS wires of an external array); without it, traffic takes the controller's own slot.
    ``cache_block_KiB`` is a RAID controller's cache block size.
    """

    level: RaidLevel
    disks: DiskSet
    engine: Literal["md", "controller"] = "md"
    groups: PositiveInt = 1
    lvm: Literal["none", "linear", "striped"] = "none"
    lvm_stripes: PositiveInt | None = None
    chunk_KiB: PositiveFloat = 64.0
    cache_block_KiB: PositiveFloat = 4.0
    group_paths: tuple[str, ...] = ()
    filesystem: FileSystem = field(default_factory=FileSystem)

    def check(self, where: str, key: str) -> None:
        count, groups = self.disks.count, self.groups
        if count % groups:
            raise UserError(where, f"{key}.groups", f"must divide disks.count ({count}), got {groups}")
        if groups > 1 and self.lvm == "none":
            raise UserError(where, f"{key}.lvm", "must be linear or striped to join more than one group")
        if self.lvm_stripes is not None and self.lvm_stripes > groups:
            raise UserError(where, f"{key}.lvm_stripes", f"must be at most groups ({groups}), got {self.lvm_stripes}")
        per_group = count // groups
        least = {"single": 1, "raid0": 1, "raid1": 2, "raid10": 2, "raid5": 3, "raid6": 4}[self.level]
        if per_group < least or (self.level == "single" and per_group != 1) or (
                self.level == "raid10" and per_group % 2):
            raise UserError(where, f"{key}.level", f"{self.level} cannot be built from {per_group} drives per group")


@dataclass(frozen=True)
class StorageWorkload:
    """A dd-style stream: ``streams`` processes each moving ``total_MB`` in ``request_KiB`` requests."""

    op: Literal["read", "write", "copy"]
    target: str
    total_MB: PositiveFloat
    request_KiB: PositiveFloat
    source: str | None = None
    io: Literal["buffered", "direct", "mmap"] = "buffered"
    streams: PositiveInt = 1


@dataclass(frozen=True)
class Kernel:
    """Page-cache write-back thresholds, as shares of memory (Linux 2.6.9 defaults, RHEL4)."""

    dirty_ratio_pct: PositiveFloat = 40.0  # a writer past this much dirty memory writes back itself
    dirty_background_ratio_pct: PositiveFloat = 10.0  # the flusher threads start here

    def check(self, where: str, key: str) -> None:
        if not self.dirty_background_ratio_pct <= self.dirty_ratio_pct <= 100.0:
            raise UserError(where, f"{key}.dirty_ratio_pct",
                            "must lie between dirty_background_ratio_pct and 100")


@dataclass(frozen=True)
class StorageBody:
    host: str
    buses: dict[str, BusSegment]
    controllers: dict[str, ControllerSlot]
    volumes: dict[str, Volume]
    workload: StorageWorkload
    kernel: Kernel = field(default_factory=Kernel)

    def check(self, where: str, key: str) -> None:
        for name, slot in self.controllers.items():
            if slot.bus not in self.buses:
                raise UserError(where, f"controllers.{name}.bus",
                                f"unknown bus segment {slot.bus!r}; allowed: {', '.join(self.buses)}")
        for vname, volume in self.volumes.items():
            for i, seg in enumerate(volume.group_paths):
                if seg not in self.buses:
                    raise UserError(where, f"volumes.{vname}.group_paths[{i}]",
                                    f"unknown bus segment {seg!r}; allowed: {', '.join(self.buses)}")
            for i, point in enumerate(volume.disks.attach):
                ctrl, _, channel = point.partition(".")
                if ctrl not in self.controllers or not channel.isdigit():
                    raise UserError(where, f"volumes.{vname}.disks.attach[{i}]",
                                    f"must be CONTROLLER.CHANNEL with a controller among "
                                    f"{', '.join(self.controllers)}, got {point!r}")
        w = self.workload
        for role, name in (("target", w.target), ("source", w.source)):
            if name is not None and name not in self.volumes:
                raise UserError(where, f"workload.{role}",
                                f"unknown volume {name!r}; allowed: {', '.join(self.volumes)}")
        if w.op == "copy" and w.source is None:
            raise UserError(where, "workload.source", "a copy needs the volume it reads from")


# ----------------------------------------------------------------------------- network and servers
# These describe the experiments whose models come with later issues; they validate now so that
# every measured row names a scenario that loads.


@dataclass(frozen=True)
class WanWorkload:
    protocol: Literal["bbftp", "bbcp", "tsunami", "iperf"]
    total_MB: PositiveFloat
    streams: PositiveInt = 1
    tcp_rmem_max_B: PositiveInt = 4194304
    tcp_wmem_max_B: PositiveInt = 4194304


@dataclass(frozen=True)
class WanBody:
    sender_host: str
    receiver_host: str
    nic: str
    link: str
    circuits: PositiveInt
    rtt_ms: PositiveFloat
    loss_rate: NonNegativeFloat
    workload: WanWorkload


@dataclass(frozen=True)
class DownloadWorkload:
    clients: PositiveInt
    files: PositiveInt
    file_size_kB: PositiveFloat
    dataset_files: PositiveInt


@dataclass(frozen=True)
class DownloadServer:
    workers: PositiveInt
    connections_per_worker: PositiveInt
    memory_MB: PositiveFloat
    scheduler: Literal["deadline_default", "deadline_optimized"]


@dataclass(frozen=True)
class DownloadBody:
    host: str
    controller: str
    disk: str
    disks: PositiveInt
    level: RaidLevel
    server_nic: str
    client_nic: str
    server: DownloadServer
    workload: DownloadWorkload


@dataclass(frozen=True)
class DbWorkload:
    test: Literal["baseline", "math", "indirection", "uncompressed", "ptdata", "tcp_tuned"]
    clients: PositiveInt
    read_MB: PositiveFloat


@dataclass(frozen=True)
class DbBody:
    client_mode: Literal["thin", "dist"]
    server_host: str
    client_host: str
    servers: PositiveInt
    client_machines: PositiveInt
    nic: str
    workload: DbWorkload


BODIES: dict[str, type] = {
    "storage": StorageBody, "wan_transfer": WanBody, "download_server": DownloadBody, "db_clients": DbBody,
}
HEADER_KEYS = ("name", "model", "description", "source", "seed", "variants")


@dataclass(frozen=True)
class Scenario:
    """A loaded, validated scenario: header, the model's body, and how it was configured."""

    name: str
    model: str
    description: str
    source: str
    seed: int
    body: Any
    variant: str | None = None
    overrides: tuple[str, ...] = ()
    path: str = ""


def parse_assignment(text: str, where: str) -> tuple[str, Any]:
    """``dotted.key=value`` with the value read as YAML (so 3 is an int, 1.5 a float, raid0 a string)."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise UserError(where, text, "an override must read dotted.key=value")
    try:
        value = yaml.safe_load(raw) if raw.strip() else ""
    except yaml.YAMLError:
        value = raw.strip()
    return key, value


def _assign(data: dict, body_cls: type, key: str, value: Any, where: str) -> None:
    """Set ``key`` (dotted) in the raw mapping, refusing a path the schema does not have."""
    parts = key.split(".")
    if field_type(body_cls, parts) is None:
        parent = parts[:-1]
        allowed = allowed_keys(body_cls, parent)
        hint = f"; allowed at {'.'.join(parent) or 'top level'}: {', '.join(allowed)}" if allowed else ""
        raise UserError(where, key, f"no such key in a {body_cls.__name__} scenario{hint}")
    node = data
    for depth, part in enumerate(parts[:-1]):
        if isinstance(node, list):
            node = node[int(part)]
            continue
        if part not in node and typing.get_origin(field_type(body_cls, parts[:depth])) is dict:
            raise UserError(where, key, f"no entry {part!r} under {'.'.join(parts[:depth])}; "
                                        f"allowed: {', '.join(node) or 'none'}")
        node = node.setdefault(part, {})
    if isinstance(node, list):
        node[int(parts[-1])] = value
    else:
        node[parts[-1]] = value


def read_yaml(path: Path) -> dict:
    """A YAML mapping from ``path``; missing, empty or malformed files are the user's mistake."""
    where = paths.shown(path)
    if not path.exists():
        raise UserError(where, None, "no such file")
    stat = path.stat()
    return copy.deepcopy(_parse(str(path.resolve()), stat.st_mtime_ns, stat.st_size, where))


@functools.lru_cache(maxsize=64)
def _parse(path: str, mtime_ns: int, size: int, where: str) -> dict:
    """Parse a YAML file once per version of it (sweeps load one scenario thousands of times)."""
    text = Path(path).read_text()
    if not text.strip():
        raise UserError(where, None, "the file is empty; a scenario is a YAML mapping")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" (line {mark.line + 1})" if mark else ""
        raise UserError(where, None, f"not valid YAML{at}") from None
    if not isinstance(data, dict):
        raise UserError(where, None, "must be a YAML mapping of keys to values")
    return data


def resolve(name_or_path: str | Path) -> Path:
    """A scenario name (``atlas_intellistation``) or a path to a YAML file."""
    path = Path(name_or_path)
    if path.suffix in (".yaml", ".yml") or path.exists():
        return path
    return paths.SCENARIOS / f"{name_or_path}.yaml"


def load(name_or_path: str | Path, overrides: tuple[str, ...] | list[str] = (), *,
         where_overrides: str = "--set") -> Scenario:
    """Load and validate a scenario, apply ``variant=NAME`` and ``dotted.key=value`` overrides."""
    path = resolve(name_or_path)
    where = paths.shown(path)
    raw = read_yaml(path)
    model = raw.get("model")
    if model not in BODIES:
        raise UserError(where, "model", f"must be one of {', '.join(BODIES)}, got {model!r}")
    body_cls = BODIES[model]
    variants = raw.get("variants") or {}
    if not isinstance(variants, dict):
        raise UserError(where, "variants", "must be a mapping from variant name to overrides")
    body = {k: copy.deepcopy(v) for k, v in raw.items() if k not in HEADER_KEYS}
    assignments = [parse_assignment(o, where_overrides) for o in overrides]
    chosen = None
    for key, value in assignments:
        if key == "variant":
            if value not in variants:
                raise UserError(where_overrides, "variant",
                                f"{where} has no variant {value!r}; allowed: {', '.join(variants) or 'none'}")
            chosen = value
    if chosen is not None:
        changes = variants[chosen]
        if not isinstance(changes, dict):
            raise UserError(where, f"variants.{chosen}", "must be a mapping of dotted.key: value")
        for key, value in changes.items():
            _assign(body, body_cls, str(key), copy.deepcopy(value), f"{where} variants.{chosen}")
    for key, value in assignments:
        if key != "variant":
            _assign(body, body_cls, key, value, where_overrides)
    header = {k: raw[k] for k in ("name", "description", "source") if k in raw}
    for k in ("name", "description", "source"):
        if not isinstance(header.get(k), str) or not header[k]:
            raise UserError(where, k, "missing; every scenario needs a non-empty string here")
    seed = raw.get("seed", 1)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise UserError(where, "seed", f"must be a non-negative integer, got {seed!r}")
    built = build_dataclass(body_cls, body, where)
    return Scenario(name=header["name"], model=model, description=header["description"],
                    source=header["source"], seed=seed, body=built, variant=chosen,
                    overrides=tuple(overrides), path=where)


def variants_of(name_or_path: str | Path) -> list[str]:
    """The variant names a scenario file declares."""
    return list((read_yaml(resolve(name_or_path)).get("variants") or {}))

