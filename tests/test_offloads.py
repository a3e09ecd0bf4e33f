"""TCP segmentation and generic receive offload (``tcp.tso``, ``tcp.gro``): the stack's share of a
frame's CPU cost is paid per 64 KiB super-segment or merged packet, the driver's per wire frame
(the split of Liao, Zhu and Bhuyan, HPCA 2011, in ``model.settings``); without them the cost per
byte is the 2.4-era one the reports were calibrated with."""

import pytest

from model import paths, scenario, settings
from model.network import tcp
from model.settings import TcpSettings
from model.simulate import simulate

MTUS = (576, 1500, 4000, 9000, 65535)


@pytest.mark.parametrize("mtu_B", MTUS)
def test_without_offloads_each_host_pays_a_frame_and_half_an_ack_per_segment(mtu_B):
    """GRO and TSO off (the default, the 2.4 and 2.6.9 hosts of the reports): both hosts' cost per
    byte is exactly the one the model charged before it knew of offloads."""
    sent, received = tcp.tcp_frame_work_per_byte(mtu_B, TcpSettings())
    assert sent == received == tcp.tcp_packets_per_byte(mtu_B) == 1.5 / tcp.mss_B(mtu_B)


def test_the_split_is_the_breakdowns_driver_and_buffer_release_over_all_but_the_copy():
    """Driver 26 % and buffer release 20 % of the receive cost, the copy 34 %: 46/66 of the
    per-frame cost stays per wire frame."""
    assert settings.NET_WIRE_FRAME_SHARE == pytest.approx(46 / 66)
    assert 0.69 < settings.NET_WIRE_FRAME_SHARE < 0.70


def test_a_gro_packet_holds_as_many_full_segments_as_fit_in_64_KiB():
    assert tcp.segments_per_offload(1500) == 45  # 45 x 1448 B = 65,160 B of payload
    assert tcp.segments_per_offload(9000) == 7  # 7 x 8948 B = 62,636 B
    assert tcp.segments_per_offload(65535) == 1


@pytest.mark.parametrize("mtu_B", (1500, 9000))
def test_gro_pays_the_stack_share_per_merged_packet_and_one_ack_per_packet(mtu_B):
    mss, n = tcp.mss_B(mtu_B), tcp.segments_per_offload(mtu_B)
    wire = settings.NET_WIRE_FRAME_SHARE
    off = tcp.tcp_frame_work_per_byte(mtu_B, TcpSettings())
    on = tcp.tcp_frame_work_per_byte(mtu_B, TcpSettings(gro=True))
    # the data frames: the driver's share per frame, the stack's once per n frames
    assert on[1] == pytest.approx((wire + (1 - wire) / n + 1 / n) / mss)
    # the receive cost of the data alone drops by the stack's share, less its one-in-n remainder
    assert (on[1] - 1 / (n * mss)) / (off[1] - 0.5 / mss) == pytest.approx(
        1 - (1 - wire) * (1 - 1 / n)
    )
    # the sender, without TSO, still sends every frame whole but receives one ACK per packet
    assert on[0] == pytest.approx((1 + 1 / n) / mss)
    assert on[1] < off[1] and on[0] < off[0]


def test_tso_pays_the_senders_stack_share_per_super_segment_and_leaves_the_receiver_alone():
    mss, n = tcp.mss_B(1500), tcp.segments_per_offload(1500)
    wire = settings.NET_WIRE_FRAME_SHARE
    sent, received = tcp.tcp_frame_work_per_byte(1500, TcpSettings(tso=True))
    assert sent == pytest.approx((wire + (1 - wire) / n + 0.5) / mss)
    assert received == tcp.tcp_packets_per_byte(1500)


def test_one_segment_packets_keep_linux_one_ack_per_two_segments():
    """At a 64 KiB MTU a merged packet is one segment: no merging, and Linux still acknowledges
    every second segment."""
    assert tcp.tcp_frame_work_per_byte(65535, TcpSettings(gro=True)) == pytest.approx(
        tcp.tcp_frame_work_per_byte(65535, TcpSettings())
    )


def _rate_MBps(*overrides):
    return simulate(scenario.load("ext_net_cx6dx_100g", list(overrides))).throughput_MBps


def test_a_per_frame_bound_transfer_speeds_up_as_its_receive_cost_falls():
    """The ConnectX-6 Dx run: eight streams, each held by the per-frame work on its receiving
    RSS core; turning GRO on raises the rate by the ratio of the receive costs per byte."""
    before = _rate_MBps("tcp.gro=false")
    after = _rate_MBps()
    off = tcp.tcp_frame_work_per_byte(1500, TcpSettings(tso=True))[1]
    on = tcp.tcp_frame_work_per_byte(1500, TcpSettings(tso=True, gro=True))[1]
    assert after / before == pytest.approx(off / on, rel=0.01)
    assert 3400 < before < 3500 and 7000 < after < 7200  # MB/s: 3,432 before, 7,092 with GRO


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
