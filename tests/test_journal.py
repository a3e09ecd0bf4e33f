"""ext3's journal (``model.storage.filesystem.Journal``): the ``data=`` mode as ext3's documentation
gives it, the writer's dearer path on a kernel whose ext3 takes the big kernel lock
(``settings.Kernel.ext3_write_ratio``), and the CERN receive host's ext3 figure predicted with the
mode and that ratio as declared unknowns."""

import pytest
from grid_files import one_line

from model import scenario, uncertainty
from model.simulate import simulate


def _cern(*overrides):
    return simulate(scenario.load("atlas_cern_receive", list(overrides)))


def _disk_bytes(result):
    return result.utilization["disk md0.0"] * result.elapsed_s


AS_EXT2 = "kernel.ext3_write_ratio=1"  # ext3's write path as dear as ext2's


def test_ordered_journals_the_block_map_only():
    ext2, ordered = _cern(), _cern("variant=ext3", AS_EXT2)
    assert ordered.throughput_MBps == pytest.approx(ext2.throughput_MBps, rel=1e-3)
    # the map, 4 bytes a 4 KiB block, goes to the journal and to its place
    assert _disk_bytes(ordered) / _disk_bytes(ext2) == pytest.approx(
        (1 + 2 * 4 / 4096) / (1 + 4 / 4096), rel=1e-6
    )
    writeback = _cern("variant=ext3", AS_EXT2, "volumes.md0.filesystem.journal=writeback")
    assert writeback.throughput_MBps == (pytest.approx(ordered.throughput_MBps, rel=1e-9))


def test_data_journal_writes_every_byte_twice_and_the_writer_waits_for_the_second():
    ordered = _cern("variant=ext3")
    journal = _cern("variant=ext3", "volumes.md0.filesystem.journal=journal")
    assert _disk_bytes(journal) / _disk_bytes(ordered) == pytest.approx(
        2 * (1 + 4 / 4096) / (1 + 2 * 4 / 4096), rel=1e-6
    )
    # one stream: its core's work and the wait for its checkpoint in series
    assert journal.bottleneck == "core 0 with its checkpoints"
    assert journal.cpu_sys_s == pytest.approx(ordered.cpu_sys_s, rel=1e-6)
    core_s = ordered.cpu_sys_s / ordered.bytes_moved
    assert 1 / journal.throughput_MBps > 1 / ordered.throughput_MBps
    wait_s = journal.elapsed_s / journal.bytes_moved - core_s
    # the wait is the home write at the volume's own pace: what the drives' controllers allow
    assert 0 < wait_s < core_s


def test_a_2_4_kernels_ext3_costs_the_writers_core_more_on_each_byte_by_its_ratio():
    as_ext2 = _cern("variant=ext3", AS_EXT2)
    locked = _cern("variant=ext3", "kernel.ext3_write_ratio=0.4")
    # the write is bound by the writer's core: its time per byte grows by 1 / ratio
    assert locked.bottleneck == as_ext2.bottleneck == "core 0"
    assert locked.cpu_sys_s == pytest.approx(as_ext2.cpu_sys_s / 0.4, rel=1e-6)
    assert locked.throughput_MBps == pytest.approx(0.4 * as_ext2.throughput_MBps, rel=0.02)
    # ext2 and reads have no journal handles to pay for
    assert _cern("kernel.ext3_write_ratio=0.4").throughput_MBps == pytest.approx(
        _cern().throughput_MBps, rel=1e-12
    )
    read = ("variant=ext3", "workload.op=read")
    assert _cern(*read, "kernel.ext3_write_ratio=0.4").throughput_MBps == pytest.approx(
        _cern(*read).throughput_MBps, rel=1e-12
    )


def test_every_buffered_writer_takes_its_core_time_from_the_target_volume():
    # dd (stream), a file server (front) and a WAN sink (wan) all ask target_io_s_per_byte
    from model.storage.stream import io_s_per_byte, target_io_s_per_byte

    params = {"io_copy_passes": 5.0, "io_write_extra_passes": 1.0}
    ext3 = scenario.load("atlas_cern_receive", ["variant=ext3", "kernel.ext3_write_ratio=0.4"]).body
    ext2 = scenario.load("atlas_cern_receive", ["kernel.ext3_write_ratio=0.4"]).body
    for op in ("read", "write"):
        plain = io_s_per_byte(params, 1000.0, op)
        assert target_io_s_per_byte(params, ext2, 1000.0, op) == plain
        expected = plain / 0.4 if op == "write" else plain
        assert target_io_s_per_byte(params, ext3, 1000.0, op) == pytest.approx(expected)


def _smbd_busy(*storage_overrides):
    """The smbd processes' busy time per byte written: their share busy over the run's length per
    byte (a share alone stops at 1 where smbd binds)."""
    overrides = ", ".join(("variant=striped",) + storage_overrides)
    r = simulate(scenario.load("em_ingest_microscopes", [f"storage_overrides=[{overrides}]"]))
    return r.utilization["smbd processes"] * r.elapsed_s / r.bytes_moved


def test_a_file_server_writing_to_ext3_pays_the_same_ratio():
    # smbd writes through the page cache as dd does (model.storage.front): the ratio reaches it
    as_ext2 = _smbd_busy("volumes.lv.filesystem.type=ext3", AS_EXT2)
    locked = _smbd_busy("volumes.lv.filesystem.type=ext3", "kernel.ext3_write_ratio=0.4")
    assert locked > 1.5 * as_ext2
    # on the store's own file system the kernel's ext3 figure has nothing to act on
    assert _smbd_busy("kernel.ext3_write_ratio=0.4") == pytest.approx(_smbd_busy(), rel=1e-12)


def test_reads_are_not_journalled():
    read = ("variant=ext3", "workload.op=read")
    assert _cern(*read, "volumes.md0.filesystem.journal=journal").throughput_MBps == (
        pytest.approx(_cern(*read).throughput_MBps, rel=1e-12)
    )


def test_the_journal_mode_is_the_unknown_of_the_ext3_figure():
    sc = scenario.load("atlas_cern_receive", ["variant=ext3"])
    interval = uncertainty.interval(sc)
    assert set(interval.drivers) >= {"volumes.md0.filesystem.journal", "kernel.ext3_write_ratio"}
    assert interval.low < 0.75 * interval.point <= interval.high
    # the ext2 figure has no journal to be unsure of
    ext2_drivers = uncertainty.interval(scenario.load("atlas_cern_receive", [])).drivers
    assert not {"volumes.md0.filesystem.journal", "kernel.ext3_write_ratio"} & set(ext2_drivers)


def test_a_journal_mode_on_a_file_system_without_one_is_one_line(run_cli):
    one_line(
        run_cli("predict", "atlas_cern_receive", "--set", "volumes.md0.filesystem.journal=journal"),
        "volumes.md0.filesystem.journal",
        "ext3",
    )


def test_ext4_maps_extents_as_xfs_does_and_journals_its_data_under_data_journal():
    """The ZFS audit: ext4, a planner's usual file system, was refused ('must be one of raw, ext2,
    ext3, xfs, zfs'). It maps extents (no block map to read or write with the data) and journals
    as ext3 does: ordered writes as XFS, data=journal writes each byte twice, the writer waiting
    for its checkpoint (JBD2's __jbd2_log_wait_for_space)."""
    write = ("workload.op=write",)
    xfs = _cern(*write, "volumes.md0.filesystem.type=xfs")
    ext4 = _cern(*write, "volumes.md0.filesystem.type=ext4")
    assert ext4.throughput_MBps == pytest.approx(xfs.throughput_MBps, rel=1e-9)
    assert _disk_bytes(ext4) == pytest.approx(_disk_bytes(xfs), rel=1e-9)
    journalled = _cern(
        *write, "volumes.md0.filesystem.type=ext4", "volumes.md0.filesystem.journal=journal"
    )
    assert _disk_bytes(journalled) == pytest.approx(2 * _disk_bytes(ext4), rel=1e-6)
    assert journalled.throughput_MBps < 0.75 * ext4.throughput_MBps


DIRECT = (
    "clients=null",
    "workload.total_MB=10000",
    "workload.io=direct",
    "workload.queue_depth=4",
)


def _overrides(*settings):
    return [a for s in settings for a in ("--set", s)]


@pytest.mark.parametrize("op", ["write", "read"])
def test_ext3_data_journal_refuses_o_direct_as_its_open_does(run_cli, op):
    """The input audit: data=journal under a direct stream gave ordered's 184.3 MB/s with twice
    the drives' work. ext3's journalled files have no direct_IO, and open(2) with O_DIRECT fails
    with EINVAL (fs/open.c open_check_o_direct): the program cannot run, for a read as for a
    write. ordered keeps its figure."""
    ext3 = ("volumes.data.filesystem.type=ext3", f"workload.op={op}")
    journal = "volumes.data.filesystem.journal=journal"
    one_line(
        run_cli("predict", "purchase_hdd_md", "--point", *_overrides(*DIRECT, *ext3, journal)),
        "--set: volumes.data.filesystem.journal:",
        "refuses O_DIRECT",
        "allowed: data= ordered or writeback, or workload.io buffered",
    )
    status, out, err = run_cli("predict", "purchase_hdd_md", "--point", *_overrides(*DIRECT, *ext3))
    assert status == 0 and "MB/s" in out, err


@pytest.mark.parametrize("op", ["write", "read"])
def test_ext4_data_journal_under_o_direct_is_not_modelled(run_cli, op):
    """ext4 opens the file and serves every O_DIRECT request buffered, a write as an O_DSYNC one
    (Ts'o's 'fake direct I/O mode for data=journal'; fs/ext4/file.c): a path the model does not
    have, so not modelled (status 3), not ordered's figure."""
    ext4 = ("volumes.data.filesystem.type=ext4", f"workload.op={op}")
    status, out, err = run_cli(
        "predict",
        "purchase_hdd_md",
        "--point",
        *_overrides(*DIRECT, *ext4, "volumes.data.filesystem.journal=journal"),
    )
    assert status == 3 and out == "" and len(err.strip().splitlines()) == 1, err
    assert err.startswith("not modelled yet: ext4 mounted data=journal under workload.io direct")


def test_a_memory_map_on_data_journal_is_not_modelled_and_a_mode_ext2_has_not_is_refused(run_cli):
    """The input audit: the memory-mapped test never read the file system, so ext4 data=journal
    gave ordered's 8.91 MB/s, and a data= mode on ext2, which has none, passed."""
    for fs in ("ext3", "ext4"):
        status, out, err = run_cli(
            "predict",
            "psu_mmap",
            "--point",
            *_overrides(
                f"volumes.raid1.filesystem.type={fs}", "volumes.raid1.filesystem.journal=journal"
            ),
        )
        assert status == 3 and out == "", err
        assert f"{fs} mounted data=journal under workload.io mmap" in err
    one_line(
        run_cli(
            "predict", "psu_mmap", "--point", "--set", "volumes.raid1.filesystem.journal=journal"
        ),
        "volumes.raid1.filesystem.journal",
        "ext2, which has none",
    )
