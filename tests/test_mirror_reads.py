"""Reads from mirrors: a sequential stream stays on one copy of each mirror (md's read_balance,
ZFS's vdev_mirror, a card's first of equally idle copies), more streams spread over the copies,
and a RAID card set to read from the primary copy (``mirror_reads: primary``) leaves the others
idle whatever the load."""

import pytest

from model import scenario
from model.params import calibrated
from model.simulate import simulate

IS = "atlas_intellistation"  # md over five IDE drives, each on its own channel
ONE_GB = "workload.total_MB=1000"


def _run(name, *overrides):
    return simulate(scenario.load(name, [*overrides]), calibrated())


@pytest.mark.parametrize("size", [ONE_GB, "workload.total_MB=60000"])
def test_one_stream_reads_an_md_raid1_at_one_drive_s_rate(size):
    """Each copy holds the whole file, so the one the stream stays on reads at the rate of its
    zones over the whole file's span, as one drive holding it does (half of a 120 GB drive: its
    rate had been averaged over the half of the file a read takes from each copy: 5.6 % fast)."""
    single = _run(IS, "volumes.md0.disks.count=1", size)
    mirror = _run(IS, "volumes.md0.level=raid1", "volumes.md0.disks.count=2", size)
    assert mirror.throughput_MBps == pytest.approx(single.throughput_MBps, rel=1e-9)


def test_two_streams_read_an_md_raid1_one_copy_each():
    one = _run(IS, "volumes.md0.level=raid1", "volumes.md0.disks.count=2", ONE_GB)
    two = _run(
        IS, "volumes.md0.level=raid1", "volumes.md0.disks.count=2", ONE_GB, "workload.streams=2"
    )
    assert two.throughput_MBps == pytest.approx(2 * one.throughput_MBps, rel=0.02)


@pytest.mark.parametrize("copies", [3, 4, 5])
def test_a_copy_more_than_the_streams_takes_nothing_from_them(copies):
    """Two streams on an md RAID1 of three, four or five copies read at two copies' rate, as on
    two: each has a copy of its own, and an idle copy adds nothing. They read at 2 x 2/n of it (a
    copy without a stream was counted in the drives' mean rate and again in their time)."""
    two_way = _run(
        IS, "volumes.md0.level=raid1", "volumes.md0.disks.count=2", ONE_GB, "workload.streams=2"
    )
    more = _run(
        IS,
        "volumes.md0.level=raid1",
        f"volumes.md0.disks.count={copies}",
        ONE_GB,
        "workload.streams=2",
    )
    assert more.throughput_MBps == pytest.approx(two_way.throughput_MBps, rel=0.02)


def test_one_stream_reads_an_md_raid10_as_a_raid0_of_its_pairs():
    """md(4): the far layout gives 'sequential read performance equal to that of a RAID0 array';
    the near one, the lab's, reads one copy of each pair."""
    raid10 = _run(IS, "volumes.md0.level=raid10", "volumes.md0.disks.count=4", ONE_GB)
    raid0 = _run(IS, "volumes.md0.level=raid0", "volumes.md0.disks.count=2", ONE_GB)
    assert raid10.throughput_MBps == pytest.approx(raid0.throughput_MBps, rel=0.02)


@pytest.mark.parametrize("op", ["read", "write"])
def test_md_raid10_on_an_odd_count_moves_half_a_drive_s_worth_a_drive(op):
    """md's near-2 layout takes three or five drives (raid10.c: the copies of each chunk on
    different drives, near_copies at most raid_disks): n drives move n / 2 drives' worth, as an
    even count does, so five lie halfway between four and six (here: 2.5 of 2's rate)."""
    rates = {
        n: _run(
            IS,
            "volumes.md0.level=raid10",
            f"volumes.md0.disks.count={n}",
            ONE_GB,
            f"workload.op={op}",
        ).throughput_MBps
        for n in (2, 3, 4, 5)
    }
    for n in (3, 5):
        assert rates[n] == pytest.approx(rates[2] * n / 2, rel=0.02)
    assert rates[2] < rates[3] < rates[4] < rates[5]


RAID1_READ = ("workload.op=read", "workload.target=raid1", "workload.source=null")
PRIMARY = "controllers.iop332.mirror_reads=primary"


def test_a_card_reading_the_primary_copy_leaves_the_other_idle():
    random = (
        *RAID1_READ,
        "workload.pattern=random",
        "workload.io=direct",
        "workload.request_KiB=4",
        "workload.queue_depth=8",
        "workload.total_MB=10",
    )
    balanced = _run("psu_copy", *random)
    primary = _run("psu_copy", *random, PRIMARY)
    assert primary.utilization.get("disk raid1.1", 0.0) == 0.0
    assert balanced.utilization["disk raid1.1"] > 0.9
    # one drive's random reads, with twice the commands queued at it: more than half
    assert (
        0.5 * balanced.throughput_MBps < primary.throughput_MBps < 0.75 * balanced.throughput_MBps
    )
    two_streams = _run("psu_copy", *RAID1_READ, "workload.streams=2", PRIMARY)
    one_stream = _run("psu_copy", *RAID1_READ, PRIMARY)
    assert two_streams.throughput_MBps == pytest.approx(one_stream.throughput_MBps, rel=0.01)
    spread = _run("psu_copy", *RAID1_READ, "workload.streams=2")
    assert spread.throughput_MBps == pytest.approx(2 * one_stream.throughput_MBps, rel=0.02)


def test_a_third_stream_shares_one_copy_of_a_two_way_mirror():
    """Three streams on an md RAID1 of two: one copy streams for one of them, the other takes turns
    between two; no cliff from two streams to three."""
    mirror = ("volumes.md0.level=raid1", "volumes.md0.disks.count=2", "workload.total_MB=100")
    alone = _run(IS, "volumes.md0.disks.count=1", "workload.total_MB=100")
    turns = _run(IS, "volumes.md0.disks.count=1", "workload.total_MB=100", "workload.streams=2")
    three = _run(IS, *mirror, "workload.streams=3")
    assert three.throughput_MBps == pytest.approx(
        alone.throughput_MBps + turns.throughput_MBps, rel=0.05
    )
    two = _run(IS, *mirror, "workload.streams=2")
    assert two.throughput_MBps > three.throughput_MBps > turns.throughput_MBps


def test_an_idling_scheduler_changes_nothing_where_each_stream_has_its_own_copy():
    mirror = ("volumes.md0.level=raid1", "volumes.md0.disks.count=2", ONE_GB, "workload.streams=2")
    cfq = _run(IS, *mirror, "volumes.md0.io_scheduler=cfq")
    assert cfq.throughput_MBps == pytest.approx(_run(IS, *mirror).throughput_MBps, rel=1e-9)


def test_one_stream_keeps_one_copy_busy_and_leaves_the_others_idle():
    """A stream reading an md RAID1 of four in order stays on one copy: its own copy binds it
    ('mirror copy md0.0'), and the four drives together are a quarter busy, so a planner sees the
    room for three more readers (every drive was shown 100 % busy, the storage fuzz)."""
    r = _run(IS, "volumes.md0.level=raid1", "volumes.md0.disks.count=4", ONE_GB)
    assert r.bottleneck == "mirror copy md0.0"
    for i in range(4):
        assert r.utilization[f"disk md0.{i}"] == pytest.approx(0.25, rel=0.01)


def test_a_copy_reads_its_source_mirror_from_one_copy():
    """psu_copy's RAID1 source is read by the copy's one stream: one copy at a time, as a read is
    (the source took the copy's op and was read from both copies at once, 71.7 MB/s against a
    copy's 56.8); the CPU seconds, the measured figure, are unchanged."""
    copy = _run("psu_copy")
    read = _run("psu_copy", *RAID1_READ)
    assert copy.bottleneck == "mirror copy raid1.0"
    assert copy.throughput_MBps == pytest.approx(read.throughput_MBps, rel=0.02)


MIRROR_CLIENTS = (
    "volumes.data.level=raid1",
    "volumes.data.groups=1",
    "volumes.data.lvm=none",
    "volumes.data.lvm_stripes=null",
    "volumes.data.disks.count=2",
    "volumes.data.disks.attach=[jbod.0,jbod.1]",
    "workload.op=read",
    "workload.total_MB=10000",
    "clients.protocol=tcp",
)


def test_a_client_reading_a_mirror_keeps_to_one_copy():
    """One TCP client reading a 2-way md mirror over the LAN reads one copy, as a local stream
    does (the clients' path read both copies at once: 497.7 MB/s against one drive's 270, the
    second storage fuzz); two clients read one copy each."""
    one = _run("purchase_hdd_md", *MIRROR_CLIENTS, "clients.count=1")
    assert one.bottleneck == "mirror copy data.0"
    two = _run("purchase_hdd_md", *MIRROR_CLIENTS, "clients.count=2")
    assert two.throughput_MBps == pytest.approx(2 * one.throughput_MBps, rel=0.02)


def test_a_wan_sender_reading_a_mirror_keeps_to_one_copy(tmp_path):
    """One Tsunami session reads the TRIUMF sender's array made an md RAID1 of two from one copy:
    the session is held at one drive's rate (it read both copies at once, the second storage
    fuzz); two sessions read a copy each."""
    import yaml

    store = yaml.safe_load(scenario.resolve("atlas_triumf_send").read_text())
    volume = next(iter(store["volumes"].values()))
    volume["level"], volume["disks"]["count"] = "raid1", 2
    volume["disks"]["attach"] = volume["disks"]["attach"][:2]
    (tmp_path / "mirror.yaml").write_text(yaml.safe_dump(store))
    wan = yaml.safe_load(scenario.resolve("atlas_lightpath").read_text())
    wan.update(sender_storage="mirror.yaml", receiver_storage=None)
    (tmp_path / "wan.yaml").write_text(yaml.safe_dump(wan))
    memory = ["variant=tsunami", "workload.sink=memory", "rtt_ms=1", "workload.total_MB=5000"]
    one = simulate(scenario.load(tmp_path / "wan.yaml", memory), calibrated())
    assert one.bottleneck == "sender: mirror copy " + next(iter(store["volumes"])) + ".0"
    two = simulate(
        scenario.load(tmp_path / "wan.yaml", [*memory, "variant=tsunami_two_circuits"]),
        calibrated(),
    )
    assert two.throughput_MBps == pytest.approx(2 * one.throughput_MBps, rel=0.05)
