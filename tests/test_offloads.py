"""TCP segmentation and generic receive offload (``tcp.tso``, ``tcp.gro``): most of a frame's CPU
cost is paid per 64 KiB super-segment or merged packet, a share per wire frame (from Cai et al.'s
single-flow runs, SIGCOMM 2021, in ``model.settings``); without them the cost per byte is the
2.4-era one the reports were calibrated with."""

import pytest

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


def _rate_MBps(*overrides):
    return simulate(scenario.load("ext_net_cx6dx_100g", list(overrides))).throughput_MBps


def test_a_per_frame_bound_transfer_speeds_up_as_its_receive_cost_falls():
    """The ConnectX-6 Dx run with four streams, each held by the per-frame work on its receiving
    RSS core; turning GRO on raises the rate by the ratio of the receive costs per byte. With its
    eight streams and GRO on, the 100 GbE link binds instead."""
    before = _rate_MBps("workload.streams=4", "tcp.gro=false")
    after = _rate_MBps("workload.streams=4")
    off = tcp.tcp_frame_work_per_byte(1500, TcpSettings(tso=True))[1]
    on = tcp.tcp_frame_work_per_byte(1500, TcpSettings(tso=True, gro=True))[1]
    assert after / before == pytest.approx(off / on, rel=0.01)
    assert 1700 < before < 1750 and 8800 < after < 9000  # MB/s: 1,716 before, 8,906 with GRO
    eight = simulate(scenario.load("ext_net_cx6dx_100g"))
    assert eight.bottleneck.startswith("nic")


def test_the_reports_scenarios_keep_gro_off():
    """Only the external network scenarios (kernels from 3.10) turn GRO on; the reports' 2.4 and
    2.6.9 hosts predate it (Linux 2.6.29)."""
    loaded = [scenario.load(path) for path in sorted(paths.SCENARIOS.glob("*.yaml"))]
    tcp_models = [s for s in loaded if hasattr(s.body, "tcp")]
    assert {"atlas_lightpath", "mdsplus"} <= {s.name for s in tcp_models}
    for s in tcp_models:
        assert s.body.tcp.gro is s.name.startswith("ext_net_"), s.name


def test_an_invalid_gro_value_is_refused_in_one_line(run_cli):
    status, out, err = run_cli("predict", "ext_net_cx6dx_100g", "--set", "tcp.gro=maybe")
    assert status == 2
    assert len(err.strip().splitlines()) == 1, err
    assert "tcp.gro" in err and "true or false" in err
