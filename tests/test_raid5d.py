"""An md RAID5/6 array's raid5d thread: its parity copies and, per stripe_head, the member
requests it dispatches and completes (``raid5d.md_raid5d_cycles_per_byte``); reads pass it by."""

import dataclasses
import json

import pytest
import yaml
from flash_parts import BIG_HOST, on_hba, on_riser, scenario
from quote_parts import write

from model import catalog, paths, uncertainty
from model import scenario as loader
from model.simulate import simulate
from model.storage import raid5d

CLOCK_Hz = BIG_HOST["clock_GHz"] * 1e9
COPY_Bps = BIG_HOST["copy_rate_MBps"] * 1e6
REQUEST = raid5d.MD_CYCLES_PER_MEMBER_REQUEST
SLOT = raid5d.MD_CYCLES_PER_MEMBER_SLOT
THREADS = "volumes.data.md_group_thread_cnt"
RANDOM_WRITE = {
    "op": "write",
    "io": "direct",
    "pattern": "random",
    "request_KiB": 4,
    "queue_depth": 32,
    "streams": 32,
    "total_MB": 40,
}
SEQUENTIAL_WRITE = {
    "op": "write",
    "io": "direct",
    "request_KiB": 1024,
    "queue_depth": 32,
    "streams": 16,
    "total_MB": 4000,
}


def _run(tmp_path, data):
    return simulate(loader.load(write(tmp_path / "s.yaml", data)))


def _nvme(level: str, count: int, workload: dict, chunk_KiB: float = 512) -> dict:
    """``count`` PCIe 4.0 NVMe drives, four to a PCIe 4.0 x16 riser, in one md array."""
    data = scenario(on_riser("samsung_980_pro_1tb", count, level), workload, "pcie4_x16")
    risers = (count + 3) // 4
    data["buses"].update({f"riser{i}": {"part": "pcie4_x16"} for i in range(risers)})
    del data["buses"]["riser"]
    data["volumes"]["v"]["disks"]["attach"] = [f"nvme.riser{i // 4}.{i % 4}" for i in range(count)]
    data["volumes"]["v"]["chunk_KiB"] = chunk_KiB
    return data


def test_the_costs_reproduce_the_published_raid6_small_write_rates():
    """Stock md RAID6 on RAM disks at the default group_thread_cnt, 4 KiB random writes on
    3.0 GHz Xeon 8481C cores: 72,767 and 83,852 a second on 6 members, 54,266 on 16; each write 6
    member requests and a pass over every member."""
    for members, iops in ((6, (72_767 + 83_852) / 2), (16, 54_266.0)):
        cycles = 6 * REQUEST + members * SLOT
        assert 3.0e9 / cycles == pytest.approx(iops, rel=1e-9)
    assert REQUEST == pytest.approx(4688, abs=1) and SLOT == pytest.approx(1697, abs=1)
    # a small write is its pages' stripe_heads, each its member requests: RAID5 of four 4 (2 + 2),
    # RAID6 of six 6 (3 + 3)
    per_B = raid5d.md_raid5d_cycles_per_byte("raid5", 4, 65536, 4096, 4)
    assert per_B * 4096 == pytest.approx(4 * REQUEST + 4 * SLOT)
    assert raid5d.md_raid5d_cycles_per_byte("raid6", 6, 65536, 16384, 6) == pytest.approx(
        (6 * REQUEST + 6 * SLOT) / 4096
    )
    # a 1 KiB write still takes a whole stripe_head
    assert raid5d.md_raid5d_cycles_per_byte("raid6", 6, 65536, 1024, 6) == pytest.approx(
        4 * (6 * REQUEST + 6 * SLOT) / 4096
    )


def test_raid5d_busy_share_of_random_writes_is_their_requests_times_their_cost(tmp_path):
    """Four disks in md RAID5 take 4 KiB random writes as fast as their heads allow; raid5d is
    busy for each write's 2 reads and 2 writes, its pass over the 4 members and its parity copy,
    no more."""
    data = scenario(on_hba("quote_hdd", 4, "raid5"), RANDOM_WRITE)
    result = _run(tmp_path, data)
    writes_per_s = result.throughput_MBps * 1e6 / 4096
    per_write_s = (4 * REQUEST + 4 * SLOT) / CLOCK_Hz + 4096 * 1.0 / COPY_Bps
    assert result.bottleneck.startswith("disk v")
    assert result.utilization["raid5d v.0"] == pytest.approx(writes_per_s * per_write_s, rel=1e-6)
    assert 0.0 < result.utilization["raid5d v.0"] < 0.01


def test_small_writes_on_many_nvme_drives_are_bound_by_raid5d(tmp_path):
    """The audit's case: 4 KiB random writes, 32 streams at QD32, on md RAID6 of 24 NVMe drives
    (a million IOPS of drives): one raid5d takes each write's 6 requests and its pass over 24
    members, some 69,000 cycles, 43,000 writes a second at 3 GHz."""
    result = _run(tmp_path, _nvme("raid6", 24, RANDOM_WRITE))
    per_write_s = (6 * REQUEST + 24 * SLOT) / CLOCK_Hz + 4096 * 1.5 / COPY_Bps
    assert result.bottleneck == "raid5d v.0"
    assert result.throughput_MBps * 1e6 / 4096 == pytest.approx(1 / per_write_s, rel=1e-3)
    assert 40_000 < 1 / per_write_s < 45_000


@pytest.mark.parametrize("chunk_KiB", [64, 512])
def test_a_raid6_sequential_write_on_many_nvme_drives_is_bound_by_raid5d(tmp_path, chunk_KiB):
    """Full stripes on 24 NVMe drives: each page of the 22 data members' stripe_head writes all 24
    members, and each chunk row's stripe_heads share one pass over the members (batched full
    stripes, Linux 4.1); with the parity's 1.5 copies a byte, under 2 GB/s at 3 GHz."""
    result = _run(tmp_path, _nvme("raid6", 24, SEQUENTIAL_WRITE, chunk_KiB))
    batch = chunk_KiB * 1024 / 4096
    stripe_s = 24 * (REQUEST + SLOT / batch) / CLOCK_Hz
    per_byte_s = stripe_s / (22 * 4096) + 1.5 / COPY_Bps
    assert result.bottleneck == "raid5d v.0"
    assert result.throughput_MBps == pytest.approx(1 / per_byte_s / 1e6, rel=1e-3)
    assert 1_500 < result.throughput_MBps < 2_200
    # the purchase audit's 8 NVMe RAID6 at 1,138 MB/s named raid5d and said no more
    (said,) = [n for n in result.notes if n.startswith("raid5d v.0 binds")]
    assert "group_thread_cnt 0, the default" in said and "one thread's rate" in said


def test_a_raid6_write_its_drives_hold_says_nothing_of_raid5d(tmp_path):
    """The hard-disk purchase written locally: its stream's core binds, raid5d short of it."""
    result = simulate(loader.load("purchase_hdd_md", ["clients=null"]))
    assert not result.bottleneck.startswith("raid5d")
    assert not any("raid5d" in n for n in result.notes)


@pytest.mark.parametrize(
    "workload",
    [
        {**RANDOM_WRITE, "op": "read"},
        {**SEQUENTIAL_WRITE, "op": "read"},
    ],
    ids=["random", "sequential"],
)
def test_reads_of_a_whole_array_pass_raid5d_by(tmp_path, monkeypatch, workload):
    """A read of a non-degraded md RAID5/6 goes straight to the member that holds it
    (chunk_aligned_read, split at chunk boundaries): no raid5d, and no change with its costs."""
    data = _nvme("raid6", 8, workload)
    with_costs = _run(tmp_path, data)
    monkeypatch.setattr(raid5d, "MD_CYCLES_PER_MEMBER_REQUEST", 0.0)
    monkeypatch.setattr(raid5d, "MD_CYCLES_PER_MEMBER_SLOT", 0.0)
    without = _run(tmp_path, data)
    assert not any(name.startswith("raid5d") for name in with_costs.utilization)
    assert with_costs.throughput_MBps == without.throughput_MBps


@pytest.mark.parametrize(
    "level, drives, rmw, expected",
    [
        ("raid6", 4, True, (1, 3, False)),  # reconstruct: the other data chunk
        ("raid6", 5, True, (2, 3, False)),
        ("raid6", 6, True, (3, 3, False)),  # a tie: md reconstructs
        ("raid6", 16, True, (3, 3, True)),  # read-modify-write: data and both parities
        ("raid6", 16, False, (13, 3, False)),  # before Linux 4.1: every other data chunk
        ("raid5", 3, True, (1, 2, False)),
        ("raid5", 8, True, (2, 2, True)),
    ],
)
def test_md_takes_the_small_write_with_fewer_reads(level, drives, rmw, expected):
    """md's handle_stripe_dirtying: read-modify-write or reconstruct-write, whichever reads less
    (reconstruct on a tie); its RAID6 only reconstructs before Linux 4.1 (md_raid6_rmw false)."""
    from model.storage import requests
    from model.storage.spec import DiskSet, Volume

    disks = DiskSet(part="quote_hdd", count=drives, attach=())
    volume = Volume(level=level, disks=disks, md_raid6_rmw=rmw)
    assert requests.small_write_commands(volume, drives, 1) == expected


def test_lesson_3_s_md_raid6_of_five_drives_reconstructs_its_small_writes():
    """Five WD1200JB drives, 4 KiB random writes: md reconstructs each (a tie of two reads either
    way), reading the stripe's two other data chunks and writing the chunk and both parities, five
    commands on five drives, one on each. An IDE drive holds one command at a time, so each waits
    the datasheet's average seek (it gives no write figure: the read's) and half a turn, then moves
    its 4 KiB at the drive's media rate averaged over the whole disk: the array writes what one
    drive serves, 1 / 13.19 ms = 75.8 a second (the fixed penalty of 6 gave 63.2), after the first
    access of its run."""
    import math

    from model import catalog
    from model import scenario as loader
    from model.params import calibrated
    from model.report import requests_per_s
    from model.simulate import simulate

    s = loader.load(
        "atlas_intellistation",
        [
            "volumes.md0.level=raid6",
            "volumes.md0.disks.count=5",
            "workload.op=write",
            "workload.pattern=random",
            "workload.io=direct",
            "workload.request_KiB=4",
            "workload.queue_depth=16",
        ],
    )
    values = calibrated()
    result = simulate(s, values)
    part = catalog.load().parts["disks"][s.body.volumes["md0"].disks.part]
    assert part.queue_depth == 1 and part.avg_seek_write_ms is None
    # the media rate falls with the radius to 0.55 of the outer zone's (model.storage.disk): over
    # the whole disk its harmonic mean is outer x k / (2 (1 - 0.55)), k = 1 - 0.55^2
    outer_Bps = part.internal_rate_max_Mbps / 8 * values["disk_format_efficiency"] * 1e6
    k = 1 - 0.55**2
    mean_Bps = outer_Bps * k / (2 * (1 - math.sqrt(1 - k)))
    half_turn_s = 0.5 * 60.0 / part.rpm
    command_s = part.avg_seek_read_ms / 1e3 + half_turn_s + 4096 / mean_Bps
    writes = s.body.workload.total_MB * 1e6 / 4096
    first_access_s = part.avg_seek_read_ms / 1e3 + half_turn_s
    assert result.bottleneck.startswith("disk md0.")
    assert requests_per_s(s, result) == pytest.approx(
        writes / (first_access_s + writes * command_s), rel=1e-9
    )


def test_a_small_write_over_two_chunks_moves_each_command_a_chunk():
    """128 KiB into an md RAID5 of eight with 64 KiB chunks: 3 reads and 3 writes of 64 KiB (the
    two chunks and the parity, read then written), 384 KiB of drive transfers for 128 KiB, 0.375 a
    byte on each of the eight drives; raid5d handles 16 stripe_heads (a page of each chunk's 64
    KiB), each its 6 member requests."""
    from model.storage import requests
    from model.storage.spec import DiskSet, Volume

    disks = DiskSet(part="quote_hdd", count=8, attach=())
    volume = Volume(level="raid5", disks=disks, chunk_KiB=64)
    lay = requests.layout(volume, "write", 128 * 1024, 8)
    assert (lay.commands, lay.piece_B, lay.phases) == (6, 65536, 2)
    assert lay.share == pytest.approx(6 * 65536 / (128 * 1024) / 8)
    cycles = raid5d.md_raid5d_cycles_per_byte("raid5", 8, 65536, 128 * 1024, 6) * 128 * 1024
    assert cycles == pytest.approx(16 * (6 * REQUEST + 8 * SLOT))


def test_a_raid_card_whose_processor_binds_says_what_it_is_charged_and_for_what():
    """The second purchase audit: a RAID card's processor held RAID5 and RAID10, reads and
    writes, 1 MiB and 4 KiB, at one rate (382 MB/s at 1.2 GHz), the cost per cache block fitted on
    the MD3260's writes taken for all of them, with nothing saying so."""
    from model import params

    for variant in ([], ["variant=linear_4k"]):
        r = simulate(loader.load("em_ingest", variant))
        (said,) = [n for n in r.notes if "raid_cycles_per_cache_block" in n]
        assert r.bottleneck.startswith("raid md3260.") and said.startswith(r.bottleneck)
        cycles = params.calibrated()["raid_cycles_per_cache_block"]
        assert f"{cycles:,.0f} cycles for each cache block" in said
        assert "taken for every RAID level alike" in said
        assert "a read 5,000 cycles a request" in said
    md = simulate(loader.load("purchase_hdd_md"))  # md over an HBA: no RAID card
    assert not any("raid_cycles_per_cache_block" in n for n in md.notes)


def test_a_write_that_fits_a_raid_card_s_write_back_cache_says_its_burst_is_not_modelled():
    """The second purchase audit: 1 GB into a card's 4 GB protected cache was priced at the
    drives' steady state, 730 s, with write-back on or off alike. The MD3260's 4,096 MB cache:
    100 MB fits (noted), 5,000 MB does not, and with write-back off nothing is said."""

    def said(*overrides):
        notes = simulate(loader.load("em_ingest", list(overrides))).notes
        return [n for n in notes if "write-back cache" in n]

    on = "controllers.md3260.write_back=true"
    (note,) = said(on, "workload.total_MB=100")
    assert note.startswith("the whole write, 100 MB, fits in md3260's 4,096 MB write-back cache")
    assert not said(on, "workload.total_MB=5000")
    assert not said("controllers.md3260.write_back=false", "workload.total_MB=100")


# md's worker threads (volumes.X.md_group_thread_cnt; model.storage.raid5d.stripe_threads_rate)


def _shelf_of_60(tmp_path, groups: int, group_thread_cnt: int, cores: int | None = None):
    """The audit's what-if (``_shelf_of_60_file``), simulated."""
    return _run(tmp_path, _shelf_of_60_file(groups, group_thread_cnt, cores))


def _shelf_of_60_file(groups: int, group_thread_cnt: int, cores: int | None = None) -> dict:
    """The audit's what-if: the hard-disk purchase's EPYC 9354 server with two HBAs, 16 SAS lanes
    to a Data60 of 60 drives, md RAID6 in ``groups`` groups (LVM striped over them), 16 streams
    writing locally; ``cores`` in place of its 32."""
    data = yaml.safe_load((paths.SCENARIOS / "purchase_hdd_md.yaml").read_text())
    del data["clients"]
    data["buses"] = {"slot1": {"part": "pcie4_x8"}, "slot2": {"part": "pcie4_x8"}}
    data["controllers"] = {
        f"hba{n}": {"part": "broadcom_9500_8i", "bus": f"slot{n}"} for n in (1, 2)
    }
    data["shelves"]["jbod"]["uplink"] = [f"hba{n}.{i}" for n in (1, 2) for i in range(8)]
    volume = data["volumes"]["data"]
    volume["disks"].update(count=60, attach=[f"jbod.{i}" for i in range(60)])
    volume.update(groups=groups, md_group_thread_cnt=group_thread_cnt)
    if groups > 1:
        volume["lvm_stripes"] = groups
    else:
        volume.update(lvm="none", lvm_stripes=None)
    data["workload"]["streams"] = 16
    if cores is not None:
        host = data["parts"]["hosts"]["epyc_storage_server"]
        host["cores_per_cpu"] = cores
        host["sources"]["cores_per_cpu"] = "estimated: a smaller host, for the test"
    return data


def test_the_serial_share_is_the_published_rebuild_pair_s_and_holds_to_the_2012_threads():
    """Stock RAID6 rebuilt ~200 MB/s on raid5d alone and ~585 MB/s with 4 workers on one node: 5
    threads 2.925 times one, Amdahl's serial share (5 / 2.925 - 1) / 4. Shaohua Li's 2012 threads
    did 2.3 times with 3 threads (disk-bound, so no less) and 3 times with a thread a disk of 4:
    the model's 2.22 and 2.93 do not exceed them."""
    assert raid5d.MD_SERIAL_SHARE == pytest.approx((5 / 2.925 - 1) / 4, rel=1e-12)
    host = dataclasses.replace(catalog.load().parts["hosts"]["dell_r720"], cpus=1)  # one node
    rates = [raid5d.stripe_threads_rate(host, n, 1, {}) for n in range(5)]
    assert rates[0] == 1.0 and rates[4] == pytest.approx(585 / 200, rel=1e-12)
    # each worker adds, less than a thread's rate
    assert all(a < b < a + 1 for a, b in zip(rates, rates[1:], strict=False))
    assert 2.1 < rates[2] <= 2.3 and rates[4] <= 3.0


def test_the_audit_s_60_drive_raid6_with_4_workers_handles_2_9_times_raid5d_alone(tmp_path):
    """The audit's single 60-drive RAID6: raid5d alone binds at 1,993 MB/s, one thread's rate;
    with group_thread_cnt 4 on the one-socket EPYC (one NUMA node), raid5d and 4 workers handle
    its stripes at 2.925 times that, still what binds, the note saying how many threads and why
    not five times."""
    alone = _shelf_of_60(tmp_path, 1, 0)
    shared = _shelf_of_60(tmp_path, 1, 4)
    assert alone.bottleneck == shared.bottleneck == "raid5d data.0"
    assert alone.throughput_MBps == pytest.approx(1_993, abs=1)
    assert shared.throughput_MBps / alone.throughput_MBps == pytest.approx(585 / 200, rel=1e-3)
    (said,) = [n for n in shared.notes if n.startswith("raid5d data.0 binds")]
    assert "group_thread_cnt 4" in said and "5 threads at once" in said
    assert "2.92 times one thread's rate" in said and "device_lock" in said
    (said,) = [n for n in alone.notes if n.startswith("raid5d data.0 binds")]
    assert "volumes.NAME.md_group_thread_cnt" in said and "one thread's rate" in said


def test_workers_past_the_measured_ones_are_predicted_with_their_range(tmp_path, run_cli):
    """The audit's 60-drive RAID6 at group_thread_cnt 8 on the one-socket EPYC: nine threads, past
    raid5d and the 4 workers measured; it was refused (not modelled, status 3). Now raid5d binds at
    five threads' rate and half what Amdahl's law gives the other four (md_workers_past_measured
    0.5, no table informing it), the note says so, and the interval spans the parameter's range:
    from five threads' rate (0) to the law's nine (1)."""
    five, nine = 585 / 200, 9 / (1 + 8 * raid5d.MD_SERIAL_SHARE)
    alone = _shelf_of_60(tmp_path, 1, 0)
    eight = _shelf_of_60(tmp_path, 1, 8)
    assert eight.bottleneck == "raid5d data.0"
    assert eight.throughput_MBps / alone.throughput_MBps == pytest.approx(
        (five + nine) / 2, rel=1e-3
    )
    (said,) = [n for n in eight.notes if n.startswith("raid5d data.0 binds")]
    assert "9 threads at once" in said and "md_workers_past_measured" in said
    status, out, err = run_cli("predict", str(tmp_path / "s.yaml"), "--json")
    assert status == 0, err
    data = json.loads(out)
    assert data["parameters"]["md_workers_past_measured"] == 0.5
    assert max(data["drivers"], key=data["drivers"].get) == "parameter md_workers_past_measured"
    low, high = data["before_model_error"] or data["interval_90"]
    assert alone.throughput_MBps * five <= low < eight.throughput_MBps < high
    assert high <= alone.throughput_MBps * nine


def test_workers_past_the_measured_ones_widen_an_unknown_thread_count_s_envelope(tmp_path):
    """Session 49's 60-drive RAID6 with md_group_thread_cnt a declared unknown of options 0 and 16,
    its own value 0: only 16 (17 threads, past raid5d and the 4 workers measured) reads
    md_workers_past_measured, which the point's own configuration does not, so its steps were never
    taken and the envelope's top was 16's rate at the parameter's 0.5 (7,330 MB/s). Now they are
    taken at that end: the high end reaches what --set md_group_thread_cnt=16 alone reaches
    (8,589 MB/s; the raid5d thread binds at both, and no other parameter moves either), and the
    parameter is among the drivers, as in a ratio to another configuration (a row measured
    relative to another: one stream's)."""
    data = _shelf_of_60_file(1, 0)
    data["unknowns"] = {THREADS: {"options": [0, 16], "source": "a test"}}
    path = write(tmp_path / "s.yaml", data)
    found = uncertainty.interval(loader.load(path), model_error=False)
    at_16 = uncertainty.interval(loader.load(path, [f"{THREADS}=16"]), model_error=False)
    assert found.point < at_16.point < found.high  # at_16.point: 16 at the parameter's 0.5
    assert found.high == pytest.approx(at_16.high, rel=1e-9)
    assert found.low == found.point  # the point's own 0 workers are the low end, no wider
    assert "parameter md_workers_past_measured" in found.drivers
    one_stream = loader.load(path, ["workload.streams=1"])
    ratio = uncertainty.ratio_interval(loader.load(path), one_stream, model_error=False)
    assert "parameter md_workers_past_measured" in ratio.drivers


def test_the_audit_s_raid60_with_workers_is_held_by_its_drives_not_its_six_raid5d(tmp_path):
    """Six RAID6 groups of ten, LVM striped: six raid5d threads bind at 10,384 MB/s (1,730 each);
    raid5d and 4 workers each lift every group past its drives, which bind next, all 60 full."""
    alone = _shelf_of_60(tmp_path, 6, 0)
    shared = _shelf_of_60(tmp_path, 6, 4)
    assert alone.bottleneck.startswith("raid5d data.")
    assert alone.throughput_MBps == pytest.approx(10_384, abs=1)
    assert shared.bottleneck.startswith("disk data.")
    assert shared.throughput_MBps > 1.2 * alone.throughput_MBps
    assert shared.throughput_MBps == pytest.approx(shared.bound_MBps, rel=1e-3)
    assert min(u for k, u in shared.utilization.items() if k.startswith("disk data.")) > 0.99
    assert max(u for k, u in shared.utilization.items() if k.startswith("raid5d")) < 0.5
    assert not any("raid5d" in n for n in shared.notes)


@pytest.mark.parametrize("cores", [2, 3, 4])
def test_the_threads_take_no_more_cores_than_the_host_has(tmp_path, cores):
    """raid5d and 4 workers on a host of fewer than five cores: no more threads at once than its
    cores, at Amdahl's rate for that many; their work and the writers' share the host's cores,
    which bind."""
    alone = _shelf_of_60(tmp_path, 1, 0, cores)
    shared = _shelf_of_60(tmp_path, 1, 4, cores)
    busy = [r.utilization["raid5d data.0"] / r.throughput_MBps for r in (alone, shared)]
    threads = min(5, cores)
    assert busy[0] / busy[1] == pytest.approx(
        threads / (1 + raid5d.MD_SERIAL_SHARE * (threads - 1)), rel=1e-6
    )
    assert shared.bottleneck == "cpu host"


def test_a_worker_group_is_a_numa_node_and_past_the_measured_workers_is_a_share_of_amdahl():
    """md makes a worker group per NUMA node (alloc_thread_groups): the R720's two sockets give
    group_thread_cnt 2 four workers, raid5d five threads, where writers on both sockets feed
    them; 3 gives seven, past the published runs, whose two past five add the share
    md_workers_past_measured of what Amdahl's law gives them (0: five threads' rate, 1: the law's
    seven; it was refused, not modelled); a front-side-bus host's two sockets are one node. A lone
    writer feeds its own node's group alone (a stripe_head goes to the group of the CPU that made
    it, raid5.c's init_stripe: the review), 3 threads, 2.22 times one."""
    hosts = catalog.load().parts["hosts"]
    two_nodes, front_side_bus = hosts["dell_r720"], hosts["supermicro_p4dl6_cern"]
    assert raid5d.numa_nodes(two_nodes) == 2 and raid5d.numa_nodes(front_side_bus) == 1
    assert raid5d.stripe_threads(two_nodes, 2, 8) == 5
    assert raid5d.stripe_threads_rate(two_nodes, 2, 8, {}) == pytest.approx(585 / 200)
    seven = 7 / (1 + 6 * raid5d.MD_SERIAL_SHARE)
    for past, rate in ((0.0, 585 / 200), (1.0, seven), (0.5, (585 / 200 + seven) / 2)):
        past_rate = raid5d.stripe_threads_rate(two_nodes, 3, 8, {"md_workers_past_measured": past})
        assert past_rate == pytest.approx(rate)
    assert raid5d.stripe_threads(front_side_bus, 4, 8) == front_side_bus.cores == 2
    assert raid5d.stripe_threads(two_nodes, 2, 1) == 3
    assert raid5d.stripe_threads_rate(two_nodes, 3, 1, {}) == pytest.approx(
        4 / (1 + 3 * raid5d.MD_SERIAL_SHARE)
    )


@pytest.mark.parametrize(
    "change, status, said",
    [
        ({"md_group_thread_cnt": 8193}, 2, "an integer from 0 to 8,192"),
        ({"md_group_thread_cnt": 2, "level": "raid10"}, 2, "only for md RAID5 or RAID6"),
        ({"md_group_thread_cnt": 2, "engine": "controller"}, 2, "only for engine: md"),
    ],
    ids=["past-kernel", "no-parity", "card"],
)
def test_md_group_thread_cnt_is_refused_where_it_means_nothing(
    tmp_path, run_cli, change, status, said
):
    """One line each, status 2: past the kernel's 8,192, on a level without parity or a RAID
    card's volume. Past raid5d and 4 workers at once is predicted, with its range
    (test_workers_past_the_measured_ones_are_predicted_with_their_range)."""
    data = _nvme("raid6", 8, SEQUENTIAL_WRITE)
    data["volumes"]["v"].update(change)
    status_got, out, err = run_cli("predict", str(write(tmp_path / "s.yaml", data)))
    assert status_got == status and not out
    (line,) = err.strip().splitlines()
    assert "md_group_thread_cnt" in line and said in line


def test_a_zfs_pool_refuses_md_group_thread_cnt(run_cli):
    status, out, err = run_cli(
        "predict", "purchase_hdd_zfs", "--set", "volumes.data.md_group_thread_cnt=2"
    )
    assert status == 2 and not out
    (line,) = err.strip().splitlines()
    assert "volumes.data.md_group_thread_cnt: only for engine: md" in line


def test_the_writers_whose_cpus_feed_the_worker_groups():
    """The last review: a stripe goes to the group of the CPU that submits the write to md: a
    direct stream's own; buffered writes the flusher's, one (Linux 3.2's IO-less
    balance_dirty_pages); behind a LAN nfsd's threads, or an smbd a client."""
    direct = loader.load("atlas_intellistation", ["workload.io=direct", "workload.streams=4"])
    assert raid5d.writers(direct.body) == 4
    buffered = loader.load("atlas_intellistation", ["workload.streams=4"])
    assert buffered.body.workload.io == "buffered" and raid5d.writers(buffered.body) == 1
    nfs = loader.load("purchase_hdd_md", ["clients.protocol=nfs", "clients.nfsd_threads=32"])
    smb = loader.load("purchase_hdd_md")
    assert raid5d.writers(nfs.body) == 32 and raid5d.writers(smb.body) == smb.body.clients.count
