"""The download server's compiled loop (``model.servers.download_loop``) against what it replaced:
the SimPy model (``download_reference``), ``Spindle`` command by command, the TCP send buffer, and
the event heap's order."""

import math

import numpy as np
import pytest
from download_reference import simulate as reference_simulate
from hypothesis import given, settings
from hypothesis import strategies as st

from model import catalog, scenario
from model.network.tcp import send_buffer_payload_B, slow_start_growth, tcp_wire_per_byte
from model.params import calibrated
from model.servers import download_events, download_volume
from model.servers import download_loop as loop
from model.servers.download import link_Bps_by_flows
from model.simulate import simulate
from model.storage import drive_arrays, raidmap
from model.storage.raid import LEVELS
from model.storage.spindle import BALANCED, MAX_SEGMENTS, Spindle

KiB = 1024


@pytest.mark.parametrize(
    "overrides",
    [
        ("variant=r6_def", "workload.clients=1"),
        ("variant=r6_def", "workload.clients=9", "server.page_cache=cold"),
        ("variant=r10_opt", "workload.clients=5"),
        ("variant=r10_opt", "workload.clients=5", "mirror_reads=nearest"),
        ("variant=r10_def", "workload.clients=3", "mirror_reads=primary"),
        ("variant=r6_opt", "server.workers=8", "workload.clients=9"),
        (
            "variant=r6_opt",
            "server.workers=8",
            "workload.clients=9",
            "drive_queue_depth=32",
            "server.page_cache=cold",
        ),
        ("variant=r10_opt", "workload.clients=6", "server.connections=per_file"),
        # a window and slow start that bind: new connections over 5 ms, 64 KiB send buffers
        (
            "variant=r6_def",
            "workload.clients=2",
            "server.connections=per_file",
            "lan_rtt_ms=5",
            "tcp.tcp_wmem_B=[4096,4096,65536]",
        ),
        ("variant=r10_def", "workload.clients=4", "drive_read_ahead=false"),
        ("variant=r6_def", "workload.clients=4", "drive_read_ahead=false", "drive_queue_depth=8"),
        ("variant=r10_def", "workload.clients=4", "client_nic=nic_100mb"),
        (
            "variant=r6_def",
            "workload.clients=3",
            "workload.dataset_files=400",
            "server.memory_MB=400",
        ),
    ],
)
def test_the_loop_gives_the_simpy_model_s_times_for_the_same_pairs(overrides):
    """Both simulate the same 120 pairs (the same files, leaves and roots in memory): the loop keeps
    the SimPy model's physics, so the run's time, the drives' commands and their cache hits agree;
    only the order of things that happen at one instant may differ (measured: 0.000 % to 0.14 %).
    Drives that pick the nearest of their queued commands can pick differently among commands sent
    at one instant, and the run's time follows: 1.9 % apart for eight workers at nine clients with
    32 commands a drive at one calibration (disk_format_efficiency 0.5874263), none at that value
    moved by 1e-6 either way. The SimPy model writes nothing back, so both run under noatime; its
    idle worker takes a new connection, as nginx's workers without the accept mutex (tested in
    test_download.py)."""
    s = scenario.load(
        "eah_download",
        [*overrides, "workload.files=120", "server.atime=noatime", "server.accept_mutex=false"],
    )
    ours = simulate(s, calibrated())
    theirs = reference_simulate(s, catalog.load(), calibrated(), 120)
    queued = any(o.startswith("drive_queue_depth=") for o in overrides)
    assert ours.elapsed_s == pytest.approx(theirs.elapsed_s, rel=0.02 if queued else 0.005)
    assert ours.notes[1] == theirs.notes[1]  # commands a pair, share from the drives' caches
    mirrored = "variant=r10_opt" in overrides  # which side of a mirror reads can follow that order
    # queued drives can pick differently among commands sent at one instant: the drives' work
    # agrees in sum
    drives = [name for name in theirs.utilization if name.startswith("drive ")]
    if queued:
        assert sum(ours.utilization[d] for d in drives) == pytest.approx(
            sum(theirs.utilization[d] for d in drives), rel=0.02
        )
    for name, share in theirs.utilization.items():
        if queued and name in drives:
            continue
        if mirrored and name.startswith("drive "):
            first = int(name.split()[1]) // 2 * 2  # RAID 10 mirrors drives 2k and 2k + 1
            pair = [f"drive {first}", f"drive {first + 1}"]
            assert sum(ours.utilization[d] for d in pair) == pytest.approx(
                sum(theirs.utilization[d] for d in pair), rel=0.02
            )
        else:
            # a share of the run's time: with queued drives, the run's time may differ as above
            tolerance = 0.05 if name.startswith("drive ") else 0.02 if queued else 0.01
            assert ours.utilization[name] == pytest.approx(share, rel=tolerance, abs=1e-6)


def _drives():
    disk = catalog.load().get("disks", "hua721075kla330", "test", "disk")
    spindle = Spindle(disk, 0.6)
    return (
        spindle,
        drive_arrays.drive_constants(spindle),
        drive_arrays.drive_state(1, MAX_SEGMENTS, 64, False),
    )


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(0.0, 0.02),  # the gap since the last command, s
            st.booleans(),  # the next piece of the last read's stream, or a random place
            st.integers(0, 740 * 10**9 // 4096),  # the place, in pages
            st.sampled_from([4 * KiB, 64 * KiB, 128 * KiB, 1024 * KiB]),
        ),
        min_size=1,
        max_size=40,
    )
)
def test_a_drive_in_the_loop_serves_as_a_spindle_does(commands):
    """Random and sequential reads, back to back or after idle time: each completes when
    ``Spindle.submit`` says, to the last bit, with the same busy time and cache hits (look-ahead,
    segments)."""
    spindle, constants, (drive_f, drive_i, seg_s, seg_l, seg_t, done_at, _) = _drives()
    now, end = 0.0, 0
    for gap_s, sequential, page, length in commands:
        now += gap_s
        offset = end if sequential else page * 4096
        theirs = spindle.submit(now, offset, length)
        ours = drive_arrays.submit(
            constants, drive_f, drive_i, seg_s, seg_l, seg_t, done_at, 0, now, offset, length
        )
        assert ours == theirs  # the same operations in the same order: the same bits
        end = offset + length
    assert drive_f[0, drive_arrays.BUSY] == spindle.busy_s
    assert drive_i[0, drive_arrays.HITS] == spindle.cache_hits
    assert drive_i[0, drive_arrays.READS] == spindle.reads


@given(st.floats(0, 1e8), st.sampled_from([False, True]), st.sampled_from([False, True]))
def test_the_socket_s_limit_is_tcp_s_send_buffer(acked_B, keep_alive, per_segment):
    wmem = np.array([4096.0, 16384.0, 4194304.0])
    growth = slow_start_growth(per_segment)
    ours = loop._capacity(acked_B, keep_alive, wmem, 1448, 10, *growth)
    theirs = (
        wmem[2]
        if keep_alive
        else min(wmem[2], send_buffer_payload_B(acked_B, 1448, 10, 16384, per_segment))
    )
    assert ours == pytest.approx(theirs, rel=1e-12)


@given(st.lists(st.floats(0, 10).map(lambda t: math.floor(t * 4) / 4), min_size=1, max_size=60))
def test_the_event_heap_gives_events_in_time_order_and_at_one_time_in_the_order_sent(times):
    heap = download_events.new_heap(len(times))
    for i, t in enumerate(times):
        download_events.push(*heap, t, 0, i, 0)
    out = [download_events.pop(*heap) for _ in times]
    assert [(t, a) for t, _, a, _ in out] == sorted((t, i) for i, t in enumerate(times))
    assert heap[2][0] == 0


def test_the_link_is_shared_equally_and_never_exceeds_its_rate():
    """Nine clients on eight workers and ten times the drives' rate of link: the link carries every
    byte the clients received, and no faster than its rate, shared equally by the flows active.

    The server's gigabit link is busy for each pair's two responses on the wire, the data file's
    and the md5 file's (83 bytes: md5sum's line), each with nginx's 260-byte header, in segments
    of MTU - 20 (IP) - 32 (TCP with timestamps) payload bytes, the last one short, each frame
    taking 20 + 32 + 38 bytes of line besides its payload (preamble and delimiter 8, header 14,
    FCS 4, inter-frame gap 12: IEEE 802.3), at 10^9 / 8 bytes a second. The
    result gives only the link's total, not a client's bytes, so the equal share is checked
    where the loop allocates it: k active flows each get a k-th of what the link carries with k,
    or their client's link where that is less (max-min fairness)."""
    s = scenario.load(
        "eah_download", ["workload.clients=9", "server.workers=8", "workload.files=200"]
    )
    result = simulate(s, calibrated())
    body = s.body
    parts = catalog.load().parts
    nic = parts["nics"][body.server_nic]
    line_Bps = nic.rate_Gbps * 1e9 / 8
    card = parts["buses"][nic.host_bus]  # the card's own bus carries far more than its line
    assert card.width_bits / 8 * card.clock_MHz * 1e6 * calibrated()["bus_efficiency"] > line_Bps
    wire_per_byte = (body.mtu_B + 8 + 14 + 4 + 12) / (body.mtu_B - 20 - 32)
    assert tcp_wire_per_byte(body.mtu_B) == pytest.approx(wire_per_byte, rel=1e-15)
    u = result.utilization["server link"]
    assert 0 < u <= 1 + 1e-9
    assert result.bytes_moved == body.workload.files * round(body.workload.file_size_KiB * 1024)
    file_B = round(body.workload.file_size_KiB * 1024)
    mss = body.mtu_B - 20 - 32
    pair_wire_B = sum(260 + B + math.ceil((260 + B) / mss) * (20 + 32 + 38) for B in (file_B, 83))
    assert pair_wire_B > file_B * wire_per_byte
    assert u * result.elapsed_s * line_Bps == pytest.approx(
        body.workload.files * pair_wire_B, rel=1e-9
    )
    assert result.throughput_MBps <= result.bound_MBps * (1 + 1e-9)
    assert result.throughput_MBps * 1e6 / file_B * pair_wire_B <= line_Bps * (1 + 1e-9)
    # k flows active: each its k-th of what the link carries with k, or its client's link
    host = parts["hosts"][body.host]
    payload_Bps = line_Bps * file_B / pair_wire_B
    by_flows = link_Bps_by_flows(body, host, payload_Bps, 9, file_B)
    assert all(by_flows <= payload_Bps)
    for cap_Bps in (math.inf, payload_Bps / 4):
        for k in range(1, 10):
            each = loop._flow_Bps(by_flows, cap_Bps, k)
            assert each == min(by_flows[k] / k, cap_Bps)
            assert k * each <= by_flows[k] * (1 + 1e-12)


def _small_write(level: str, drives: int, chunk_B: int, offset_B: int, length_B: int):
    """The members a write inside one chunk changes, from the read mapping: both drives of a
    mirrored pair, the chunk's member and, just after the row's data members (``raidmap``'s
    left-symmetric layout), its parity members, or a stripe's one member."""
    (piece,) = raidmap.pieces(level, drives, chunk_B, offset_B, length_B)
    parity = LEVELS[level].parity_chunks
    if LEVELS[level].pairs or not parity:
        return piece
    width = raidmap.data_members(level, drives)
    first_data = (piece.members[0] - (offset_B // chunk_B) % width) % drives
    members = piece.members + tuple((first_data + width + k) % drives for k in range(parity))
    return raidmap.Piece(members, piece.offset_B, piece.length_B)


@pytest.mark.parametrize(("level", "drives"), [("raid6", 16), ("raid10", 16), ("raid0", 4)])
@pytest.mark.parametrize("depth", [1, 8])
def test_a_write_back_changes_the_members_a_small_write_changes(level, drives, depth):
    """An inode page's write-back (``write_back``) goes to the members a small write changes
    (``_small_write``): a parity level reads each (its old data, its parity) and writes the same
    sectors back, so each is busy for at least a revolution, the head having to come round again;
    a mirror writes both copies and reads nothing."""

    disk = catalog.load().get("disks", "hua721075kla330", "test", "disk")
    spindle = Spindle(disk, 0.6)
    c = drive_arrays.drive_constants(spindle)
    drive = drive_arrays.drive_state(drives, MAX_SEGMENTS, 16, depth > 1)
    chunk_B, layout = 64 * KiB, LEVELS[level]
    width = raidmap.data_members(level, drives)
    volume = (
        drive,
        np.zeros((64, 3), np.int64),
        np.full(drives, -1, np.int64),
        (drives, chunk_B, width, layout.pairs, layout.parity_chunks, depth, BALANCED),
        np.zeros(5),
        np.zeros(2),
        np.zeros(2, np.int64),
        download_events.new_heap(64),
    )
    offset_B = 37 * chunk_B + 3 * 4 * KiB  # a page in the 38th chunk
    download_volume.write_back(c, volume, 0.0, float(offset_B), 4.0 * KiB)
    ev_t, ev_rows, events = volume[-1]
    while events[0]:  # queued drives: serve what the write-back queued
        now, _, d, _ = download_events.pop(ev_t, ev_rows, events)
        if drive[1][d, drive_arrays.QUEUED]:
            download_volume.serve_next(c, drive, d, now, depth, volume[-1])
    drive_f, drive_i = drive[0], drive[1]
    piece = _small_write(level, drives, chunk_B, offset_B, 4 * KiB)
    assert set(np.flatnonzero(drive_f[:, drive_arrays.BUSY])) == set(piece.members)
    for d in piece.members:
        assert drive_f[d, drive_arrays.HEAD] == piece.offset_B + 4 * KiB
        if layout.parity_chunks:
            assert drive_i[d, drive_arrays.READS] == 1
            assert drive_f[d, drive_arrays.BUSY] > spindle.revolution_s
        else:
            assert drive_i[d, drive_arrays.READS] == 0
