"""The Einstein@home download server (``002_d084885fd2f4dc68.txt``): nginx over a RAID of 16 drives.

Clients fetch a data file and its md5 file, one pair after another, until the run's pairs are
done. The server side, request by request:

- Which worker takes a new connection is nginx's accept mutex (``server.accept_mutex``: on by
  default before nginx 1.11.3; https://nginx.org/en/docs/ngx_core_module.html#accept_mutex). Each
  pass of a worker's event loop (``ngx_process_events_and_timers``, src/event/ngx_event.c) tries
  it: the worker that holds it waits for connections, accepts one, lets it go and serves; a worker
  that misses it waits up to ``accept_mutex_delay`` (500 ms) before it tries again, while a busy
  worker tries again each time a turn at a connection ends. So at a few clients the worker that
  just served, back in its loop within tens of milliseconds, takes most new connections while the
  idle ones sleep out their delay, and more idle workers, trying more often, spread them more
  (measured in the table: four workers slower than eight at two to four clients). Without the
  mutex (``accept_mutex: false``, declared an unknown) every worker hears of a connection and an
  idle one takes it, else the one with the fewest connections.
- A worker serves a request with ``sendfile``; when a page it needs is not in memory yet, it sleeps
  in the kernel until the read completes, and its other connections wait with it. When the
  connection's socket is full, ``sendfile`` returns and the worker turns to its other connections
  until the socket has room again (``Socket`` of ``tests/download_reference.py``, the SimPy model
  the compiled loop is checked against).
- The report does not say how the clients fetched. The point reads HTTP/1.1's default, persistent
  connections (RFC 9112 section 9.3; nginx keeps them 75 s, and wget or curl fetching several files
  in one run reuses one): ``connections: keep_alive``, a connection whose send buffer has grown to
  ``tcp_wmem[2]`` and takes a whole file, so one ``sendfile`` runs through it and a worker serves
  files one at a time. A pair's two files share it, and each pair comes to the server as a new
  connection through the accept mutex (a client run once a pair), which the table's four workers,
  slower than eight at two to four clients, call for; a connection kept across pairs would stay with
  the worker that first took it. The other reading, a declared unknown, is a new TCP connection a
  file (``per_file``, a client started once a file): its send buffer starts at ``tcp_wmem[1]``, 16
  KiB, and grows with the congestion window as the client acknowledges what it has received
  (``model.network.tcp.send_buffer_payload_B``), so a worker can run only so far ahead of the link
  before it must leave a file for another. Taken as the point, ``per_file`` fits the table worse
  (median |error| 15.0 against 6.8 % at this version; the one-worker tuned RAID6 column slowest).
- Opening a file looks its name up in its directory's hashed index (ext3's ``dir_index``), then
  reads its inode; its data comes through the page cache in the kernel's read-ahead windows, a
  window reached starting the next one's read, and its md5 file's one page lies just after it.
  Where those reads land on the volume (``Directory``), which of them the page cache spares
  (``data_cached``; the directories' index roots, ``roots_read``: ``server.page_cache`` ``warm``,
  the point, or ``cold``, the scenario declaring both) and the windows a file is read in
  (``read_ahead_windows``, ``readahead_mark_B``) are ``model.servers.download_files``, with the
  reasons and sources.
- Each client's connection crosses its own link (``client_nic``) as well as the server's: a
  connection takes its share of the server link, or its client's link where that is less.
- Reading a file updates its access time. Under relatime, the kernel's default since 2.6.30
  (mount(8)), only when the access time is not newer than the modify time (``relatime_need_update``
  in fs/inode.c), as in a file never read since it was written: the test data set was written just
  before the runs, so a file's first read in a run dirties the inode page it read (its md5 file's
  inode is on the same page), and a read of it again does not (``access_time_writes_s``). Linux
  writes a dirty page back ``DIRTY_EXPIRE_S`` (30 s) later (a run starts with none pending, the last
  run's written while the next was set up), and the controller writes the one page: on RAID6 a
  read-modify-write (the data chunk's member and both parity members each read the old sectors and
  write them again, the head coming round once more), on RAID10 both mirrors. Nobody waits for it,
  but it takes the drives from the reads behind it. ``server.atime: noatime`` writes nothing back;
  the report does not give the mount options, so the scenario declares it an unknown. (ext3's
  journal writes the page first, in one sequential run every 5 s commit for all of them; that is
  left out.) Before this cost was modelled, the scenario read every lookup as reading its root, a
  cache that keeps no directory block, to make up for it; with it, the warm point fit the table
  better when it came (median |error| 10.0 to 9.7 %, p90 24.3 to 23.9 %) and the cold and noatime
  readings are the range.
- The RAID controller maps a window onto its member drives in chunks (``model.storage.raidmap``) of
  ``chunk_KiB``: the report does not give the volume's stripe size, so the scenario reads 64 KiB
  and declares the 4 to 128 KiB an ARC-12xx allows an unknown; a larger stripe puts a window on
  fewer drives. A RAID10 read goes to the copy ``mirror_reads`` picks (``spindle.MIRROR_READS``):
  ``balanced``, the point, the drive with fewer commands pending, the first of equals, as the
  Areca manuals document RAID1 reads ("in parallel, access both members of a mirrored pair");
  Linux 2.6 md's raid1 ``read_balance`` (``nearest``: the drive the last read went to if this one
  continues it, else the other if idle, else the nearer head) is not documented for the Areca and
  is declared an unknown. Each drive is a
  ``model.storage.spindle.Spindle``: seek, rotation, transfer, its own look-ahead cache, commands in
  arrival order. The report does not give how many commands the Areca keeps at a drive (its "HDD
  Queue Depth" setting); the scenario keeps one, and a ``drive_queue_depth`` up to the drive's (NCQ,
  32 on the Hitachi drives) is a what-if: the drives then queue commands, serving the
  nearest command first. Nor does it say whether the controller lets the drives read ahead (its
  "HDD Read Ahead Cache", enabled by default): ``drive_read_ahead: false`` is a drive that keeps
  nothing past what it was asked for, so a small window's chunks wait for their sectors.
- A worker spends ``server.request_cycles`` on each request, the data file's and the md5 file's,
  besides its bytes (parsing it, opening the file, the header, the sendfile call, the log; NGINX's
  own 1 KB test, as ``model.servers.spec`` derives it), its other connections waiting meanwhile:
  some 19 us a request at the report's estimated 2.5 GHz, nothing beside a 2 MiB file's 20 ms on
  1 GbE, but with small files from memory it is what binds. Workers computing at once beyond the
  host's cores share them (``request_s``).
- What a worker writes into a socket crosses the server's link (``server_nic``) as TCP flows,
  sharing it max-min fairly with the other connections (``model.sim.flows``); the client has a file
  when its last byte has crossed. Each response carries nginx's header (``HTTP_RESPONSE_HEADER_B``)
  and goes in whole frames, and the md5 file's bytes cross too (``pair_wire``): the link's rate is
  taken as its rate of data-file bytes, those taking their share (1 KiB files get 57 % of it).
  Sending it is work for the core(s) that take the NIC's interrupts: a socket holding more than the
  congestion window sends the rest as the client's ACKs arrive, in softirq context there
  (``model.network.hosts``), at the host's ``net_cycles_per_frame`` per frame and half an ACK a
  segment (the clients acknowledge every second segment), or with ``tcp.tso`` what a Linux 5.4
  sender measured (``model.network.tcp.tcp_frame_work_per_byte``). The link carries no more than
  those cores keep up with (``irq_affinity``: one core, or with ``spread`` and ``rss`` one a
  connection up to all): a third of one of the report's cores at its 1 GbE, so it binds nothing
  there, but one core without TSO sends some 380 MB/s, less than a 10 GbE link.
- A client computes the md5 sum of the data file it received and compares it before it asks for
  the next pair (the report: "done on the client"), and each of the pair's two files waits for its
  LAN round trips (``lan_rtt_ms``, ``round_trips_s``): its request out and its reply's first byte
  back, and with ``per_file`` its connection's handshake and the rounds its window loses to slow
  start (``slow_start_s``). A connection sends at most its window a round trip (``window_Bps``:
  half its send buffer, as Linux sizes it; 'tcp windows' in the utilisation).

The bound is the bottleneck law over every resource a pair uses: each drive (its busy time a pair),
the link (its bytes a pair), the interrupt cores' sending work, the clients' md5 checks, and the
workers' CPU (its requests' work; a worker asleep on a read uses none); and each client's own pace
where that is less (a pair sent at one connection's best, its md5 check, its round trips and its
requests' work, one after another). The interval's cap (``Result.ceiling_MBps``) is the same
law over the rated parts alone, the links, the windows and the drives, and the pace of a pair at
its links and window with its round trips: the sending work, the md5 checks and the workers'
requests are estimates of cycles (``ESTIMATED``), which a faster host or a leaner build beats.
Utilisation is each one's busy time over the run's, and one more figure, the share of the time the
volume has a read in flight (iostat's %util of the device), names what a server whose workers
sleep on reads waits for: its drives, though none is saturated.

In the report the page cache holds under 0.03% of the 4 TB data set, so nearly every read goes to
disk (``data_cached``, ``model.servers.download_files``). The tuned ("optimized") deadline
settings are not given in the report; the model reads them as a larger read-ahead window, the
calibrated free parameter ``tuned_read_ahead_KiB``: what tuning buys physically is fewer, longer
requests per file, so fewer seeks per byte. Calibrated on ``002_d084885fd2f4dc68.txt`` "Web
server tests" (with ``disk_format_efficiency`` shared with the ATLAS drives).

What the table leaves unsettled. At 2 to 9 clients the one-worker default columns measure some
150 ms a pair on RAID6 and 130 ms on RAID10; the model gives 119 and 128 ms. It does cost RAID6
more per file (a file's first stripe row lies on 14 members not yet positioned, against 8 pairs,
reached in series two read-ahead windows at a time: some 70 ms of a file's reads, against 41 ms
on RAID10 with each read kept on one copy). But under ``balanced`` mirror reads, the point, the
second half of a chunk split between two windows in flight goes to the idle copy, which must
seek: about 24 positionings a file against 12, and RAID10 comes out as slow as RAID6. So
RAID10's agreement with its column rests on ``balanced``; under ``nearest`` its column too comes
out 13 to 40 % fast. Read so, the table asks for a cost a window common to both levels at the
default read-ahead. Two candidates are left out because they would also slow the tuned
columns, already slow at 6 to 9 clients: ext3's indirect block, read in series after a file's
twelfth data block (about 9 ms a pair), and the drive's own time a command (the catalog's
``command_overhead_ms``, which ``Spindle`` does not add). And every one-worker column measures
about 50 s more at one client than at two, where the model gives some 9 s (default) and 34 s
(tuned): a cost of a client running alone that the report does not describe.

The simulation itself is an event loop compiled with numba (``model.servers.download_loop``): the
drives' arithmetic is ``Spindle``'s, and the links' max-min fair share (every connection's flow
crosses the server's link and its client's, all clients' alike) is kept as processor sharing
capped at a client's link; with the same file picks it gives the times of the SimPy model it
replaced (``tests/download_reference.py``) to within 2 % (``tests/test_download_loop.py``, with
access times off and no accept mutex, which the reference does not model). The first run of a
version of the sources compiles it (several seconds) and caches the result (``model.compiled``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..catalog import Catalog
from ..errors import NotModelled, UserError
from ..network.hosts import flow_cores
from ..network.tcp import (
    ETHERNET_OVERHEAD_B,
    mss_B,
    send_window_B,
    slow_start_growth,
    slow_start_run,
    tcp_frame_work_per_byte,
)
from ..nic_links import check_mtu, check_placed, check_rss, nic_notes, nic_rate_Bps
from ..parts import Disk, Host, Nic
from ..result import Result
from ..settings import LAN_ADV_WIN_SCALE, TcpBuffers, page_cache_B
from ..sim.rng import stream
from ..spec import ModelRecord, Scenario
from ..storage import raidmap
from ..storage.attachment import unplugged
from ..storage.front import HTTP_RESPONSE_HEADER_B
from ..storage.raid import LEVELS
from ..storage.spindle import MAX_SEGMENTS, MIRROR_READS, Spindle
from .download_files import (
    MD5_FILE_B,
    SPLICE_PAGES,
    Directory,
    data_cached,
    read_ahead_windows,
    readahead_mark_B,
    roots_read,
    whole_pages_B,
)
from .parameters import PARAMETERS
from .spec import DownloadBody

if TYPE_CHECKING:  # numpy is loaded where a run needs it
    import numpy as np

# Pairs simulated per run, at most: a longer run's time is their time scaled to its pairs (a steady
# rate; the ends of a run are a pair or two long). A pair's time varies by about a fifth (seeks and
# rotations), so a cell's throughput varies from seed to seed by 1 to 1.5 % at 300 pairs and by 0.45
# to 0.6 % at 2,000 (standard deviation over seeds 1 to 40; ``python -m model.bench`` prints it over
# seeds 1 to 5). With the compiled loop (``download_loop``) 2,000 pairs take a cell about 20 ms.
SIMULATED_PAIRS = 2000
# the utilisation entry of the clients' own pace: each client's pairs one after another, each sent
# at what one connection alone gets, then checked (its md5 sum, the next pair's round trips)
CLIENT_PACE = "clients' pace (a pair at a time)"
# the resources of the bottleneck law whose capacity is CPU work the model estimates in cycles
# (the sending work a frame, the clients' md5 rate, the workers' requests), which the interval's
# cap leaves out (``Result.ceiling_MBps``); the links, the windows and the drives are rated
ESTIMATED = SENDING, MD5_CHECKS, WORKERS = (
    "server irq (TCP sending)",
    "client md5 checks",
    "nginx workers",
)
# ...and of large files fewer: a loop's cost is its read-ahead windows, so past WINDOWS_SIMULATED
# of them (488 pairs of 256 MiB files at 128 KiB windows, some 0.7 s) a run follows what they
# hold, each client still fetching PAIRS_PER_CLIENT pairs at least, so that a run's ends, where
# fewer clients fetch, stay a fiftieth of it (a file of 512 MiB took 5.7 s a simulation; a pair's
# time varies the less the more windows it holds)
WINDOWS_SIMULATED = 1_000_000
PAIRS_PER_CLIENT = 50


def simulated_pairs(pairs: int, windows_per_pair: int, clients: int) -> int:
    """How many of a run's ``pairs`` the loop follows (at most ``SIMULATED_PAIRS``, and of large
    files what ``WINDOWS_SIMULATED`` windows hold, ``PAIRS_PER_CLIENT`` a client at least)."""
    by_windows = max(PAIRS_PER_CLIENT * clients, WINDOWS_SIMULATED // max(windows_per_pair, 1))
    return min(pairs, SIMULATED_PAIRS, by_windows)


# With nginx's accept mutex a worker that missed it tries again only accept_mutex_delay later
# (model.servers.nginx_workers), so the first delay of a run is its start: by its end each idle
# worker has tried once. A run's time is its loop's scaled to its pairs, start and all, so a loop
# whose pairs all end within WARM_UP_RUNS delays follows more of the run's pairs, in proportion
# and a fifth more, at most WARM_PAIRS (some 0.3 s of loop for pairs from memory), until the start
# is at most a tenth of it: 1 KiB files from memory on 10 GbE to 64 clients, eight workers, had
# been 2,000 pairs in 53 ms, a start's rate scaled up to a run of any length
WARM_UP_RUNS = 10
WARM_PAIRS = 300_000


def warm_up_s(body: DownloadBody) -> float:
    """How long a run's start lasts: nginx's ``accept_mutex_delay``, by when every idle worker has
    tried the mutex once; none without the mutex (off, or a single worker)."""
    mutex = body.server.accept_mutex and body.server.workers > 1
    return body.server.accept_mutex_delay_ms / 1e3 if mutex else 0.0


def longer_run(pairs: int, simulated: int, ran_s: float, warm_s: float) -> int:
    """How many of a run's ``pairs`` the loop follows so that it outlasts the start ``warm_s``
    ``WARM_UP_RUNS`` times, from a first loop of ``simulated`` pairs in ``ran_s``: ``simulated``
    where that did (or followed the whole run), else in proportion and a fifth more, at most
    ``WARM_PAIRS``."""
    if not warm_s or simulated >= pairs or ran_s >= WARM_UP_RUNS * warm_s:
        return simulated
    wanted = math.ceil(1.2 * simulated * WARM_UP_RUNS * warm_s / ran_s)
    return max(simulated, min(pairs, WARM_PAIRS, wanted))


# Linux writes a dirty page back once it is this old (vm.dirty_expire_centisecs, 3000 by default:
# Documentation/sysctl/vm.txt)
DIRTY_EXPIRE_S = 30.0


# the md5 file's bytes: md5sum's line, the sum's 32 hex digits, two spaces, the data file's name
# (48 characters, download_files.DIRENT_B's estimate) and a newline
MD5_SUM_B = 32 + 2 + 48 + 1


def pair_wire(file_B: int, mtu_B: int) -> tuple[int, int]:
    """What the server sends for a pair: (bytes on the wire, frames). Each file's response is its
    header and its bytes in whole segments, each frame with its IP, TCP and Ethernet overhead: a
    1 KiB data file and its md5 file are 1,807 bytes on the wire at MTU 1500, 76 % more than the
    data file, where the report's 2,050 KiB file and its md5 file are 0.03 % more than the data
    file in full frames."""
    mss = mss_B(mtu_B)
    frames = sum(math.ceil((HTTP_RESPONSE_HEADER_B + B) / mss) for B in (file_B, MD5_SUM_B))
    payload_B = 2 * HTTP_RESPONSE_HEADER_B + file_B + MD5_SUM_B
    return payload_B + frames * (mtu_B + ETHERNET_OVERHEAD_B - mss), frames


def data_Bps(nic_Bps: float, file_B: int, mtu_B: int) -> float:
    """The data files' bytes a second a link of ``nic_Bps`` on the wire carries, each pair's
    headers, md5 file and frames taking their share (``pair_wire``)."""
    return nic_Bps * file_B / pair_wire(file_B, mtu_B)[0]


def send_s_per_byte(body: DownloadBody, host: Host, file_B: int) -> float:
    """CPU seconds of the server's TCP sending work per data-file byte, on the core that runs it: a
    pair's frames (``pair_wire``), each a full segment's worth of per-frame work
    (``tcp_frame_work_per_byte``; the clients acknowledge every second segment, their receive
    offload not being a key), at the scenario's cycles a frame and the host's clock."""
    sent, _ = tcp_frame_work_per_byte(body.mtu_B, TcpBuffers(tso=body.tcp.tso, gro=False))
    frames = pair_wire(file_B, body.mtu_B)[1]
    return (
        sent
        * mss_B(body.mtu_B)
        * frames
        / file_B
        * body.net_cycles_per_frame
        / (host.clock_GHz * 1e9)
    )


def request_s(body: DownloadBody, host: Host) -> float:
    """A worker's CPU time on one request (``server.request_cycles`` at the host's clock), its
    other connections waiting; the loop shares the host's cores among the workers computing at
    once beyond them."""
    return body.server.request_cycles / (host.clock_GHz * 1e9)


def workers_note(body: DownloadBody, host: Host) -> str:
    """What a result whose workers bind says of them: a request's cost and where more workers stop
    adding."""
    workers, cores = body.server.workers, host.cores
    more = (
        f"more workers serve more, up to the host's {cores} cores"
        if workers < cores
        else f"the {workers} workers share the host's {cores} cores: more add nothing"
    )
    return (
        f"the workers' requests bind: {body.server.request_cycles:,.0f} cycles each "
        f"(server.request_cycles, from NGINX's own 1 KB test), "
        f"{1e6 * request_s(body, host):.1f} us at "
        f"{host.clock_GHz:g} GHz, two a pair; {more}"
    )


def round_trips_s(body: DownloadBody) -> float:
    """The LAN round trips a pair's two files wait for: each its request out and its reply's first
    byte back, and with a new connection a file (``per_file``) its handshake too."""
    per_file = 1 if body.server.connections == "keep_alive" else 2
    return 2 * per_file * body.lan_rtt_ms / 1e3


def waits_s(body: DownloadBody, file_B: int, rate_Bps: float) -> float:
    """What a pair's two files wait for besides their bytes and any CPU work: their round trips
    (``round_trips_s``) and the rounds a new connection loses to slow start at ``rate_Bps``
    (``slow_start_s``)."""
    return round_trips_s(body) + slow_start_s(body, file_B, rate_Bps)


def access_time_writes_s(places: np.ndarray, atime: str) -> np.ndarray:
    """How long after its read each pair's inode page, its access times updated, goes to disk
    (negative: it does not): under ``relatime`` ``DIRTY_EXPIRE_S`` for the first read of its file
    in the run, the data set's files never read since written; a file read again in the run has
    an access time newer than its modify time, which the kernel leaves (``relatime_need_update``:
    a data set of 20 files fetched 2,000 times wrote back 4,000 inode pages); under ``noatime``
    none. ``places``: ``Directory.places``, a pair's data file at its column 4."""
    import numpy as np

    first = np.zeros(len(places), bool)
    first[np.unique(places[:, 4], return_index=True)[1]] = atime == "relatime"
    return np.where(first, DIRTY_EXPIRE_S, -1.0)


def window_Bps(body: DownloadBody) -> float:
    """The most one connection sends a second: what its send buffer (the kept-alive buffer at
    ``tcp_wmem[2]``) keeps in flight, a round trip, as ``model.network.tcp.send_window_B`` counts
    it for every model: all of it with ``tcp.tso``, else half of it, what current Linux keeps of a
    buffer for data (tcp_adv_win_scale 1, ``model.settings.lan_tcp``). 4 MiB over 0.1 ms binds
    nothing on a LAN; an 8 KiB buffer without TSO holds a connection to 41 MB/s."""
    in_flight_B = send_window_B(body.tcp.tcp_wmem_B[2], body.tcp.tso, LAN_ADV_WIN_SCALE)
    return in_flight_B / (body.lan_rtt_ms / 1e3)


def slow_start_s(body: DownloadBody, file_B: int, rate_Bps: float) -> float:
    """The time a new connection's window (``per_file``; a kept-alive one's has grown) loses to slow
    start on a file: the rounds ``model.network.tcp.slow_start_run`` takes from
    ``initial_window_segments`` until the window keeps ``rate_Bps`` busy or the file is sent (grown
    as ``tcp.slow_start_growth`` says), less the time what they sent would take at that rate."""
    if body.server.connections == "keep_alive":
        return 0.0
    rtt_s = body.lan_rtt_ms / 1e3
    run = slow_start_run(
        rate_Bps * rtt_s,
        mss_B(body.mtu_B),
        body.tcp.initial_window_segments,
        rtt_s,
        file_B,
        body.tcp.slow_start_growth == "per_segment",
    )
    return max(0.0, run.seconds - run.sent_B / rate_Bps)


def link_Bps_by_flows(body: DownloadBody, host: Host, nic_Bps: float, clients: int, file_B: int):
    """The data files' bytes a second the server link carries with 0, 1, ... ``clients``
    connections sending: the NIC's rate of them (``nic_Bps``), or what the cores that run the
    sending work keep up with where that is less."""
    import numpy as np

    one_core_Bps = 1.0 / send_s_per_byte(body, host, file_B)
    return np.array(
        [nic_Bps]
        + [
            min(nic_Bps, one_core_Bps * flow_cores(body.irq_affinity, host, f))
            for f in range(1, clients + 1)
        ]
    )


def check(scenario: Scenario, catalog: Catalog) -> tuple[Disk, Nic, Nic]:
    """The configuration's mistakes a schema cannot see: drives beyond the controller's ports, too
    few drives for the level, a data set the volume cannot hold, more clients than nginx's workers
    take connections, a host or client NIC the catalog lacks, jumbo frames on Fast Ethernet and a
    drive its controller's ports cannot take (``check_parts``). Returns the drive, the server's NIC
    and each client's."""
    body: DownloadBody = scenario.body
    where = scenario.path
    check_parts(body, catalog, where)
    host = catalog.get("hosts", body.host, where, "host")  # and its memory, the most nginx gets
    if body.server.memory_MB > host.memory_MB * (1 + 1e-9):
        raise UserError(
            where,
            "server.memory_MB",
            f"must be at most the host's memory, {host.memory_MB:,.1f} MB ({host.name}), "
            f"got {body.server.memory_MB:,g}",
        )
    controller = catalog.get("controllers", body.controller, where, "controller")
    if body.disks > controller.channels:
        raise UserError(
            where,
            "disks",
            f"the {controller.name} has {controller.channels} drive ports, got {body.disks}",
        )
    problem = LEVELS[body.level].problem(body.disks)
    if problem:
        raise UserError(where, "disks", f"{problem}, got {body.disks}")
    if body.disk in catalog.parts["ssds"]:  # not 'unknown disk', as it was (the network audit)
        raise NotModelled(
            f"{body.disk}: a flash drive behind the download server; its model follows each hard "
            "disk's seeks and turns request by request, and flash drives are not modelled here "
            "(a storage scenario with clients over a LAN models them: python -m model new "
            "storage_behind_network)"
        )
    disk = catalog.get("disks", body.disk, where, "disk")
    if body.drive_queue_depth > disk.queue_depth:
        raise UserError(
            where,
            "drive_queue_depth",
            f"the {disk.name.split(',')[0]} holds at most {disk.queue_depth} commands, "
            f"got {body.drive_queue_depth}",
        )
    if round(body.workload.file_size_KiB * 1024) < 1:
        raise UserError(
            where,
            "workload.file_size_KiB",
            "must be a file of at least one byte (1/1024 KiB), "
            f"got {body.workload.file_size_KiB:g}",
        )
    server = body.server
    if body.workload.clients > server.workers * server.connections_per_worker:
        raise UserError(
            where,
            "server.connections_per_worker",
            f"{server.workers} worker{'' if server.workers == 1 else 's'} x "
            f"{server.connections_per_worker} connections hold fewer than the "
            f"{body.workload.clients} clients' connections (nginx refuses the rest: 'worker_"
            "connections are not enough'); raise it or server.workers",
        )
    client_nic = catalog.get("nics", body.client_nic, where, "client_nic")
    capacity_B = raidmap.capacity_B(body.level, body.disks, disk.capacity_GB * 1e9)
    page_B = body.kernel.page_B
    slot_B = whole_pages_B(body.workload.file_size_KiB * 1024, page_B) + page_B + MD5_FILE_B
    if body.workload.dataset_files * slot_B > capacity_B:
        raise UserError(
            where,
            "workload.dataset_files",
            f"{body.workload.dataset_files} files of {body.workload.file_size_KiB:g} KiB and their "
            f"md5 files do not fit on the {capacity_B / 1e12:.2f} TB {body.level} volume",
        )
    return disk, catalog.get("nics", body.server_nic, where, "server_nic"), client_nic


@dataclass
class _Server:
    """What a scenario's server is built from, as the loop and the bottleneck law read it: its host
    and drive, the read-ahead windows a file is read in and where the data set's files lie on the
    volume (``Directory``), its links as rates of data-file bytes (``data_Bps``), and what a pair
    costs besides its bytes (its client's md5 check, the workers' requests, the round trips)."""

    scenario: Scenario
    host: Host
    disk: Disk
    format_efficiency: float  # disk_format_efficiency, calibrated on the ATLAS drives
    read_ahead_KiB: float
    file_B: int
    file_pages_B: int  # the page cache reads the last page whole
    windows: list[tuple[int, int]]  # (offset, length) of each read-ahead window of a file
    directory: Directory
    framing: dict[str, float]  # the MTU and bus efficiency the NICs' rates are taken at
    link_Bps: float  # the server's link
    client_link_Bps: float  # each client's
    client_Bps: float  # a connection: its client's link, or its window a round trip where less
    one_flow_Bps: float  # what one connection alone gets
    check_s: float  # a client's md5 check of a data file
    cpu_s: float  # a worker's CPU on one request
    between_s: float  # from a pair's last byte to the next pair's first: the check, the waits

    @property
    def body(self) -> DownloadBody:
        return self.scenario.body

    @property
    def pairs(self) -> int:
        return self.body.workload.files

    @property
    def clients(self) -> int:
        return self.body.workload.clients

    @property
    def pair_B(self) -> int:
        """What a pair delivers: its data file, as the report counts a run's bytes."""
        return self.file_B

    @property
    def pace_s(self) -> float:
        """A client's own pace, a pair's time: sent at no more than one connection alone gets,
        then checked, its two requests' CPU besides."""
        return self.file_B / self.one_flow_Bps + self.between_s + 2 * self.cpu_s

    @property
    def chunk_B(self) -> int:
        return self.body.chunk_KiB * 1024

    @property
    def largest_window_B(self) -> int:
        return max(n for _, n in self.windows)

    def picks(self, simulated: int) -> tuple[np.ndarray, np.ndarray]:
        """The files ``simulated`` pairs fetch and where their reads land (``Directory.places``,
        with the index roots the page cache lacks: ``roots_read``), and whether the page cache
        holds each pair (``data_cached``)."""
        body, seed = self.body, self.scenario.seed
        files = body.workload.dataset_files
        places = self.directory.places(
            stream(seed, "download"),
            files,
            simulated,
            roots_read(
                body.server.page_cache,
                self.directory.count,
                self.pairs,
                simulated,
                stream(seed, "download roots"),
            ),
        )
        cached = data_cached(
            body.server.page_cache,
            page_cache_B(body.server.memory_MB),
            self.file_pages_B + MD5_FILE_B,
            files,
            self.pairs,
            simulated,
            stream(seed, "download cache"),
        )
        return places, cached

    def pending_commands(self, write_back_s: np.ndarray) -> int:
        """The most commands a drive holds: each client's two reads, each a command for every
        stripe row it spans (a member's pieces of two rows are one command only where no parity
        chunk of it lies between them: a window over many small chunks sends a member several),
        and, behind them, two commands of each write-back."""
        width = raidmap.data_members(self.body.level, self.body.disks)
        rows = self.largest_window_B // (self.chunk_B * width) + 2
        return 2 * self.clients * rows + 1 + 2 * int((write_back_s >= 0).sum())

    def follow(self, simulated: int) -> _Run:
        """The loop over ``simulated`` of the run's pairs (``download_loop.run``): their picks,
        their inode pages' write-backs, fresh drives, and what the loop measured."""
        from ..storage import drive_arrays
        from . import download_loop

        body = self.body
        places, cached = self.picks(simulated)
        write_back_s = access_time_writes_s(places, body.server.atime)
        drives = drive_arrays.drive_state(
            body.disks,
            MAX_SEGMENTS,
            self.pending_commands(write_back_s),
            body.drive_queue_depth > 1,
        )
        ran, carried_B, asleep_opening_s, asleep_data_s, waited_s = download_loop.run(
            *self.volume_inputs(),
            self.clients,
            simulated,
            places,
            cached,
            *self.file_inputs(),
            *self.connection_inputs(),
            write_back_s,
            drives,
            *self.working_arrays(simulated),
        )
        drive_f, drive_i = drives[:2]
        reads, hits = (
            int(drive_i[:, column].sum()) for column in (drive_arrays.READS, drive_arrays.HITS)
        )
        return _Run(
            simulated=simulated,
            ran_s=ran,
            carried_B=carried_B,
            asleep_s={"opening": asleep_opening_s, "data": asleep_data_s},
            waited_s=waited_s,
            drive_busy_s=drive_f[:, drive_arrays.BUSY],
            reads=reads,
            hits=hits,
            cached=cached,
        )

    def volume_inputs(self) -> tuple:
        """The loop's volume: the drives' constants (``Spindle``), how many, the chunk, the data
        members of a row, the level's mirror pairs and parity chunks, the commands a drive queues
        and how a RAID10 read picks its copy."""
        from ..storage import drive_arrays

        body = self.body
        layout = LEVELS[body.level]
        return (
            drive_arrays.drive_constants(
                Spindle(self.disk, self.format_efficiency, body.drive_read_ahead)
            ),
            body.disks,
            self.chunk_B,
            raidmap.data_members(body.level, body.disks),
            layout.pairs,
            layout.parity_chunks,
            body.drive_queue_depth,
            MIRROR_READS.index(body.mirror_reads),
        )

    def file_inputs(self) -> tuple:
        """The loop's file: its read-ahead windows, its bytes and pages, its md5 file's, the page,
        where in the first window the next one's read starts, and a ``sendfile`` request."""
        import numpy as np

        page_B = self.body.kernel.page_B
        return (
            np.array(self.windows, np.int64),
            self.file_B,
            self.file_pages_B,
            MD5_FILE_B,
            page_B,
            readahead_mark_B(self.windows, SPLICE_PAGES * page_B),
            SPLICE_PAGES * page_B,
        )

    def connection_inputs(self) -> tuple:
        """The loop's workers and connections: the workers, what the server link carries with 1, 2,
        ... connections sending, a connection's cap, its send buffer and slow start, the time
        between a client's pairs, a request's CPU and the host's cores."""
        import numpy as np

        body = self.body
        return (
            body.server.workers,
            link_Bps_by_flows(body, self.host, self.link_Bps, self.clients, self.file_B),
            self.client_Bps,
            body.server.connections == "keep_alive",
            np.array(body.tcp.tcp_wmem_B, float),
            mss_B(body.mtu_B),
            body.tcp.initial_window_segments,
            *slow_start_growth(body.tcp.slow_start_growth == "per_segment"),
            self.between_s,
            self.cpu_s,
            self.host.cores,
        )

    def working_arrays(self, simulated: int) -> tuple:
        """The loop's heaps, scratch arrays and accept mutex (``nginx_workers.accepting``)."""
        from . import download_events, download_loop, nginx_workers

        body, clients, workers = self.body, self.clients, self.body.server.workers
        delay_s = body.server.accept_mutex_delay_ms / 1e3
        return (
            download_events.new_heap(clients),  # the link's flows, one a connection
            # a client's wake-up, a drive's end, a pair's write-back, a worker's next try of the
            # mutex
            download_events.new_heap(2 * clients + body.disks + simulated + workers),
            *download_loop.scratch(
                clients,
                workers,
                body.disks,
                body.disks * (self.largest_window_B // self.chunk_B + 2),
            ),
            nginx_workers.accepting(
                clients,
                workers,
                body.server.accept_mutex,
                delay_s,
                # each worker's first try: the phase at which it started in its delay's cycle
                stream(self.scenario.seed, "nginx accept").uniform(0.0, delay_s, workers),
            ),
        )


def _server(
    scenario: Scenario,
    catalog: Catalog,
    params: dict[str, float],
    disk: Disk,
    nic: Nic,
    client: Nic,
) -> _Server:
    """The server ``scenario`` describes, on the drive and NICs ``check`` returned: its read-ahead
    window (``server.read_ahead_KiB`` where given, else the kernel's, or with the tuned deadline
    settings the calibrated ``tuned_read_ahead_KiB``), each file's slot of the volume, its links'
    rates of data-file bytes and a pair's times besides its bytes."""
    body: DownloadBody = scenario.body
    tuned = body.server.scheduler == "deadline_optimized"
    read_ahead = body.server.read_ahead_KiB or (
        params["tuned_read_ahead_KiB"] if tuned else body.kernel.read_ahead_KiB
    )
    page_B = body.kernel.page_B
    file_B = int(round(body.workload.file_size_KiB * 1024))
    file_pages_B = whole_pages_B(file_B, page_B)
    capacity_B = raidmap.capacity_B(body.level, body.disks, disk.capacity_GB * 1e9)
    files = body.workload.dataset_files
    slot_B = int(capacity_B / files) // page_B * page_B
    framing = {"mtu_B": body.mtu_B, "bus_efficiency": params["bus_efficiency"]}
    # the links' rates of data-file bytes, each pair's headers, md5 file and frames taking their
    # share
    link_Bps = data_Bps(nic_rate_Bps(catalog, nic, body.host, **framing), file_B, body.mtu_B)
    host = catalog.get("hosts", body.host, scenario.path, "host")
    client_link_Bps = data_Bps(nic_rate_Bps(catalog, client, **framing), file_B, body.mtu_B)
    # a connection: its client's link, or its window a round trip where that is less
    client_Bps = min(client_link_Bps, window_Bps(body))
    # what one connection alone gets, its slow start's loss (per_file) counted at that rate
    one_flow_Bps = min(link_Bps_by_flows(body, host, link_Bps, 1, file_B)[1], client_Bps)
    # between a pair's last byte and the next pair's first: the client checks the data file's md5
    # sum, then each of the next pair's two files waits for its round trips and slow start
    check_s = file_B / (body.workload.client_md5_MBps * 1e6)
    return _Server(
        scenario=scenario,
        host=host,
        disk=disk,
        format_efficiency=params["disk_format_efficiency"],
        read_ahead_KiB=read_ahead,
        file_B=file_B,
        file_pages_B=file_pages_B,
        windows=read_ahead_windows(file_pages_B, int(read_ahead * 1024), page_B=page_B),
        directory=Directory(body.workload.files_per_directory, files, slot_B, page_B),
        framing=framing,
        link_Bps=link_Bps,
        client_link_Bps=client_link_Bps,
        client_Bps=client_Bps,
        one_flow_Bps=one_flow_Bps,
        check_s=check_s,
        cpu_s=request_s(body, host),
        between_s=check_s + waits_s(body, file_B, one_flow_Bps),
    )


@dataclass
class _Run:
    """What a loop over ``simulated`` of the run's pairs measured (``download_loop.run``): its time,
    the bytes the server link carried, the workers' time asleep on reads (opening a file, its
    data), the time the volume had a read in flight; each drive's busy time, the commands the
    drives served and those from their caches; whether the page cache held each pair."""

    simulated: int
    ran_s: float
    carried_B: float
    asleep_s: dict[str, float]
    waited_s: float
    drive_busy_s: np.ndarray
    reads: int
    hits: int
    cached: np.ndarray


def _long_enough_run(server: _Server) -> _Run:
    """The loop over as many of the run's pairs as it follows (``simulated_pairs``), followed again
    over more while nginx's accept-mutex start weighs too much in it (``longer_run``)."""
    run = server.follow(simulated_pairs(server.pairs, len(server.windows), server.clients))
    warm_s = warm_up_s(server.body)
    while (longer := longer_run(server.pairs, run.simulated, run.ran_s, warm_s)) > run.simulated:
        run = server.follow(longer)
    return run


def _demand_s(server: _Server, run: _Run) -> dict[str, tuple[float, int]]:
    """The bottleneck law's resources: each one's demand per pair (seconds of it a pair uses) and
    how many serve at once (the CPU work of ``ESTIMATED`` among them)."""
    body, host, clients, simulated = server.body, server.host, server.clients, run.simulated
    demand_s = {
        "server link": (run.carried_B / server.link_Bps / simulated, 1),
        SENDING: (
            run.carried_B * send_s_per_byte(body, host, server.file_B) / simulated,
            flow_cores(body.irq_affinity, host, clients),
        ),
        "client links": (run.carried_B / server.client_link_Bps / simulated, clients),
        "tcp windows": (run.carried_B / window_Bps(body) / simulated, clients),
        # each client checks a pair's md5 sum before it asks for the next
        MD5_CHECKS: (server.check_s, clients),
    }
    demand_s.update(
        {f"drive {i}": (busy / simulated, 1) for i, busy in enumerate(run.drive_busy_s)}
    )
    # a worker asleep on a read uses no CPU: the workers' CPU is their two requests a pair, on as
    # many cores as there are workers, at most the host's
    demand_s[WORKERS] = (2 * server.cpu_s, min(body.server.workers, host.cores))
    return demand_s


def _bound_MBps(server: _Server, demand_s: dict[str, tuple[float, int]]) -> float:
    """The bottleneck law over every resource, or the clients' own pace where that is less: each
    client's pairs one after another (``_Server.pace_s``)."""
    pace_Bps = server.clients * server.pair_B / server.pace_s
    return pairs_bound_MBps(demand_s, pace_Bps, server.pair_B)


def _ceiling_MBps(server: _Server, demand_s: dict[str, tuple[float, int]]) -> float:
    """The interval's cap (``Result.ceiling_MBps``): the same law over the rated parts alone, a
    connection at its links and window with its waits, without the CPU work the model estimates
    (``ESTIMATED``: the sending work, the md5 checks, the requests)."""
    rated_Bps = min(server.link_Bps, server.client_Bps)
    rated = {name: demand for name, demand in demand_s.items() if name not in ESTIMATED}
    pair_s = server.file_B / rated_Bps + waits_s(server.body, server.file_B, rated_Bps)
    return pairs_bound_MBps(rated, server.clients * server.pair_B / pair_s, server.pair_B)


@dataclass
class _Load:
    """Each resource's utilisation, its busy time over the run's, with the busiest's and the
    busiest drive's, and the share of the time the volume had a read in flight (iostat's %util of
    the device)."""

    utilization: dict[str, float]
    busiest: float
    busiest_drive: float
    waiting: float

    @property
    def latency_bound(self) -> bool:
        """Whether what binds is the wait for the drives, not a full drive: a read nearly always
        in flight, yet no drive 90 % busy."""
        return self.waiting > 0.9 and self.busiest_drive < 0.9

    @property
    def paced(self) -> bool:
        """Whether nothing is full nor the wait binds: the clients' own pace, pair by pair."""
        return not self.latency_bound and self.busiest < 0.9


def _load(server: _Server, run: _Run, demand_s: dict[str, tuple[float, int]]) -> _Load:
    """Each resource's utilisation over the run; beside them, the share of the time the volume had
    a read in flight and the clients' pace, where each names what binds."""
    simulated, ran = run.simulated, run.ran_s
    utilization = {name: d * simulated / (n * ran) for name, (d, n) in demand_s.items()}
    # What limits a server whose workers sleep on reads is the wait for its drives, though no single
    # drive is saturated: the share of the time the volume has a read in flight. A drive busy is a
    # read in flight, so that share is never below a drive's: where one is full, the drive names
    # what binds, and the share is left out.
    load = _Load(
        utilization,
        busiest=max(utilization.values()),
        busiest_drive=max(utilization[f"drive {i}"] for i in range(server.body.disks)),
        waiting=run.waited_s / ran,
    )
    if load.busiest_drive < 0.9:
        utilization["drives (a read in flight)"] = load.waiting
    if load.paced:
        # beside the resources, as the share of it the run kept, so that it is named as what binds
        # (where a resource is full, its own name says more: a client's link is part of its pace)
        utilization[CLIENT_PACE] = min(1.0, server.pace_s * simulated / (server.clients * ran))
    return load


def _run_notes(server: _Server, run: _Run, catalog: Catalog) -> tuple[str, ...]:
    """What the run did: a file's read-ahead windows, the drive commands a pair and the share from
    the drives' caches, the workers' time asleep a pair, the pairs from the page cache, and the
    NICs' notes (``nic_notes``)."""
    body, simulated, windows = server.body, run.simulated, len(server.windows)
    return (
        f"read-ahead window {server.read_ahead_KiB:.0f} KiB: {windows} windows per file",
        f"{run.reads / simulated:.1f} drive commands per pair, "
        f"{100 * run.hits / max(run.reads, 1):.0f}% from the drives' caches",
        "workers asleep on reads: "
        + ", ".join(
            f"{1e3 * s / simulated:.1f} ms a pair {kind}" for kind, s in run.asleep_s.items()
        ),
        f"{100 * run.cached.mean():.1f}% of the pairs from the page cache",
        *nic_notes(
            catalog, (body.server_nic, body.host), (body.client_nic, None), **server.framing
        ),
    )


def _binding_notes(server: _Server, load: _Load) -> tuple[str, ...]:
    """What binds where a resource's name does not say it: the wait for the drives
    (latency-bound), the clients' pace, or the workers' requests (``workers_note``)."""
    clients, workers = server.clients, server.body.server.workers
    notes: tuple[str, ...] = ()
    if load.latency_bound:
        more = (
            "more workers keep more in flight; clients beyond the workers keep no more reads "
            "in flight, though how their pairs interleave at the drives still moves the rate a "
            "little"
            if clients >= workers
            else f"more clients, up to one a worker ({workers}), keep more in flight"
        )
        notes += (
            f"latency-bound: a read is in flight {100 * load.waiting:.0f}% of the time, yet no "
            f"drive is over {100 * load.busiest_drive:.0f}% busy: each worker waits for its reads "
            f"one file at a time, so no more files are read at once than workers (Little's law: "
            f"{more})",
        )
    elif load.paced:
        notes += (
            f"no resource is over {100 * load.busiest:.0f}% busy: each of the "
            f"{clients} client(s) fetches a pair, then checks its md5 sum, then asks for the next "
            "(more clients keep more pairs in flight)",
        )
    if load.busiest >= 0.9 and load.busiest == load.utilization[WORKERS]:
        notes += (workers_note(server.body, server.host),)
    return notes


def _accept_mutex_notes(server: _Server, run: _Run, load: _Load) -> tuple[str, ...]:
    """What nginx's accept mutex does where nothing is full (new connections go to the workers
    that just served), and a loop that still lasts under ``WARM_UP_RUNS`` of its starts
    (``longer_run`` stopped at ``WARM_PAIRS``), whose rate weighs its start more."""
    warm_s = warm_up_s(server.body)
    notes: tuple[str, ...] = ()
    if warm_s and load.busiest < 0.9:
        notes += (
            f"nginx's accept mutex is on (server.accept_mutex, nginx's default before 1.11.3): a "
            f"worker that misses it tries again {warm_s * 1e3:.0f} ms later, so new connections "
            "go to the workers that just served while the others idle; off, nginx's default since, "
            "spreads them",
        )
    if run.simulated < server.pairs and warm_s and run.ran_s < WARM_UP_RUNS * warm_s:
        notes += (
            f"the {run.simulated:,} pairs simulated last {run.ran_s:.2f} s, under {WARM_UP_RUNS} "
            f"of nginx's {warm_s * 1e3:.0f} ms accept-mutex starts (an idle worker's wait to try "
            "it again): the run's rate weighs its start more than a longer run would",
        )
    return notes


def simulate(scenario: Scenario, catalog: Catalog, params: dict[str, float]) -> Result:
    """The download server's run of ``scenario`` (the module's docstring says what it models):
    its time, its throughput's bound and ceiling, each resource's utilisation, and notes."""
    disk, nic, client_nic = check(scenario, catalog)
    # numba: imported (and compiled, or loaded from its cache) on use, once the scenario is checked
    from ..compiled import announce

    announce("download_loop.run", "the download server's event loop", 15)
    server = _server(scenario, catalog, params, disk, nic, client_nic)
    run = _long_enough_run(server)
    demand_s = _demand_s(server, run)
    load = _load(server, run, demand_s)
    return Result(
        scenario=scenario.name,
        bytes_moved=server.pairs * server.pair_B,
        elapsed_s=run.ran_s * server.pairs / run.simulated,
        utilization=load.utilization,
        bound_MBps=_bound_MBps(server, demand_s),
        ceiling_MBps=_ceiling_MBps(server, demand_s),
        notes=(
            _run_notes(server, run, catalog)
            + _binding_notes(server, load)
            + _accept_mutex_notes(server, run, load)
        ),
    )


def pairs_bound_MBps(
    demand_s: dict[str, tuple[float, int]], pace_Bps: float, pair_B: float
) -> float:
    """The bottleneck law over ``demand_s`` (each resource's seconds a pair and how many serve at
    once), or the clients' own pace (``pace_Bps``, bytes a second) where that is less, in MB/s."""
    return min(pace_Bps, min(n * pair_B / d for d, n in demand_s.values() if d > 0)) / 1e6


def check_parts(body: DownloadBody, catalog: Catalog, where: str) -> None:
    """Fast Ethernet carries no jumbo frame, nor a NIC more than its driver takes
    (``nic_links.check_mtu``): the server's NIC or a client's; the server's NIC has the receive
    queues its ``irq_affinity`` spreads (``nic_links.check_rss``); the drive plugs into the
    controller's ports (``storage.attachment.unplugged``)."""
    nics = {"server_nic": body.server_nic, "client_nic": body.client_nic}
    check_mtu(body.mtu_B, catalog, where, nics)
    check_rss(body.irq_affinity, catalog, where, {"server_nic": body.server_nic})
    check_placed(catalog, (("server_nic", body.server_nic, body.host, 1),), where)
    if body.disk in catalog.parts["ssds"]:  # not modelled here (``check``)
        return
    disk = catalog.get("disks", body.disk, where, "disk")
    controller = catalog.get("controllers", body.controller, where, "controller")
    channel = catalog.get("buses", controller.channel_bus, where, "controller")
    why = unplugged(body.disk, disk, f"the {controller.name}'s ports", channel)
    if why is not None:  # as a storage scenario's channels (model.storage.attachment)
        raise UserError(where, "disk", why, related=("controller",))


MODEL = ModelRecord(
    "download_server",
    DownloadBody,
    simulate,
    PARAMETERS,
    lambda body: (
        "a request-level simulation, about 20 ms a table cell compiled: a second a table, too slow "
        "for each of a fit's hundreds of evaluations"
    ),
    check_parts=lambda body, catalog, params, where: check_parts(body, catalog, where),
)
