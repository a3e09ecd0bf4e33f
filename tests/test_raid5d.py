"""An md RAID5/6 array's raid5d thread: its parity copies and, per stripe_head, the member
requests it dispatches and completes (``raid5d.md_raid5d_cycles_per_byte``); reads pass it by."""

import pytest
from flash_parts import BIG_HOST, on_hba, on_riser, scenario
from quote_parts import write

from model import scenario as loader
from model.simulate import simulate
from model.storage import raid5d

CLOCK_Hz = BIG_HOST["clock_GHz"] * 1e9
COPY_Bps = BIG_HOST["copy_rate_MBps"] * 1e6
REQUEST = raid5d.MD_CYCLES_PER_MEMBER_REQUEST
SLOT = raid5d.MD_CYCLES_PER_MEMBER_SLOT
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
