"""The memory-mapped LDM queue test of the Penn State relay report: page cache, reclaim, write
caches, drives."""

import pytest
from mmap_reference import MappedFile, WriteBackCache, merged_runs

from model import catalog, scenario
from model.params import calibrated
from model.simulate import simulate
from model.storage.mmap import reclaim_batch_B
from model.storage.spindle import MAX_SEGMENTS, Spindle

KiB = 1024
BLOCK_B = 64 * KiB  # a streaming reader's fault: half of Linux's 128 KiB read-ahead


class Recorder:
    """A volume that serves every command in a millisecond and remembers them."""

    def __init__(self):
        self.reads, self.writes = [], []

    def read(self, now_s, offset_B, length_B):
        self.reads.append(offset_B // BLOCK_B)
        return now_s + 1e-3

    def write(self, now_s, runs):
        self.writes.extend(runs)

    def drain(self, now_s):
        return now_s


def _mapped(blocks, capacity, batch=4, max_request_B=4 * BLOCK_B):
    volume = Recorder()
    return MappedFile(blocks, capacity, batch, max_request_B, volume, BLOCK_B), volume


def test_kswapd_frees_a_quarter_of_min_free_kbytes_per_wake_up():
    # 2 GiB: min_free_kbytes = sqrt(16 * 2097152) = 5792 KiB; pages_high - pages_low = 1448 KiB
    assert reclaim_batch_B(2**31) == pytest.approx(5792.6 / 4 * KiB, rel=1e-4)


def test_the_two_streams_fault_alternately_and_meet_in_the_middle():
    mapped, volume = _mapped(8, capacity=100)
    assert mapped.run(0.0, 0.0) == pytest.approx(8e-3)
    assert volume.reads == [0, 7, 1, 6, 2, 5, 3, 4]  # the second half is in memory already


def test_a_file_that_fits_in_memory_is_read_once_over_all_runs():
    mapped, volume = _mapped(50, capacity=60)
    mapped.run(0.0, 1e-6)
    mapped.flush(1.0)
    assert mapped.run(2.0, 1e-6) == pytest.approx(2.0 + 100 * 1e-6)
    assert len(volume.reads) == 50 and mapped.faults == 50


def test_every_written_block_goes_to_disk_once_a_pass_in_ascending_merged_requests():
    mapped, volume = _mapped(100, capacity=30, batch=5, max_request_B=3 * BLOCK_B)
    mapped.flush(mapped.run(0.0, 0.0))
    written = sorted(o // BLOCK_B + i for o, n in volume.writes for i in range(n // BLOCK_B))
    assert written == list(range(100))
    assert all(n <= 3 * BLOCK_B for _, n in volume.writes)
    # reclaim writes back in batches; within each batch the elevator sorts ascending
    assert len(volume.writes) > 100 // 3


def test_the_page_cache_keeps_the_last_blocks_read_first_in_first_out():
    mapped, volume = _mapped(100, capacity=30)
    mapped.run(0.0, 0.0)
    assert sorted(mapped.order) == sorted(volume.reads[-30:])
    assert sum(mapped.resident) == 30


def test_contiguous_extents_merge_up_to_the_largest_request():
    extents = {0: 4, 4: 4, 8: 4, 20: 4, 16: 4}
    assert merged_runs(extents) == [(0, 12), (16, 8)]
    assert merged_runs(extents, max_B=8) == [(0, 8), (8, 4), (16, 8)]


def _drive():
    disk = catalog.load().get("disks", "wd740gd", "test", "disk")
    return disk, Spindle(disk, 0.6)


def test_a_write_back_cache_acknowledges_at_once_and_destages_ascending_to_every_copy():
    disks = [_drive()[1], _drive()[1]]
    cache = WriteBackCache(disks, size_B=8 * BLOCK_B, interface_Bps=150e6)
    acked = cache.write(0.0, 5 * BLOCK_B, BLOCK_B)
    assert acked == pytest.approx(BLOCK_B / 150e6) and disks[0].writes == 0
    for block in (4, 3, 2):  # the fourth block fills half the cache: one merged write per drive
        cache.write(0.0, block * BLOCK_B, BLOCK_B)
    assert [d.writes for d in disks] == [1, 1] and cache.held_B == 0
    assert disks[0].head_B == disks[1].head_B == 6 * BLOCK_B


def test_reading_backwards_waits_most_of_a_turn_per_request_forwards_none():
    disk, drive = _drive()
    offset = 10e9
    track_B = drive.media_Bps(offset) * drive.revolution_s
    done = drive.submit(0.0, offset, BLOCK_B)
    # the sector after the one just read is under the head: a forward read waits no rotation
    assert (
        min(
            drive.rotation_s(done, offset + BLOCK_B),
            drive.revolution_s - drive.rotation_s(done, offset + BLOCK_B),
        )
        < 1e-9
    )
    backward = drive.submit(done, offset - BLOCK_B, BLOCK_B) - done
    turn_left = drive.revolution_s * (1 - 2 * BLOCK_B / track_B)
    # the short seek ends long before the sector comes round again
    assert backward == pytest.approx(
        turn_left + BLOCK_B / drive.media_Bps(offset - BLOCK_B), rel=0.01
    )


def test_a_drive_cache_holds_at_most_its_segments_and_its_size():
    _, drive = _drive()
    now = 0.0
    for i in range(
        3 * MAX_SEGMENTS
    ):  # scattered reads, each followed by idle time for the look-ahead
        now = drive.submit(now, i * 1e9, BLOCK_B) + 0.001  # ~70 KB of look-ahead each
    drive.submit(now, 0.5e9, BLOCK_B)  # a new command keeps what the last look-ahead gathered
    assert len(drive.segments) == MAX_SEGMENTS
    assert drive.cached_B <= drive.cache_B


def _run(*overrides):
    return simulate(scenario.load("psu_mmap", ("workload.runs=1",) + overrides), calibrated())


def test_md_s_read_balance_gives_each_stream_a_drive_where_the_first_reads_them_all():
    """Linux 2.6 md's rule sends a read that does not continue the last one to the other copy when
    it is idle: the program's front and back streams alternate, so each keeps a drive and the run is
    shorter than one that reads the first drive only."""
    nearest = _run("variant=raid", "controllers.iop332.mirror_reads=nearest")
    primary = _run("variant=raid", "controllers.iop332.mirror_reads=primary")
    assert nearest.elapsed_s < 0.7 * primary.elapsed_s
    assert primary.utilization["disk raid1.1"] < 0.5 * nearest.utilization["disk raid1.1"]


def test_a_balanced_mirror_reads_like_its_first_drive_when_the_copies_are_equally_busy():
    """The program has one read at a time and writes go to both copies: at each read the copies hold
    as many commands, and ``balanced`` takes the first of equals."""
    balanced = _run("variant=raid", "controllers.iop332.mirror_reads=balanced")
    primary = _run("variant=raid", "controllers.iop332.mirror_reads=primary")
    assert balanced.elapsed_s == primary.elapsed_s


def test_the_controller_write_back_cache_shortens_the_run():
    assert _run("variant=raid_writeback").elapsed_s < _run("variant=raid").elapsed_s


@pytest.mark.parametrize(
    "setting, where, key",
    [
        (
            "workload.op=read",
            "--set",
            "workload.op",
        ),  # the rejected value came from the command line
        # two programs name the key that asks for them (the code review: it named op)
        ("workload.streams=2", "--set", "workload.streams"),
    ],
)
def test_a_workload_the_mmap_test_cannot_run_is_one_line_and_exit_2(run_cli, setting, where, key):
    status, out, err = run_cli("predict", "psu_mmap", "--set", setting)
    assert status == 2 and out == ""
    assert err.count("\n") == 1
    assert err.split(": ")[0].endswith(where) and key in err, err


def test_a_volume_the_model_does_not_cover_says_so_and_exits_3(run_cli):
    status, _, err = run_cli("predict", "psu_mmap", "--set", "volumes.raid1.level=raid0")
    assert status == 3 and "RAID1 pair" in err


def test_a_stream_continued_after_its_look_ahead_filled_the_cache_waits_for_its_sector():
    def continued(idle_s):
        _, drive = _drive()
        later = drive.submit(0.0, 1e9, BLOCK_B) + idle_s
        length = drive.cache_B + BLOCK_B  # more than the look-ahead can have gathered
        return drive.submit(later, 1e9 + BLOCK_B, length) - later, later, drive

    running, _, drive = continued(0.01)  # 10 ms of look-ahead: well short of the 8 MB cache
    gathered = 0.01 * drive.media_Bps(1e9 + BLOCK_B)
    rest = drive.cache_B + BLOCK_B - gathered
    assert running == pytest.approx(
        gathered / drive.interface_Bps + rest / drive.media_Bps(1e9 + BLOCK_B)
    )
    stopped, later, drive = continued(1.0)  # a second: the cache filled and the look-ahead stopped
    from_cache = drive.cache_B / drive.interface_Bps
    wait = drive.rotation_s(later + from_cache, 1e9 + BLOCK_B + drive.cache_B)
    assert wait > 0.01 * drive.revolution_s
    assert stopped == pytest.approx(from_cache + wait + BLOCK_B / drive.media_Bps(1e9 + BLOCK_B))


def test_the_kernel_s_read_ahead_sets_what_a_fault_reads():
    """A larger read-ahead (blockdev --setra) makes each fault of the streaming reader bring in
    more, so fewer faults and seeks: the memory-mapped test runs faster."""
    default = simulate(scenario.load("psu_mmap", ["variant=raid"]), calibrated())
    larger = simulate(
        scenario.load("psu_mmap", ["variant=raid", "kernel.read_ahead_KiB=512"]), calibrated()
    )
    assert larger.throughput_MBps > 1.1 * default.throughput_MBps
    faults = [int(r.notes[0].split()[0].replace(",", "")) for r in (default, larger)]
    # a fault reads 8 or 9 chunks of 32 KiB (a 512 KiB window) against 2 or 3 (128 KiB)
    assert 3 * faults[1] < faults[0] < 4 * faults[1]


def test_a_fault_reads_the_missing_chunks_of_a_window_starting_half_of_it_below():
    """2.6.9's ``filemap_nopage`` reads around the faulting page: a window of ``window`` chunks
    from half of it below. The forward reader finds the lower half in memory and reads two chunks
    a fault; the backward writer, whose chunk above is in memory, reads three."""
    volume = Recorder()
    mapped = MappedFile(24, 100, 4, 4 * BLOCK_B, volume, BLOCK_B, window_blocks=4)
    mapped.run(0.0, 0.0)
    forward = [b for b in volume.reads if b < 12]
    backward = [b for b in volume.reads if b >= 12]
    assert forward == [0, 4, 6, 8, 10]  # at the file's start the whole window, then two a fault
    assert backward == [21, 18, 15, 12]  # the file's end (21-23), then three a fault
    assert mapped.faults == 9 and sum(mapped.resident) == 24


def test_validate_says_why_the_penn_state_cpu_times_are_not_predicted():
    from model import measured
    from model.validate import predict_row

    rows = {(r.table, r.id): r for rows in measured.load_all().values() for r in rows}
    user = predict_row(rows["psu_mmap", "sata_user"], calibrated())
    system = predict_row(rows["psu_mmap", "raid_sys"], calibrated())
    written = predict_row(rows["psu_write", "sata_user"], calibrated())
    assert user.predicted is None and "does not say what the test program does" in user.reason
    assert system.predicted is None and "page faults" in system.reason
    assert written.predicted is None and "131,072 calls of 32 KiB" in written.reason


EXOS = ["variant=sata", "volumes.sata.disks.part=exos_x24_st24000nm002h"]


def _no_simulation(*args, **kwargs):
    raise AssertionError("the pass was set up: a refused test must not make its arrays")


@pytest.mark.parametrize("total_MB", ["1000000", "20000000"])
def test_a_mapped_file_too_large_to_simulate_is_refused_before_its_arrays(
    run_cli, monkeypatch, total_MB
):
    # 1,000,000 MB took 50 s and 1.4 GB; 20,000,000 MB was a numpy MemoryError traceback (27 GiB)
    monkeypatch.setattr("model.storage.mmap_loop.MappedFile", _no_simulation)
    settings = [arg for s in [*EXOS, f"workload.total_MB={total_MB}"] for arg in ("--set", s)]
    status, out, err = run_cli("predict", "psu_mmap", "--point", *settings)
    assert status == 2 and not out and err.count("\n") == 1
    assert err.startswith("--set: workload.total_MB: ")
    assert "at most 8,388,608 in all: with 3 runs, total_MB is at most 91,625 MB" in err, err


def test_the_largest_mapped_file_the_message_names_still_predicts(run_cli, monkeypatch):
    # a limit of 131,072 chunks leaves 43,690 of 32 KiB to each of 3 runs: 1,431 MB is 43,671 of
    # them, 1,432 MB 43,701
    monkeypatch.setattr("model.storage.mmap.SIMULATED_CHUNKS", 2**17)
    status, _, err = run_cli("predict", "psu_mmap", "--point", "--set", "workload.total_MB=1432")
    assert status == 2 and "with 3 runs, total_MB is at most 1,431 MB, got 1,432 MB" in err, err
    status, out, _ = run_cli("predict", "psu_mmap", "--point", "--set", "workload.total_MB=1431")
    assert status == 0 and "MB/s" in out


def test_an_md_mirror_reads_as_md_s_raid1_and_a_card_s_as_its_setting():
    """The code review: an md mirror under the mapping read as the card's mirror_reads, a key of a
    RAID card that heads no volume there (now refused); md's raid1 reads the nearest copy."""
    from model.storage.mmap import build_volume
    from model.storage.spindle import NEAREST, PRIMARY

    def policy(*overrides):
        s = scenario.load("psu_mmap", ["variant=raid", *overrides])
        return build_volume(s.body, s.catalog, calibrated(), s.path)[2]

    assert policy("controllers.iop332.mirror_reads=primary") == PRIMARY
    md = ("volumes.raid1.engine=md", "controllers.iop332.mirror_reads=null")
    assert policy(*md) == NEAREST


def test_a_zfs_pool_under_a_memory_map_is_named_as_the_pool_it_is(run_cli):
    """The input audit: 'memory-mapped I/O on None with 1 group(s)', a pool having no level."""
    settings = ("--set", "clients=null", "--set", "workload.io=mmap")
    status, out, err = run_cli("predict", "purchase_hdd_zfs", "--point", *settings)
    assert status == 3 and out == "", err
    assert err.strip() == (
        "not modelled yet: memory-mapped I/O on a ZFS pool (volume data, 2 raidz2 vdev(s)): the "
        "model covers one drive and a RAID1 pair, of md or a RAID card"
    )
