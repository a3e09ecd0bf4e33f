"""The download server of "Einstein@home RAID setup testing": RAID mapping, read-ahead windows,
drives, server."""

import inspect
import math
import re
import subprocess
import sys

import numpy as np
import pytest
import simpy
import yaml
from download_reference import QueuedSpindle, Socket
from hypothesis import given, settings
from hypothesis import strategies as st

from model import catalog, paths, reference, scenario
from model.errors import UserError
from model.params import calibrated
from model.servers import download, download_files
from model.servers.download_files import read_ahead_windows
from model.settings import Kernel
from model.sim.flows import FlowNetwork
from model.simulate import simulate
from model.storage import disk as disk_model
from model.storage import raidmap
from model.storage.spindle import BALANCED, Spindle

KiB = 1024


@given(
    st.sampled_from(["raid0", "raid5", "raid6", "raid10"]),
    st.integers(0, 10**9),
    st.integers(1, 8 * 2**20),
)
def test_pieces_cover_the_read_once(level, offset, length):
    pieces = raidmap.pieces(level, 16, 64 * KiB, offset, length)
    assert sum(p.length_B for p in pieces) == length
    assert all(0 < p.length_B <= 64 * KiB for p in pieces)


@pytest.mark.parametrize("level, parity", [("raid5", 1), ("raid6", 2)])
def test_parity_rotates_and_a_row_reads_each_data_member_once(level, parity):
    drives, chunk = 16, 64 * KiB
    width = drives - parity
    seen_parity = set()
    for row in range(drives):
        members = [
            p.members[0]
            for p in raidmap.pieces(level, drives, chunk, row * width * chunk, width * chunk)
        ]
        assert len(set(members)) == width  # every data chunk of the row on its own drive
        parity_members = set(range(drives)) - set(members)
        assert len(parity_members) == parity
        seen_parity |= parity_members
        assert all(
            p.offset_B == row * chunk
            for p in raidmap.pieces(level, drives, chunk, row * width * chunk, width * chunk)
        )
    assert seen_parity == set(range(drives))  # parity visits every drive


def test_raid10_reads_can_go_to_either_mirror():
    pieces = raidmap.pieces("raid10", 16, 64 * KiB, 0, 8 * 64 * KiB)
    assert [p.members for p in pieces] == [(2 * i, 2 * i + 1) for i in range(8)]
    assert raidmap.capacity_B("raid10", 16, 1.0) == 8 and raidmap.capacity_B("raid6", 16, 1.0) == 14


def test_default_read_ahead_reads_a_2050_KiB_file_in_128_KiB_windows():
    windows = read_ahead_windows(2050 * KiB, int(Kernel.read_ahead_KiB) * KiB)
    assert [n for _, n in windows] == [128 * KiB] * 16 + [2 * KiB]


def test_a_larger_maximum_ramps_up_as_linux_does():
    # get_init_ra_size: 64 KiB request -> 128 KiB (x2, at most 1/4 of 1 MiB); then x2 up to the
    # maximum
    sizes = [n for _, n in read_ahead_windows(4096 * KiB, 1024 * KiB)]
    assert sizes[:5] == [128 * KiB, 256 * KiB, 512 * KiB, 1024 * KiB, 1024 * KiB]
    # a small request far below the maximum: x4 at first and while below 1/16 of the maximum
    assert [n for _, n in read_ahead_windows(2**30, 16384 * KiB, request_B=4 * KiB)][:4] == [
        16 * KiB,
        64 * KiB,
        256 * KiB,
        1024 * KiB,
    ]


def test_a_maximum_under_a_page_reads_a_page_at_a_time():
    # read-ahead turned off (server.read_ahead_KiB below a page once looped for ever on empty
    # windows)
    assert read_ahead_windows(3 * 4 * KiB, 0) == [
        (0, 4 * KiB),
        (4 * KiB, 4 * KiB),
        (8 * KiB, 4 * KiB),
    ]


@given(st.integers(1, 64 * 2**20), st.sampled_from([128, 512, 1024, 4096]))
def test_windows_tile_the_file(size, max_kib):
    windows = read_ahead_windows(size, max_kib * KiB)
    assert windows[0][0] == 0 and sum(n for _, n in windows) == size
    assert all(o1 + n1 == o2 for (o1, n1), (o2, _) in zip(windows[:-1], windows[1:], strict=True))
    assert all(n <= max(max_kib * KiB, 128 * KiB) for _, n in windows)


def _spindle():
    disk = catalog.load().get("disks", "hua721075kla330", "test", "disk")
    return disk, Spindle(disk, 0.6)


def test_one_random_read_is_seek_plus_rotation_plus_transfer():
    disk, drive = _spindle()
    offset, length = 300e9, 64 * KiB
    done = drive.submit(0.0, offset, length)
    seek = disk_model.seek_ms(disk, offset / drive.size_B) / 1e3
    rotation = drive.rotation_s(seek, offset)
    assert 0 <= rotation < disk_model.revolution_s(disk)
    assert done == pytest.approx(seek + rotation + length / drive.media_Bps(offset))


def test_a_sequential_read_after_idle_time_comes_from_the_drive_cache():
    _, drive = _spindle()
    first = drive.submit(0.0, 1e9, 64 * KiB)
    later = first + 0.01  # 10 ms idle: the look-ahead has read ~1 MB on
    done = drive.submit(later, 1e9 + 64 * KiB, 64 * KiB)
    assert done - later == pytest.approx(64 * KiB / drive.interface_Bps)
    assert drive.cache_hits == 1


def test_commands_wait_their_turn():
    _, drive = _spindle()
    a = drive.submit(0.0, 1e9, 64 * KiB)
    b = drive.submit(0.0, 5e11, 64 * KiB)
    assert b > a and drive.pending(0.0) == 2 and drive.pending(b) == 0


def _served_order(depth):
    """Three reads sent at once to a drive whose head is at 100 GB: far, near, nearest."""
    env = simpy.Environment()
    disk = catalog.load().get("disks", "hua721075kla330", "test", "disk")
    drive = QueuedSpindle(env, disk, 0.6, depth)
    drive.head_B = 100e9
    served = []
    for name, offset in [("far", 700e9), ("near", 120e9), ("nearest", 101e9)]:
        drive.enqueue(offset, 64 * KiB, lambda _e, name=name: served.append(name))
    assert drive.pending(0.0) == 3
    env.run()
    return served, drive


def test_a_drive_holding_one_command_serves_in_arrival_order():
    assert _served_order(1)[0] == ["far", "near", "nearest"]


def test_a_queueing_drive_serves_next_the_command_it_can_reach_soonest():
    """The first command starts at once (nothing else is queued yet); from its end the drive picks
    by seek and rotation, and a queue of 32 spends less time positioning than arrival order does."""
    served, queued = _served_order(32)
    assert served[0] == "far" and sorted(served[1:]) == ["near", "nearest"]
    in_order = _served_order(1)[1]
    assert queued.busy_s <= in_order.busy_s and queued.pending(0.0) == 0


@given(st.lists(st.integers(0, 740), min_size=2, max_size=12))
def test_queueing_never_lengthens_the_time_to_serve_a_batch_sent_at_once_by_much(offsets_GB):
    """Shortest positioning first is greedy, not optimal, but over a batch it stays within a
    revolution per command of arrival order, and usually shortens it."""

    def finish(depth):
        env = simpy.Environment()
        disk = catalog.load().get("disks", "hua721075kla330", "test", "disk")
        drive = QueuedSpindle(env, disk, 0.6, depth)
        for gb in offsets_GB:
            drive.enqueue(gb * 1e9, 64 * KiB, lambda _e: None)
        env.run()
        return env.now, drive

    queued, drive = finish(32)
    in_order, _ = finish(1)
    assert queued <= in_order + len(offsets_GB) * drive.revolution_s


def _run(*overrides):
    return simulate(
        scenario.load("eah_download", ("workload.files=150",) + overrides), calibrated()
    )


def test_the_server_never_sends_faster_than_its_link():
    result = _run("variant=r10_opt", "server.workers=8", "workload.clients=9")
    assert result.throughput_MBps <= result.bound_MBps * (1 + 1e-9)
    assert result.utilization["server link"] <= 1 + 1e-9


def test_more_workers_serve_many_clients_faster():
    one = _run("variant=r6_opt", "server.workers=1", "workload.clients=9")
    eight = _run("variant=r6_opt", "server.workers=8", "workload.clients=9")
    assert eight.elapsed_s < one.elapsed_s


def test_a_larger_read_ahead_means_fewer_seeks_per_byte_and_less_time():
    small = _run("variant=r6_def", "workload.clients=1")
    large = _run("variant=r6_def", "workload.clients=1", "server.read_ahead_KiB=1024")
    assert large.elapsed_s < small.elapsed_s


def test_queueing_at_the_drives_pays_when_many_reads_are_in_flight():
    """Eight workers, nine clients over the report's run: the drives hold several commands each;
    serving the nearest first shortens the run (7 % at 2,502 pairs; 4 % at 150, whose ends, fewer
    clients fetching, weigh more). With one worker and one client there is rarely a second command
    to choose."""
    busy = ("variant=r6_opt", "server.workers=8", "workload.clients=9", "workload.files=2502")
    in_order = _run(*busy)
    queued = _run(*busy, "drive_queue_depth=32")
    assert queued.elapsed_s < 0.95 * in_order.elapsed_s
    alone = [
        _run("variant=r6_opt", "workload.clients=1", f"drive_queue_depth={d}").elapsed_s
        for d in (1, 32)
    ]
    assert alone[1] == pytest.approx(alone[0], rel=0.03)


def test_the_run_is_deterministic():
    assert _run("workload.clients=3").elapsed_s == _run("workload.clients=3").elapsed_s


def test_with_the_default_read_ahead_one_worker_gains_nothing_from_more_clients():
    """Each 128 KiB window's read starts only when the worker reaches the one before: the worker
    waits on nearly every window, whichever connection it serves (measured: 380 s at two clients,
    375 s at nine)."""
    two = _run("variant=r6_def", "server.workers=1", "workload.clients=2")
    nine = _run("variant=r6_def", "server.workers=1", "workload.clients=9")
    assert nine.elapsed_s > 0.9 * two.elapsed_s
    assert all(v <= 1 + 1e-9 for v in nine.utilization.values())


def test_a_worker_serves_other_connections_while_a_new_connection_s_buffer_is_full():
    """A connection per file: its send buffer opens with its congestion window, so the one worker
    leaves a file for another while the first file's read-ahead is in flight, and the drives read
    for several files at once. Reused connections take a whole file at once, and the worker stays
    with it to its last window: the drives read for one file at a time. (Whether the overlap pays
    depends on the seeks it adds between the files.)"""

    def drives_at_once(result):
        """Drives busy on average while the volume has a read in flight."""
        busy = sum(share for name, share in result.utilization.items() if name.startswith("drive "))
        return busy / result.utilization["drives (a read in flight)"]

    per_file = _run(
        "variant=r6_opt", "server.workers=1", "workload.clients=6", "server.connections=per_file"
    )
    keep_alive = _run("variant=r6_opt", "server.workers=1", "workload.clients=6")
    assert drives_at_once(per_file) > 1.1 * drives_at_once(keep_alive)


def _socket(capacity):
    env = simpy.Environment()
    net = FlowNetwork(env)
    return env, Socket(net, (net.resource("link", 1e8),), capacity)


def test_a_client_has_its_file_when_the_last_byte_written_has_crossed_the_link():
    env, socket = _socket(lambda acked_B: 4 * 2**20)
    arrived = []

    def worker():
        socket.write(2**20)
        yield env.timeout(0.001)
        socket.write(100 * KiB)  # the last window, written while the first is still on the link
        yield socket.drained()
        arrived.append(env.now)

    env.process(worker())
    env.run()
    assert arrived == [pytest.approx((2**20 + 100 * KiB) / 1e8)]


def test_a_full_socket_wakes_its_worker_when_the_link_has_taken_what_it_held():
    env, socket = _socket(lambda acked_B: 16 * KiB + acked_B)
    woken = []

    def worker():
        socket.write(socket.room_B())
        assert socket.room_B() == 0
        yield socket.writable()
        woken.append(env.now)

    env.process(worker())
    env.run()
    assert woken == [pytest.approx(16 * KiB / 1e8)] and socket.room_B() == 32 * KiB


@pytest.mark.parametrize(
    "setting, key",
    [
        ("disks=24", "disks"),
        ("level=raid1", "level"),
        ("disks=3", "disks"),
        ("workload.dataset_files=9999999", "workload.dataset_files"),
        ("drive_queue_depth=64", "drive_queue_depth"),
        ("client_nic=no_such_nic", "client_nic"),
    ],
)
def test_a_configuration_the_server_cannot_have_is_one_line_and_exit_2(run_cli, setting, key):
    status, out, err = run_cli("predict", "eah_download", "--set", setting)
    assert status == 2 and len(err.strip().splitlines()) == 1 and f": {key}: " in err


@pytest.fixture
def array_reads(monkeypatch):
    """Every logical read the server sends its array: [offset, length, seconds it took], in the
    SimPy model the compiled loop reproduces (``tests/download_reference.py``)."""
    import download_reference

    reads = []
    original = download_reference.Array.read

    def read(self, offset_B, length_B):
        done = original(self, offset_B, length_B)
        reads.append([offset_B, length_B, None])
        done.callbacks.append(
            lambda _event, r=reads[-1], t=self.env.now: r.__setitem__(2, self.env.now - t)
        )
        return done

    monkeypatch.setattr(download_reference.Array, "read", read)
    return reads


def _reference(*overrides, pairs=40):
    import download_reference

    s = scenario.load("eah_download", list(overrides))
    return download_reference.simulate(s, catalog.load(), calibrated(), pairs)


def test_an_open_reads_the_directory_index_root_a_leaf_and_the_inode_page(array_reads):
    """Cold metadata (1000 MB against two million files): a data file's open reads its directory
    index's root (on a cold page cache, at the directory's first lookup), a leaf and the inode page
    before its data; its md5 file reads its own leaf unless the name hashes to the same one."""
    from model.servers import download_files

    assert (
        download_files.Directory(2048, 2**21, 5 * 2**20).leaves == 82
    )  # 4096 entries of 56 B, leaves 69 % full
    _reference(
        "variant=r6_opt", "workload.files=40", "workload.clients=1", "server.page_cache=cold"
    )
    lengths = [n for _, n, _ in array_reads]
    assert lengths[:3] == [download_files.PAGE_B] * 3 and lengths[3] > download_files.PAGE_B
    lookups = sum(1 for n in lengths if n == download_files.PAGE_B)
    # leaf, inode, md5 data, the md5 leaf when it differs, and the root when it is not in memory
    assert 3 * 40 <= lookups <= 5 * 40


def test_a_file_s_last_page_is_read_whole_and_its_md5_file_s_page_comes_from_the_drive_s_look_ahead(
    array_reads,
):
    """2050 KiB is not a whole number of pages: the page cache reads the last page whole, so the
    file's last read ends where the md5 file's page begins (written right after it); a lone client's
    drive has read that page ahead by the time it is asked for, so it costs no seek and no turn."""
    from model.servers import download_files

    _reference("variant=r6_opt", "workload.files=40", "workload.clients=1")
    ends = {o + n for o, n, _ in array_reads if n > download_files.PAGE_B}
    assert all(end % download_files.PAGE_B == 0 for end in ends)
    md5 = [took for o, n, took in array_reads if n == download_files.MD5_FILE_B and o in ends]
    assert len(md5) == 40 and max(md5) < 1e-3  # a 7200 rpm turn alone is 8.3 ms


def _asleep_ms_a_pair(result):
    """The workers' time asleep on reads a pair, by what they read, from the result's notes."""
    note = next(n for n in result.notes if n.startswith("workers asleep on reads: "))
    return {kind: float(ms) for ms, kind in re.findall(r"([\d.]+) ms a pair (\w+)", note)}


@pytest.mark.parametrize(
    "variant, workers, clients", [("r6_opt", 1, 1), ("r6_opt", 1, 8), ("r6_def", 4, 6)]
)
def test_a_worker_asleep_on_a_read_is_not_busy_and_the_drives_are_waited_on(
    variant, workers, clients
):
    """The workers sleep tens of milliseconds a pair on reads; that is no CPU: their CPU is their
    two requests a pair, 48,000 cycles each on the host's 2.5 GHz (19.2 us), and the volume has a
    read in flight at least while a worker sleeps on one."""
    result = _run(f"variant={variant}", f"server.workers={workers}", f"workload.clients={clients}")
    asleep = _asleep_ms_a_pair(result)
    assert set(asleep) == {"opening", "data"} and min(asleep.values()) > 0
    requests_s = 150 * 2 * 48_000 / 2.5e9
    assert result.utilization["nginx workers"] == pytest.approx(
        requests_s / (workers * result.elapsed_s), rel=1e-6
    )
    pair_ms = 1e3 * result.elapsed_s / 150
    in_flight = result.utilization["drives (a read in flight)"]
    assert sum(asleep.values()) / workers <= in_flight * pair_ms + 0.1  # notes: tenths of a ms


@pytest.mark.parametrize("clients", [1, 2, 5, 9])
def test_a_default_raid6_column_is_limited_by_its_drives(clients):
    """One worker, default read-ahead: the worker waits on one 128 KiB read after another; the link
    is 15 % busy, the drives have a read in flight over 90 % of the time."""
    result = _run("variant=r6_def", "server.workers=1", f"workload.clients={clients}")
    assert result.bottleneck.startswith("drives")
    assert result.utilization["server link"] < 0.3


@pytest.mark.parametrize(
    "overrides",
    [
        ("server_nic=nic_10gbe", "workload.clients=9", "server.workers=8"),
        ("server_nic=nic_10gbe", "variant=r10_opt", "workload.clients=9", "server.workers=8"),
        ("server_nic=nic_10gbe", "workload.clients=1"),
    ],
)
def test_on_10_gbe_the_bound_is_the_drives_not_the_link(overrides):
    """The bottleneck law over every resource: a drive's demand a pair is its busy time a pair, so
    behind a 10 GbE link (1,177 MB/s of TCP payload) the bound is what the busiest drive allows."""
    result = _run(*overrides)
    link_MBps = result.throughput_MBps / result.utilization["server link"]
    assert link_MBps > 1000
    assert result.throughput_MBps <= result.bound_MBps * (1 + 1e-9)
    assert result.bound_MBps < 0.2 * link_MBps


@pytest.mark.parametrize(
    "variant, workers, clients", [("r6_def", 1, 1), ("r6_opt", 8, 9), ("r10_opt", 8, 9)]
)
def test_the_prediction_never_exceeds_the_bound_of_any_resource(variant, workers, clients):
    result = _run(f"variant={variant}", f"server.workers={workers}", f"workload.clients={clients}")
    assert result.throughput_MBps <= result.bound_MBps * (1 + 1e-9)
    busiest = max(u for name, u in result.utilization.items() if not name.startswith("drives ("))
    # the bottleneck law over the resources, or each client's own pace where that is less
    assert result.bound_MBps <= result.throughput_MBps / busiest * (1 + 1e-9)


def test_one_client_s_pace_bounds_a_server_that_keeps_up_with_it():
    """The fuzz audit's case: one client, its pairs from memory over 100 GbE, sends each at one
    interrupt core's rate and checks its md5 sum before the next: no resource is full (the
    interrupt core 51 % busy), and the bound, the client's pace, is what it gets."""
    result = _run(
        "workload.dataset_files=100",
        "server.workers=8",
        "server_nic=mellanox_cx5_100g",
        "irq_affinity=rss",
        "workload.clients=1",
    )
    resources = {k: v for k, v in result.utilization.items() if k != download.CLIENT_PACE}
    assert max(resources.values()) < 0.6
    assert result.bound_MBps == pytest.approx(result.throughput_MBps, rel=0.02)
    assert any(n.startswith("no resource is over") for n in result.notes)
    # and names the pace, not the busiest resource, as what binds (the network fuzz's case: the
    # server link at 41 % was named while the pace set the bound)
    assert result.bottleneck == download.CLIENT_PACE
    assert result.utilization[download.CLIENT_PACE] > 0.97


def test_small_windows_keep_a_lone_worker_asleep_on_data_longer_than_large_ones():
    default = _asleep_ms_a_pair(_run("variant=r6_def", "workload.clients=1"))
    tuned = _asleep_ms_a_pair(_run("variant=r6_opt", "workload.clients=1"))
    assert default["data"] > tuned["data"]
    assert default["opening"] == pytest.approx(
        tuned["opening"], rel=0.25
    )  # the same lookups either way


@settings(deadline=None)  # the first example compiles the loop's function (numba, once)
@given(
    st.sampled_from(["raid0", "raid5", "raid6", "raid10"]),
    st.integers(0, 10**9),
    st.integers(1, 8 * 2**20),
)
def test_the_array_sends_the_pieces_raidmap_maps_merged_per_member(level, offset, length):
    """The loop maps a read onto member commands itself (its hot path): they are
    ``raidmap.pieces`` with a member's contiguous pieces merged; on idle drives a mirrored chunk is
    read from the first drive of its pair."""
    import numpy as np

    from model.servers import download_volume
    from model.storage import drive_arrays
    from model.storage.raid import LEVELS

    body = scenario.load("eah_download", [f"level={level}"]).body
    drive = drive_arrays.drive_state(body.disks, 16, 4, False)
    commands = np.zeros((length // (body.chunk_KiB * KiB) + 2, 3), np.int64)
    first = np.full(body.disks, -1, np.int64)  # each member's first command: none yet
    expected: list[list[int]] = []
    last: dict[int, int] = {}
    for piece in raidmap.pieces(level, body.disks, body.chunk_KiB * KiB, offset, length):
        member = piece.members[0]
        i = last.get(member)
        if i is not None and expected[i][1] + expected[i][2] == piece.offset_B:
            expected[i][2] += piece.length_B
        else:
            last[member] = len(expected)
            expected.append([member, piece.offset_B, piece.length_B])
    layout = (
        body.disks,
        body.chunk_KiB * KiB,
        raidmap.data_members(level, body.disks),
        LEVELS[level].pairs,
        LEVELS[level].parity_chunks,
        1,
        BALANCED,
    )
    n = download_volume.commands_of(drive, commands, first, layout, 0.0, offset, length)
    assert commands[:n].tolist() == expected and (first == -1).all()


@pytest.mark.parametrize(
    "mirror_reads, busy_first, head_on_second, member",
    [
        ("balanced", True, False, 1),  # the copy with fewer commands pending
        ("balanced", False, True, 0),  # equals: the first, wherever the heads are
        ("nearest", True, False, 1),  # not sequential: the other copy, idle
        ("nearest", False, True, 1),  # not sequential: the other copy, idle
        ("nearest", False, False, 1),
        ("primary", True, True, 0),  # always the first
    ],
)
def test_a_raid10_read_goes_to_the_copy_its_mirror_policy_picks(
    mirror_reads, busy_first, head_on_second, member
):
    """``mirror_reads``: ``balanced`` sends a pair's piece to the drive with fewer commands pending,
    the first of equals; ``nearest`` (Linux 2.6 md's rule) the copy the last read went to if this
    one continues it, else the other copy when idle; ``primary`` always reads the first drive."""
    import numpy as np

    from model.servers import download_volume
    from model.storage import drive_arrays
    from model.storage.raid import LEVELS
    from model.storage.spindle import MIRROR_READS

    drive = drive_arrays.drive_state(16, 16, 4, True)  # queueing drives: pending is what they hold
    drive_f, drive_i = drive[0], drive[1]
    offset = 8 * 64 * KiB  # the second stripe row's first chunk: pair 0 at 64 KiB
    if busy_first:
        drive_i[0, drive_arrays.SERVING] = 1
    drive_f[0, drive_arrays.HEAD] = 700e9
    drive_f[1, drive_arrays.HEAD] = 64 * KiB if head_on_second else 701e9
    commands = np.zeros((4, 3), np.int64)
    first = np.full(16, -1, np.int64)
    layout = (16, 64 * KiB, 8, True, 0, 32, MIRROR_READS.index(mirror_reads))
    assert LEVELS["raid10"].pairs
    n = download_volume.commands_of(drive, commands, first, layout, 0.0, offset, 64 * KiB)
    assert commands[:n].tolist() == [[member, 64 * KiB, 64 * KiB]]


@pytest.mark.parametrize(
    "last_used, held, heads, member",
    [
        (1, (0, 2), (700e9, 64 * KiB), 1),  # the read continues the last copy's: it stays
        (0, (2, 0), (700e9, 100e9), 1),  # not sequential, the other copy idle: it goes there
        (0, (2, 1), (700e9, 100e9), 1),  # both busy: the other copy's head is nearer
        (0, (2, 1), (100e9, 700e9), 0),  # both busy: the last copy's head is nearer, it stays
    ],
)
def test_nearest_picks_a_copy_as_linux_md_s_read_balance_does(last_used, held, heads, member):
    """``nearest`` is md's raid1 ``read_balance`` for rotating drives (Linux 2.6): the copy the last
    read went to when "Don't change to another disk for sequential reads" holds, else the other copy
    if idle, else the one whose head is closer; the choice becomes the last used."""
    import numpy as np

    from model.servers import download_volume
    from model.storage import drive_arrays
    from model.storage.spindle import MIRROR_READS

    drive = drive_arrays.drive_state(16, 16, 4, True)
    drive_f, drive_i = drive[0], drive[1]
    for d in (0, 1):
        drive_i[d, drive_arrays.SERVING] = min(held[d], 1)
        drive_i[d, drive_arrays.QUEUED] = max(held[d] - 1, 0)
        drive_f[d, drive_arrays.HEAD] = heads[d]
    drive_i[0, drive_arrays.LAST_USED] = last_used
    commands = np.zeros((4, 3), np.int64)
    first = np.full(16, -1, np.int64)
    layout = (16, 64 * KiB, 8, True, 0, 32, MIRROR_READS.index("nearest"))
    n = download_volume.commands_of(drive, commands, first, layout, 0.0, 8 * 64 * KiB, 64 * KiB)
    assert commands[:n].tolist() == [[member, 64 * KiB, 64 * KiB]]
    assert drive_i[0, drive_arrays.LAST_USED] == member


def test_the_second_window_is_read_only_once_the_first_is_in_and_its_mark_reached(monkeypatch):
    """Linux's initial read-ahead (``ondemand_readahead``): the first window is the request rounded
    up (128 KiB for sendfile's 64 KiB pipe), its ``async_size`` the window less the request, so its
    ``PG_readahead`` mark is the page just past the request: the next window's read starts when a
    ``sendfile`` reaches that page, after the first window is in. It is not sent with the first."""
    import download_reference

    from model.servers import download_files

    windows = read_ahead_windows(2050 * KiB, 128 * KiB)
    request_B = download_files.SPLICE_PAGES * download_files.PAGE_B
    assert download_files.readahead_mark_B(windows, request_B) == 64 * KiB
    # a window no larger than the request is merged with the next: both are read at once
    assert download_files.readahead_mark_B(read_ahead_windows(2050 * KiB, 64 * KiB), request_B) == 0
    reads = []  # [offset, length, sent at, done at]
    original = download_reference.Array.read

    def read(self, offset_B, length_B):
        done = original(self, offset_B, length_B)
        reads.append([offset_B, length_B, self.env.now, None])
        done.callbacks.append(lambda _event, r=reads[-1]: r.__setitem__(3, self.env.now))
        return done

    monkeypatch.setattr(download_reference.Array, "read", read)
    _reference("variant=r6_def", "workload.files=40", "workload.clients=1")
    # a file's first window is the first read of more than a page after its opening's page reads
    first = {
        o: end
        for (_, before, _, _), (o, n, _, end) in zip(reads, reads[1:], strict=False)
        if before == download_files.PAGE_B and n > download_files.PAGE_B
    }
    seconds = [(o, sent) for o, n, sent, _ in reads if o - 128 * KiB in first]
    assert len(first) == len(seconds) == 40  # a pair each
    assert all(sent >= first[o - 128 * KiB] for o, sent in seconds)


def test_drives_that_do_not_read_ahead_make_small_windows_wait_for_their_sectors():
    """The controller's "HDD Read Ahead Cache" off: a drive keeps nothing past what it was asked
    for, so each 128 KiB window's chunks wait for their sectors to come round where the drive's
    look-ahead had them in its cache. The default column's file reads (16 windows) slow down by
    far more than the tuned one's (four, the last 2 MiB); the lookups, random either way, do not."""
    on, off = (
        _run("variant=r6_def", "workload.clients=1", f"drive_read_ahead={v}")
        for v in ("true", "false")
    )
    tuned_on, tuned_off = (
        _run("variant=r6_opt", "workload.clients=1", f"drive_read_ahead={v}")
        for v in ("true", "false")
    )
    default_on, default_off = _asleep_ms_a_pair(on), _asleep_ms_a_pair(off)
    assert off.elapsed_s > 1.15 * on.elapsed_s
    assert default_off["data"] - default_on["data"] > 3 * (
        _asleep_ms_a_pair(tuned_off)["data"] - _asleep_ms_a_pair(tuned_on)["data"]
    )
    assert default_off["opening"] == pytest.approx(default_on["opening"], rel=0.15)


def test_the_stripe_size_the_report_leaves_unsaid_is_declared_and_moves_the_windows():
    """eah_download declares the stripe sizes an Areca ARC-12xx volume allows (4 to 128 KiB) as an
    unknown, its point the 64 KiB the scenario reads. A 128 KiB stripe puts each 128 KiB default
    window on one drive instead of two, so a lone worker waits longer on data; a 4 KiB one spreads
    each tuned window over every drive, so two files' windows queue behind each other on all of
    them and with two clients a worker waits longer on data."""
    declared = {u.key: u for u in scenario.load("eah_download").unknowns}["chunk_KiB"]
    assert declared.options == (4, 8, 16, 32, 64, 128) and declared.default == 64
    assert "ARC-1220" in declared.source
    default = {ch: _run("variant=r6_def", f"chunk_KiB={ch}") for ch in (64, 128)}
    assert _asleep_ms_a_pair(default[128])["data"] > 1.2 * _asleep_ms_a_pair(default[64])["data"]
    tuned = {ch: _run("variant=r6_opt", "workload.clients=2", f"chunk_KiB={ch}") for ch in (4, 64)}
    assert _asleep_ms_a_pair(tuned[4])["data"] > 1.25 * _asleep_ms_a_pair(tuned[64])["data"]


def test_the_page_cache_and_the_clients_connections_the_report_leaves_unsaid_are_declared(
    monkeypatch,
):
    """Whether the runs began on a dropped cache, and whether the clients reused connections, are
    declared unknowns of eah_download, their points the documented defaults (the cache as the runs
    before left it; persistent connections, HTTP/1.1's default). A cold cache reads a directory's
    index root at the directory's first lookup of the run: over a run of 2502 pairs in 1024
    directories, 1024 (1 - e^(-2502/1024)) / 2502 = 37 % of the pairs; a warm one none, so the
    worker sleeps less on opening."""
    declared = {u.key: u for u in scenario.load("eah_download").unknowns}
    assert declared["server.page_cache"].options == ("cold", "warm")
    assert declared["server.page_cache"].default == "warm"
    assert "mark_page_accessed" in declared["server.page_cache"].source
    assert declared["server.connections"].options == ("keep_alive", "per_file")
    assert declared["server.connections"].default == "keep_alive"
    assert "RFC 9112" in declared["server.connections"].source
    rng = np.random.default_rng(1)
    assert not download_files.roots_read("warm", 1024, 2502, 2000, rng).any()
    share = download_files.roots_read("cold", 1024, 2502, 2000, rng).mean()
    assert share == pytest.approx(1024 * (1 - math.exp(-2502 / 1024)) / 2502, abs=0.03)
    opening = {
        cache: _asleep_ms_a_pair(_run("variant=r6_opt", f"server.page_cache={cache}"))["opening"]
        for cache in ("cold", "warm")
    }
    assert opening["cold"] - opening["warm"] > 2.0
    # a data set in one directory (fewer files than a directory holds) reads its root once
    one = download_files.roots_read("cold", 1, 150, 150, rng)
    assert one[0] and not one[1:].any()
    assert scenario.load("eah_download").body.workload.files_per_directory >= 1000
    # and so does a whole run on a cold cache: its first pair reads the root, no later one
    from model.servers import download_loop

    loop = download_loop.run
    planned = []

    def recording(*args):
        planned.append(inspect.signature(loop.py_func).bind(*args).arguments)
        return loop(*args)

    monkeypatch.setattr(download_loop, "run", recording)
    result = _run("workload.dataset_files=1000", "server.page_cache=cold")
    (plan,) = planned
    roots = (plan["places"][:, 0] >= 0) & ~plan["cached"]  # a root lookup that reads the volume
    assert roots.tolist() == [True] + [False] * (plan["pairs"] - 1)
    assert math.isfinite(result.elapsed_s) and result.elapsed_s > 0


def test_reading_a_file_never_read_since_it_was_written_writes_its_inode_page_back():
    """relatime, the kernel's default, updates a file's access time at its first read after it was
    written, so each pair dirties the inode page it read, written back 30 s later: on RAID6 a
    read-modify-write of three drives, which takes them from the reads after it. The report does
    not give the mount options: noatime is a declared unknown. At one client the write-backs add
    drive work and time; nothing is written back in a run shorter than the dirty pages' expiry."""
    declared = {u.key: u for u in scenario.load("eah_download").unknowns}["server.atime"]
    assert declared.options == ("relatime", "noatime") and declared.default == "relatime"
    assert "relatime_need_update" in declared.source
    runs = {
        a: _run("variant=r6_opt", "workload.files=1000", f"server.atime={a}")
        for a in ("relatime", "noatime")
    }
    busy = {a: _drive_busy(r) for a, r in runs.items()}
    assert runs["relatime"].elapsed_s > 1.02 * runs["noatime"].elapsed_s
    assert busy["relatime"] > 1.05 * busy["noatime"]
    short = {a: _run("workload.files=50", f"server.atime={a}") for a in ("relatime", "noatime")}
    assert _drive_busy(short["relatime"]) == _drive_busy(short["noatime"])


def _drive_busy(result) -> float:
    """The drives' summed utilisation."""
    return sum(v for k, v in result.utilization.items() if k.startswith("drive "))


@settings(max_examples=80, deadline=None)
@given(
    st.integers(1, 5000),  # files in the data set
    st.integers(1, 4096),  # files a directory holds
    st.sampled_from(["cold", "warm"]),
)
def test_every_place_a_pair_reads_lies_inside_the_data_set(files, per_directory, cache):
    """A data set smaller than its directories (the last one holds what is left) keeps its leaves
    among its own files: a leaf spread over a full directory's files lay past the volume's end,
    where a drive's zoned geometry has no track (a negative square root, NaN), which silently
    changed the in-order drives' times and left queued drives' runs never ending
    (``workload.dataset_files=1000 drive_queue_depth=2``)."""
    page = download_files.PAGE_B
    slot = 600 * page  # a 2050 KiB file's pages and some
    directory = download_files.Directory(per_directory, files, slot, page)
    roots = download_files.roots_read(cache, directory.count, 200, 200, np.random.default_rng(1))
    places = directory.places(np.random.default_rng(2), files, 200, roots)
    metadata = places[:, :4]
    assert (metadata[metadata >= 0] + page <= files * slot).all()
    assert (places[:, 4] + slot <= files * slot).all()


def test_a_small_data_set_runs_on_queued_drives_as_on_in_order_ones():
    """1000 files in one directory of 2048: queued drives finish, in about the in-order time."""
    runs = {
        depth: _run("workload.dataset_files=1000", f"drive_queue_depth={depth}") for depth in (1, 2)
    }
    assert math.isfinite(runs[2].elapsed_s)
    assert runs[2].elapsed_s == pytest.approx(runs[1].elapsed_s, rel=0.15)


def test_the_accept_mutex_changes_nothing_for_one_worker_or_one_client():
    """nginx uses no mutex with one worker; one client's connections all go to the worker that
    waits with the mutex, which is free whenever the client connects."""
    for overrides in (("server.workers=1", "workload.clients=5"), ("server.workers=4",)):
        on, off = (
            _run("variant=r6_opt", *overrides, f"server.accept_mutex={m}").elapsed_s
            for m in ("true", "false")
        )
        assert on == off


def test_workers_that_wait_forever_for_the_mutex_serve_as_one_and_those_that_never_wait_spread():
    """The accept mutex's two limits. Workers that miss it never try again (a delay longer than the
    run): the worker that holds it, busy or not, accepts every connection, and four workers serve
    two clients as one does. Workers that try again at once: a new connection goes to a worker that
    is free, as when every worker hears of it (no mutex)."""
    clients = ("variant=r6_opt", "workload.clients=2")
    one = _run(*clients, "server.workers=1").elapsed_s
    forever = _run(*clients, "server.workers=4", "server.accept_mutex_delay_ms=1e9").elapsed_s
    assert forever == pytest.approx(one, rel=0.01)
    spread = _run(*clients, "server.workers=4", "server.accept_mutex=false").elapsed_s
    at_once = _run(*clients, "server.workers=4", "server.accept_mutex_delay_ms=0.001").elapsed_s
    assert at_once == pytest.approx(spread, rel=0.03)
    default = _run(*clients, "server.workers=4").elapsed_s
    assert spread < 0.95 * default < one


def test_the_accept_mutex_the_report_leaves_unsaid_is_declared_with_nginx_s_default_of_the_time():
    declared = {u.key: u for u in scenario.load("eah_download").unknowns}
    assert declared["server.accept_mutex"].options == (True, False)
    assert declared["server.accept_mutex"].default is True
    assert "1.11.3" in declared["server.accept_mutex"].source


def test_more_clients_than_the_workers_take_connections_are_refused_in_one_line(run_cli):
    """nginx closes what its workers' worker_connections cannot hold: a prediction for them would
    be of a server that does not exist."""
    sets = ["server.workers=2", "server.connections_per_worker=4", "workload.clients=9"]
    status, _, err = run_cli("predict", "eah_download", *[a for x in sets for a in ("--set", x)])
    assert status == 2 and len(err.strip().splitlines()) == 1
    assert (
        ": server.connections_per_worker: 2 workers x 4 connections" in err and "9 clients" in err
    )
    assert _run("server.workers=2", "server.connections_per_worker=5", "workload.clients=9")


def _cached_share(result) -> float:
    (note,) = [n for n in result.notes if n.endswith("of the pairs from the page cache")]
    return float(note.split("%")[0]) / 100


# 400 files of 2050 KiB (513 pages) and their md5 files: 842 MB of pages, all in the page cache of
# 1200 MB of memory (what the kernel and its daemons leave: settings.page_cache_B, 944 MB)
SMALL_SET = ("variant=r6_def", "workload.dataset_files=400", "workload.files=2502")
# a server with more memory than the report's 1000 MiB (mem=1000M) host, for a cached data set
ROOMY = "host=dell_r720"


def test_a_data_set_the_memory_holds_is_served_from_the_page_cache_at_the_link_s_rate():
    cached = _run(
        *SMALL_SET, "workload.clients=9", ROOMY, "server.memory_MB=1200", "server.atime=noatime"
    )
    assert _cached_share(cached) == 1.0
    # nothing is read (under relatime the access times' write-backs still go to the drives)
    assert cached.notes[1].startswith("0.0 drive commands per pair")
    assert cached.bottleneck == "server link" and cached.utilization["server link"] > 0.95
    on_disk = _run(*SMALL_SET, "workload.clients=9", "server.memory_MB=100")
    assert on_disk.bottleneck.startswith("drive")
    assert cached.throughput_MBps > 3 * on_disk.throughput_MBps


def test_memory_holding_half_the_data_set_serves_half_the_picks_on_a_warm_cache():
    """Uniform random picks: whatever half the cache holds, a pick finds it there half the time."""
    half = _run(*SMALL_SET, "server.memory_MB=677.07")  # 842.14 MB of pages / 2 + 256 MB
    assert _cached_share(half) == pytest.approx(0.5, abs=0.035)  # 2,000 pairs: 1.1 % one sd
    none = _run(*SMALL_SET, "server.memory_MB=1")
    full = _run(*SMALL_SET, ROOMY, "server.memory_MB=1200")
    assert none.throughput_MBps < half.throughput_MBps < full.throughput_MBps


def test_a_cold_cache_holds_only_what_the_run_itself_read():
    """2,502 picks of 400 files: by the end of the run nearly every file was read once, so most
    pairs but not all find theirs; the warm cache the runs before left finds every one."""
    cold = _cached_share(_run(*SMALL_SET, ROOMY, "server.memory_MB=1200", "server.page_cache=cold"))
    expected = np.mean(1 - (1 - 1 / 400) ** (np.arange(2000) * 2502 / 2000))
    assert cold == pytest.approx(expected, abs=0.035)
    # a cache that holds a tenth of the files keeps the last ones read: once it is full a pick
    # finds its file there a tenth of the time, as on a warm cache
    tenth = ("server.memory_MB=340.21",)  # 842.14 MB of pages / 10 + 256 MB
    small = _cached_share(_run(*SMALL_SET, *tenth, "server.page_cache=cold"))
    warm = _cached_share(_run(*SMALL_SET, *tenth))
    assert warm == pytest.approx(0.1, abs=0.02)
    assert 0.8 * warm < small < warm


def test_the_report_s_memory_holds_one_pick_in_thousands():
    share = _cached_share(_run("variant=r6_def", "workload.files=2502"))
    assert share < 0.002  # 1000 MB against 4.4 TB of files


def test_a_client_s_link_caps_its_connection():
    """One client behind a 100 Mbit/s NIC: its link, not the server's gigabit, is what binds."""
    slow = _run(
        "variant=r6_def",
        "server.memory_MB=1000",
        "workload.dataset_files=400",
        "client_nic=nic_100mb",
    )
    assert slow.bottleneck == "client links"
    assert slow.throughput_MBps <= slow.bound_MBps * (1 + 1e-9) < 12.5  # 100 Mbit/s less framing
    fast = _run("variant=r6_def", "server.memory_MB=1000", "workload.dataset_files=400")
    assert fast.throughput_MBps > 5 * slow.throughput_MBps


def test_a_host_the_catalog_lacks_is_refused_in_one_line(run_cli, tmp_path):
    """``host`` is checked against the catalog, as every model checks its parts; its meaning says
    what the model takes from it (its memory, its cores and clock for TCP's sending work and the
    workers' requests)."""
    status, _, err = run_cli("predict", "eah_download", "--set", "host=no_such_host")
    assert status == 2 and len(err.strip().splitlines()) == 1, err
    assert "host" in err and "no_such_host" in err and "hosts.yaml" in err
    raw = yaml.safe_load(scenario.resolve("eah_download").read_text(encoding="utf-8"))
    raw["host"] = "no_such_host"
    path = tmp_path / "eah_no_host.yaml"
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    status, _, err = run_cli("predict", str(path))
    assert status == 2 and len(err.strip().splitlines()) == 1, err
    assert "eah_no_host.yaml" in err and "host" in err
    meaning = reference.find("download_server", "host").meaning
    assert "cores and clock do the sending work" in meaning and "server.request_cycles" in meaning


@pytest.mark.parametrize(
    "key",
    [
        "tcp.tcp_rmem_B=[4096,87380,6291456]",
        "tcp.tcp_mem_pages=[1,2,3]",
        "tcp.core_rmem_default_B=212992",
        "tcp.core_rmem_max_B=212992",
        "tcp.core_wmem_default_B=212992",
        "tcp.core_wmem_max_B=212992",
        "tcp.tcp_adv_win_scale=1",
        "tcp.page_B=4096",
        "tcp.gro=true",
        "tcp.congestion_control=cubic",
        "kernel.dirty_ratio_pct=20",
        "kernel.dirty_background_ratio_pct=5",
        "kernel.ext3_write_ratio=0.5",
    ],
)
def test_settings_the_download_model_never_reads_are_refused(run_cli, key):
    """The download server reads tcp_wmem, the first congestion window and the segmentation offload
    of TCP, the page size and read-ahead of the kernel: any other key is refused in one line with
    the keys allowed."""
    status, _, err = run_cli("predict", "eah_download", "--set", key)
    assert status == 2 and len(err.strip().splitlines()) == 1, err
    assert key.split("=")[0] in err and "no such key" in err
    allowed = (
        "tcp_wmem_B, initial_window_segments, slow_start_growth, tso"
        if key.startswith("tcp")
        else "page_B"
    )
    assert allowed in err


def test_the_download_settings_it_reads_stay_keys():
    body = scenario.load(
        "eah_download",
        ["tcp.initial_window_segments=10", "kernel.page_B=16384", "kernel.read_ahead_KiB=256"],
    ).body
    assert body.tcp.tcp_wmem_B == (4096, 16384, 4194304)  # the scenario's own
    assert body.tcp.initial_window_segments == 10
    assert (body.kernel.page_B, body.kernel.read_ahead_KiB) == (16384, 256.0)
    template = paths.PROJECT_ROOT / "data" / "templates" / "download_server.yaml"
    template = scenario.load(str(template))
    assert template.body.tcp.tcp_wmem_B == (4096, 16384, 131072)
    with pytest.raises(UserError, match="tcp.tcp_wmem_B"):
        scenario.load("eah_download", ["tcp.tcp_wmem_B=[4096,16384]"])


def test_a_server_whose_workers_wait_on_reads_says_it_is_latency_bound():
    """One worker, one client: a read is in flight nearly all the time while each drive is at most
    a sixth busy; a server serving from its page cache waits on nothing and says nothing of it."""
    waiting = _run("variant=r6_def", "workload.files=2502")
    (note,) = [n for n in waiting.notes if n.startswith("latency-bound")]
    assert "each worker waits for its reads one file at a time" in note
    # one client a worker: only more workers keep more files in flight (the what-if audit read
    # "more workers or clients" at 64 clients on four workers, which gave less than 16)
    # past one a worker, clients put no more reads in flight, though their interleaving still
    # moves the rate a little (a physics audit: 17.4 to 18.0 MB/s from one client to two, to 16.3
    # at fifty, where the note had said they add none)
    assert note.endswith(
        "(Little's law: more workers keep more in flight; clients beyond the workers keep no more "
        "reads in flight, though how their pairs interleave at the drives still moves the rate a "
        "little)"
    )
    fewer = _run("variant=r6_def", "server.workers=4", "workload.files=2502")
    (note,) = [n for n in fewer.notes if n.startswith("latency-bound")]
    assert note.endswith("more clients, up to one a worker (4), keep more in flight)")
    cached = _run(*SMALL_SET, ROOMY, "server.memory_MB=1200", "server.atime=noatime")
    assert not [n for n in cached.notes if n.startswith("latency-bound")]


@pytest.mark.parametrize("cache", ["cold", "warm"])
def test_a_cache_too_small_for_one_pair_holds_none(cache):
    """One file in the data set and less memory than the kernel keeps: no pair fits (a cold cache
    of a one-file data set divided by log(0) before)."""
    one = _run(
        "variant=r6_def",
        "workload.dataset_files=1",
        "server.memory_MB=1",
        f"server.page_cache={cache}",
    )
    assert _cached_share(one) == 0.0


def test_clients_served_from_memory_do_not_march_in_step():
    """Nine clients of a server whose data its memory holds, on 10 GbE: started at once and drawing
    nothing random, they sent together and checked their md5 sums together, the link idle a check
    in each round (888 MB/s, 75 % busy; an audit's hand figure); started a check apart they keep
    the link full (the sending work offloaded, so that the link is what binds)."""
    loaded = scenario.load(
        "eah_download",
        [
            "server_nic=nic_10gbe",
            "tcp.tso=true",
            ROOMY,
            "server.memory_MB=100000",
            "workload.dataset_files=400",
            "workload.clients=9",
            "server.workers=8",
        ],
    )
    result = simulate(loaded)
    assert result.bottleneck == "server link"
    assert result.throughput_MBps > 0.98 * result.bound_MBps


def test_the_server_s_memory_is_at_most_its_host_s(run_cli):
    """nginx's page cache took 10 TB on the report's 1000 MiB host."""
    status, out, err = run_cli("predict", "eah_download", "--set", "server.memory_MB=10000000")
    assert status == 2 and not out and err.count("\n") == 1
    assert "server.memory_MB: must be at most the host's memory, 1,048.6 MB" in err


# every pick served from memory behind a 10 GbE link, nine clients: nothing but TCP's sending binds
CACHED_10GBE = (
    *SMALL_SET,
    ROOMY,
    "server.memory_MB=1200",
    "server.atime=noatime",
    "server_nic=nic_10gbe",
    "server.workers=8",
    "workload.clients=9",
)


def test_one_interrupt_core_without_tso_sends_what_its_clock_keeps_up_with():
    """ACK-clocked sends run on the core taking the NIC's interrupts: without TSO a segment of 1,448
    bytes and half an ACK cost 1.5 frames at 6,300 cycles, so the R720's 2.9 GHz core sends
    2.9e9 / (1.5 x 6,300 / 1,448) bytes a second, a third of the 10 GbE link."""
    result = _run(*CACHED_10GBE, "irq_affinity=cpu0", "tcp.tso=false")
    host = catalog.load().get("hosts", "dell_r720", "test", "host")
    core_MBps = host.clock_GHz * 1e9 / (1.5 * 6300 / 1448) / 1e6
    assert result.bottleneck == "server irq (TCP sending)"
    assert result.throughput_MBps == pytest.approx(core_MBps, rel=0.01)
    assert result.utilization["server link"] < 0.5


@pytest.mark.parametrize("setting", ["tcp.tso=true", "irq_affinity=spread", "irq_affinity=rss"])
def test_tso_or_more_interrupt_cores_give_the_link_back(setting):
    result = _run(*CACHED_10GBE, setting)
    assert result.bottleneck == "server link"
    assert result.throughput_MBps > 0.9 * 1177  # 10 GbE's TCP payload rate


def test_on_the_report_s_gigabit_the_sending_work_binds_nothing():
    """A third of one core at 1 GbE: the report's server predicts the same with TSO or without."""
    plain = _run("variant=r6_def", "workload.clients=9", "server.workers=8")
    offloaded = _run("variant=r6_def", "workload.clients=9", "server.workers=8", "tcp.tso=true")
    assert plain.utilization["server irq (TCP sending)"] < 0.5
    assert plain.elapsed_s == offloaded.elapsed_s


def test_tiny_files_never_deliver_more_than_the_link_carries():
    """1 KiB data files served from memory: a pair delivers its data file (the md5 file's some 60
    bytes left out, as the report's 'MB downloaded' counts); counting the md5 file's 4 KiB page as
    delivered put 588 MB/s through a 1 GbE link (117.7 MB/s of TCP payload)."""
    result = _run(
        "workload.file_size_KiB=1",
        "workload.dataset_files=100",
        "workload.clients=64",
        "server.workers=8",
    )
    assert result.throughput_MBps <= 125e6 * 1448 / 1538 / 1e6 * (1 + 1e-9)
    assert result.throughput_MBps <= result.bound_MBps * (1 + 1e-9)


def test_each_file_waits_for_its_round_trips():
    """One client fetching 4 KiB files from memory: a pair costs its two files' request round
    trips (0.1 ms each on a kept-alive connection, two each for a new connection a file) beside
    its transfer, its worker's two requests and its md5 check, so the LAN's latency, not the link,
    sets it. The transfer is both responses with their 260-byte headers, the data file's in four
    frames and the md5 file's 83 bytes in one, each frame 90 bytes of IP, TCP and Ethernet."""
    base = ("workload.file_size_KiB=4", "workload.dataset_files=100", "workload.clients=1")
    near, far = _run(*base, "lan_rtt_ms=0.05"), _run(*base, "lan_rtt_ms=0.5")
    pair_B = 4096
    link_s = (260 + pair_B + 4 * 90 + 260 + 83 + 90) / 125e6
    requests_s = 2 * 48_000 / 2.5e9
    check_s = pair_B / 400e6
    for result, rtt_s in ((near, 0.05e-3), (far, 0.5e-3)):
        expected_MBps = pair_B / (link_s + requests_s + check_s + 2 * rtt_s) / 1e6
        assert result.throughput_MBps == pytest.approx(expected_MBps, rel=0.05)
    fresh = _run(*base, "lan_rtt_ms=0.5", "server.connections=per_file")
    assert fresh.throughput_MBps < 0.6 * far.throughput_MBps


def test_large_files_simulate_the_pairs_a_million_windows_hold_fifty_a_client_at_least():
    """A loop's cost is its read-ahead windows: 2,000 pairs of 2 MiB files (17 windows each) as
    before, but of 512 MiB files (4,096 windows) 244 pairs for one client, 450 for nine (fifty
    each, so a run's ends stay a fiftieth of it); never more pairs than the run has."""
    assert download.simulated_pairs(2502, 17, 9) == 2000
    assert download.simulated_pairs(2502, 4096, 1) == 244
    assert download.simulated_pairs(2502, 4096, 9) == 450
    assert download.simulated_pairs(100, 4096, 9) == 100


# one client, its pairs from memory over 10 GbE: nothing but the connection itself binds
ONE_CONNECTION = (
    "workload.dataset_files=200",
    "server_nic=nic_10gbe",
    "server.workers=8",
    "workload.clients=1",
)


def test_a_connection_sends_at_most_its_window_a_round_trip():
    """A send buffer of 8 KiB keeps 4 KiB of data in flight without TSO (half kept for overhead):
    over a 10 ms round trip, 0.41 MB/s, whatever the links (the quick audit's 68 MB/s). With TSO
    all of it, as the WAN model counts the same buffer (the network audit's factor of two)."""
    result = _run(*ONE_CONNECTION, "lan_rtt_ms=10", "tcp.tcp_wmem_B=[4096,4096,8192]")
    assert result.bottleneck == "tcp windows"
    assert result.throughput_MBps == pytest.approx(8192 / 2 / 0.010 / 1e6, rel=0.02)
    offloaded = _run(
        *ONE_CONNECTION, "lan_rtt_ms=10", "tcp.tcp_wmem_B=[4096,4096,8192]", "tcp.tso=true"
    )
    assert offloaded.bottleneck == "tcp windows"
    assert offloaded.throughput_MBps == pytest.approx(8192 / 0.010 / 1e6, rel=0.02)


def test_a_new_connection_a_file_loses_the_rounds_of_its_slow_start():
    """Over a 10 ms round trip a new connection's window grows round by round from its first
    window (``tcp.slow_start_run``): from one segment it takes more rounds than from ten, so the
    first window now matters (it changed nothing before); kept-alive connections lose none."""
    rates = [
        _run(
            *ONE_CONNECTION,
            "server.connections=per_file",
            "lan_rtt_ms=10",
            f"tcp.initial_window_segments={segments}",
        ).throughput_MBps
        for segments in (1, 3, 10, 100)
    ]
    assert rates == sorted(rates) and rates[0] < 0.7 * rates[-1]
    kept = _run(*ONE_CONNECTION, "lan_rtt_ms=10").throughput_MBps
    assert kept > rates[-1]


def test_only_a_file_s_first_read_in_the_run_writes_its_access_time():
    """The network audit's case: a data set of 20 files fetched 2,000 times wrote back an inode
    page for every pair (2 drive commands a pair); relatime updates a file's access time only while
    it is not newer than its modify time, so each file once, on its first read."""
    import numpy as np

    from model.servers import download

    places = np.zeros((5, 5), np.int64)
    places[:, 4] = [0, 8, 0, 16, 8]
    assert download.access_time_writes_s(places, "relatime").tolist() == [
        download.DIRTY_EXPIRE_S,
        download.DIRTY_EXPIRE_S,
        -1.0,
        download.DIRTY_EXPIRE_S,
        -1.0,
    ]
    assert download.access_time_writes_s(places, "noatime").tolist() == [-1.0] * 5
    few = ("workload.dataset_files=20", "workload.files=2000", "lan_rtt_ms=5")
    relatime = _run(*few)
    noatime = _run(*few, "server.atime=noatime")
    assert relatime.throughput_MBps == pytest.approx(noatime.throughput_MBps, rel=0.02)


def test_a_full_drive_names_what_binds_not_the_reads_in_flight():
    """The what-if audit's case: a RAID0 under sixteen workers, one drive 100 % busy, had named
    'drives (a read in flight)' the bottleneck: a drive busy is a read in flight, so that share
    always tied a full drive. The full drive is named, and the share is left out. (The audit's
    eight drives had one full at seed 1 only: four have one full at seeds 1 to 3.)"""
    template = paths.PROJECT_ROOT / "data" / "templates" / "download_server.yaml"
    busy = simulate(
        scenario.load(
            str(template),
            ["level=raid0", "disks=4", "server.workers=16", "workload.clients=16"],
        ),
        calibrated(),
    )
    full = max((k for k in busy.utilization if k.startswith("drive ")), key=busy.utilization.get)
    assert busy.utilization[full] >= 0.9
    assert busy.bottleneck == full
    assert "drives (a read in flight)" not in busy.utilization
    waiting = _run("variant=r6_def", "workload.files=2502")
    assert waiting.bottleneck == "drives (a read in flight)"


# 1 KiB files from a data set the page cache holds, on a 10 GbE server link, to 64 clients
SMALL_FROM_MEMORY = (
    "workload.file_size_KiB=1",
    "workload.dataset_files=2048",
    "server_nic=nic_10gbe",
    "workload.clients=64",
)
# ...with nothing else binding: no accept mutex, each connection's sending work on its own core
# with TSO
WORKERS_ALONE = (
    *SMALL_FROM_MEMORY,
    "server.accept_mutex=false",
    "irq_affinity=rss",
    "tcp.tso=true",
)


def _workers_bound_MBps(workers: int, cores: int = 8) -> float:
    """What the workers serve: two requests a pair of 1 KiB, 48,000 cycles each at 2.5 GHz, on at
    most the host's cores."""
    return min(workers, cores) * KiB / (2 * 48_000 / 2.5e9) / 1e6


def test_small_files_from_memory_are_bound_by_the_workers_requests():
    """The small-file audit's case: 1 KiB files from memory had been priced per byte, the workers
    costing nothing and the link carrying no header (309.6 MB/s from eight workers, 604,000
    requests a second on a 2.5 GHz host of eight cores, where NGINX's own test served 74,091 a
    second on a core). Each request now costs its worker server.request_cycles: eight workers
    serve 213 MB/s of 1 KiB files, and the run reaches 95 % of that; workers given no cost per
    request serve half as much again, the clients' own pace binding; sixteen workers on eight
    cores serve no more."""
    eight = _run(*WORKERS_ALONE, "server.workers=8", "workload.files=20000")
    assert eight.bottleneck == "nginx workers"
    assert eight.bound_MBps == pytest.approx(_workers_bound_MBps(8), rel=1e-6)
    assert 0.95 * eight.bound_MBps <= eight.throughput_MBps <= eight.bound_MBps
    free = _run(
        *WORKERS_ALONE, "server.workers=8", "workload.files=20000", "server.request_cycles=0"
    )
    assert free.bottleneck != "nginx workers" and free.throughput_MBps > 1.4 * eight.bound_MBps
    sixteen = _run(*WORKERS_ALONE, "server.workers=16", "workload.files=20000")
    assert sixteen.bound_MBps == pytest.approx(_workers_bound_MBps(16), rel=1e-6)
    assert sixteen.bound_MBps == pytest.approx(eight.bound_MBps, rel=1e-9)
    assert sixteen.throughput_MBps <= sixteen.bound_MBps * (1 + 1e-9)


def test_a_pair_on_the_wire_is_both_responses_in_whole_frames():
    """A 1 KiB pair: the data file's response (260 header + 1,024 bytes) and the md5 file's (260 +
    83) in one frame each, 90 bytes of IP, TCP and Ethernet a frame: 1,807 bytes, where the data
    file alone at full frames had been charged 1,088."""
    assert download.pair_wire(KiB, 1500) == (260 + KiB + 260 + 83 + 2 * 90, 2)
    full_segment = 1500 - 20 - 32
    assert download.pair_wire(full_segment - 260, 1500)[1] == 2  # the header fills the frame
    assert download.pair_wire(full_segment - 259, 1500)[1] == 3


def test_a_long_run_with_the_accept_mutex_is_not_its_start_scaled_up():
    """With the accept mutex, a worker that missed it tries again 500 ms later, so a run's first
    half second is a start with few workers serving. 2,000 pairs of 1 KiB from memory end within
    it (53 ms), and a long run had been that start's rate scaled up (38.8 MB/s at any length): the
    loop now follows more pairs, up to ten starts' worth, so a run of a million pairs is well above
    the start's and one of ten million the same (both follow the same pairs); and never above the
    link: a thousand clients of 256 KiB files, whose first pairs end long after the start, had
    been counted 12.5 % above it by a rate taken after the start. Without the mutex the length
    does not matter."""
    eight = (*SMALL_FROM_MEMORY, "server.workers=8")
    runs = {n: _run(*eight, f"workload.files={n}") for n in (2000, 1_000_000, 10_000_000)}
    assert runs[1_000_000].throughput_MBps > 2 * runs[2000].throughput_MBps
    assert runs[10_000_000].throughput_MBps == pytest.approx(
        runs[1_000_000].throughput_MBps, rel=1e-9
    )
    many = _run(
        "workload.file_size_KiB=256",
        "workload.dataset_files=200",
        "workload.clients=1000",
        "server.workers=4",
        "workload.files=10000000",
    )
    assert many.throughput_MBps <= many.bound_MBps * (1 + 1e-9)
    assert many.throughput_MBps <= 125 * 0.95  # 1 GbE less its framing
    plain = [
        _run(*eight, "server.accept_mutex=false", f"workload.files={n}").throughput_MBps
        for n in (2000, 1_000_000)
    ]
    assert plain[0] == pytest.approx(plain[1], rel=1e-9)


def test_a_loop_follows_ten_starts_worth_of_pairs_at_most_its_cap():
    """From a first loop of 2,000 pairs in 53 ms, ten 500 ms starts call for 226,416 pairs (in
    proportion, a fifth more); a loop that outlasted them, a run it followed whole, or a server
    without the mutex keeps its pairs; the cap holds the rest."""
    assert download.longer_run(10**6, 2000, 0.053, 0.5) == math.ceil(1.2 * 2000 * 10 * 0.5 / 0.053)
    assert download.longer_run(10**6, 2000, 5.0, 0.5) == 2000  # it outlasted ten starts
    assert download.longer_run(2000, 2000, 0.053, 0.5) == 2000  # the whole run
    assert download.longer_run(10**9, 2000, 1e-4, 0.5) == download.WARM_PAIRS
    assert download.longer_run(10**6, 2000, 0.053, 0.0) == 2000  # no mutex, no start


def test_idle_workers_take_no_core_from_the_busy_ones():
    """Four clients of 1 KiB files from memory keep at most four workers busy: 8, 64 or 1,024
    workers serve them alike (each request had been stretched by workers over cores, busy or not:
    16.9, 8.0 and 0.8 MB/s); only workers computing at once beyond the cores share them."""
    few = (*WORKERS_ALONE, "workload.clients=4")
    rates = [_run(*few, f"server.workers={w}").throughput_MBps for w in (8, 64, 1024)]
    assert rates[1] == pytest.approx(rates[0], rel=1e-9)
    assert rates[2] == pytest.approx(rates[0], rel=1e-9)


def test_a_window_over_many_small_chunks_fits_each_drive_s_queue():
    """RAID6 with a 4 KiB stripe: a read-ahead window spans several stripe rows, and a member with
    a parity chunk between two of its pieces takes two commands of one read. With noatime (no
    write-backs among the queue's room), queueing drives and four workers serving both clients at
    once, a queue sized for one command a read a client overflowed its array in the compiled loop
    and aborted the process (the interval's search for its ends met it). Run in its own process:
    an abort would take the test run with it."""
    settings = ["variant=r6_opt", "server.workers=4", "workload.clients=2", "server.atime=noatime"]
    settings += ["drive_queue_depth=32", "server.accept_mutex=false", "chunk_KiB=4"]
    proc = subprocess.run(
        [sys.executable, "-m", "model", "predict", "eah_download", "--point"]
        + [arg for setting in settings for arg in ("--set", setting)],
        capture_output=True,
        text=True,
        cwd=paths.PROJECT_ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-300:]
    assert "MB/s" in proc.stdout
