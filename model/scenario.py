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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from . import paths, yamlio
from .errors import UserError
from .schema import (
    NonNegativeFloat,
    PositiveFloat,
    PositiveInt,
    allowed_keys,
    build_dataclass,
    field_type,
)

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
    the IBM x330 under Red Hat 7.3). ``channel_mode`` is the transfer mode the driver programmed on
    the controller's drive channels when it is not the controller's fastest (a ``channel`` bus of
    the catalog, no faster than the controller's ``channel_bus``): Linux's ServerWorks driver never
    enables Ultra DMA for disks on the OSB4, so they run at multiword DMA mode 2.
    ``write_back`` is a RAID controller's cache policy.
    ``mirror_reads`` is how it picks a mirror's copy for a read: ``balanced``, the drive with fewer
    commands pending and then the nearer head (what RAID vendors document), or ``primary``, always
    the first drive.
    ``driver_cost`` names the free parameter for the host CPU this controller's driver path costs
    per byte written on this system (the Penn State report's 64-bit RAID write problem), paid by
    whoever submits the write: the writing process once it is throttled, the flusher threads before.
    """

    part: str
    bus: str
    transfer: Literal["dma", "pio"] = "dma"
    channel_mode: str | None = None  # a catalog bus of kind channel: the mode the driver set
    write_back: bool = False
    mirror_reads: Literal["balanced", "primary"] = "balanced"
    driver_cost: str | None = (
        None  # a declared free parameter: host CPU (ns) its driver path costs per byte written
    )


@dataclass(frozen=True)
class DiskSet:
    """``count`` identical drives; ``attach`` lists the ``controller.channel`` of each, in order."""

    part: str
    count: PositiveInt
    attach: tuple[str, ...]

    def check(self, where: str, key: str) -> None:
        if self.count > len(self.attach):
            raise UserError(
                where,
                f"{key}.count",
                f"must be at most {len(self.attach)}, the number of "
                f"attach points listed in {key}.attach, got {self.count}",
            )


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
            raise UserError(
                where, f"{key}.groups", f"must divide disks.count ({count}), got {groups}"
            )
        if groups > 1 and self.lvm == "none":
            raise UserError(
                where, f"{key}.lvm", "must be linear or striped to join more than one group"
            )
        if self.lvm_stripes is not None and self.lvm_stripes > groups:
            raise UserError(
                where,
                f"{key}.lvm_stripes",
                f"must be at most groups ({groups}), got {self.lvm_stripes}",
            )
        per_group = count // groups
        least = {"single": 1, "raid0": 1, "raid1": 2, "raid10": 2, "raid5": 3, "raid6": 4}[
            self.level
        ]
        if (
            per_group < least
            or (self.level == "single" and per_group != 1)
            or (self.level == "raid10" and per_group % 2)
        ):
            raise UserError(
                where,
                f"{key}.level",
                f"{self.level} cannot be built from {per_group} drives per group",
            )


@dataclass(frozen=True)
class StorageWorkload:
    """A dd-style stream: ``streams`` processes each moving ``total_MB`` in ``request_KiB`` requests.

    ``io: mmap`` is the LDM queue test instead: one program maps the target file and reads it front
    to back while writing it back to front (``model.storage.mmap``).
    """

    op: Literal["read", "write", "copy"]
    target: str
    total_MB: PositiveFloat
    request_KiB: PositiveFloat
    source: str | None = None
    io: Literal["buffered", "direct", "mmap"] = "buffered"
    streams: PositiveInt = 1
    runs: PositiveInt = 1  # the test repeated back to back; the figure is their mean


@dataclass(frozen=True)
class Kernel:
    """Page-cache write-back thresholds, as shares of memory (Linux 2.6.9 defaults, RHEL4)."""

    dirty_ratio_pct: PositiveFloat = 40.0  # a writer past this much dirty memory writes back itself
    dirty_background_ratio_pct: PositiveFloat = 10.0  # the flusher threads start here

    def check(self, where: str, key: str) -> None:
        if not self.dirty_background_ratio_pct <= self.dirty_ratio_pct <= 100.0:
            raise UserError(
                where,
                f"{key}.dirty_ratio_pct",
                "must lie between dirty_background_ratio_pct and 100",
            )


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
                raise UserError(
                    where,
                    f"controllers.{name}.bus",
                    f"unknown bus segment {slot.bus!r}; allowed: {', '.join(self.buses)}",
                )
        for vname, volume in self.volumes.items():
            for i, seg in enumerate(volume.group_paths):
                if seg not in self.buses:
                    raise UserError(
                        where,
                        f"volumes.{vname}.group_paths[{i}]",
                        f"unknown bus segment {seg!r}; allowed: {', '.join(self.buses)}",
                    )
            for i, point in enumerate(volume.disks.attach):
                ctrl, _, channel = point.partition(".")
                if ctrl not in self.controllers or not channel.isdigit():
                    raise UserError(
                        where,
                        f"volumes.{vname}.disks.attach[{i}]",
                        f"must be CONTROLLER.CHANNEL with a controller among "
                        f"{', '.join(self.controllers)}, got {point!r}",
                    )
        w = self.workload
        for role, name in (("target", w.target), ("source", w.source)):
            if name is not None and name not in self.volumes:
                raise UserError(
                    where,
                    f"workload.{role}",
                    f"unknown volume {name!r}; allowed: {', '.join(self.volumes)}",
                )
        if w.op == "copy" and w.source is None:
            raise UserError(where, "workload.source", "a copy needs the volume it reads from")


# ----------------------------------------------------------------------------- network and servers


# CPU cycles a host spends per Ethernet frame it sends or receives, besides the copy to or from user
# space: interrupt, driver, IP and TCP/UDP, socket buffers. From the "1 GHz per 1 Gb/s" rule of thumb
# for the Linux 2.4 TCP stack (Foong, Huff, Hum, Patwardhan and Regnier, "TCP performance
# re-visited", IEEE ISPASS 2003): 8 cycles per payload byte; less one copy (about 1.5 cycles a byte
# on a 2 GHz Xeon) and spread over the 1.5 frames of each 1448-byte segment (it and half an ACK).
NET_CYCLES_PER_FRAME = 6300.0


@dataclass(frozen=True)
class TcpSettings:
    """The Linux TCP sysctls of both hosts, as ``sysctl -w`` sets them (slide 34 of the ATLAS report).

    ``tcp_rmem_B``/``tcp_wmem_B`` are the three numbers min, default, max of ``net.ipv4.tcp_rmem`` and
    ``tcp_wmem``; ``tcp_mem_pages`` those of ``net.ipv4.tcp_mem`` (low, pressure, high, in pages);
    ``core_*`` the ``net.core`` defaults and caps. A buffer the kernel chooses starts at the default
    and may grow to the max; a buffer the application asks for (``workload.socket_buffer_B``) is
    capped at ``core_*mem_max`` and doubled, as Linux does. ``tcp_adv_win_scale`` (Linux default 2)
    keeps 1/2^scale of a receive buffer for overhead, the rest is window.
    ``initial_window_segments`` is the first congestion window (RFC 3390: 3 segments at MSS 1448).
    """

    tcp_rmem_B: tuple[PositiveInt, ...] = (4096, 87380, 174760)
    tcp_wmem_B: tuple[PositiveInt, ...] = (4096, 16384, 131072)
    tcp_mem_pages: tuple[PositiveInt, ...] = (195584, 196096, 196608)
    core_rmem_default_B: PositiveInt = 65535
    core_rmem_max_B: PositiveInt = 131071
    core_wmem_default_B: PositiveInt = 65535
    core_wmem_max_B: PositiveInt = 131071
    tcp_adv_win_scale: PositiveInt = 2
    initial_window_segments: PositiveInt = 3
    page_B: PositiveInt = 4096

    def check(self, where: str, key: str) -> None:
        for name in ("tcp_rmem_B", "tcp_wmem_B", "tcp_mem_pages"):
            low_default_high = getattr(self, name)
            dotted = f"{key}.{name}" if key else name
            if (
                len(low_default_high) != 3
                or not low_default_high[0] <= low_default_high[1] <= low_default_high[2]
            ):
                raise UserError(
                    where,
                    dotted,
                    f"must be three integers min <= default <= max, "
                    f"as sysctl prints them, got {list(low_default_high)}",
                )


@dataclass(frozen=True)
class WanWorkload:
    """What crosses the path: ``total_MB`` split evenly over ``sessions`` transfers run side by side.

    A TCP session (bbftp, bbcp, iperf) opens ``streams`` parallel TCP connections; ``socket_buffer_B``
    is the buffer the tool asks for with setsockopt (bbftp/bbcp/iperf -w); unset, the kernel's
    tcp_rmem/tcp_wmem apply. A Tsunami session is one UDP flow sent at ``rate_Mbps`` in
    ``block_B`` blocks (Tsunami's defaults, client/config.c of the Indiana University release:
    650 Mb/s, 32768 B), retransmitting what is lost. ``source``/``sink`` ``disk`` read and write the
    scenario's sender and receiver storage, ``memory`` does not (iperf, /dev/zero, /dev/null).
    """

    protocol: Literal["bbftp", "bbcp", "tsunami", "iperf"]
    total_MB: PositiveFloat
    streams: PositiveInt = 1
    sessions: PositiveInt = 1
    socket_buffer_B: PositiveInt | None = None
    rate_Mbps: PositiveFloat = 650.0
    block_B: PositiveInt = 32768
    source: Literal["disk", "memory"] = "disk"
    sink: Literal["disk", "memory"] = "disk"

    def check(self, where: str, key: str) -> None:
        if self.protocol == "iperf" and (self.source, self.sink) != ("memory", "memory"):
            raise UserError(
                where,
                f"{key}.source",
                "iperf moves memory to memory; set source and sink to memory",
            )
        if self.protocol == "tsunami" and self.streams != 1:
            raise UserError(
                where, f"{key}.streams", "a Tsunami session is one UDP flow; use sessions for more"
            )


@dataclass(frozen=True)
class WanBody:
    """Two hosts joined by ``circuits`` WAN circuits (each a ``link`` of the catalog), one NIC per circuit.

    With ``bonding: hash`` (802.3ad/LACP, balance-xor) each flow is hashed onto one member, so one
    flow never exceeds one circuit; ``round_robin`` (balance-rr) sprays every flow over all members.
    ``irq_affinity`` is where the NICs' interrupts run: ``cpu0`` (the 2.4 kernel's default, slide 33
    of the report) or ``spread`` over all cores. ``sender_storage``/``receiver_storage`` name storage
    scenarios (``data/scenarios/``) whose volume the transfer reads and writes.
    """

    sender_host: str
    receiver_host: str
    nic: str
    link: str
    circuits: PositiveInt
    rtt_ms: PositiveFloat
    loss_rate: NonNegativeFloat
    workload: WanWorkload
    mtu_B: PositiveInt = 1500
    bonding: Literal["hash", "round_robin"] = "hash"
    irq_affinity: Literal["cpu0", "spread"] = "cpu0"
    sender_storage: str | None = None
    receiver_storage: str | None = None
    tcp: TcpSettings = field(default_factory=TcpSettings)
    net_cycles_per_frame: PositiveFloat = NET_CYCLES_PER_FRAME

    def check(self, where: str, key: str) -> None:
        if self.loss_rate >= 1.0:
            raise UserError(
                where,
                "loss_rate",
                f"must be below 1 (a share of packets lost), got {self.loss_rate}",
            )
        if self.mtu_B < 576 or self.mtu_B > 65535:
            raise UserError(
                where, "mtu_B", f"must lie between 576 and 65535 bytes, got {self.mtu_B}"
            )
        for side, name in (("source", "sender_storage"), ("sink", "receiver_storage")):
            if getattr(self.workload, side) == "disk" and getattr(self, name) is None:
                raise UserError(
                    where,
                    name,
                    f"workload.{side} is disk: name the storage scenario it uses, "
                    f"or set workload.{side}: memory",
                )


@dataclass(frozen=True)
class DownloadWorkload:
    """``clients`` clients fetch ``files`` random data files (``file_size_kB`` KiB each) and their md5
    files, one pair at a time, from a data set of ``dataset_files`` in directories of
    ``files_per_directory``. The report's "2050kB" is read as KiB: 2502 x 2050 KiB = 5009 MiB, its
    "5009 MB downloaded each time". Each client checks a data file against its md5 file before it asks
    for the next pair ("md5 file for comparison (done on the client)") at ``client_md5_MBps``."""

    clients: PositiveInt
    files: PositiveInt
    file_size_kB: PositiveFloat
    dataset_files: PositiveInt
    files_per_directory: PositiveInt = 2048
    # estimated: md5sum of a cached 2 GB file took 4.3 s user and 0.9 s system on a 2012 desktop
    # (B. Foltz, "How fast is MD5?", 2014, https://brandonfoltz.com/2014/09/how-fast-is-md5): 400 MB/s
    client_md5_MBps: PositiveFloat = 400.0


@dataclass(frozen=True)
class DownloadServer:
    workers: PositiveInt
    connections_per_worker: PositiveInt
    memory_MB: PositiveFloat
    scheduler: Literal["deadline_default", "deadline_optimized"]
    read_ahead_KiB: PositiveFloat | None = (
        None  # None: 128 KiB by default, the calibrated window tuned
    )
    # per_file: each file on a new TCP connection, whose send buffer opens with its congestion window;
    # keep_alive: the clients reuse a connection whose buffer has grown to take a whole file
    connections: Literal["per_file", "keep_alive"] = "per_file"
    initial_window_segments: PositiveInt = (
        3  # Linux before 2.6.39 (RFC 3390 at MSS 1448); 10 from 2.6.39
    )


@dataclass(frozen=True)
class DownloadBody:
    host: str
    controller: str
    disk: str
    disks: PositiveInt
    level: RaidLevel
    chunk_KiB: PositiveInt
    server_nic: str
    client_nic: str
    server: DownloadServer
    workload: DownloadWorkload
    # commands the controller keeps at each drive, which serves the nearest first (1: in arrival order)
    drive_queue_depth: PositiveInt = 1


@dataclass(frozen=True)
class DbWorkload:
    """``clients`` client processes (one per client machine) each making ``reads_per_client`` reads at once.

    A read returns ``read_MB`` of evaluated data (``values_per_read`` values). The tests of the
    MDSplus report: ``baseline`` (a numeric node), ``math`` (sin+cos+tan of the data in the node's
    expression), ``indirection`` (``indirection_levels`` node references before the data),
    ``uncompressed`` (the client turns compression off), ``ptdata`` (the node calls ptdata2(), data
    from the PTDATA server), ``tcp_tuned`` (larger TCP buffers on every host: ``DbBody.tcp_tuned``).
    """

    test: Literal["baseline", "math", "indirection", "uncompressed", "ptdata", "tcp_tuned"]
    clients: PositiveInt
    read_MB: PositiveFloat
    values_per_read: PositiveInt = 2000000
    reads_per_client: PositiveInt = 1
    indirection_levels: PositiveInt = 9
    reference_record_B: PositiveInt = 64


@dataclass(frozen=True)
class DbBody:
    """MDSplus data servers and their clients on one LAN.

    ``thin``: every client connects to one MDSplus server, whose server process evaluates, decompresses
    and returns the result. ``dist``: the client fetches the compressed records from the
    ``tree_servers`` that hold the tree (reads spread over them), then decompresses and evaluates
    itself. PTDATA lives on its own server (one of ``servers``). ``compression_ratio`` is the stored
    size's divisor; ``lan_rtt_ms`` the round trip between any two hosts.
    """

    client_mode: Literal["thin", "dist"]
    server_host: str
    client_host: str
    servers: PositiveInt
    client_machines: PositiveInt
    nic: str
    workload: DbWorkload
    compression_ratio: PositiveFloat = (
        1.3  # estimated: delta and bit packing of digitised signals stored as floats
    )
    # estimated: MDSplus's expander unpacks each 4-byte value from its delta bit field with a few
    # dozen integer operations, about 40 cycles a value
    decompress_cycles_per_byte: PositiveFloat = 10.0
    net_cycles_per_frame: PositiveFloat = NET_CYCLES_PER_FRAME
    lan_rtt_ms: PositiveFloat = 0.2
    mtu_B: PositiveInt = 1500
    tree_servers: PositiveInt = 1
    tcp: TcpSettings = field(default_factory=TcpSettings)
    tcp_tuned: TcpSettings = field(
        default_factory=lambda: TcpSettings(
            tcp_rmem_B=(4096, 87380, 16777216),
            tcp_wmem_B=(4096, 65536, 16777216),
            tcp_mem_pages=(786432, 1048576, 1572864),
            core_rmem_default_B=262144,
            core_rmem_max_B=16777216,
            core_wmem_default_B=262144,
            core_wmem_max_B=16777216,
        )
    )

    def check(self, where: str, key: str) -> None:
        if self.workload.clients > self.client_machines:
            raise UserError(
                where,
                "workload.clients",
                f"must be at most client_machines ({self.client_machines}): "
                f"one client process per machine, got {self.workload.clients}",
            )
        if self.tree_servers > self.servers:
            raise UserError(
                where,
                "tree_servers",
                f"must be at most servers ({self.servers}), got {self.tree_servers}",
            )
        if self.workload.test == "ptdata" and self.servers < 2:
            raise UserError(
                where,
                "servers",
                "the ptdata test needs a PTDATA server beside the MDSplus server: at least 2",
            )
        if self.compression_ratio < 1.0:
            raise UserError(
                where,
                "compression_ratio",
                f"must be at least 1 (stored size divides by it), got {self.compression_ratio}",
            )


@dataclass(frozen=True)
class IngestBody:
    """Acquisition servers writing images over CIFS into the store of a storage scenario (003).

    ``storage`` names that scenario and ``storage_overrides`` configure it (``variant=NAME``,
    ``dotted.key=value``); each client writes one stream. ``hashing`` spreads the clients over the
    storage host's bond: ``balanced`` (client i on member i mod members), ``collide`` (all on one)
    or ``seeded`` (drawn from the scenario's seed)."""

    storage: str
    storage_overrides: tuple[str, ...] = ()
    clients: PositiveInt = 8
    hashing: Literal["balanced", "collide", "seeded"] = "balanced"
    client_nic: str = "nic_10gbe"
    link: str = "lan_10gbe"
    irq_affinity: Literal["cpu0", "spread"] = "spread"
    file_KiB: PositiveFloat = 612.0
    smb_write_KiB: PositiveFloat = 64.0
    microscope_TBph: PositiveFloat = 3.0


BODIES: dict[str, type] = {
    "storage": StorageBody,
    "wan_transfer": WanBody,
    "download_server": DownloadBody,
    "db_clients": DbBody,
    "ingest": IngestBody,
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
    set_by: tuple[
        tuple[str, str], ...
    ] = ()  # (dotted key, where its value came from) for each key not from the file

    def where(self, key: str) -> str:
        """Where the value at ``key`` (or the mapping that holds it) was set: an override, a variant or the file."""
        found = self.path
        for set_key, where in self.set_by:  # later ones win, as they were applied
            if key == set_key or key.startswith(set_key + "."):
                found = where
        return found

    def relocated(self, exc: UserError) -> UserError:
        """``exc``, blamed on the file, re-told where its key was set (an override or a variant)."""
        if exc.where != self.path or not exc.key or self.where(exc.key) == self.path:
            return exc
        return UserError(self.where(exc.key), exc.key, exc.message)


def parse_assignment(text: str, where: str) -> tuple[str, Any]:
    """``dotted.key=value`` with the value read as YAML (so 3 is an int, 1.5 a float, raid0 a string)."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise UserError(where, text, "an override must read dotted.key=value")
    try:
        value = yamlio.safe_load(raw) if raw.strip() else ""
    except yamlio.YAMLError:
        value = raw.strip()
    return key, value


def _assign(data: dict, body_cls: type, key: str, value: Any, where: str) -> None:
    """Set ``key`` (dotted) in the raw mapping, refusing a path the schema does not have."""
    parts = key.split(".")
    if field_type(body_cls, parts) is None:
        parent = parts[:-1]
        allowed = allowed_keys(body_cls, parent)
        hint = (
            f"; allowed at {'.'.join(parent) or 'top level'}: {', '.join(allowed)}"
            if allowed
            else ""
        )
        raise UserError(where, key, f"no such key in a {body_cls.__name__} scenario{hint}")
    node = data
    for depth, part in enumerate(parts[:-1]):
        if isinstance(node, list):
            node = node[int(part)]
            continue
        if part not in node and typing.get_origin(field_type(body_cls, parts[:depth])) is dict:
            raise UserError(
                where,
                key,
                f"no entry {part!r} under {'.'.join(parts[:depth])}; "
                f"allowed: {', '.join(node) or 'none'}",
            )
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
    text = yamlio.read_text(Path(path), where)
    if not text.strip():
        raise UserError(where, None, "the file is empty; a scenario is a YAML mapping")
    try:
        data = yamlio.safe_load(text, where)
    except yamlio.YAMLError as exc:
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


def load(
    name_or_path: str | Path,
    overrides: tuple[str, ...] | list[str] = (),
    *,
    where_overrides: str = "--set",
) -> Scenario:
    """Load and validate a scenario; apply ``variant=NAME``, ``seed=N``, ``key=value`` overrides."""
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
                raise UserError(
                    where_overrides,
                    "variant",
                    f"{where} has no variant {value!r}; allowed: {', '.join(variants) or 'none'}",
                )
            chosen = value
    set_by: list[tuple[str, str]] = []
    if chosen is not None:
        changes = variants[chosen]
        if not isinstance(changes, dict):
            raise UserError(where, f"variants.{chosen}", "must be a mapping of dotted.key: value")
        for key, value in changes.items():
            _assign(body, body_cls, str(key), copy.deepcopy(value), f"{where} variants.{chosen}")
            set_by.append((str(key), f"{where} variants.{chosen}"))
    for key, value in assignments:
        if key not in ("variant", "seed"):
            _assign(body, body_cls, key, value, where_overrides)
            set_by.append((key, where_overrides))
    header = {k: raw[k] for k in ("name", "description", "source") if k in raw}
    for k in ("name", "description", "source"):
        if not isinstance(header.get(k), str) or not header[k]:
            raise UserError(where, k, "missing; every scenario needs a non-empty string here")
    seed, seed_where = raw.get("seed", 1), where
    for key, value in assignments:  # seed=N overrides the header's seed
        if key == "seed":
            seed, seed_where = value, where_overrides
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise UserError(seed_where, "seed", f"must be a non-negative integer, got {seed!r}")
    unbuilt = Scenario(
        name=header["name"],
        model=model,
        description=header["description"],
        source=header["source"],
        seed=seed,
        body=None,
        variant=chosen,
        overrides=tuple(overrides),
        path=where,
        set_by=tuple(set_by),
    )
    try:
        built = build_dataclass(body_cls, body, where)
    except UserError as exc:  # a value an override or a variant set is reported where it was set
        raise unbuilt.relocated(exc) from None
    return replace(unbuilt, body=built)


def variants_of(name_or_path: str | Path) -> list[str]:
    """The variant names a scenario file declares."""
    return list(read_yaml(resolve(name_or_path)).get("variants") or {})
