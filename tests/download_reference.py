"""The download server as it was simulated on SimPy and ``model.sim.flows`` before the compiled loop
(``model.servers.download_loop``): kept as the oracle the loop is checked against
(``tests/test_download_loop.py``). Its file picks are replayed from ``Directory.places`` so that
both simulate the same pairs, and so are the pairs the page cache holds (``data_cached``). It
writes nothing back: it is compared with the loop under ``server.atime: noatime``, and the loop's
write-backs are checked on their own.
"""

from __future__ import annotations

from collections.abc import Callable

import simpy

from model.catalog import Catalog
from model.network.tcp import mss_B, send_buffer_payload_B
from model.nic_links import nic_rate_Bps
from model.parts import Disk
from model.result import Result
from model.servers.download import (
    check,
    data_Bps,
    request_s,
    round_trips_s,
    slow_start_s,
    window_Bps,
)
from model.servers.download_files import (
    MD5_FILE_B,
    SPLICE_PAGES,
    Directory,
    data_cached,
    read_ahead_windows,
    readahead_mark_B,
    roots_read,
    whole_pages_B,
)
from model.servers.spec import DownloadBody
from model.settings import page_cache_B
from model.sim.flows import FlowNetwork
from model.sim.rng import stream
from model.spec import Scenario
from model.storage import raidmap
from model.storage.raid import LEVELS
from model.storage.spindle import Spindle, pick_copy


class QueuedSpindle(Spindle):
    """A drive holding up to ``depth`` of the commands sent to it, serving next the one whose first
    sector it can reach soonest: shortest positioning time first, the look-ahead cache's bytes and
    the stream the head is on first of all (NCQ, SCSI tagged queuing). Commands beyond the first
    ``depth`` wait in arrival order at the controller. Equal times go in arrival order; there is no
    ageing (the queues of the models that use it stay short). A command's completion calls its
    callback, in simulated time (``env``).
    """

    __slots__ = ("env", "depth", "queue", "busy")

    def __init__(
        self, env, disk: Disk, format_efficiency: float, depth: int, look_ahead: bool = True
    ):
        super().__init__(disk, format_efficiency, look_ahead)
        self.env, self.depth = env, depth
        self.queue: list[
            tuple[float, float, object]
        ] = []  # (offset, length, callback) in arrival order
        self.busy = False

    def pending(self, now_s: float) -> int:
        return len(self.queue) + self.busy

    def enqueue(self, offset_B: float, length_B: float, callback) -> None:
        """Send a read of ``length_B`` at ``offset_B`` now; ``callback(event)`` when it is done."""
        self.queue.append((offset_B, length_B, callback))
        if not self.busy:
            self._serve_next()

    def positioning_s(self, now_s: float, offset_B: float, length_B: float) -> float:
        """Time from ``now_s`` until the drive could start transferring the command's first byte."""
        if self.segments.get(offset_B, 0.0) >= length_B or offset_B == self.streaming_from_B:
            return 0.0
        seek_s = self.seek_s(offset_B)
        return seek_s + self.rotation_s(now_s + seek_s, offset_B)

    def _serve_next(self, _event=None) -> None:
        if not self.queue:
            self.busy = False
            return
        now = self.env.now
        held = min(len(self.queue), self.depth)
        i = (
            0
            if held == 1
            else min(range(held), key=lambda j: self.positioning_s(now, *self.queue[j][:2]))
        )
        offset_B, length_B, callback = self.queue.pop(i)
        done = self.submit(now, offset_B, length_B)  # the drive is free: it starts now
        self.busy = True
        finished = self.env.timeout(done - now)
        finished.callbacks += [callback, self._serve_next]


class Replay:
    """The file picks ``Directory.places`` draws, handed out in the order the SimPy model asks."""

    def __init__(self, seed: int, files: int, leaves: int, pairs: int):
        rng = stream(seed, "download")
        index = rng.integers(files, size=pairs)
        leaf, md5_leaf = rng.integers(leaves, size=(2, pairs))
        self.picks = iter(zip(index.tolist(), leaf.tolist(), md5_leaf.tolist(), strict=True))
        self.pair: list[int] = []

    def randrange(self, _n: int) -> int:
        if not self.pair:
            self.pair = list(next(self.picks))
        return self.pair.pop(0)


class Array:
    """The RAID volume: member drives behind the controller, reads split into member pieces. The
    controller keeps one command at a drive (``Spindle``, in arrival order) or up to
    ``drive_queue_depth`` (``QueuedSpindle``, the nearest first)."""

    def __init__(
        self, env: simpy.Environment, body: DownloadBody, disk: Disk, format_efficiency: float
    ):
        self.env = env
        self.level = body.level
        depth = body.drive_queue_depth
        self.queued = depth > 1
        self.drives = [
            QueuedSpindle(env, disk, format_efficiency, depth, body.drive_read_ahead)
            if self.queued
            else Spindle(disk, format_efficiency, body.drive_read_ahead)
            for _ in range(body.disks)
        ]
        self.chunk_B = body.chunk_KiB * 1024
        self.capacity_B = raidmap.capacity_B(body.level, body.disks, disk.capacity_GB * 1e9)
        layout = LEVELS[body.level]
        self.width = raidmap.data_members(body.level, body.disks)
        self.pairs = layout.pairs
        self.mirror_reads = body.mirror_reads
        self.last_used: dict[int, int] = {}  # a pair's first drive: the copy its last read took
        self.parity = layout.parity_chunks
        # the volume as the host sees it: time with a read in flight (iostat's %util of the device)
        self.in_flight = 0
        self.in_flight_since_s = 0.0
        self.waited_on_s = 0.0
        # reads whose completion is known when they are sent: the span they keep the volume busy
        self.span_from_s = self.span_to_s = 0.0

    def _track(self, done: simpy.Event) -> simpy.Event:
        """Count ``done`` as in flight until it fires."""
        if not self.in_flight:
            self.in_flight_since_s = self.env.now
        self.in_flight += 1

        def landed(_event) -> None:
            self.in_flight -= 1
            if not self.in_flight:
                self.waited_on_s += self.env.now - self.in_flight_since_s

        done.callbacks.append(landed)
        return done

    def waited_s(self) -> float:
        """Time so far with a read in flight."""
        return self.waited_on_s + self.span_to_s - self.span_from_s

    def commands(self, offset_B: int, length_B: int, now_s: float) -> list[list[int]]:
        """The read's member commands, [member, offset, length], contiguous pieces of a member
        merged (``raidmap.pieces`` written out: the hot path of the model)."""
        chunk_B, width, drives = self.chunk_B, self.width, len(self.drives)
        commands: list[list[int]] = []
        last: dict[int, int] = {}
        position, end = offset_B, offset_B + length_B
        while position < end:
            chunk, within = divmod(position, chunk_B)
            take = chunk_B - within
            if take > end - position:
                take = end - position
            row, column = divmod(chunk, width)
            member_offset = row * chunk_B + within
            if self.pairs:
                member = self._copy((2 * column, 2 * column + 1), member_offset, last, now_s)
            elif self.parity:
                member = ((drives - 1 - row % drives + self.parity) % drives + column) % drives
            else:
                member = column % drives
            i = last.get(member)
            if i is not None and commands[i][1] + commands[i][2] == member_offset:
                commands[i][2] += take
            else:
                last[member] = len(commands)
                commands.append([member, member_offset, take])
            position += take
        return commands

    def read(self, offset_B: int, length_B: int) -> simpy.Event:
        """Submit a logical read now; an event that fires when its last member piece completes."""
        now = self.env.now
        commands = self.commands(offset_B, length_B, now)
        if not self.queued:  # in arrival order, a command's completion is known when it is sent
            drives, done = self.drives, now
            for member, offset, length in commands:
                completes = drives[member].submit(now, offset, length)
                if completes > done:
                    done = completes
            if now > self.span_to_s:  # the volume was idle: a new busy span
                self.waited_on_s += self.span_to_s - self.span_from_s
                self.span_from_s = now
            if done > self.span_to_s:
                self.span_to_s = done
            return self.env.timeout(done - now)
        done, left = self.env.event(), [len(commands)]

        def piece_done(_event) -> None:
            left[0] -= 1
            if not left[0]:
                done.succeed()

        for member, offset, length in commands:
            self.drives[member].enqueue(offset, length, piece_done)
        return self._track(done)

    def _copy(
        self, members: tuple[int, int], offset_B: int, last: dict[int, int], now: float
    ) -> int:
        """The mirror to read a piece from: one this read uses, else ``pick_copy``'s."""
        for member in members:
            if member in last:
                return member
        copy = pick_copy(
            [self.drives[m] for m in members],
            now,
            offset_B,
            self.mirror_reads,
            self.last_used.get(members[0], 0),
        )
        self.last_used[members[0]] = copy
        return members[copy]


class Socket:
    """A connection's send side: what the worker has written into it, what the link delivered.

    The socket holds at most ``capacity`` of payload beyond what the client has acknowledged (a
    function of the bytes acknowledged: the send buffer opens with the congestion window on a new
    connection); ``room_B`` is what it can take now.
    What is written crosses the server's link and its client's as one TCP flow at a time, all that
    is queued when it starts, sharing the links max-min fairly with the other connections
    (``model.sim.flows``). A
    worker whose write found the buffer full is woken, as epoll does, when the free space is at
    least half of what is still queued (``sk_stream_min_wspace``); the model looks when a flow ends,
    so a worker that filled the buffer at once is woken when the link has taken all of it.
    """

    def __init__(self, net: FlowNetwork, links, capacity: Callable[[float], float]):
        self.net, self.links, self.capacity = net, links, capacity
        self.written_B = self.delivered_B = self.sending_B = 0.0
        self._writable: simpy.Event | None = None
        self._drained: simpy.Event | None = None

    def room_B(self) -> float:
        return self.capacity(self.delivered_B) - (self.written_B - self.delivered_B)

    def write(self, length_B: float) -> None:
        self.written_B += length_B
        if not self.sending_B:
            self._send()

    def writable(self) -> simpy.Event:
        self._writable = self.net.env.event()
        return self._writable

    def drained(self) -> simpy.Event:
        self._drained = self.net.env.event()
        if self.written_B == self.delivered_B:
            self._drained.succeed()
        return self._drained

    def _send(self) -> None:
        self.sending_B = self.written_B - self.delivered_B
        route = {link: 1.0 for link in self.links}
        self.net.transfer(self.sending_B, route, name="send").done.callbacks.append(self._sent)

    def _sent(self, _event) -> None:
        self.delivered_B += self.sending_B
        self.sending_B = 0.0
        queued = self.written_B - self.delivered_B
        if queued:
            self._send()
        if self._writable is not None and self.room_B() >= queued / 2:
            self._writable, event = None, self._writable
            event.succeed()
        if self._drained is not None and not queued:
            self._drained.succeed()


class Server:
    """nginx workers, the page cache's read-ahead and the 1 GbE link in front of the array."""

    def __init__(
        self,
        env: simpy.Environment,
        body: DownloadBody,
        disk: Disk,
        link_Bps: float,
        request_s: float,
        params: dict[str, float],
        read_ahead_KiB: float,
        rng: Replay,
        root_read,
        cached,
    ):
        self.env = env
        self.rng = rng
        # whether each pair, in the order they start, reads its directory's root
        self.root_read = iter(root_read)
        self.cached = iter(cached)  # whether each pair's pages are all in the page cache
        self.array = Array(env, body, disk, params["disk_format_efficiency"])
        self.net = FlowNetwork(env)
        self.link = self.net.resource("server link", link_Bps)
        self.request_s = request_s
        self.workers = [simpy.Resource(env, 1) for _ in range(body.server.workers)]
        self.worker_connections = [0] * body.server.workers
        self.worker_busy_s = 0.0
        self.worker_asleep_s = {
            "opening": 0.0,
            "data": 0.0,
        }  # a worker's time asleep on reads, by what it read
        self.file_B = int(round(body.workload.file_size_KiB * 1024))
        # the client's md5 check, and the next pair's files' LAN round trips
        self.md5_check_s = self.file_B / (body.workload.client_md5_MBps * 1e6) + round_trips_s(body)
        self.page_B = page_B = body.kernel.page_B
        # the page cache reads the last page whole
        self.file_pages_B = whole_pages_B(self.file_B, page_B)
        self.windows = read_ahead_windows(
            self.file_pages_B, int(read_ahead_KiB * 1024), page_B=page_B
        )
        self.request_B = SPLICE_PAGES * page_B
        self.mark_B = readahead_mark_B(self.windows, self.request_B)
        self.files = body.workload.dataset_files
        self.slot_B = int(self.array.capacity_B / self.files) // page_B * page_B
        self.directory = Directory(
            body.workload.files_per_directory, self.files, self.slot_B, page_B
        )
        self.keep_alive = body.server.connections == "keep_alive"
        # a socket's send buffer (net.ipv4.tcp_wmem): its default at first, at most its max
        _, wmem_default_B, wmem_max_B = body.tcp.tcp_wmem_B
        mss, initial = mss_B(body.mtu_B), body.tcp.initial_window_segments
        if self.keep_alive:
            self.send_buffer_B = lambda acked_B: wmem_max_B
        else:
            self.send_buffer_B = lambda acked_B: min(
                wmem_max_B, send_buffer_payload_B(acked_B, mss, initial, wmem_default_B)
            )

    def fetch_pair(self, client_link):
        """SimPy process: one client's request for a random data file, then for its md5 file.

        The worker ``sendfile``s the data file window by window into the connection's socket,
        sleeping on each window until its read is done (a pair the page cache holds reads nothing);
        when the socket's send buffer is full it turns to its other connections until the link has
        drained enough of it (``Socket``). The client has the file when its last byte has crossed
        the link, and only then asks for the md5 file.
        """
        index = self.rng.randrange(self.files)
        directory = self.directory
        start = index * self.slot_B
        leaves = self.rng.randrange(directory.leaves), self.rng.randrange(directory.leaves)
        worker = self._accept()
        socket = Socket(self.net, (self.link, client_link), self.send_buffer_B)
        root = directory.root_B(index) if next(self.root_read) else None
        hit = next(self.cached)
        read = (lambda offset_B, length_B: None) if hit else self.array.read
        turn = yield from self._take(worker)
        yield self.env.timeout(self.request_s)  # the worker takes the request
        for offset_B in (root, directory.leaf_B(index, leaves[0]), directory.inode_page_B(index)):
            if offset_B is not None:  # (a root in memory is not read)
                yield from self._until(read(offset_B, self.page_B), "opening")
        done = read(start, self.windows[0][1])
        ahead = started = None
        sent_B = 0  # the file's bytes written into the socket
        for k, (window_B, length) in enumerate(self.windows):
            # reaching window k starts the read of window k + 1; window 0's mark lies inside it
            if k + 1 < len(self.windows) and (k > 0 or self.mark_B == 0):
                offset, size = self.windows[k + 1]
                ahead = read(start + offset, size)
                started = True
            yield from self._until(done, "data")
            length = min(length, self.file_B - window_B)  # the file's bytes in the window's pages
            entering = True
            while True:
                # a sendfile whose pipe of pages reaches window 0's mark starts window 1's read
                if (
                    started is None
                    and len(self.windows) > 1
                    and (
                        sent_B >= self.mark_B
                        or (entering and 0 < sent_B and sent_B + self.request_B > self.mark_B)
                    )
                ):
                    offset, size = self.windows[1]
                    ahead = read(start + offset, size)
                    started = True
                entering = False
                if length <= 0:
                    break
                room = socket.room_B()
                if room <= 0:  # EAGAIN: the worker serves its other connections meanwhile
                    self._give(worker, turn)
                    yield socket.writable()
                    turn = yield from self._take(worker)
                    entering = True
                    continue
                written = min(room, length)
                socket.write(written)
                length -= written
                sent_B += written
            if k + 1 < len(self.windows):
                done = ahead
        self._give(worker, turn)
        yield socket.drained()
        if (
            not self.keep_alive
        ):  # the md5 file comes on a new connection, to whichever worker takes it
            worker = self._accept(closing=worker)
        turn = yield from self._take(worker)
        yield self.env.timeout(self.request_s)  # the worker takes the md5 file's request
        if leaves[1] != leaves[0]:  # the md5 file's name is in another leaf
            yield from self._until(read(directory.leaf_B(index, leaves[1]), self.page_B), "opening")
        yield from self._until(read(start + self.file_pages_B, MD5_FILE_B), "data")
        self._give(worker, turn)
        self.worker_connections[worker] -= 1
        yield self.env.timeout(self.md5_check_s)  # the client compares the file with its md5 sum

    def _accept(self, closing: int | None = None) -> int:
        """The worker that takes a new connection: the one with the fewest (``closing`` closed)."""
        if closing is not None:
            self.worker_connections[closing] -= 1
        worker = min(range(len(self.workers)), key=lambda w: self.worker_connections[w])
        self.worker_connections[worker] += 1
        return worker

    def _take(self, worker: int):
        """Wait until ``worker`` turns to this connection; returns the turn to give back."""
        turn = self.workers[worker].request()
        yield turn
        turn.began_s = self.env.now
        return turn

    def _give(self, worker: int, turn) -> None:
        self.worker_busy_s += self.env.now - turn.began_s
        self.workers[worker].release(turn)

    def _until(self, done: simpy.Event, kind: str):
        """Sleep (in the kernel, the worker with its other connections) until the read ``done`` is;
        ``kind``: what the read is for, "opening" a file (directory and inode) or its "data"; None:
        the page cache had it."""
        if done is not None and not done.processed:
            asleep_s = self.env.now
            yield done
            self.worker_asleep_s[kind] += self.env.now - asleep_s


def simulate(
    scenario: Scenario, catalog: Catalog, params: dict[str, float], simulated: int
) -> Result:
    disk, nic, client_nic = check(scenario, catalog)
    body: DownloadBody = scenario.body
    tuned = body.server.scheduler == "deadline_optimized"
    read_ahead = body.server.read_ahead_KiB or (
        params["tuned_read_ahead_KiB"] if tuned else body.kernel.read_ahead_KiB
    )
    env = simpy.Environment()
    files = body.workload.dataset_files
    directory = Directory(body.workload.files_per_directory, files, 1, body.kernel.page_B)
    rng = Replay(scenario.seed, files, directory.leaves, simulated)
    pairs = body.workload.files
    roots = stream(scenario.seed, "download roots")
    root_read = roots_read(body.server.page_cache, directory.count, pairs, simulated, roots)
    page_B = body.kernel.page_B
    file_B = int(round(body.workload.file_size_KiB * 1024))
    pair_pages_B = whole_pages_B(file_B, page_B) + MD5_FILE_B
    cached = data_cached(
        body.server.page_cache,
        page_cache_B(body.server.memory_MB),
        pair_pages_B,
        files,
        pairs,
        simulated,
        stream(scenario.seed, "download cache"),
    )
    framing = {"mtu_B": body.mtu_B, "bus_efficiency": params["bus_efficiency"]}
    link_Bps = data_Bps(nic_rate_Bps(catalog, nic, **framing), file_B, body.mtu_B)
    host = catalog.get("hosts", body.host, scenario.path, "host")
    server = Server(
        env, body, disk, link_Bps, request_s(body, host), params, read_ahead, rng, root_read, cached
    )
    # a connection: its client's link or its window a round trip; a new connection's slow start
    # (per_file) loses time at what one connection alone gets
    client_Bps = min(
        data_Bps(nic_rate_Bps(catalog, client_nic, **framing), file_B, body.mtu_B),
        window_Bps(body),
    )
    one_flow_Bps = min(link_Bps, client_Bps)
    server.md5_check_s += slow_start_s(body, server.file_B, one_flow_Bps)
    remaining = [simulated]

    def client(link, start_s):
        yield env.timeout(start_s)  # the clients start a check time apart in all, evenly
        while remaining[0] > 0:
            remaining[0] -= 1
            yield from server.fetch_pair(link)

    clients = body.workload.clients
    for i in range(clients):
        start_s = server.md5_check_s * i / clients
        env.process(client(server.net.resource(f"client {i} link", client_Bps), start_s))
    env.run()
    elapsed = env.now * pairs / simulated
    pair_B = server.file_B + MD5_FILE_B
    bytes_moved = pairs * pair_B
    drives = server.array.drives
    ran = env.now
    # The bottleneck law: each resource's demand per pair (seconds of it a pair uses) and how many
    # serve at once. A worker asleep on a read uses no CPU: its CPU is its turns less its sleeps,
    # its requests' work.
    worker_cpu_s = max(0.0, server.worker_busy_s - sum(server.worker_asleep_s.values()))
    demand_s = {"server link": (server.link.carried / server.link.capacity / simulated, 1)}
    demand_s.update({f"drive {i}": (d.busy_s / simulated, 1) for i, d in enumerate(drives)})
    demand_s["nginx workers"] = (worker_cpu_s / simulated, len(server.workers))
    bound_MBps = min(n * pair_B / d for d, n in demand_s.values() if d > 0) / 1e6
    utilization = {name: d * simulated / (n * ran) for name, (d, n) in demand_s.items()}
    # What limits a server whose workers sleep on reads is the wait for its drives, though no single
    # drive is saturated: the share of the time the volume has a read in flight; where a drive is
    # full, the drive names what binds.
    if max(utilization[f"drive {i}"] for i in range(len(drives))) < 0.9:
        utilization["drives (a read in flight)"] = server.array.waited_s() / ran
    reads = sum(d.reads for d in drives)
    hits = sum(d.cache_hits for d in drives)
    notes = (
        f"read-ahead window {read_ahead:.0f} KiB: {len(server.windows)} windows per file",
        f"{reads / simulated:.1f} drive commands per pair, "
        f"{100 * hits / max(reads, 1):.0f}% from the drives' caches",
        "workers asleep on reads: "
        + ", ".join(
            f"{1e3 * s / simulated:.1f} ms a pair {kind}"
            for kind, s in server.worker_asleep_s.items()
        ),
    )
    return Result(
        scenario=scenario.name,
        bytes_moved=bytes_moved,
        elapsed_s=elapsed,
        utilization=utilization,
        bound_MBps=bound_MBps,
        notes=notes,
    )
