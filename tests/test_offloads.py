"""TCP segmentation and generic receive offload (``tcp.tso``, ``tcp.gro``): most of a frame's CPU
cost is paid per 64 KiB super-segment or merged packet, a share per wire frame (from Cai et al.'s
single-flow runs, SIGCOMM 2021, in ``model.settings``); without them the cost per byte is the
2.4-era one the reports were calibrated with."""

import pytest
import yaml

from model import paths, scenario, settings
from model.network import tcp
from model.settings import TcpSettings
from model.simulate import simulate

MTUS = (576, 1500, 4000, 9000, 65535)
RUNS = (settings.STACK_RUN_TSO_GRO, settings.STACK_RUN_TSO_GRO_JUMBO)


@pytest.mark.parametrize("mtu_B", MTUS)
def test_without_offloads_each_host_pays_a_frame_and_half_an_ack_per_segment(mtu_B):
    """GRO and TSO off (the default, the 2.4 and 2.6.9 hosts of the reports): both hosts' cost per
    byte is exactly the one the model charged before it knew of offloads."""
    sent, received = tcp.tcp_frame_work_per_byte(mtu_B, TcpSettings())
    assert sent == received == tcp.tcp_packets_per_byte(mtu_B) == 1.5 / tcp.mss_B(mtu_B)


def test_the_offloaded_costs_reproduce_the_published_runs():
    """Cai et al.'s flow with TSO and GRO, besides the copy: 846 cycles a segment at the sender and
    1,821 at the receiver at MTU 1500, 3,189 and 4,751 at MTU 9000 (a segment of 8,948 B). A host
    at the default per-frame cost pays exactly those cycles at both MTUs; part of the cost is per
    byte (a jumbo segment costs more than a 1500-byte one, far less than six times as much)."""
    for side, at_1500, at_9000 in (("sender", 846, 3189), ("receiver", 1821, 4751)):
        per_segment = [tcp._cycles_per_segment(run, side) for run in RUNS]
        assert per_segment == pytest.approx([at_1500, at_9000], abs=1)
        for mtu_B, cycles in ((1500, at_1500), (9000, at_9000)):
            worth = tcp.offloaded_frames_per_byte(side, mtu_B) * tcp.mss_B(mtu_B)
            assert worth * settings.NET_CYCLES_PER_FRAME == pytest.approx(cycles, abs=1)
        per_frame, per_byte = tcp.offloaded_costs(side)
        assert per_frame > 0 and per_byte > 0


def test_with_both_offloads_the_cost_per_byte_falls():
    """Against the 2.4-era cost without offloads (6,300 cycles a frame, a frame and half an ACK a
    segment: 9,450), the published sender pays 0.09 of it and the receiver 0.19 at MTU 1500."""
    on = TcpSettings(tso=True, gro=True)
    for mtu_B in (1500, 9000):
        off = tcp.tcp_frame_work_per_byte(mtu_B, TcpSettings())
        offloaded = tcp.tcp_frame_work_per_byte(mtu_B, on)
        assert offloaded[0] < off[0] and offloaded[1] < off[1]
    ratio = [
        a / b
        for a, b in zip(
            tcp.tcp_frame_work_per_byte(1500, on),
            tcp.tcp_frame_work_per_byte(1500, TcpSettings()),
            strict=True,
        )
    ]
    assert ratio == pytest.approx([846 / 9450, 1821 / 9450], abs=1e-3)


def test_a_gro_packet_holds_as_many_full_segments_as_fit_in_64_KiB():
    assert tcp.segments_per_offload(1500) == 45  # 45 x 1448 B = 65,160 B of payload
    assert tcp.segments_per_offload(9000) == 7  # 7 x 8948 B = 62,636 B
    assert tcp.segments_per_offload(65535) == 1


@pytest.mark.parametrize("mtu_B", (1500, 9000))
def test_gro_alone_lowers_the_receivers_cost_and_the_senders_acks(mtu_B):
    mss, n = tcp.mss_B(mtu_B), tcp.segments_per_offload(mtu_B)
    off = tcp.tcp_frame_work_per_byte(mtu_B, TcpSettings())
    on = tcp.tcp_frame_work_per_byte(mtu_B, TcpSettings(gro=True))
    assert on[1] == pytest.approx(tcp.offloaded_frames_per_byte("receiver", mtu_B))
    # the sender, without TSO, still sends every frame whole but receives one ACK per packet
    assert on[0] == pytest.approx((1 + 1 / n) / mss)
    assert on[1] < off[1] and on[0] < off[0]


def test_tso_alone_lowers_the_senders_cost_and_leaves_the_receiver_alone():
    sent, received = tcp.tcp_frame_work_per_byte(1500, TcpSettings(tso=True))
    assert sent == pytest.approx(tcp.offloaded_frames_per_byte("sender", 1500))
    assert received == tcp.tcp_packets_per_byte(1500)


def _rate(*overrides):
    return simulate(scenario.load("ext_net_cx6dx_100g", list(overrides)))


def test_a_reader_bound_transfer_speeds_up_as_its_receive_cost_falls():
    """The ConnectX-6 Dx run with two streams, each held by its receiving thread: it copies and does
    its share of the receive work from its socket's backlog, half of a 2.4-era frame and half an
    ACK without GRO (as Cai et al.'s run without offloads split it), 0.40 of their 1,821 cycles a
    segment with it. With its eight streams and GRO on, the 100 GbE link binds instead."""
    before, after = _rate("workload.streams=2", "tcp.gro=false"), _rate("workload.streams=2")
    assert before.bottleneck.startswith("core receiver")
    assert after.bottleneck.startswith("core receiver")

    def reader_s(offloads):
        received = tcp.tcp_frame_work_per_byte(1500, offloads)[1]
        in_reader = tcp.reader_share(1500, offloads) * received
        return 1 / 10000e6 + in_reader * settings.NET_CYCLES_PER_FRAME / 2.8e9

    for result, offloads in (
        (before, TcpSettings(tso=True)),
        (after, TcpSettings(tso=True, gro=True)),
    ):
        assert result.throughput_MBps == pytest.approx(2 / reader_s(offloads) / 1e6, rel=0.01)
    # MB/s: 1,576 without GRO, 7,161 with it (the reader copies at 10 GB/s, 2.8 GHz)
    assert 1500 < before.throughput_MBps < 1650 and 7000 < after.throughput_MBps < 7300
    assert _rate().bottleneck.startswith("nic")


def test_the_receive_work_splits_as_the_published_runs_ran():
    """In each of Cai et al.'s runs without aRFS, with and without GRO, the reading core, which the
    paper finds the receiver's bottleneck, is one whole core: its copy and its share of the rest
    (``tcp.reader_share``) add up to one core within 2 %, and the interrupt core's part is the rest
    of the receiver's cores. Without offloads the reader does half of it."""
    no_offloads = settings.STACK_RUN_NO_OFFLOADS
    for run in (*RUNS, no_offloads):
        segments_s = run.payload_Gbps * 1e9 / 8 / tcp.mss_B(run.mtu_B)
        clock_Hz = settings.STACK_RUN_CLOCK_GHZ * 1e9
        per_segment = tcp._cycles_per_segment(run, "receiver")
        share = tcp.reader_share(run.mtu_B, TcpSettings(gro=run is not no_offloads))
        copy_cores = run.receiver_cores * run.receiver_copy_pct / 100
        reader_cores = copy_cores + share * per_segment * segments_s / clock_Hz
        assert reader_cores == pytest.approx(1.0, abs=0.02)
        interrupt_cores = (1 - share) * per_segment * segments_s / clock_Hz
        assert interrupt_cores == pytest.approx(run.receiver_cores - 1.0, abs=0.02)
    assert tcp.reader_share(1500, TcpSettings()) == pytest.approx(0.50, abs=0.01)


def test_one_stream_on_the_published_hosts_reaches_the_published_rates(tmp_path):
    """ESnet's single-stream case given Cai et al.'s own hosts (3.4 GHz, the copy cost a byte their
    receivers measured) predicts their flows' rates within 3 %, 26.6 and 32.5 Gbit/s: the reading
    core binds. When the interrupt core did all the receive work beside the copy, it bound instead
    and the model gave 51 Gbit/s at MTU 9000."""
    raw = yaml.safe_load(scenario.resolve("ext_net_fasterdata_100g").read_text())
    for run in RUNS:
        copy_cycles_per_B = (
            run.receiver_cores * run.receiver_copy_pct / 100 * settings.STACK_RUN_CLOCK_GHZ * 8
        ) / run.payload_Gbps
        host = raw["parts"]["hosts"]["esnet_100g_host"]
        host["clock_GHz"] = settings.STACK_RUN_CLOCK_GHZ
        host["copy_rate_MBps"] = settings.STACK_RUN_CLOCK_GHZ * 1e3 / copy_cycles_per_B
        raw["mtu_B"] = run.mtu_B
        path = tmp_path / f"cai_{run.mtu_B}.yaml"
        path.write_text(yaml.safe_dump(raw))
        r = simulate(scenario.load(str(path), ["variant=single_stream"]))
        assert r.throughput_MBps * 8 / 1e3 == pytest.approx(run.payload_Gbps, rel=0.03)
        assert r.bottleneck.startswith("core receiver")


def test_the_reports_scenarios_keep_gro_off():
    """Only the external network scenarios (kernels from 3.10) turn GRO on; the reports' 2.4 and
    2.6.9 hosts predate it (Linux 2.6.29)."""
    loaded = [scenario.load(path) for path in sorted(paths.SCENARIOS.glob("*.yaml"))]
    tcp_models = [s for s in loaded if hasattr(getattr(s.body, "tcp", None), "gro")]
    assert {"atlas_lightpath", "mdsplus"} <= {s.name for s in tcp_models}
    for s in tcp_models:
        assert s.body.tcp.gro is s.name.startswith("ext_net_"), s.name


def test_an_invalid_gro_value_is_refused_in_one_line(run_cli):
    status, out, err = run_cli("predict", "ext_net_cx6dx_100g", "--set", "tcp.gro=maybe")
    assert status == 2
    assert len(err.strip().splitlines()) == 1, err
    assert "tcp.gro" in err and "true or false" in err


def test_one_tcp_stream_s_work_runs_on_one_core_however_the_interrupts_are_spread():
    """A client reading over raw TCP without TSO: its stream's ACK-clocked sending is one flow's
    work, which one core at a time does (its socket locked), so spreading the interrupts over the
    64 cores gives one stream what one core on cpu0 gives it; two streams, on two cores, twice."""

    def rate(clients, affinity):
        return simulate(
            scenario.load(
                "purchase_nvme",
                [
                    f"clients.count={clients}",
                    "clients.tso=false",
                    "clients.protocol=tcp",
                    "workload.op=read",
                    f"clients.irq_affinity={affinity}",
                ],
            )
        )

    spread, cpu0 = rate(1, "spread"), rate(1, "cpu0")
    assert spread.bottleneck == "flow storage.0" and cpu0.bottleneck == "irq storage"
    assert spread.throughput_MBps == pytest.approx(cpu0.throughput_MBps, rel=1e-6)
    assert rate(2, "spread").throughput_MBps == pytest.approx(2 * spread.throughput_MBps, rel=0.01)
    assert rate(2, "cpu0").throughput_MBps == pytest.approx(cpu0.throughput_MBps, rel=0.01)
