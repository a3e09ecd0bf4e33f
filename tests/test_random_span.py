"""Random requests in a span of the volume, and a queueing drive's reordering
(model/storage/requests.py)."""

import dataclasses
import json
import math

import numpy as np
import pytest
import yaml
from flash_parts import on_hba, scenario
from quote_parts import write

from model import catalog, paths, user_parts
from model import scenario as loader
from model.errors import UserError
from model.schema import build_dataclass
from model.simulate import simulate
from model.storage import disk as disk_model
from model.storage import requests, topology
from model.storage.raid import LEVELS
from model.storage.spec import DiskSet, Volume

DISKS = catalog.load().parts["disks"]
NCQ = DISKS["exos_x18_st18000nm000j"]  # SATA, queue_depth 32
OPS = ("read", "write")


def _curve_mean_ms(part, op: str, stroke: float, points: int = 200_000) -> float:
    """The seek curve's mean over two uniform places of the first ``stroke`` of the stroke, by
    quadrature over their distance u (in units of the span), density 2 (1 - u)."""
    t1, k, m = disk_model.seek_curve(part, op)
    u = (np.arange(points) + 0.5) / points
    seek = t1 + k * np.sqrt(u * stroke) + m * u * stroke
    return float(np.sum(seek * 2.0 * (1.0 - u)) / points)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("pid", sorted(DISKS))
def test_the_curve_averages_the_datasheet_seek_over_the_whole_disk(pid, op):
    part = DISKS[pid]
    mean = _curve_mean_ms(part, op, 1.0)
    assert mean == pytest.approx(disk_model.average_seek_ms(part, op), rel=1e-4)
    # the span formula meets the datasheet average as the span grows to the whole stroke
    assert requests.mean_seek_ms(part, op, 1.0 - 1e-9) == pytest.approx(mean, rel=1e-6)
    # and a lone command over the whole disk still pays the average seek and half a turn
    alone_s = requests.positioning_s(part, op, 1.0, 1)
    assert alone_s == disk_model.average_seek_ms(part, op) / 1e3 + 0.5 * 60.0 / part.rpm


@pytest.mark.parametrize("op", OPS)
def test_a_narrower_span_seeks_shorter(op):
    spans = [1.0, 0.5, 0.1, 0.01, 30 / 18000]
    seeks = [requests.mean_seek_ms(NCQ, op, requests.stroke_share(NCQ, s)) for s in spans]
    assert all(a > b for a, b in zip(seeks, seeks[1:], strict=False)), seeks
    # the span formula is the curve's own mean over the span
    stroke = requests.stroke_share(NCQ, 0.01)
    assert seeks[3] == pytest.approx(_curve_mean_ms(NCQ, op, stroke), rel=1e-4)
    # the outer tracks hold the most: 30 GB at the edge cross less of the stroke than 30/18000
    assert requests.stroke_share(NCQ, 30 / 18000) < 30 / 18000
    assert requests.stroke_share(NCQ, 30 / 18000) == pytest.approx(
        30 / 18000 * (1 + 139 / 270) / 2, rel=1e-3
    )


@pytest.mark.parametrize("span", [1.0, 30 / 18000])
@pytest.mark.parametrize("op", OPS)
def test_reordering_credit_grows_with_queue_depth_and_is_nothing_at_depth_1(op, span):
    alone = requests.positioning_s(NCQ, op, span, 1)
    times = [requests.positioning_s(NCQ, op, span, n) for n in (1, 2, 4, 8, 16, 32)]
    credits = [alone - t for t in times]
    assert credits[0] == 0.0
    assert all(b > a for a, b in zip(credits, credits[1:], strict=False)), credits
    # the queue's integral at one command is the closed form: mean seek + half a turn
    stroke = requests.stroke_share(NCQ, span)
    curve = disk_model.seek_curve(NCQ, op)
    one_ms = requests._shortest_positioning_ms(*curve, 60e3 / NCQ.rpm, stroke, 1)
    assert one_ms == pytest.approx(alone * 1e3, rel=1e-3)


@pytest.mark.parametrize("n", [1, 2, 8, 32])
def test_without_seeks_the_best_of_n_waits_a_revolution_over_n_plus_1(n):
    revolution_ms = 8.0
    best_ms = requests._shortest_positioning_ms(0.0, 1e-6, 0.0, revolution_ms, 1.0, n)
    # within one step of the integral's time grid (a seek this short is a step at t = 0)
    step_ms = revolution_ms / (requests.TIME_POINTS - 1)
    assert abs(best_ms - revolution_ms / (n + 1)) < step_ms


def test_commands_at_a_drive_follow_littles_law_up_to_its_queue_depth():
    single = Volume(level="single", disks=DiskSet("x", 1, ("a.0",)))
    lay = requests.layout(single, "read", 4096, 1)
    assert requests.queued(NCQ, lay, 4096, 4) == 4
    assert requests.queued(NCQ, lay, 4096, 128) == 32  # NCQ holds 32
    assert requests.queued(dataclasses.replace(NCQ, queue_depth=1), lay, 4096, 128) == 1
    assert requests.queued(DISKS["exos_x18_st18000nm004j"], lay, 4096, 128) == 128  # SAS tags
    raid5 = Volume(level="raid5", disks=DiskSet("x", 4, ("a.0",) * 4))
    small = requests.layout(raid5, "write", 4096, 4)
    # 8 small writes: 4 commands each over 4 drives, two at a time (read, then write back)
    assert requests.queued(NCQ, small, 4096, 8) == 8 * LEVELS["raid5"].write_penalty // 4 // 2


def _hw16tb(run_cli, variant: str, *sets: str) -> float:
    args = ["predict", "ext_arr_hw_16tb", "--set", f"variant={variant}", "--point", "--json"]
    for key in sets:
        args += ["--set", key]
    status, out, err = run_cli(*args)
    assert status == 0, err
    return json.loads(out)["throughput_MBps"]


def test_a_30_gb_partition_is_faster_than_the_whole_disk(run_cli):
    whole = _hw16tb(run_cli, "rand_read", "workload.span_GB=18000")
    part = _hw16tb(run_cli, "rand_read")  # the variant's 30 GB
    assert part > 2 * whole


def test_a_queue_depth_1_drive_gets_no_credit(tmp_path):
    data = scenario(
        on_hba("quote_hdd_fifo", 1, "single"),
        {"op": "read", "io": "direct", "pattern": "random", "request_KiB": 4, "total_MB": 4},
    )
    iops = []
    for depth in (1, 32):
        data["workload"]["queue_depth"] = depth
        s = loader.load(write(tmp_path / f"d{depth}.yaml", data))
        iops.append(simulate(s).throughput_MBps * 1e6 / 4096)
    assert iops[1] == pytest.approx(iops[0], rel=1e-3)
    assert math.isfinite(iops[0])


@pytest.mark.parametrize(
    "value, message",
    [
        ("20000", "workload.span_GB: must be at most the 18,000 GB of volume disk, got 20,000"),
        ("0", "workload.span_GB"),
        ("-5", "workload.span_GB"),
        # a span smaller than one request was taken (a 1e-9 GB span of 4 KiB requests predicted
        # 500 IOPS)
        (
            "1e-9",
            "--set: workload.span_GB: random requests of 4 KiB need a span_GB of one request at "
            "least: 4.096e-6 GB (request_KiB x 1,024 B), got 1e-9",
        ),
        ("4.095e-6", "at least: 4.096e-6 GB (request_KiB x 1,024 B), got 4.095e-6"),
    ],
)
def test_a_span_outside_the_volume_is_refused(run_cli, value, message):
    status, out, err = run_cli(
        "predict",
        "ext_arr_hw_16tb",
        "--set",
        "variant=rand_read",
        "--set",
        f"workload.span_GB={value}",
    )
    assert status == 2 and not out and err.count("\n") == 1, err
    assert message in err and "Traceback" not in err, err


def test_a_request_larger_than_the_span_names_the_key_set_last(run_cli):
    base = ("predict", "ext_arr_hw_16tb", "--point", "--set", "variant=rand_read")
    status, out, err = run_cli(*base, "--set", "workload.request_KiB=1e8")
    assert status == 2 and not out and err.count("\n") == 1, err
    assert err.startswith("--set: workload.request_KiB: random requests of 1e+8 KiB need a ")
    assert "span_GB of one request at least: 102.4 GB (request_KiB x 1,024 B), got 30" in err
    status, out, err = run_cli(*base, "--set", "workload.span_GB=4.096e-6")  # one request
    assert status == 0 and "MB/s" in out, err


def test_a_span_needs_random_requests(run_cli):
    status, out, err = run_cli(
        "predict", "ext_arr_hw_16tb", "--set", "variant=seq_read", "--set", "workload.span_GB=30"
    )
    assert status == 2 and not out and err.count("\n") == 1, err
    assert "workload.span_GB: only pattern: random" in err, err


# --- the drive's own time per command (catalog command_overhead_ms) -------------------------------


def _iops(part, op: str, span: float, commands: int) -> float:
    """4 KiB random commands a second at one drive holding ``commands``, in the first ``span``."""
    rate_Bps = disk_model.mean_rate_MBps(part, 1.0, 0.0, span) * 1e6
    return requests.drive_Bps(part, op, 4096, rate_Bps, span, commands) / 4096


def test_the_published_queue_depth_16_random_reads_are_reproduced():
    # Seagate's single-actuator 7200 rpm Exos sheets, 4K QD16 random read over the whole drive:
    # 168 IOPS (Exos X24, DS2080) and 170 (Exos M); the catalog's 1.5 ms is read from them
    assert _iops(NCQ, "read", 1.0, 16) == pytest.approx(169.0, rel=0.03)
    # without the drive's own time the reordering credit alone overstates them by a third
    bare = dataclasses.replace(NCQ, command_overhead_ms=0.0)
    assert _iops(bare, "read", 1.0, 16) > 1.25 * 170.0


@pytest.mark.parametrize(("span", "commands"), [(1.0, 1), (1.0, 32), (30 / 18000, 32)])
@pytest.mark.parametrize("op", OPS)
def test_the_drive_s_own_time_lowers_its_iops_monotonically(op, span, commands):
    iops = [
        _iops(dataclasses.replace(NCQ, command_overhead_ms=ms), op, span, commands)
        for ms in (0.0, 0.5, 1.0, 1.5, 3.0)
    ]
    assert all(a > b for a, b in zip(iops[:-1], iops[1:], strict=True)), iops
    # it adds to each command's time, neither more nor less
    assert 1 / iops[-1] - 1 / iops[0] == pytest.approx(3.0e-3, rel=1e-9)


def test_a_drive_without_the_field_keeps_its_old_service_time():
    scsi = DISKS["st336706lw"]  # the catalog gives it no command_overhead_ms
    assert scsi.command_overhead_ms == 0.0 and disk_model.command_overhead_s(scsi) == 0.0
    for part in (scsi, dataclasses.replace(NCQ, command_overhead_ms=0.0)):
        for commands in (1, 32):
            alone = requests.positioning_s(part, "read", 1.0, commands) + 4096 / 200e6
            assert requests.service_s(part, "read", 4096, 200e6, 1.0, commands) == alone


def test_a_negative_command_overhead_is_refused():
    spec = user_parts._raw(NCQ) | {"command_overhead_ms": -1.0}
    with pytest.raises(UserError) as err:
        build_dataclass(type(NCQ), spec, "data/hardware/test.yaml", "disk")
    line = str(err.value)
    assert "\n" not in line and "command_overhead_ms" in line, line


# --- a scenario's own figure for a stand-in drive (DiskSet.command_overhead_ms) -------------------

OVERHEAD_KEY = "volumes.disk.disks.command_overhead_ms"


def test_the_scenario_s_time_per_command_replaces_the_catalog_s():
    """A time per command set on the scenario's drives (0.72 ms, the low end of its declared range)
    is the one their random requests pay, not the catalog's 1.5 ms: the variant's four streams of
    32 direct 4 KiB reads hold the drive's 32 NCQ slots full in its first 30 GB, so the drive,
    the bottleneck, serves what ``requests.drive_Bps`` gives the catalog part with its figure
    replaced."""
    data = yaml.safe_load((paths.SCENARIOS / "ext_arr_hw_16tb.yaml").read_text())
    assert data["volumes"]["disk"]["disks"]["command_overhead_ms"] == 1.5  # the stand-in's own
    assert NCQ.command_overhead_ms == 1.5  # the catalog's
    s = loader.load("ext_arr_hw_16tb", ["variant=rand_read", f"{OVERHEAD_KEY}=0.72"])
    result = simulate(s)
    span = 30 / NCQ.capacity_GB
    replaced = _iops(dataclasses.replace(NCQ, command_overhead_ms=0.72), "read", span, 32)
    catalog_s = _iops(NCQ, "read", span, 32)
    assert result.bottleneck == "disk disk.0"
    assert result.bound_MBps * 1e6 / 4096 == pytest.approx(replaced, rel=1e-12)
    # each command takes the 1.5 - 0.72 = 0.78 ms less
    assert 1 / catalog_s - 1 / replaced == pytest.approx(0.78e-3, rel=1e-9)
    assert result.bound_MBps * 1e6 / 4096 > 1.5 * catalog_s


@pytest.mark.parametrize(("faster", "slower"), [(0.72, 1.5), (1.5, 2.1), (0.0, 0.72)])
def test_a_longer_time_per_command_lowers_the_rate(run_cli, faster, slower):
    fast = _hw16tb(run_cli, "rand_read", f"{OVERHEAD_KEY}={faster}")
    assert fast > _hw16tb(run_cli, "rand_read", f"{OVERHEAD_KEY}={slower}")


def test_the_post_s_random_rows_declare_it_and_it_moves_them_most(run_cli):
    status, out, err = run_cli(
        "predict", "ext_arr_hw_16tb", "--set", "variant=rand_write", "--json"
    )
    assert status == 0, err
    found = json.loads(out)
    assert max(found["drivers"], key=found["drivers"].get) == OVERHEAD_KEY
    low, high = found["interval_90"]
    assert low < found["throughput_MBps"] < high


def test_a_flash_drive_has_no_time_per_command_to_set(run_cli, tmp_path):
    volume = on_hba("samsung_870_evo_1tb", 1, "single")
    volume["disks"]["command_overhead_ms"] = 1.0
    data = scenario(volume, {"op": "read", "pattern": "random", "request_KiB": 4, "total_MB": 10})
    status, out, err = run_cli("predict", write(tmp_path / "flash.yaml", data))
    assert status == 2 and out == ""
    assert "command_overhead_ms" in err and "flash drive" in err


RANDOM_WRITES = (
    "workload.pattern=random",
    "workload.io=direct",
    "workload.request_KiB=4",
    "workload.queue_depth=64",
    "workload.op=write",
    "workload.total_MB=20",
)


def test_random_requests_on_an_lvm_linear_volume_fall_in_every_group_their_span_covers():
    """The microscope store's fifteen RAID6 LUNs joined by LVM linear: requests anywhere in the
    volume reach all fifteen groups (before, only the first: 1.06 MB/s whatever the span), each
    group's drives holding its fifteenth of the 64 requests in flight; a span within the first
    group reaches it alone, all 64 at its drives."""
    whole = simulate(loader.load("em_ingest", list(RANDOM_WRITES)))
    one_group = simulate(loader.load("em_ingest", [*RANDOM_WRITES, "workload.span_GB=40000"]))
    busy = {k for k, v in whole.utilization.items() if k.startswith("disk") and v > 0}
    assert len(busy) == 180
    assert whole.throughput_MBps > 5 * one_group.throughput_MBps
    assert {k for k, v in one_group.utilization.items() if k.startswith("disk") and v > 0} == {
        f"disk lv.{i}" for i in range(12)
    }


def test_a_start_place_for_random_requests_is_refused_in_one_line(run_cli):
    status, _, err = run_cli(
        "predict",
        "ext_arr_hw_16tb",
        "--set",
        "variant=rand_read",
        "--set",
        "workload.start_fraction=0.5",
        "--point",
    )
    assert status == 2 and len(err.strip().splitlines()) == 1
    assert "workload.start_fraction: random requests fall in the volume's first span_GB" in err


def test_the_same_drives_hold_the_same_requests_however_lvm_groups_them():
    """Eight drives, 32 random 4 KiB reads in flight: one RAID0 of eight, or eight single drives
    under LVM, queue four at each drive either way (each group held all 32 before: 1,592 against
    914 a second)."""
    template = str(paths.PROJECT_ROOT / "data" / "templates" / "storage_server.yaml")
    random = [
        "workload.op=read",
        "workload.pattern=random",
        "workload.io=direct",
        "workload.request_KiB=4",
        "workload.queue_depth=32",
        "workload.total_MB=20",
    ]
    raid0 = simulate(loader.load(template, [*random, "volumes.data.level=raid0"]))
    rates = {raid0.throughput_MBps}
    for lvm in ("linear", "striped"):
        grouped = ["volumes.data.level=single", "volumes.data.groups=8", f"volumes.data.lvm={lvm}"]
        rates.add(simulate(loader.load(template, [*random, *grouped])).throughput_MBps)
    assert max(rates) == pytest.approx(min(rates), rel=1e-6)


@pytest.mark.parametrize("together", [False, True])
@pytest.mark.parametrize("drives", [2, 3, 6])
@pytest.mark.parametrize("span", [1.0, 0.01])
def test_a_request_on_several_drives_waits_for_the_slowest(drives, span, together):
    """The mean of the longest of ``drives`` positionings, each drive's head and command uniform
    over the span (seek curve, then a uniform part of a turn), or one head place and one command
    place for all (``together``: a mirror's copies, one request at a time), only the turns apart,
    against a Monte Carlo draw of the same: the excess over one drive's mean agrees within 2 %."""
    part = DISKS["wd1200jb"]
    t1, k, m = disk_model.seek_curve(part, "write")
    stroke = requests.stroke_share(part, span)
    turn_ms = 60e3 / part.rpm
    rng = np.random.default_rng(7)
    draws = 400_000
    head, target = rng.random((2, draws, 1 if together else drives))
    d = np.abs(target - head) * stroke
    ms = t1 + k * np.sqrt(d) + m * d + rng.random((draws, drives)) * turn_ms
    excess_ms = ms.max(axis=1).mean() - ms[:, 0].mean()
    alone_s = requests.positioning_s(part, "write", span, 1)
    assert requests.slowest_positioning_s(part, "write", span, 1) == alone_s
    slowest_s = requests.slowest_positioning_s(part, "write", span, drives, together)
    assert (slowest_s - alone_s) * 1e3 == pytest.approx(excess_ms, rel=0.02)


def test_one_write_at_a_time_waits_for_its_slowest_drive(tmp_path):
    """The course audit's case: four WD1200JB drives under md, 4 KiB random direct writes one at
    a time. RAID0 lands each on one drive; RAID10 writes two copies at once, their heads together
    (the same writes at the same places), and waits for the later turn, about 10 % slower; RAID5
    (reconstruct-write, 2 reads then 2 writes) and RAID6 (1 read then 3 writes) each wait for the
    slowest of every phase, below half RAID0's rate."""

    def per_s(level):
        run = simulate(
            loader.load(
                "atlas_intellistation",
                [
                    f"volumes.md0.level={level}",
                    "volumes.md0.disks.count=4",
                    "workload.op=write",
                    "workload.pattern=random",
                    "workload.io=direct",
                    "workload.request_KiB=4",
                    "workload.queue_depth=1",
                    "workload.total_MB=20",
                ],
            )
        )
        return run.throughput_MBps * 1e6 / 4096

    raid0, raid10, raid5, raid6 = (per_s(v) for v in ("raid0", "raid10", "raid5", "raid6"))
    assert 0.87 < raid10 / raid0 < 0.93
    assert raid5 < raid0 / 2 and raid6 < raid0 / 2
    assert raid5 == pytest.approx(raid6, rel=0.1)


def _volume(level: str, drives: int, chunk_KiB: int) -> Volume:
    return build_dataclass(
        Volume,
        {
            "level": level,
            "chunk_KiB": chunk_KiB,
            "disks": {
                "part": "exos_x18_st18000nm000j",
                "count": drives,
                "attach": [f"hba.{i}" for i in range(drives)],
            },
        },
        "test",
        "volumes.v",
    )


@pytest.mark.parametrize("drives", [1, 4, 8])
def test_a_request_past_a_stripe_row_reads_each_member_s_chunks_in_one_go(drives):
    """16 MiB on 64 KiB chunks: each member's chunks of consecutive rows lie side by side, so it
    moves request / members after one positioning (was a positioning a chunk: a one-drive RAID0
    read 16 MiB at 16.2 MB/s where the same disk alone read 174.9, the storage fuzz)."""
    request_B = 16 * 2**20
    lay = requests.layout(_volume("raid0", drives, 64), "read", request_B, drives)
    assert lay.piece_B == request_B / drives
    assert lay.at_once == (drives,)
    # a request within one stripe row is still a chunk a member
    small = requests.layout(_volume("raid0", drives, 64), "read", 64 * 1024, drives)
    assert small.piece_B == 64 * 1024


@pytest.mark.parametrize("level, drives", [("raid0", 3), ("raid5", 4), ("raid6", 5)])
def test_a_request_past_a_row_gives_each_member_one_command_of_its_mean_bytes(level, drives):
    """80 chunks of 64 KiB over 3 data members: each member one command (one positioning) of
    their mean, 26.7 chunks, so that the drives' commands and bytes both add up: the busiest's 27
    as the piece with the mean's share left each drive half a command short past a row (260 KiB on
    four 64 KiB chunks read 60 % faster than 256 KiB, the second storage fuzz)."""
    request_B = 80 * 64 * 1024
    lay = requests.layout(_volume(level, drives, 64), "read", request_B, drives)
    assert lay.piece_B == pytest.approx(request_B / 3)
    assert lay.at_once == (3,)
    # commands a drive takes per request: its share of the bytes over a command's piece
    assert lay.share * request_B / lay.piece_B == pytest.approx(3 / drives)


def test_a_request_just_past_a_row_is_no_faster_than_one_row():
    """On a RAID0 of four 64 KiB chunks at depth 32, 260 KiB requests move about what 256 KiB ones
    do (each member still one positioning a request)."""
    volume = _volume("raid0", 4, 64)
    row, past = (requests.layout(volume, "read", k * 1024, 4) for k in (256, 260))
    assert row.share * 256 * 1024 / row.piece_B == pytest.approx(1.0)
    assert past.share * 260 * 1024 / past.piece_B == pytest.approx(1.0)


def test_a_group_holds_its_data_members_capacity_and_a_span_past_every_group_is_refused():
    """``Volume.group_GB``, which LVM linear's random span (``topology.group_shares``) and the
    span's check (``requests.span_share``) both take: six 18 TB drives in two RAID5 groups hold
    36 TB a group, a RAID10 of four 36 TB; a span larger than the volume is the user's mistake."""
    drives = 6
    volume = Volume(level="raid5", groups=2, disks=DiskSet("x", drives, ("a.0",) * drives))
    assert volume.group_GB(NCQ) == 2 * NCQ.capacity_GB == 36_000
    mirror = Volume(level="raid10", disks=DiskSet("x", 4, ("a.0",) * 4))
    assert mirror.group_GB(NCQ) == 2 * NCQ.capacity_GB
    assert requests.span_share(volume, "v", NCQ, 36_000, [1.0, 0.0], "w") == 1.0
    assert requests.span_share(volume, "v", NCQ, 18_000, [0.5, 0.5], "w") == 0.25
    with pytest.raises(UserError, match="at most the 72,000 GB of volume v"):
        requests.span_share(volume, "v", NCQ, 72_001, [1.0, 0.0], "w")
    # joined linear, requests in the first 54 TB fill the first group and half the second
    linear = dataclasses.replace(volume, lvm="linear")
    assert topology.group_shares(linear, NCQ, 54_000) == [36 / 54, 18 / 54]
