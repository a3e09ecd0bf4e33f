"""The LVS director: NAT never carries more than its link and packet rate allow; schedulers spread load
as rr, wrr and lc should; a pair of directors is as available as the Markov model of two repairable units."""

import math

import numpy as np
import pytest
import simpy
from hypothesis import given
from hypothesis import strategies as st

from model.servers import availability, lvs
from model.sim.flows import FlowNetwork
from model.sim.rng import stream

DIRECTOR = lvs.Director(link_Gbps=1.0, packets_per_s=300_000)


@given(request_B=st.floats(40, 20_000), reply_B=st.floats(40, 5e6))
def test_nat_bound_respects_link_and_packet_rate(request_B, reply_B):
    rate = lvs.director_bound_per_s(DIRECTOR, "nat", request_B, reply_B)
    link_Bps = DIRECTOR.link_Gbps * 1e9 / 8
    packets = 2 * (math.ceil(request_B / 1500) + math.ceil(reply_B / 1500))
    assert rate * (request_B + reply_B) <= link_Bps * (1 + 1e-9)
    assert rate * packets <= DIRECTOR.packets_per_s * (1 + 1e-9)
    # and one of the two is the binding limit
    assert max(
        rate * (request_B + reply_B) / link_Bps, rate * packets / DIRECTOR.packets_per_s
    ) == pytest.approx(1.0)
    assert lvs.director_bound_per_s(DIRECTOR, "dr", request_B, reply_B) >= rate


def test_nat_replies_through_the_director_never_exceed_its_capacity():
    """Many reply flows through a NAT director, simulated: its link and packet rate stay within bounds."""
    env = simpy.Environment()
    net = FlowNetwork(env)
    link_Bps = DIRECTOR.link_Gbps * 1e9 / 8
    link_in, link_out = (
        net.resource("director in", link_Bps),
        net.resource("director out", link_Bps),
    )
    packets = net.resource("director packets", DIRECTOR.packets_per_s, unit="packet")
    servers = [net.resource(f"server {i}", 80e6) for i in range(2)]
    reply_B, request_B = 2.05e6, 300.0
    per_byte_packets = 2 * (1 + math.ceil(reply_B / 1500)) / reply_B
    worst = [0.0]

    def check():
        worst[0] = max(worst[0], *(r.load / r.capacity for r in net.resources.values()))

    flows = []
    for i in range(40):
        flows.append(
            net.transfer(
                reply_B,
                {
                    link_in: 1 + request_B / reply_B,
                    link_out: 1 + request_B / reply_B,
                    packets: per_byte_packets,
                    servers[i % 2]: 1,
                },
            )
        )
        check()
    while env.peek() < math.inf:
        env.step()
        check()
    assert worst[0] <= 1 + 1e-9
    rate_per_s = 40 / env.now
    assert rate_per_s <= lvs.cluster_bound_per_s(
        DIRECTOR, "nat", request_B, reply_B, [80e6 / reply_B] * 2
    ) * (1 + 1e-6)


def test_round_robin_hands_out_connections_in_turn():
    d = lvs.run_cluster(
        1, "rr", [1.0, 1.0, 1.0], arrival_rate_per_s=20, mean_service_s=0.1, connections=3001
    )
    assert max(d.assigned) - min(d.assigned) <= 1


def test_weighted_round_robin_follows_the_weights():
    d = lvs.run_cluster(
        1,
        "wrr",
        [1.0, 3.0],
        arrival_rate_per_s=20,
        mean_service_s=0.1,
        connections=4000,
        weights=[1, 3],
    )
    assert d.assigned == [1000, 3000]


def test_least_connection_sends_more_to_the_faster_server_and_answers_sooner():
    speeds = [1.0, 3.0]
    rr = lvs.run_cluster(
        2, "rr", speeds, arrival_rate_per_s=18, mean_service_s=0.15, connections=20_000
    )
    lc = lvs.run_cluster(
        2, "lc", speeds, arrival_rate_per_s=18, mean_service_s=0.15, connections=20_000
    )
    assert lc.assigned[1] > 1.5 * lc.assigned[0] and rr.assigned[0] == rr.assigned[1]
    mean = lambda d: (
        sum(s.response_s_total for s in d.servers) / sum(s.completions for s in d.servers)
    )
    assert mean(lc) < mean(rr)


def test_single_unit_availability_is_mtbf_over_mtbf_plus_mttr():
    a = availability.units(1, mtbf_h=1000.0, mttr_h=10.0)
    assert a.availability == pytest.approx(1000 / 1010)
    assert a.outages_per_year == pytest.approx(8766 / 1010)


def _simulated_pair(seed, mtbf_h, mttr_h, horizon_h):
    """Two repairable units, one repair crew, as a discrete-event simulation: share of time both down."""
    env = simpy.Environment()
    crew = simpy.Resource(env, capacity=1)
    up = [True, True]
    down_since, down_total = [None], [0.0]
    rng = stream(seed, "failures")

    def unit(i):
        while True:
            yield env.timeout(rng.exponential(mtbf_h))
            up[i] = False
            if not any(up):
                down_since[0] = env.now
            with crew.request() as req:
                yield req
                yield env.timeout(rng.exponential(mttr_h))
            if not any(up):
                down_total[0] += env.now - down_since[0]
            up[i] = True

    for i in range(2):
        env.process(unit(i))
    env.run(until=horizon_h)
    if not any(up):
        down_total[0] += env.now - down_since[0]
    return 1.0 - down_total[0] / horizon_h


def test_pair_of_directors_matches_the_markov_model():
    mtbf_h, mttr_h = 200.0, 50.0  # frequent failures so that the simulation sees many
    markov = availability.units(2, mtbf_h, mttr_h, repair_crews=1)
    runs = np.array([_simulated_pair(seed, mtbf_h, mttr_h, 200_000.0) for seed in range(10)])
    half = 3.25 * runs.std(ddof=1) / math.sqrt(len(runs))  # t(0.995, 9) for a 99% interval
    assert abs(runs.mean() - markov.availability) <= half
    assert markov.availability > availability.units(1, mtbf_h, mttr_h).availability


def test_takeover_time_costs_availability():
    quick = availability.units(2, 5000.0, 24.0, takeover_s=5.0)
    slow = availability.units(2, 5000.0, 24.0, takeover_s=300.0)
    assert slow.availability < quick.availability
    assert slow.outages_per_year == pytest.approx(quick.outages_per_year)
