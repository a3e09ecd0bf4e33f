"""Concurrent sequential readers on hard disks (``model.storage.interleave``): streams reading
their own files take turns at the drives, a positioning a window, unless an idling scheduler gives
each process a slice."""

from dataclasses import replace

import pytest

from model import catalog, scenario
from model.errors import UserError
from model.params import calibrated
from model.simulate import simulate
from model.storage import disk as disk_model
from model.storage import interleave, requests

ONE_DISK = ("volumes.md0.disks.count=1", "workload.total_MB=1000")


def _rate(name, *overrides):
    return simulate(scenario.load(name, list(overrides)), calibrated()).throughput_MBps


def test_one_stream_keeps_its_drive_streaming_and_two_take_a_seek_and_a_turn_a_window():
    """The IntelliStation's IDE drive holds one command: each 128 KiB window of one stream after
    the other's waits a seek within the files' span and half a revolution."""
    one = _rate("atlas_intellistation", *ONE_DISK)
    two = _rate("atlas_intellistation", *ONE_DISK, "workload.streams=2")
    loaded = scenario.load("atlas_intellistation", [*ONE_DISK, "workload.streams=2"])
    part = catalog.load().get("disks", "wd1200jb", "test", "disk")
    span = 2 * 1000e6 / (part.capacity_GB * 1e9)
    piece = 128 * 1024
    assert interleave.window_B(
        loaded.body.volumes["md0"], loaded.body.kernel, loaded.body.workload, 1
    ) == pytest.approx(piece)
    wait_s = requests.positioning_s(part, "read", span, 1) + disk_model.command_overhead_s(part)
    expected = piece / (wait_s + piece / (one * 1e6)) / 1e6
    assert two == pytest.approx(expected, rel=0.03)
    assert two < one / 2.5


def test_an_idling_scheduler_gives_each_reading_process_a_slice():
    """cfq's 100 ms slice: one positioning every 100 ms of streaming."""
    one = _rate("atlas_intellistation", *ONE_DISK)
    two = _rate(
        "atlas_intellistation", *ONE_DISK, "workload.streams=2", "volumes.md0.io_scheduler=cfq"
    )
    assert 0.85 * one < two < one
    bfq = _rate(
        "atlas_intellistation", *ONE_DISK, "workload.streams=2", "volumes.md0.io_scheduler=bfq"
    )
    assert two < bfq < one  # its 125 ms timeout: fewer switches


@pytest.mark.parametrize("scheduler", ["mq-deadline", "none", "kyber", "deadline", "noop"])
def test_schedulers_that_do_not_idle_interleave_alike(scheduler):
    base = _rate("atlas_intellistation", *ONE_DISK, "workload.streams=4")
    other = _rate(
        "atlas_intellistation",
        *ONE_DISK,
        "workload.streams=4",
        f"volumes.md0.io_scheduler={scheduler}",
    )
    assert other == base


def test_nfs_clients_interleave_under_an_idling_scheduler_too():
    """nfsd's threads serve every client's calls, so cfq's per-process queues do not follow the
    clients' files; each SMB client has its own smbd, whose queue cfq keeps for a slice."""
    fs = ("workload.total_MB=2000", "volumes.data.io_scheduler=cfq")
    nfs = scenario.load("purchase_hdd_md", [*fs, "clients.protocol=nfs", "workload.op=read"])
    smb = scenario.load("purchase_hdd_md", [*fs, "clients.protocol=smb", "workload.op=read"])
    deadline = scenario.load(
        "purchase_hdd_md", ["workload.total_MB=2000", "clients.protocol=nfs", "workload.op=read"]
    )
    nfs_disk = simulate(nfs, calibrated()).utilization
    smb_disk = simulate(smb, calibrated()).utilization
    deadline_disk = simulate(deadline, calibrated()).utilization
    # the drives' time per byte: under cfq the SMB readers' drives work less for the same bytes
    assert nfs_disk["disk data.0"] == pytest.approx(deadline_disk["disk data.0"], rel=1e-6)
    assert smb_disk["disk data.0"] < nfs_disk["disk data.0"]


def test_an_md_array_reads_ahead_two_stripes_and_each_member_takes_its_share_in_a_row():
    loaded = scenario.load("purchase_hdd_md", ["workload.op=read"])
    volume = loaded.body.volumes["data"]
    level, groups = volume.layout()
    drives = volume.disks.count // groups
    window = interleave.window_B(volume, loaded.body.kernel, loaded.body.workload, drives)
    data = {"raid6": drives - 2, "raid5": drives - 1}[level]
    stripe = data * volume.chunk_KiB * 1024
    assert window == max(2 * stripe, 128 * 1024)
    assert interleave.piece_B(volume, window, drives) == pytest.approx(window / data)


def test_writers_and_flash_readers_are_left_as_flows():
    write_one = _rate("atlas_intellistation", *ONE_DISK, "workload.op=write")
    write_two = _rate("atlas_intellistation", *ONE_DISK, "workload.op=write", "workload.streams=2")
    assert write_two == pytest.approx(write_one, rel=0.1)
    flash = _rate("purchase_nvme", "clients=null", "workload.op=read", "workload.total_MB=1000")
    flash_four = _rate(
        "purchase_nvme",
        "clients=null",
        "workload.op=read",
        "workload.total_MB=1000",
        "workload.streams=4",
    )
    assert flash_four >= flash


def test_a_queueing_drive_serves_many_readers_better_than_one_that_holds_one_command():
    """SPTF among the pieces the drive holds shortens each positioning (the span held equal)."""
    loaded = scenario.load("atlas_intellistation", [*ONE_DISK, "workload.streams=16"])
    body = loaded.body
    part = catalog.load().get("disks", "wd1200jb", "test", "disk")
    args = (body.volumes["md0"], body.kernel, body.workload, 1, 40e6, 0.05)
    in_order = interleave.drive_Bps(part, *args, own_processes=False)
    queueing = interleave.drive_Bps(replace(part, queue_depth=32), *args, own_processes=False)
    assert queueing > 1.3 * in_order


def _raidz2_pool(**more) -> dict:
    """Six quote drives in one RAIDZ2 vdev holding a dataset, OpenZFS 2.1's 8 MiB prefetch."""
    return {
        "engine": "zfs",
        "vdevs": {"type": "raidz2", "count": 1},
        "disks": {"part": "quote_hdd", "count": 6, "attach": [f"hba.{i}" for i in range(6)]},
        "filesystem": {"type": "zfs"},
        "zfetch_max_distance_MiB": 8,
        **more,
    }


def test_a_zfs_pool_s_readers_take_turns_at_its_prefetch_distance(tmp_path):
    """OpenZFS 2.1 prefetches 8 MiB a stream (zfetch_max_distance), a RAIDZ2 vdev of six splitting
    it over four data columns: 2 MiB pieces, at most three of its prefetch reads at a drive
    (zfs_vdev_async_read_max_active)."""
    from flash_parts import scenario as with_parts
    from quote_parts import write

    pool = _raidz2_pool()
    workload = {"op": "read", "request_KiB": 1024, "total_MB": 6000, "streams": 4}
    loaded = scenario.load(write(tmp_path / "s.yaml", with_parts(pool, workload)))
    body = loaded.body
    volume = body.volumes[body.workload.target]
    assert interleave.window_B(volume, body.kernel, body.workload, 6) == 8 * 2**20
    assert interleave.piece_B(volume, 8 * 2**20, 6) == 2 * 2**20
    part = loaded.catalog.get("disks", "quote_hdd", "", "")
    span = 4 * 6000e6 / 4 / (part.capacity_GB * 1e9)
    media = disk_model.mean_rate_MBps(part, calibrated()["disk_format_efficiency"], 0.0, span)
    expected = requests.drive_Bps(part, "read", 2 * 2**20, media * 1e6, span, 3)
    result = simulate(loaded, calibrated())
    assert result.bottleneck.startswith("disk")
    assert result.throughput_MBps == pytest.approx(4 * expected / 1e6, rel=0.02)
    assert result.throughput_MBps < 0.9 * 4 * media


def test_a_compressed_pool_s_prefetch_reaches_its_drives_as_the_bytes_it_stores(tmp_path):
    """The prefetcher reads ahead 8 MiB of records; at ratio 2 with lz4 they are stored in 4 MiB,
    1 MiB on each of the four data columns: the drives take turns a positioning a MiB, where
    they had one each 2 MiB, and the user is told so."""
    from flash_parts import scenario as with_parts
    from quote_parts import write

    pool = _raidz2_pool(compression="lz4", compress_ratio=2.0)
    workload = {"op": "read", "request_KiB": 1024, "total_MB": 6000, "streams": 4}
    loaded = scenario.load(write(tmp_path / "s.yaml", with_parts(pool, workload)))
    body = loaded.body
    assert interleave.window_B(body.volumes["v"], body.kernel, body.workload, 6) == 4 * 2**20
    said = [n for n in simulate(loaded, calibrated()).notes if "take turns" in n]
    assert "puts 4,096 KiB on a vdev, 1,024 KiB on a drive" in said[0]


def test_openzfs_2_2_s_longer_prefetch_lets_a_wide_pool_s_readers_stream_longer(tmp_path):
    """From OpenZFS 2.2 a stream's prefetch grows to 64 MiB (the default): eight times 2.1's 8 MiB
    pieces, so two readers of a RAIDZ2 pool lose a few percent of one reader's rate to positioning
    where under 2.1 they lose a quarter; and the key means nothing on md."""
    from flash_parts import scenario as with_parts
    from quote_parts import write

    def rate(distance_MiB, streams):
        pool = {
            "engine": "zfs",
            "vdevs": {"type": "raidz2", "count": 1},
            "disks": {"part": "quote_hdd", "count": 6, "attach": [f"hba.{i}" for i in range(6)]},
            "filesystem": {"type": "zfs"},
            **({} if distance_MiB is None else {"zfetch_max_distance_MiB": distance_MiB}),
        }
        workload = {"op": "read", "request_KiB": 1024, "total_MB": 6000, "streams": streams}
        loaded = scenario.load(write(tmp_path / "s.yaml", with_parts(pool, workload)))
        body = loaded.body
        if distance_MiB is not None:  # unset, the host's (64 MiB on this 64-bit host)
            window = interleave.window_B(body.volumes["v"], body.kernel, body.workload, 6)
            assert window == distance_MiB * 2**20
        result = simulate(loaded, calibrated())
        # the user is told how the streams share the drives
        said = [n for n in result.notes if "take turns" in n]
        assert said == ([] if streams == 1 else [said[0]])
        if said:
            assert f"a stream's {distance_MiB or 64} MiB prefetch" in said[0]
        return result.throughput_MBps

    alone = rate(None, 1)
    assert 0.9 * alone < rate(None, 2) <= alone
    assert rate(8, 2) < 0.8 * alone
    with pytest.raises(UserError, match="zfetch_max_distance_MiB: only for engine: zfs"):
        scenario.load("atlas_intellistation", ["volumes.md0.zfetch_max_distance_MiB=8"])


def test_lvm_striping_deals_a_direct_streams_requests_out_over_its_groups():
    """The storage audit: four direct readers of 32 MiB in flight on 24 drives in 512 KiB chunks
    came out at 3,883 MB/s as one md array and 4,855 as two groups LVM stripes over (12,669
    against 6,089 on 60 drives in six): each group was given the stream's whole window, where the
    same chunks dealt over the same drives put the same piece on each."""
    local_direct_reads = (
        "clients=null",
        "workload.op=read",
        "workload.io=direct",
        "workload.streams=4",
        "workload.request_KiB=1024",
        "workload.queue_depth=32",
        "volumes.data.level=raid0",
        "volumes.data.lvm_stripes=null",
    )
    # and windows smaller than the stripes (the review: 16 streams of one 1 MiB request each came
    # out at 1,550, 1,550, 1,871 and 2,242 MB/s on 1, 2, 4 and 6 groups, each stream counted at
    # every group's drives though its window reached two)
    for window in ((), ("workload.streams=16", "workload.queue_depth=1")):
        one = _rate(
            "purchase_hdd_md",
            *local_direct_reads,
            *window,
            "volumes.data.groups=1",
            "volumes.data.lvm=none",
        )
        for groups in (2, 3, 4, 6):
            striped = _rate(
                "purchase_hdd_md",
                *local_direct_reads,
                *window,
                f"volumes.data.groups={groups}",
                "volumes.data.lvm=striped",
            )
            assert striped == pytest.approx(one, rel=1e-6), (window, groups)
        assert one < 0.8 * 24 * 270  # the streams take turns at the drives: not each streaming
    two = scenario.load(
        "purchase_hdd_md",
        [*local_direct_reads, "volumes.data.groups=2", "volumes.data.lvm=striped"],
    )
    notes = " ".join(simulate(two, calibrated()).notes)
    assert "32,768 KiB requests in flight, 16,384 KiB on each of the 2 of 2 groups" in notes
