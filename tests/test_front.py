"""Storage behind a network: clients over a LAN in front of a storage host (``clients:``), each one
connection and one stream, through the host's bonded NICs and its CPU down the storage path."""

import json
import re

import pytest

from model import catalog, params, reference, scenario, templates
from model.network import tcp
from model.settings import TcpSettings
from model.simulate import simulate
from model.storage import front

TEN_GBE_Bps = 10e9 / 8


# the striped store with each of its ten LUNs' wires a 4-lane port: the storage path is no limit
WIDE = ["variant=striped", "volumes.lv.group_paths=[sas0,sas1,sas2,sas3,sas4,sas5,sas6,sas7]"]


def _served(*overrides, values=None):
    s = scenario.load("em_ingest", [*WIDE, *overrides])
    return simulate(s, dict(params.calibrated(), **(values or {})))


CHEAP = {"io_copy_passes": 1.0, "io_write_extra_passes": 0.0}  # the network, not the CPU, limits


def test_readers_on_both_bond_members_fill_both_links():
    r = _served("clients.count=8", "workload.op=read", "workload.total_MB=1000", values=CHEAP)
    link_MBps = TEN_GBE_Bps / tcp.tcp_wire_per_byte(1500) / 1e6  # what one 10 GbE link carries
    assert r.bound_MBps == pytest.approx(2 * link_MBps, rel=1e-9)
    assert 0.99 * 2 * link_MBps < r.throughput_MBps <= r.bound_MBps
    assert r.bottleneck.startswith("nic storage.")


def test_an_unlucky_hash_puts_every_client_on_one_link():
    lucky = _served("clients.count=8", "workload.op=read", "workload.total_MB=1000", values=CHEAP)
    unlucky = _served(
        "clients.count=8",
        "clients.hashing=collide",
        "workload.op=read",
        "workload.total_MB=1000",
        values=CHEAP,
    )
    assert unlucky.bound_MBps == pytest.approx(lucky.bound_MBps / 2, rel=1e-9)
    # the same first access of the drives weighs twice as much in the faster run
    assert unlucky.throughput_MBps == pytest.approx(lucky.throughput_MBps / 2, rel=5e-3)


def test_a_protocol_s_framing_costs_its_bytes_on_the_wire():
    plain, nfs = (
        _served(
            "clients.count=8",
            f"clients.protocol={p}",
            "workload.op=read",
            "workload.total_MB=1000",
            "workload.request_KiB=32",
            values=CHEAP,
        )
        for p in ("tcp", "nfs")
    )
    framing = front.payload_per_byte("nfs", "read", 32 * 1024)
    assert framing == pytest.approx(1 + 128 / 32768)
    assert nfs.throughput_MBps == pytest.approx(plain.throughput_MBps / framing, rel=1e-3)


def test_few_clients_on_slow_drives_are_held_by_the_storage_path():
    alone = simulate(scenario.load("em_ingest", [*WIDE, "variant=linear_4k", "workload.streams=2"]))
    served = _served("variant=linear_4k", "clients.count=2")
    assert served.throughput_MBps == pytest.approx(alone.throughput_MBps, rel=0.02)
    assert served.bound_MBps <= alone.bound_MBps * (1 + 1e-9)


def test_each_client_s_nic_caps_it():
    r = _served(
        "clients.count=1",
        "clients.nic=nic_gbe",
        "clients.link=lan_gbe",
        "workload.op=read",
        "workload.total_MB=1000",
        values=CHEAP,
    )
    one_gbe = catalog.load().get("nics", "nic_gbe", "", "").rate_Gbps * 1e9 / 8
    assert r.throughput_MBps <= one_gbe / tcp.tcp_wire_per_byte(1500) / 1e6 * (1 + 1e-9)
    assert r.bottleneck == "nic client.0"


@pytest.mark.parametrize(
    "override, message",
    [
        ("workload.streams=3", "workload.streams: each client is one stream"),
        ("clients.protocol=ftp", "clients.protocol: must be one of 'tcp', 'http', 'nfs', 'smb'"),
        ("clients.nic=warp", "clients.nic: unknown nic 'warp'"),
    ],
)
def test_a_clients_mistake_is_one_line_and_status_2(run_cli, override, message):
    status, out, err = run_cli(
        "predict", "em_ingest", "--set", "clients.count=8", "--set", override
    )
    assert status == 2 and not out and err.count("\n") == 1 and message in err


def test_gro_on_the_storage_host_lowers_the_receive_cost_of_what_clients_write():
    """Eight SMB writers into the NVMe purchase with the host's interrupts on one core: without
    GRO each received segment costs a 2.4-era frame and half an ACK (9,450 cycles), of which the
    interrupt core keeps half (each smbd does the rest from its socket's backlog, as Cai et al.'s
    run without offloads split it); with GRO what Cai et al.'s Linux 5.4 receiver spent (1,821),
    of which the interrupt core keeps its part per frame (about 1,100 cycles), so without GRO the
    interrupt core carries 4.3 times as much; TSO, on the sending side, leaves a write alone."""

    def written(*offloads):
        return simulate(
            scenario.load(
                "purchase_nvme",
                ["clients.irq_affinity=cpu0", "clients.tso=false", "clients.gro=false", *offloads],
            )
        )

    off, tso, gro = written(), written("clients.tso=true"), written("clients.gro=true")
    assert off.bottleneck == gro.bottleneck == "irq storage"
    assert tso.throughput_MBps == pytest.approx(off.throughput_MBps)

    def on_interrupt_core(offloads):
        received = tcp.tcp_frame_work_per_byte(1500, offloads)[1]
        return received * (1 - tcp.reader_share(1500, offloads))

    ratio = on_interrupt_core(TcpSettings()) / on_interrupt_core(TcpSettings(gro=True))
    assert gro.throughput_MBps / off.throughput_MBps == pytest.approx(ratio, rel=1e-3)
    assert 4.2 < ratio < 4.4


def test_turning_gro_off_never_speeds_a_reader_bound_server():
    """One SMB writer into the NVMe purchase is held by its smbd, which copies, writes and does its
    share of the receive work: without GRO that share is of a dearer segment, so the writer is
    slower (it was faster while the host's spread interrupt cores took all of it)."""
    on = simulate(scenario.load("purchase_nvme", ["clients.count=1"]))
    off = simulate(scenario.load("purchase_nvme", ["clients.count=1", "clients.gro=false"]))
    assert on.bottleneck == off.bottleneck == "core storage.smbd0"
    assert off.throughput_MBps < on.throughput_MBps


def test_the_host_s_cpu_figure_holds_its_interrupt_work():
    """The file-server template's host with its NIC interrupts on cpu0 and no offloads: the
    interrupt core is busy the whole run, so the host's CPU seconds are at least the run's length
    (they held only the server processes' time, 46 % of one core)."""
    r = simulate(
        scenario.load(
            str(templates.FOLDER / "storage_behind_network.yaml"),
            ["clients.irq_affinity=cpu0", "clients.tso=false", "clients.gro=false"],
        )
    )
    assert r.bottleneck == "irq storage"
    assert r.cpu_s >= r.elapsed_s * 0.999


def test_small_requests_cost_the_server_process_their_fixed_cost():
    """One NFS client of the file-server template, held by its nfsd's core: 1 MiB requests cost
    their bytes' path, 1 KiB requests the larger fixed cost of a request (io_cycles_per_request),
    so the 1 KiB client is slower; before, request size moved nothing on the client path."""

    def served(kib):
        return simulate(
            scenario.load(
                str(templates.FOLDER / "storage_behind_network.yaml"),
                # older distributions' read-ahead, 15 x rsize, on one nfsd thread: the server
                # process all but binds
                [
                    "clients.count=1",
                    "clients.read_ahead_KiB=15360",
                    "clients.nfsd_threads=1",
                    f"workload.request_KiB={kib}",
                ],
            )
        )

    large, small = served(1024), served(1)
    # the nfsd's core all but full, 95 % and more (a window's round trip and its first call's
    # passage keep the client's in-flight limit a few % below it)
    assert min(r.utilization["core storage.nfsd0"] for r in (large, small)) > 0.94
    host = catalog.load().get("hosts", "dell_r720", "", "")
    per_request_s = params.calibrated()["io_cycles_per_request"] / (host.clock_GHz * 1e9)
    assert small.throughput_MBps < large.throughput_MBps
    # the nfsd core's time per 1 KiB request is the fixed cost, its copy to the socket besides
    core_s_per_B = 1 / (small.throughput_MBps * 1e6)
    assert core_s_per_B > per_request_s / 1024


def test_a_client_moves_no_faster_than_its_lan_link():
    """One client with a 25 GbE card on a 1 GbE LAN (clients.link): its port runs at the link's
    rate; the link gave only its MTU before (1,609 MB/s over 1 GbE)."""
    r = simulate(
        scenario.load(
            "purchase_nvme",
            ["clients.count=1", "clients.nic=mellanox_cx4_lx_25g", "clients.link=lan_gbe"],
        )
    )
    assert r.bottleneck == "nic client.0"
    assert r.throughput_MBps < 125.0


def test_clients_held_by_their_offered_load_name_it_as_the_bottleneck():
    """Sixteen clients each offering 100 MB/s to the NVMe purchase: the store could take far more,
    so the clients' own rate is the limit, and the result names it (it named a NIC 27 % busy)."""
    r = simulate(scenario.load("purchase_nvme", ["clients.count=16", "clients.offered_MBps=100"]))
    assert r.throughput_MBps == pytest.approx(1600, rel=0.01)
    assert r.bottleneck == "offered load"
    free = simulate(scenario.load("purchase_nvme", ["clients.count=16"]))
    assert "offered load" not in free.utilization and free.throughput_MBps > 3000


def _random_read(scenario_name, *overrides):
    random_reads = ["workload.pattern=random", "workload.request_KiB=4", "workload.op=read"]
    return simulate(scenario.load(scenario_name, [*random_reads, *overrides]))


def test_a_client_reading_at_random_waits_for_each_answer():
    """One SMB client reading 4 KiB at random from the NVMe purchase keeps one request in flight
    (Little's law): each waits for the LAN's round trip, its bytes on the client's port, the host's
    time and the drive's, so the client moves 35 MB/s, not its 10 GbE port's 1,153. A round trip
    longer by 50 us lengthens each response by exactly that; eight clients move eight times one."""
    one = _random_read("purchase_nvme", "clients.count=1")
    assert one.bottleneck == "requests client.0"
    assert 30 < one.throughput_MBps < 40
    response_s = 4096 / (one.throughput_MBps * 1e6)
    slower = _random_read("purchase_nvme", "clients.count=1", "clients.rtt_ms=0.1")
    assert slower.throughput_MBps * 1e6 == pytest.approx(4096 / (response_s + 50e-6), rel=1e-3)
    eight = _random_read("purchase_nvme", "clients.count=8")
    assert eight.throughput_MBps == pytest.approx(8 * one.throughput_MBps, rel=1e-3)


def test_an_nfs_call_s_own_work_holds_its_thread_beside_its_read():
    """The purchase audit: 4 KiB NFS reads on the NVMe purchase ran 127,908 a second on 8 nfsd
    threads and 1,023,264 on 64, each call charged its I/O and its frames but none of sunrpc's
    own work (the hand-off to a thread, XDR, the file handle's check). Each call now holds its
    thread ``nfs_call_cycles`` longer: on one thread the time a call gains is exactly that."""
    nfs = ["clients.protocol=nfs", "clients.count=64", "clients.nfsd_threads=1"]
    values = params.calibrated()
    free = _random_read_with({**values, "nfs_call_cycles": 0.0}, *nfs)
    charged = _random_read_with(values, *nfs)
    assert charged.bottleneck == free.bottleneck == "nfsd threads"
    s = scenario.load("purchase_nvme")
    host = s.catalog.get("hosts", s.body.host, "", "")
    gained_s = 4096 / (charged.throughput_MBps * 1e6) - 4096 / (free.throughput_MBps * 1e6)
    assert gained_s == pytest.approx(values["nfs_call_cycles"] / (host.clock_GHz * 1e9), rel=1e-6)
    assert any("25,000 cycles" in n and "a call of 4 KiB" in n for n in charged.notes)
    smb = _random_read_with(values, "clients.count=64")
    assert not any("NFS call" in n for n in smb.notes)


def _random_read_with(values, *overrides):
    random_reads = ["workload.pattern=random", "workload.request_KiB=4", "workload.op=read"]
    return simulate(scenario.load("purchase_nvme", [*random_reads, *overrides]), values)


def test_an_nfs_thread_is_held_through_its_random_read_s_wait_for_the_drives():
    """NFS clients reading 4 KiB at random from the NVMe purchase: each READ holds an nfsd thread
    while the drive reads (nfsd_read sleeps in vfs_read), so the pool serves at most its threads
    over a request's time, the drive's included. Its threads had been charged their CPU alone:
    one thread served 64 clients as fast as 64 threads (the third purchase audit's 149,273 IOPS
    at 1, 8 and 64 threads on 24 NVMe drives)."""
    nfs = ["clients.protocol=nfs", "clients.count=64"]
    one = _random_read("purchase_nvme", *nfs, "clients.nfsd_threads=1")
    assert one.bottleneck == "nfsd threads"
    # a request's time on the thread: the drive's, and its CPU (far less)
    drive_s = 4096 / (_random_read("purchase_nvme", "clients.count=1").throughput_MBps * 1e6)
    assert one.throughput_MBps * 1e6 > 4096 / drive_s
    eight = _random_read("purchase_nvme", *nfs, "clients.nfsd_threads=8")
    assert eight.bottleneck == "nfsd threads"
    assert eight.throughput_MBps == pytest.approx(8 * one.throughput_MBps, rel=1e-6)
    many = _random_read("purchase_nvme", *nfs, "clients.nfsd_threads=256")
    assert many.bottleneck != "nfsd threads"
    assert many.throughput_MBps > 8 * one.throughput_MBps


def test_a_client_s_requests_in_flight_multiply_its_rate_until_something_shared_binds(run_cli):
    """The purchase audit: NFS clients could keep only one random request in flight, where fio
    (--direct=1 --iodepth) keeps many. One client with four in flight moves four times one
    (Little's law); on the disks, eight clients with 16 each fill the drives, which one each
    left mostly idle. A sequential reader or a writer keeps its window or write-behind instead."""
    one = _random_read("purchase_nvme", "clients.count=1")
    four = _random_read("purchase_nvme", "clients.count=1", "clients.queue_depth=4")
    assert four.bottleneck == "requests client.0"
    assert four.throughput_MBps == pytest.approx(4 * one.throughput_MBps, rel=0.02)
    shallow = _random_read("purchase_hdd_md", "clients.count=8")
    deep = _random_read("purchase_hdd_md", "clients.count=8", "clients.queue_depth=16")
    assert shallow.bottleneck.startswith("requests client")
    assert deep.bottleneck.startswith("disk") and deep.throughput_MBps > 2 * shallow.throughput_MBps
    status, out, err = run_cli("predict", "purchase_nvme", "--set", "clients.queue_depth=8")
    assert status == 2 and not out
    assert "clients.queue_depth: sets a client's requests in flight reading at random" in err


def test_many_clients_reading_at_random_fill_the_disks_not_more():
    """On the near-line disks one client's request takes a seek and a turn (about 12 ms: 0.35
    MB/s); 64 clients keep the 24 drives busy, and the drives bind."""
    one = _random_read("purchase_hdd_md", "clients.count=1")
    assert 0.3 < one.throughput_MBps < 0.4
    many = _random_read("purchase_hdd_md", "clients.count=64")
    assert many.bottleneck.startswith("disk")
    assert many.throughput_MBps < 64 * one.throughput_MBps


def test_the_round_trip_holds_a_full_connection_only_to_its_window():
    """The clients' read-ahead and write-behind keep the connection full: a random writer is not
    held by the LAN's round trip (at 0.5 ms a window moves 6.3 GB/s), and a sequential stream only
    by its window a round trip (eight clients at 5 ms: 8 x 3 MiB / 5 ms, 5,033 MB/s, where 0.05 ms
    gives the store's 5,883)."""
    random_writes = ["workload.pattern=random", "workload.request_KiB=4"]
    near, far = (
        simulate(scenario.load("purchase_nvme", [*random_writes, f"clients.rtt_ms={rtt}"]))
        for rtt in (0.05, 0.5)
    )
    assert far.throughput_MBps == pytest.approx(near.throughput_MBps, rel=1e-9)
    far = simulate(scenario.load("purchase_nvme", ["clients.rtt_ms=5"]))
    assert far.throughput_MBps == pytest.approx(8 * 6291456 / 2 / 5e-3 / 1e6, rel=0.01)


def _nfs_read(*overrides):
    nfs_reads = ["clients.count=1", "clients.protocol=nfs", "workload.op=read"]
    return simulate(scenario.load("purchase_nvme", [*nfs_reads, *overrides]))


def test_an_nfs_client_reading_a_file_keeps_one_read_ahead_window_in_flight():
    """One NFS client on 25 GbE reading a file in order from the NVMe purchase, with the 128 KiB
    read-ahead of current distributions: one window, one READ call, per its round trip plus its
    time through the host and the port, so a round trip longer by 0.2 ms adds exactly 0.2 ms a
    window. A window of 15 times the 1 MiB rsize (older distributions' default) is 15 calls in
    flight, served on the server's eight nfsd threads at once: the client's port, not one core,
    is what it approaches."""
    port = ["clients.nic=mellanox_cx4_lx_25g"]
    near, far = _nfs_read(*port), _nfs_read(*port, "clients.rtt_ms=0.25")
    assert near.bottleneck == far.bottleneck == "requests client.0"
    window_B = 128 * 1024
    extra_s = window_B / (far.throughput_MBps * 1e6) - window_B / (near.throughput_MBps * 1e6)
    assert extra_s == pytest.approx(0.2e-3, rel=1e-3)
    assert 650 < near.throughput_MBps < 850
    wide = _nfs_read(*port, "clients.read_ahead_KiB=15360")
    port_MBps = 25e3 / 8 / tcp.tcp_wire_per_byte(1500)
    assert 0.85 * port_MBps < wide.throughput_MBps < port_MBps
    one_thread = _nfs_read(*port, "clients.read_ahead_KiB=15360", "clients.nfsd_threads=1")
    assert one_thread.utilization["core storage.nfsd0"] > 0.95
    assert wide.throughput_MBps > 1.5 * one_thread.throughput_MBps


def test_read_ahead_is_an_nfs_readers_window_alone():
    """An SMB reader, and an NFS writer, move the same whatever read_ahead_KiB says."""
    for overrides in (["clients.protocol=smb"], ["workload.op=write"]):
        narrow, wide = (
            _nfs_read(*overrides, f"clients.read_ahead_KiB={kib}") for kib in (4, 15360)
        )
        assert narrow.throughput_MBps == pytest.approx(wide.throughput_MBps, rel=1e-9)


RANDOM_4K_READS = ["workload.pattern=random", "workload.request_KiB=4", "workload.op=read"]


def test_random_requests_print_their_rate_as_requests_a_second(run_cli):
    """A planner reads random and direct I/O as IOPS: the text gives the requests a second beside
    the MB/s, and --json its figure, the rate over the request size."""
    sets = [a for s in [*RANDOM_4K_READS, "clients.count=1"] for a in ("--set", s)]
    status, out, _ = run_cli("predict", "purchase_nvme", *sets, "--point")
    assert status == 0
    mbps = float(re.search(r"throughput +([\d,.]+) MB/s", out)[1].replace(",", ""))
    iops = float(
        re.search(r"requests +([\d,.]+) a second of 4 KiB \(IOPS\)", out)[1].replace(",", "")
    )
    assert iops == pytest.approx(mbps * 1e6 / 4096, rel=0.01)
    status, out, _ = run_cli("predict", "purchase_nvme", *sets, "--point", "--json")
    figures = json.loads(out)
    assert figures["requests_per_s"] == pytest.approx(figures["throughput_MBps"] * 1e6 / 4096)
    # a request's size as it was given, grouped: 1 GiB read '1.04858e+06 KiB' (the purchase audit)
    big = ["workload.io=direct", "workload.request_KiB=1048576", "workload.total_MB=2000"]
    status, out, _ = run_cli(
        "predict", "atlas_intellistation", *[a for s in big for a in ("--set", s)], "--point"
    )
    assert status == 0 and " a second of 1,048,576 KiB (IOPS)" in out, out
    status, out, _ = run_cli("predict", "purchase_nvme", "--point")  # sequential: no such line
    assert "IOPS" not in out


def test_a_network_transfer_prints_its_rate_in_bits(run_cli):
    status, out, _ = run_cli(
        "predict", "ext_net_fasterdata_100g", "--set", "variant=single_stream", "--point"
    )
    mbps = float(re.search(r"throughput +([\d,.]+) MB/s", out)[1].replace(",", ""))
    gbps = float(re.search(r"in bits +([\d,.]+) Gbit/s", out)[1])
    assert status == 0 and gbps == pytest.approx(mbps * 8 / 1e3, abs=0.05)


def test_nfsd_threads_serve_every_connection_s_calls():
    """The kernel NFS server's threads (clients.nfsd_threads, eight by default) are one pool for
    all connections: eight NFS clients reading from the NVMe purchase with wide read-ahead fill
    its two 25 GbE ports with the default eight; with two threads those two bind. One client's
    connections (nconnect) add no server threads of their own: a 15 MiB window reads the same
    over one connection or four. A client reading at random keeps one request in flight however
    many connections it has, and the drives see no more queued: 64 random readers on the
    near-line array."""
    full = ["clients.count=8", "clients.read_ahead_KiB=15360"]  # each keeping its port full
    eight = _nfs_read(*full)
    assert eight.bottleneck.startswith("nic storage")
    two = _nfs_read(*full, "clients.nfsd_threads=2")
    assert two.bottleneck == "nfsd threads" and two.throughput_MBps < eight.throughput_MBps
    wide = ["clients.read_ahead_KiB=15360", "clients.nic=mellanox_cx4_lx_25g"]
    one, four = (_nfs_read(*wide, f"clients.connections={k}") for k in (1, 4))
    assert four.throughput_MBps == pytest.approx(one.throughput_MBps, rel=1e-6)
    assert (
        "1 nfs client(s), 4 connections each on the host's 2 bonded ports (clients.hashing "
        "balanced): 2 connections on member 0, 2 connections on member 1"
    ) in four.notes[0]
    at_random = [f"clients.connections={k}" for k in (1, 8)]
    rates = [_random_read("purchase_nvme", "clients.count=1", k).throughput_MBps for k in at_random]
    assert rates[0] == pytest.approx(rates[1], rel=1e-9)
    many = [
        _random_read("purchase_hdd_md", "clients.count=64", "workload.total_MB=2", k)
        for k in at_random
    ]
    assert many[0].bottleneck.startswith("disk")
    assert many[0].throughput_MBps == pytest.approx(many[1].throughput_MBps, rel=1e-9)


def test_nfsd_threads_belong_to_nfs_alone(run_cli):
    status, out, err = run_cli("predict", "purchase_nvme", "--set", "clients.nfsd_threads=4")
    assert status == 2 and out == "" and err.count("\n") == 1
    assert "clients.nfsd_threads: only protocol nfs has nfsd threads, got protocol smb" in err


def test_two_connections_let_one_smb_writer_fill_its_port():
    """One SMB writer into the NVMe purchase is held by its smbd over one connection; over two
    (SMB3 multichannel) two smbd share its writes and its 10 GbE port binds."""
    one = simulate(scenario.load("purchase_nvme", ["clients.count=1"]))
    two = simulate(scenario.load("purchase_nvme", ["clients.count=1", "clients.connections=2"]))
    assert one.bottleneck == "core storage.smbd0" and two.bottleneck == "nic client.0"
    assert two.throughput_MBps > one.throughput_MBps


@pytest.mark.parametrize("protocol", ["tcp", "http", "smb"])
def test_the_file_server_template_takes_another_protocol(run_cli, tmp_path, protocol):
    """The template wrote nfsd_threads: 8, so --set clients.protocol=smb was refused for a key the
    user never set; its threads are still refused when set with another protocol."""
    mine = tmp_path / "fs.yaml"
    assert run_cli("new", "storage_behind_network", "--out", str(mine))[0] == 0
    status, _, err = run_cli(
        "predict", str(mine), "--point", "--set", f"clients.protocol={protocol}"
    )
    assert status == 0, err
    status, out, err = run_cli(
        "predict",
        str(mine),
        "--set",
        f"clients.protocol={protocol}",
        "--set",
        "clients.nfsd_threads=8",
    )
    assert status == 2 and out == "" and err.count("\n") == 1
    assert f"only protocol nfs has nfsd threads, got protocol {protocol}" in err


def _nfs_window_reader_MBps(s):
    """What one NFS client reading a file in order through its read-ahead window moves, from its
    parts (Little's law: a window in flight over the time it takes to come back).

    - The window, ``clients.read_ahead_KiB``, goes as READ calls of 1 MiB (a Linux client's rsize
      takes the server's largest, 1 MiB, fs/nfsd/nfsd.h) and comes back after one LAN round trip
      (``clients.rtt_ms``), the first call through the server and then the client's port, the
      others behind it at the port's rate (the slower).
    - The port: the LAN link's line rate (the client's NIC is faster), less Ethernet's 38 bytes a
      frame (IEEE 802.3: preamble 8, header 14, FCS 4, gap 12) and 52 of IP and TCP with timestamps
      (RFC 791, RFC 793, RFC 1323) in a 1500-byte MTU, and NFSv3's framing of each READ reply: the
      record mark (4, RFC 5531 11), the RPC reply header (24) and READ3resok's post-op attributes,
      count, eof and data length (88 + 12, RFC 1813 3.3.6).
    - The server: nfsd's buffered read, the calibrated ``io_copy_passes`` copies at the host's
      copy rate (datasheet figure), one copy more from the page cache into the socket, and the
      call's own work in its nfsd thread (``nfs_call_cycles`` over the call's bytes)."""
    cat, c = s.catalog, s.body.clients
    link = cat.get("links", c.link, "", "")
    nic = cat.get("nics", c.nic, "", "")
    host = cat.get("hosts", s.body.host, "", "")
    values = params.calibrated()
    line_Bps = link.capacity_Gbps * 1e9 / 8
    assert nic.rate_Gbps >= link.capacity_Gbps  # the link, not the NIC, sets the port's rate
    call_B, window_B = 1 << 20, c.read_ahead_KiB * 1024
    wire_per_B = (1500 + 38) / (1500 - 20 - 32) * (1 + (4 + 24 + 88 + 12) / call_B)
    port_s = wire_per_B / line_Bps
    server_s = (values["io_copy_passes"] + 1) / (host.copy_rate_MBps * 1e6) + values[
        "nfs_call_cycles"
    ] / (host.clock_GHz * 1e9) / call_B
    # a call's fixed cost is below its bytes' (io_cycles_per_request), and the server is the faster
    per_call_s = values["io_cycles_per_request"] / (host.clock_GHz * 1e9)
    assert per_call_s < values["io_copy_passes"] / (host.copy_rate_MBps * 1e6) * call_B
    assert server_s < port_s
    back_s = c.rtt_ms / 1e3 + call_B * (server_s + port_s) + (window_B - call_B) * port_s
    return window_B / back_s / 1e6


def test_the_reference_says_what_clients_link_caps_and_what_it_does_not():
    """It read 'The LAN: an id of the catalog's links (its MTU)', but the link caps each client's
    port (one NFS client on 1 GbE: 116.6 MB/s, its window's round trip and first call short of
    the 117.7 MB/s of TCP payload the link carries) and leaves the server's ports at their NICs'
    rate (forty 1 GbE clients fill the template's 2 x 10 GbE bond)."""
    meaning = reference.find("storage", "clients.link").meaning
    assert "caps each client's port" in meaning and "MTU" in meaning
    assert "host's own ports are not capped" in meaning
    template = str(templates.FOLDER / "storage_behind_network.yaml")
    lan = ["clients.link=lan_gbe", "clients.read_ahead_KiB=15360"]
    s = scenario.load(template, [*lan, "clients.count=1"])
    one, expected = simulate(s), _nfs_window_reader_MBps(s)
    assert expected < 1e9 / 8 / tcp.tcp_wire_per_byte(1500) / 1e6  # 117.7: TCP payload on 1 GbE
    assert one.bottleneck == "requests client.0"
    assert one.bound_MBps == pytest.approx(expected, rel=1e-6)
    assert one.throughput_MBps <= one.bound_MBps
    assert one.throughput_MBps == pytest.approx(expected, rel=1e-3)
    assert f"{expected:.1f} MB/s" in meaning
    forty = simulate(scenario.load(template, lan))
    assert forty.bottleneck.startswith("nic storage") and forty.throughput_MBps > 2 * 1000


@pytest.mark.parametrize("rtt_ms", [10.0, 100.0])
def test_a_client_s_connection_keeps_no_more_than_its_window_a_round_trip(rtt_ms):
    """One TCP client reading the NVMe purchase over a LAN of 10 and 100 ms: Linux's 6 MiB receive
    buffer leaves a 3 MiB window (tcp_adv_win_scale 1), 314 and 31.5 MB/s (it moved 855 MB/s at
    any round trip); two connections carry twice that."""
    one = ["clients.count=1", "clients.protocol=tcp", f"clients.rtt_ms={rtt_ms}"]
    r = simulate(scenario.load("purchase_nvme", one))
    window_B = 6291456 / 2
    assert r.throughput_MBps == pytest.approx(window_B / (rtt_ms / 1e3) / 1e6, rel=0.01)
    assert r.bottleneck == "tcp window 0"
    two = simulate(scenario.load("purchase_nvme", [*one, "clients.connections=2"]))
    assert two.throughput_MBps == pytest.approx(2 * r.throughput_MBps, rel=0.01)


def test_larger_buffers_lift_the_window_and_a_short_lan_never_sees_it():
    far = ["clients.count=1", "clients.protocol=tcp", "clients.rtt_ms=100"]
    big = ["clients.tcp_rmem_B=[4096,131072,67108864]", "clients.tcp_wmem_B=[4096,16384,67108864]"]
    assert (
        simulate(scenario.load("purchase_nvme", [*far, *big])).throughput_MBps
        > 5 * simulate(scenario.load("purchase_nvme", far)).throughput_MBps
    )
    near = simulate(scenario.load("purchase_nvme", ["clients.count=1"]))
    assert not any(name.startswith("tcp window") for name in near.utilization)


def test_an_acquisition_server_s_connection_is_held_to_its_window():
    """One acquisition server writing 1 GB images across a 200 ms round trip (ingest): its
    connection moves at most a window a round trip; it moved 389 MB/s."""
    r = simulate(
        scenario.load("em_ingest_microscopes", ["clients=1", "file_KiB=1000000", "lan_rtt_ms=200"])
    )
    assert r.throughput_MBps < 16.0
    assert "tcp window 0" in " ".join(r.notes)


def test_more_connections_than_the_simulation_holds_are_refused(run_cli):
    """The speed audit's case: 10,000 clients of 16 connections took 34 to 48 s with --point, over
    4 min with the interval; the clients' connections are at most 10,000, as a WAN's streams."""
    status, out, err = run_cli(
        "predict", "purchase_hdd_md", "--point",
        "--set", "clients.count=1000", "--set", "clients.connections=16",
    )  # fmt: skip
    assert status == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert "clients.connections: count x connections must be at most 10,000" in err


def test_a_host_held_by_its_frames_with_offloads_off_says_what_a_current_linux_has_on():
    """The purchase audit's 100 GbE file server, offloads left at their default: 'cpu storage' at
    100 %, half the NICs' rate, and nothing saying TSO and GRO were off. With them on, no note."""
    off = ["clients.irq_affinity=cpu0", "clients.tso=false", "clients.gro=false"]
    r = simulate(scenario.load("purchase_nvme", off))
    said = [n for n in r.notes if "clients.tso and clients.gro off" in n]
    assert r.bottleneck == "irq storage" and len(said) == 1 and said[0].startswith("irq storage")
    r = simulate(scenario.load("purchase_nvme", [*off, "clients.tso=true", "clients.gro=true"]))
    assert not any("off, as on the reports'" in n for n in r.notes)
    held = simulate(scenario.load("purchase_nvme", ["clients.count=1", "clients.gro=false"]))
    assert held.bottleneck == "core storage.smbd0"  # a server process, not the frames' cores
    assert not any("off, as on the reports'" in n for n in held.notes)


def test_an_http_client_s_requests_carry_nginx_s_itemised_response_header():
    """The code review: the file server's http framing was 'about 250 bytes', the download
    server's itemised nginx header 260; one constant now serves both, and the note says it."""
    overrides = ["clients.protocol=http", "workload.op=read", "workload.total_MB=1000"]
    r = simulate(scenario.load("purchase_hdd_md", overrides), params.calibrated())
    assert any(n.startswith("8 http client(s)") and "; 260 B of http headers" in n for n in r.notes)


def test_seeded_hashing_says_how_many_clients_each_bonded_port_carries(run_cli):
    """The all-flash quotes audit: eight clients hashed at random onto a two-port bond, one port
    binding, had been told only 'on bond member(s) [0, 1] of 2'; the note now gives the split
    the port's utilisation follows from (the seed's draw: 3 and 5)."""
    status, out, _ = run_cli("predict", "purchase_nvme", "--set", "clients.hashing=seeded")
    assert status == 0
    drawn = front.bond_members(8, 2, "seeded", scenario.load("purchase_nvme").seed)
    split = f"{drawn.count(0)} on member 0, {drawn.count(1)} on member 1"
    assert drawn.count(0) != drawn.count(1)  # a draw that splits them unevenly, as told
    assert f"on the host's 2 bonded ports (clients.hashing seeded): {split}" in out


def test_hashing_that_leaves_a_port_idle_names_it(run_cli):
    """The review: with every client hashed onto one port, the note named only that one."""
    status, out, _ = run_cli("predict", "purchase_nvme", "--set", "clients.hashing=collide")
    assert status == 0
    assert "(clients.hashing collide): 8 on member 0, 0 on member 1" in out
