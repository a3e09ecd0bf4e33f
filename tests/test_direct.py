"""Direct I/O streams: one request in flight, so the drives a request lands on set the pace."""

import pytest

from model import catalog, params, scenario, templates
from model.result import busiest
from model.simulate import simulate
from model.storage import direct
from model.storage import disk as disk_model


def _raid0(disks, *overrides):
    return simulate(
        scenario.load("atlas_intellistation", [f"volumes.md0.disks.count={disks}", *overrides])
    )


def test_a_request_no_larger_than_a_chunk_keeps_one_drive_busy_however_many_there_are():
    one = _raid0(1, "workload.io=direct", "workload.request_KiB=64")
    five = _raid0(5, "workload.io=direct", "workload.request_KiB=64")
    assert five.throughput_MBps == pytest.approx(one.throughput_MBps, rel=0.01)
    assert five.bottleneck == "requests 0"


@pytest.mark.parametrize("disks", [2, 3, 5])
def test_larger_requests_never_slow_a_direct_stream_and_a_stripe_gives_the_array_back(disks):
    rates = [
        _raid0(disks, "workload.io=direct", f"workload.request_KiB={kib}").throughput_MBps
        for kib in (16, 64, 128, 256, 1024)
    ]
    assert all(b >= a * (1 - 1e-9) for a, b in zip(rates, rates[1:], strict=False)), rates
    # the Promise cards on the 32-bit PCI bound both the same way once a request covers the stripe
    # (the drives' look-ahead reads on while the host handles a request)
    assert rates[-1] == pytest.approx(_raid0(disks).throughput_MBps, rel=1e-6)


def test_a_direct_stream_skips_the_copy_to_user_space():
    buffered, direct_io = _raid0(1), _raid0(1, "workload.io=direct", "workload.request_KiB=1024")
    assert direct_io.cpu_sys_s < buffered.cpu_sys_s


def test_a_write_with_no_cache_on_the_way_waits_a_turn_for_the_next_request():
    parts = catalog.load()
    through = scenario.load("psu_write", ["variant=raid", "workload.io=direct"]).body
    back = scenario.load(
        "psu_write", ["variant=raid", "workload.io=direct", "controllers.iop332.write_back=true"]
    ).body
    disk = parts.get("disks", "st336706lw", "test", "disk")
    rate = 50e6
    gap = direct.request_s(through, "raid1", "write", disk, rate) - direct.request_s(
        back, "raid1", "write", disk, rate
    )
    assert gap == pytest.approx(disk_model.revolution_s(disk))


def _one_sas_drive(queue_depth, *more):
    return simulate(
        scenario.load(
            str(templates.FOLDER / "storage_server.yaml"),
            [
                "volumes.data.level=single",
                "volumes.data.disks.count=1",
                "volumes.data.disks.attach=[hba.0]",
                "workload.io=direct",
                "workload.streams=1",
                "workload.total_MB=1000",
                "workload.request_KiB=64",
                f"workload.queue_depth={queue_depth}",
                *more,
            ],
        )
    )


def test_a_drive_holding_the_next_write_writes_on_without_waiting_a_turn():
    """The storage audit's case: a SAS drive, its write cache off as shipped, took 64 KiB direct
    writes at 7.6 MB/s one at a time (a turn lost each) and 15.3, 30.6 ... 243.8 MB/s at 2 to 32
    in flight, as if each waited its own turn beside the others on one actuator. With the next
    write queued at the drive its sectors follow under the head: the platters' rate from 2 on."""
    one, two, eight = (_one_sas_drive(q) for q in (1, 2, 8))
    assert one.bottleneck == "requests 0"
    assert one.throughput_MBps < 0.05 * two.throughput_MBps
    assert two.bottleneck == eight.bottleneck == "disk data.0"
    assert two.throughput_MBps == pytest.approx(eight.throughput_MBps, rel=1e-6)


def test_a_drive_of_one_command_waits_a_turn_however_many_writes_are_in_flight(tmp_path):
    """A drive that takes one command at a time (a SATA drive without NCQ, its write cache off)
    holds none behind the one it writes."""
    one_command = tmp_path / "parts.yaml"
    one_command.write_text(
        "disks:\n  one_tag:\n    like: exos_x18_st18000nm000j\n    queue_depth: 1\n"
        "    sources: {queue_depth: a test's drive of one command}\n"
    )
    loaded = scenario.load(
        str(templates.FOLDER / "storage_server.yaml"),
        [
            "volumes.data.level=single",
            "volumes.data.disks.count=1",
            "volumes.data.disks.attach=[hba.0]",
            "volumes.data.disks.part=one_tag",
            "volumes.data.drive_write_cache=disabled",
            "workload.io=direct",
            "workload.request_KiB=64",
            "workload.queue_depth=8",
        ],
        catalogs=(str(one_command),),
    )
    assert simulate(loaded).bottleneck == "requests 0"


def _parity(level, kib, *more):
    return _raid0(
        5,
        f"volumes.md0.level={level}",
        "workload.op=write",
        "workload.io=direct",
        f"workload.request_KiB={kib}",
        *more,
    )


NO_WRITE_CACHE = "volumes.md0.drive_write_cache=disabled"


def test_a_one_chunk_write_to_md_raid5_reads_and_rewrites_its_sectors_a_turn_later():
    """Without a write cache: the old data and parity read, then written where they were, one
    turn from the read's start, then the write's transfer; with the ATA drives' own cache on (as
    they ship) the write is taken into it: its reads and writes' transfers, no turn."""
    disk = catalog.load().get("disks", "wd1200jb", "test", "disk")
    turn_s = disk_model.revolution_s(disk)
    uncached = _parity("raid5", 64, NO_WRITE_CACHE)  # one chunk of a 4-chunk stripe
    chunk_s = 64 * 1024 / 1e6 / uncached.throughput_MBps - turn_s  # the write's own transfer
    assert 0.0 < chunk_s < 0.3 * turn_s
    cached = _parity("raid5", 64)
    assert cached.throughput_MBps == pytest.approx(64 * 1024 / (2 * chunk_s) / 1e6, rel=0.01)


def test_md_raid6_reconstructs_instead_reading_the_other_chunks_for_as_long():
    """RAID6's reconstruct-write reads the stripe's other chunks on other drives, in parallel, for
    as long as RAID5's read-modify-write reads the old data and parity; both then wait for the
    sectors (no cache) or not (the cache on)."""
    for more in ((), (NO_WRITE_CACHE,)):
        raid5, raid6 = _parity("raid5", 64, *more), _parity("raid6", 64, *more)
        assert raid6.throughput_MBps == pytest.approx(raid5.throughput_MBps, rel=0.01)
        assert raid6.bottleneck == "requests 0"


@pytest.mark.parametrize("cache", [(), (NO_WRITE_CACHE,)])
@pytest.mark.parametrize("level, stripe_kib", [("raid5", 256), ("raid6", 192)])
def test_a_partial_stripe_is_never_faster_than_a_full_one(level, stripe_kib, cache):
    """The fuzz audit's cases: a 1,024 KiB write of a 1,536 KiB stripe (reconstruct-write, no turn
    counted) ran at 538 MB/s where the full stripe ran at 169, and a request of a stripe and a
    chunk cost no reads, as if it were whole stripes: whatever a write covers of a stripe only in
    part it reads for first, so whole stripes are the fastest requests, a stripe and a chunk
    slower than two stripes."""

    def rate(kib):
        return _parity(level, kib, *cache).throughput_MBps

    full = rate(stripe_kib)
    assert all(rate(kib) <= full * (1 + 1e-9) for kib in range(64, stripe_kib, 64))
    assert rate(stripe_kib + 64) < rate(2 * stripe_kib)


def test_md_parity_loads_the_arrays_raid5d_thread_and_the_host_not_the_writer():
    raid0 = _raid0(5, "workload.op=write")
    raid5 = _raid0(5, "volumes.md0.level=raid5", "workload.op=write")
    assert "raid5d md0.0" in raid5.utilization and "raid5d md0.0" not in raid0.utilization
    assert raid5.utilization["raid5d md0.0"] > 0
    assert raid5.cpu_sys_s == pytest.approx(raid0.cpu_sys_s)  # the writer's own time is the same


def test_direct_reads_the_calibrated_parameters_it_needs():
    """A direct stream's host time is its request's fixed cost or its bytes' published cost, not
    the buffered path's copies (``direct.DIRECT_IO_CYCLES_PER_BYTE``)."""
    recording = params.Recording(params.calibrated())
    simulate(scenario.load("atlas_intellistation", ["workload.io=direct"]), recording)
    assert {"io_cycles_per_request", "disk_format_efficiency"} <= recording.read
    assert "io_copy_passes" not in recording.read


def test_a_direct_byte_costs_the_published_runs_cycles():
    """One fio job: 4,398 MB/s of 1 MiB direct reads at 0.52 % user and 8.80 % system time of a
    2.65 GHz core, 0.056 cycles a byte; a 1 MiB request on a 3.25 GHz core, 18 us."""
    assert direct.DIRECT_IO_CYCLES_PER_BYTE == pytest.approx(0.0932 * 2.64999 / 4.398, rel=1e-4)
    host = catalog.load().get("hosts", "dell_r720", "", "")
    assert direct.core_s_per_byte(host) * host.clock_GHz * 1e9 == pytest.approx(
        direct.DIRECT_IO_CYCLES_PER_BYTE
    )


@pytest.mark.parametrize(
    "op, reads_write_cost",
    [("read", False), ("write", True)],
)
def test_a_stream_reads_the_write_cost_only_when_it_writes(op, reads_write_cost):
    """A parameter a prediction does not depend on is not among those it read: the interval would
    vary it (a run wasted) and the provenance would name it."""
    recording = params.Recording(params.calibrated())
    simulate(scenario.load("atlas_triumf_send", [f"workload.op={op}"]), recording)
    assert ("io_write_extra_passes" in recording.read) is reads_write_cost
    assert "io_copy_passes" in recording.read


@pytest.mark.parametrize("variant, reads_driver", [("raid_to_sata", False), ("sata_to_raid", True)])
def test_a_copy_reads_the_raid_driver_s_write_cost_only_when_it_writes_to_the_raid(
    variant, reads_driver
):
    recording = params.Recording(params.calibrated())
    simulate(scenario.load("psu_copy", [f"variant={variant}"]), recording)
    assert ("iop332_driver_write_ns_per_byte" in recording.read) is reads_driver


TEMPLATE = "data/templates/storage_server.yaml"
DIRECT_QD1 = [
    "workload.io=direct",
    "workload.op=read",
    "workload.request_KiB=512",
    "volumes.data.chunk_KiB=64",
    "volumes.data.level=raid0",
]


def test_lvm_striping_deals_a_direct_request_over_its_groups_and_linear_keeps_it_in_one():
    """A 512 KiB request over two RAID0 groups of four striped by LVM in 64 KiB stripes: each
    group's 256 KiB lands on its four drives, 64 KiB each, as on one RAID0 of eight; LVM linear
    puts it in one group, 128 KiB on each of four drives, so it takes longer. (It was refused as
    not modelled.)"""
    one = simulate(scenario.load(TEMPLATE, DIRECT_QD1))
    striped = simulate(
        scenario.load(TEMPLATE, [*DIRECT_QD1, "volumes.data.groups=2", "volumes.data.lvm=striped"])
    )
    linear = simulate(
        scenario.load(TEMPLATE, [*DIRECT_QD1, "volumes.data.groups=2", "volumes.data.lvm=linear"])
    )
    assert striped.throughput_MBps == pytest.approx(one.throughput_MBps, rel=0.01)
    assert linear.throughput_MBps < 0.8 * striped.throughput_MBps


SMALL_READS = ["workload.io=direct", "workload.request_KiB=0.5", "workload.total_MB=50"]


def _small_reads(queue_depth, command_us=None):
    values = params.calibrated()
    if command_us is not None:
        values["disk_cache_command_us"] = command_us
    return simulate(
        scenario.load(
            "atlas_intellistation", [*SMALL_READS, f"workload.queue_depth={queue_depth}"]
        ),
        values,
    )


def test_small_direct_reads_on_a_disk_wait_for_its_cached_command_not_its_platters():
    """512 B requests in a row from a RAID0 of 64 KiB chunks: the drives' look-ahead has them, but
    each waits for its drive's time on a cached command (IBM's '<30 us' cache hit) and its trip
    across UDMA100, so many in flight reach that rate on each drive their 16 KiB reaches together
    (one, and a second while it crosses a chunk boundary: 1 + 15.5/64 on average) and no more, one
    at a time less (the host's turn between), far below the platters' 44 MB/s (which the model
    gave them before: 85,744 requests a second)."""
    disk = catalog.load().get("disks", "wd1200jb", "test", "disk")
    command_s = params.calibrated()["disk_cache_command_us"] / 1e6
    command_s += 512 / (disk.interface_rate_MBps * 1e6)
    many, one = _small_reads(32), _small_reads(1)
    reached = 1 + (32 * 512 - 512) / (64 * 1024)
    assert many.throughput_MBps == pytest.approx(reached * 512 / command_s / 1e6, rel=0.01)
    assert 0.8 * many.throughput_MBps / reached < one.throughput_MBps < many.throughput_MBps
    assert one.throughput_MBps < 0.4 * _raid0(1, "workload.io=direct").throughput_MBps
    assert _small_reads(1, command_us=10.0).throughput_MBps > 2 * one.throughput_MBps


def test_small_direct_reads_read_the_drive_s_cached_command_time():
    recording = params.Recording(params.calibrated())
    simulate(scenario.load("atlas_intellistation", SMALL_READS), recording)
    assert "disk_cache_command_us" in recording.read


@pytest.mark.parametrize("kib", [0.1, 1.3])
def test_a_direct_request_is_whole_logical_blocks(run_cli, kib):
    """O_DIRECT moves whole logical blocks: 0.1 KiB printed 0.0123 MB/s at 120 IOPS (the storage
    audit); it is one line and status 2, and buffered I/O takes any size."""
    where = ("predict", "atlas_intellistation", "--set", f"workload.request_KiB={kib}", "--point")
    status, _, err = run_cli(*where, "--set", "workload.io=direct")
    assert status == 2 and len(err.strip().splitlines()) == 1
    assert err.startswith("--set: workload.io: a direct request is whole logical blocks")
    assert run_cli(*where)[0] == 0


def test_a_set_that_leaves_the_file_s_queue_depth_without_direct_io_is_named(run_cli):
    """The NVMe template keeps 32 requests in flight: '--set workload.io=buffered' was told as the
    file's mistake ('nvme_server.yaml: workload.queue_depth: ...'); the override did it."""
    template = str(templates.FOLDER / "nvme_server.yaml")
    status, _, err = run_cli("predict", template, "--set", "workload.io=buffered", "--point")
    assert status == 2
    assert err.startswith("--set: workload.io: only io: direct keeps more than one request")


def _sas_raid0(chunk_kib, queue_depth, op="read", request_kib=1024):
    """Eight SAS drives of the storage server template striped, one direct stream."""
    return simulate(
        scenario.load(
            str(templates.FOLDER / "storage_server.yaml"),
            [
                "volumes.data.level=raid0",
                f"volumes.data.chunk_KiB={chunk_kib}",
                "workload.io=direct",
                "workload.streams=1",
                "workload.total_MB=4000",
                f"workload.request_KiB={request_kib}",
                f"workload.queue_depth={queue_depth}",
                f"workload.op={op}",
            ],
        )
    )


@pytest.mark.parametrize("op", ["read", "write"])
def test_requests_in_flight_in_one_chunk_share_its_drive_not_the_array(op):
    """The what-if audit's case: four 1 MiB requests in flight, all in one 4 MiB chunk, had run at
    four times one drive's rate, as if each had a drive of its own. They reach 1 + 3/4 drives on
    average (the window crosses a chunk boundary three times in four), each at its platters' rate
    (a drive holding the next write writes on); four 4 MiB requests, each in a chunk of its own,
    keep four drives at one request's rate each (a write with none queued behind it at its drive
    waiting its turn, as one alone does)."""
    alone = _sas_raid0(4096, 1, op, 4096).throughput_MBps
    platters = _sas_raid0(4096, 1, "read", 4096).throughput_MBps  # one drive, no turn lost
    four_in_a_chunk = _sas_raid0(4096, 4, op)
    assert four_in_a_chunk.throughput_MBps == pytest.approx(1.75 * platters, rel=0.005)
    assert four_in_a_chunk.bottleneck == "requests 0"
    four_chunks = _sas_raid0(4096, 4, op, 4096).throughput_MBps
    assert four_chunks == pytest.approx(4 * alone, rel=0.005)


def test_the_drives_a_window_reaches_are_its_first_piece_s_and_one_a_chunk_boundary_crossed():
    volume = scenario.load(
        str(templates.FOLDER / "storage_server.yaml"),
        ["volumes.data.level=raid0", "volumes.data.chunk_KiB=1024"],
    ).body.volumes["data"]
    MiB = 2**20
    assert direct.window_drives(volume, MiB, 1) == 1  # one request, one chunk
    assert direct.window_drives(volume, MiB / 16, 8) == pytest.approx(1 + 7 / 16)
    assert direct.window_drives(volume, 2 * MiB, 3) == 6  # whole chunks: six of them
    assert direct.window_drives(volume, 2 * MiB, 32) == 8  # at most the array's data drives


def test_requests_in_flight_that_tie_with_the_drives_they_reach_name_the_drives():
    """The storage audit: one direct reader of 32 MiB in flight on 24 drives, 8 SAS lanes, named
    'requests 0' its bottleneck at 16, 32 or 64 in flight alike: its limit is what the drives it
    reaches carry, and the drives bind (a planner raising iodepth would change nothing)."""
    one_reader = [
        "clients=null",
        "workload.op=read",
        "workload.io=direct",
        "workload.streams=1",
        "workload.request_KiB=1024",
        "volumes.data.level=raid0",
        "volumes.data.groups=1",
        "volumes.data.lvm=none",
        "volumes.data.lvm_stripes=null",
        "shelves.jbod.uplink=[hba.0,hba.1,hba.2,hba.3,hba.4,hba.5,hba.6,hba.7]",
    ]
    values = params.calibrated()
    for depth in (16, 32, 64):
        deep = scenario.load("purchase_hdd_md", [*one_reader, f"workload.queue_depth={depth}"])
        assert simulate(deep, values).bottleneck.startswith("disk data.")
    # a window that reaches too few drives is what binds, and is named so
    shallow = scenario.load("purchase_hdd_md", [*one_reader, "workload.queue_depth=1"])
    assert simulate(shallow, values).bottleneck == "requests 0"


def test_a_tie_is_to_rounding_only():
    assert busiest({"requests 0": 0.9962664237108744, "disk d.0": 0.996266423710874}) == "disk d.0"
    assert busiest({"requests 0": 0.999, "disk d.0": 0.99}) == "requests 0"


def test_a_stream_s_request_cost_is_the_larger_of_its_bytes_and_its_fixed_cost_a_request():
    """``stream.request_core_s``, which dd streams and a file server's process both pay: a read
    stream pays no write's cost and reads none of its parameters; a direct byte costs the
    published direct read, a buffered write more than a buffered read."""
    from model.storage.stream import request_core_s

    body = scenario.load("atlas_intellistation", ["workload.op=read"]).body
    host = catalog.load().get("hosts", body.host, "", "")
    recording = params.Recording(params.calibrated())
    read_s, write_s = request_core_s(recording, body, host, paid_only=True)
    assert write_s == 0.0 and read_s > 0.0
    assert "io_write_extra_passes" not in recording.read
    buffered = request_core_s(params.calibrated(), body, host)
    assert buffered[0] == read_s and buffered[1] > read_s  # the writer's extra passes
    fixed_s = params.calibrated()["io_cycles_per_request"] / (host.clock_GHz * 1e9)
    per_request_s = fixed_s / (body.workload.request_KiB * 1024)
    on_direct = request_core_s(params.calibrated(), body, host, direct_io=True)
    assert on_direct == (max(direct.core_s_per_byte(host), per_request_s),) * 2
