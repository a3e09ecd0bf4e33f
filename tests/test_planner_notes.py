"""What a result tells a planner comparing quotes: that nfsd's threads, a server setting, bind and
how many would let the next limit bind; that NVMe drives' links train below their own; and a
bottleneck named as a planner reads it ("drives of volume data: 8, each at its limit"), its
resource's
name (``Result.bottleneck``) unchanged."""

import re

import pytest

from model import catalog, scenario
from model.result import AT_LIMIT, readable
from model.simulate import simulate

# a quote's host with two 100 GbE cards, so that sixty-four NFS readers on 25 GbE outrun nfsd's
# eight threads (the catalog's SR665 V3 has one dual-port 25 GbE card)
FAST_HOST = """\
hosts:
  fast_host:
    like: lenovo_sr665_v3
    name: an SR665 V3 with two 100 GbE cards (a test)
    nics: [mellanox_cx6_100g, mellanox_cx6_100g]
    sources: {nics: "the vendor's quote (a test)"}
  xl710_host:
    like: lenovo_sr665_v3
    name: an SR665 V3 with one dual-port 40 GbE card on PCIe 3.0 x8 (a test)
    nics: [intel_xl710_qda2, intel_xl710_qda2]
    sources: {nics: "the vendor's quote (a test)"}
"""
NFS_READERS = [
    "clients.protocol=nfs",
    "workload.op=read",
    "clients.count=64",
    "clients.nic=mellanox_cx4_lx_25g",
]
# the purchase's eight drives behind one PCIe 4.0 x16 switch uplink, written by local streams
UPLINK = ["buses.up={part: pcie4_x16}", "buses.riser0.via=up", "buses.riser1.via=up"]
LOCAL_STREAMS = ["clients=null", "workload.streams=32"]


@pytest.fixture
def parts(tmp_path):
    path = tmp_path / "parts.yaml"
    path.write_text(FAST_HOST)
    return (path,)


def _purchase(*overrides, parts=()):
    return simulate(scenario.load("purchase_nvme", list(overrides), catalogs=parts))


def _nfsd_note(result) -> str | None:
    return next((n for n in result.notes if n.startswith("nfsd threads: ")), None)


def _MBps(text: str) -> float:
    return float(text.replace(",", ""))


def test_nfsd_threads_that_bind_say_so_and_how_many_let_the_next_limit_bind(parts):
    """Both quotes read 11,764 MB/s, held by nfsd's default eight threads, and nothing said that
    this is a server setting: the note gives the count, where it came from, what a thread moves,
    and the count at which the next limit binds, which a run at that count confirms."""
    default = _purchase(*NFS_READERS, "host=fast_host", parts=parts)
    assert default.bottleneck == "nfsd threads"
    note = _nfsd_note(default)
    assert note.startswith(
        "nfsd threads: 8 (clients.nfsd_threads, the default: rpc.nfsd starts 8), a server "
        "setting, not hardware: each moves "
    )
    each, together = re.search(r"each moves ([\d,]+) MB/s .* ([\d,]+) MB/s together", note).groups()
    assert _MBps(together) == pytest.approx(default.throughput_MBps, abs=0.5)
    assert 8 * _MBps(each) == pytest.approx(_MBps(together), abs=8 * 0.5)
    needed, at, limit = re.search(
        r"; (\d+) would let the next limit bind, at ([\d,]+) MB/s: (.+)$", note
    ).groups()
    enough = _purchase(
        *NFS_READERS, "host=fast_host", f"clients.nfsd_threads={needed}", parts=parts
    )
    assert enough.bottleneck != "nfsd threads"
    assert enough.bottleneck_words.startswith(limit)
    assert enough.throughput_MBps == pytest.approx(_MBps(at), abs=0.5)
    one_fewer = int(needed) - 1
    short = _purchase(
        *NFS_READERS, "host=fast_host", f"clients.nfsd_threads={one_fewer}", parts=parts
    )
    assert short.bottleneck == "nfsd threads"
    assert _nfsd_note(short).startswith(f"nfsd threads: {one_fewer} (clients.nfsd_threads, set)")
    assert _nfsd_note(_purchase(*NFS_READERS, "clients.nfsd_threads=64")) is None


def test_nfsd_threads_within_a_few_percent_of_binding_are_named_beside_the_limit_that_binds(
    parts,
):
    """Clients asking for 2 % less than the eight threads move bind the server at what they ask
    for; the threads, 2 % short of binding, are still said."""
    free = _purchase(*NFS_READERS, "host=fast_host", parts=parts)
    asked_MBps = free.throughput_MBps / 1.02 / 64
    held = _purchase(
        *NFS_READERS, "host=fast_host", f"clients.offered_MBps={asked_MBps}", parts=parts
    )
    assert held.bottleneck == "offered load"
    note = _nfsd_note(held)
    assert note.endswith(
        "MB/s together, within 2.0 % of the limit that binds, at "
        f"{64 * asked_MBps:,.0f} MB/s: what the clients ask for (clients.offered_MBps)"
    )


def test_an_nvme_drive_whose_link_trains_down_says_both_rates_once_a_volume():
    """The purchase's PCIe 5.0 x4 drives on PCIe 4.0 segments: one note for the volume, the link
    at half the lanes' rate of the drive's own, below the sheet's sequential write; on the PCIe
    5.0 segments it ships with, none."""
    slow = _purchase("buses.riser0.part=pcie4_x16", "buses.riser1.part=pcie4_x16")
    notes = [n for n in slow.notes if "trained to" in n]
    assert len(notes) == 1
    assert notes[0].startswith(
        "each of the 8 drives of volume data (micron_9550_max_6400): its PCIe 5.0 x4 host "
        "interface, trained to PCIe 4.0 x4 on segments riser0, riser1, carries "
    )
    link, own, sheet = re.search(
        r"carries ([\d,]+) MB/s of data, not its own ([\d,]+) MB/s, so it writes at most "
        r"\1 MB/s, not its sheet's ([\d,]+) MB/s$",
        notes[0],
    ).groups()
    assert _MBps(own) == pytest.approx(2 * _MBps(link), abs=1)  # 16 GT/s a lane against 32
    drive = catalog.load().parts["ssds"]["micron_9550_max_6400"]
    assert _MBps(sheet) == drive.seq_write_MBps
    assert not any("trained to" in n for n in _purchase().notes)


def test_a_bottleneck_of_alike_resources_is_named_as_a_planner_reads_it(run_cli):
    """An md RAID0 whose drives bind names them all, the result's ``bottleneck`` still the first
    drive's resource, which sweeps and notebooks key on, and no labels in its figures."""
    s = scenario.load("atlas_intellistation")
    result = simulate(s)
    count = s.body.volumes["md0"].disks.count
    assert result.bottleneck == "disk md0.0"
    assert result.bottleneck_words == f"drives of volume md0: {count}, each at its limit"
    assert "labels" not in result.to_dict()
    status, out, _ = run_cli("predict", "atlas_intellistation", "--point")
    assert status == 0
    assert f"  bottleneck   drives of volume md0: {count}, each at its limit (disk md0.0, " in out
    one_drive = simulate(scenario.load("atlas_intellistation", ["volumes.md0.disks.count=1"]))
    assert one_drive.bottleneck_words == "the drive of volume md0"


def test_a_switch_uplink_says_its_bus_and_how_often_a_byte_crosses_it():
    """RAID10 writes cross the uplink twice (both copies), reads once."""
    writes = _purchase(*LOCAL_STREAMS, *UPLINK)
    reads = _purchase(*LOCAL_STREAMS, *UPLINK, "workload.op=read")
    assert writes.bottleneck == reads.bottleneck == "bus up"
    assert writes.bottleneck_words == (
        "PCIe 4.0 x16 uplink up, which each byte written to data crosses twice"
    )
    assert reads.bottleneck_words == "PCIe 4.0 x16 uplink up"


def test_a_pci_segment_says_the_clock_its_slowest_card_holds_it_to():
    """Two 32-bit Promise cards moved onto the 3ware's PCI-X segment hold it below its 133 MHz;
    a byte's time on it counts the cards' width, not crossings, so the label says none."""
    moved = [f"controllers.promise{i}.bus=pcix_a" for i in (1, 2)]
    held = simulate(scenario.load("atlas_triumf_send", moved))
    assert held.bottleneck == "bus pcix_a"
    assert held.bottleneck_words.startswith("PCI-X 64-bit, 133 MHz segment pcix_a, held to ")
    assert held.bottleneck_words.endswith(" MHz by its slowest card")


def test_clients_read_ahead_cards_and_cores_are_named_for_what_they_are(parts):
    readers = _purchase("clients.protocol=nfs", "workload.op=read", "clients.count=4")
    assert readers.bottleneck == "requests client.0"
    assert readers.bottleneck_words == (
        "the NFS clients' read-ahead, each 128 KiB a round trip: 4, each at its limit"
    )
    one_card = _purchase("host=xl710_host", "clients.count=16", parts=parts)
    assert one_card.bottleneck == "card storage.0"
    assert one_card.bottleneck_words == (
        "the storage host's network card (its ports share its link into it)"
    )
    wan = scenario.load("atlas_lightpath")
    cores = catalog.load().parts["hosts"][wan.body.receiver_host].cores
    transfer = simulate(wan)
    assert transfer.bottleneck == "cpu receiver"
    assert transfer.bottleneck_words == f"the receiver host's cores, all {cores}"


def test_a_label_counts_its_alike_at_the_limit():
    labels = {f"disk d.{i}": "drives of d" for i in range(3)} | {"bus b": "PCIe 3.0 x8 segment b"}
    load = {"disk d.0": 1.0, "disk d.1": 1.0, "disk d.2": 0.5, "bus b": 1.0, "core 0": 1.0}
    assert readable("disk d.0", labels, load) == "drives of d: 2 of 3 at their limit"
    assert readable("bus b", labels, load) == "PCIe 3.0 x8 segment b"
    assert readable("core 0", labels, load) == "core 0"


def test_alike_resources_are_said_at_their_limit_only_when_they_are(run_cli):
    """A megabyte written to the IntelliStation's md RAID0 is mostly its first access: its drives
    are a third busy, and the text no longer says each is at its limit."""
    short = simulate(scenario.load("atlas_intellistation", ["workload.total_MB=1"]))
    assert short.utilization["disk md0.0"] < AT_LIMIT
    assert short.bottleneck_words == "drives of volume md0: 3, none at its limit"
    status, out, _ = run_cli(
        "predict", "atlas_intellistation", "--point", "--set", "workload.total_MB=1"
    )
    assert status == 0
    assert (
        "  bottleneck   drives of volume md0: 3, none at its limit (disk md0.0, 36.6 % busy)" in out
    )


def test_a_label_counts_its_alike_busy_to_their_limit_not_tied_to_the_busiest():
    labels = {f"disk d.{i}": "drives of d" for i in range(3)}
    near = {"disk d.0": 0.999, "disk d.1": 0.995, "disk d.2": 0.992}
    assert readable("disk d.0", labels, near) == "drives of d: 3, each at its limit"
    idle = {"disk d.0": 0.4, "disk d.1": 0.4, "disk d.2": 0.4}
    assert readable("disk d.0", labels, idle) == "drives of d: 3, none at its limit"


def test_requests_in_flight_say_what_each_keeps():
    result = simulate(scenario.load("ext_970_evo_plus"))
    assert result.bottleneck_words == (
        "the streams' requests, 1 request of 4 KiB in flight each: 4, each at its limit"
    )
    deep = simulate(scenario.load("ext_arr_cm4_980", ["variant=iozone_4k_randread"]))
    assert deep.bottleneck_words == "the stream's requests, 1 request of 4 KiB in flight"


def test_a_pci_clock_is_named_as_the_catalog_names_it():
    """The bbftp sender's two Promise cards, 66.67 MHz PCI, hold its PCI-X segment to what their
    bus's name calls 66 MHz, not 67."""
    result = simulate(scenario.load("atlas_lightpath", ["variant=bbftp_disk_to_disk"]))
    assert result.labels["sender: bus pcix_b"] == (
        "sender: PCI-X 64-bit, 133 MHz segment pcix_b, held to 66 MHz by its slowest card"
    )
    parts = catalog.load().parts
    card_bus = parts["buses"][parts["controllers"]["promise_ultra100_tx2"].host_bus]
    assert (card_bus.clock_MHz, card_bus.name) == (66.67, "PCI 32-bit, 66 MHz")


def test_the_memory_mapped_test_names_its_drives_as_the_streams_do():
    sata = simulate(scenario.load("psu_mmap", ["variant=sata"]))
    written = simulate(scenario.load("psu_write", ["variant=sata"]))
    assert sata.bottleneck == written.bottleneck == "disk sata.0"
    assert sata.bottleneck_words == written.bottleneck_words == "the drive of volume sata"
    mirror = simulate(scenario.load("psu_mmap", ["variant=raid"]))  # its reads on the first copy
    assert mirror.bottleneck_words == "drives of volume raid1: 1 of 2 at their limit"


@pytest.mark.parametrize(
    ("name", "overrides", "words"),
    [
        ("psu_write", [], "the stream's process, on one core"),
        ("em_ingest", [], "controller md3260's RAID processor in use, 1 of its 2"),
        (
            "em_ingest",
            ["variant=striped", "workload.streams=8"],
            "controller md3260's RAID processors: 2, each at its limit",
        ),
        ("purchase_hdd_md", [], "md's raid5d of each array of volume data: 2, each at its limit"),
        (
            "ext_net_fasterdata_100g",
            ["variant=single_stream"],
            "the receiver host's iperf thread, on one core",
        ),
    ],
)
def test_cores_and_raid_engines_are_named_for_what_they_are(name, overrides, words):
    assert simulate(scenario.load(name, overrides)).bottleneck_words == words


def test_the_bottleneck_names_what_is_tied_with_it(run_cli):
    """The vendor-quote audit: three switch uplinks each at 100 % were named by one of them; the
    resources at their limit as busy as the bottleneck are named beside it, those of its own label
    counted in its words instead (the drives of a volume)."""
    status, out, err = run_cli("predict", "ext_net_fasterdata_100g", "--point")
    assert status == 0, err
    assert "(nic sender.0, 100.0 % busy; tied: nic receiver.0, circuit.0)" in out
    status, out, err = run_cli("predict", "atlas_intellistation", "--point")
    assert status == 0, err
    assert (
        "  bottleneck   drives of volume md0: 3, each at its limit (disk md0.0, 100.0 % busy)\n"
        in out
    )
