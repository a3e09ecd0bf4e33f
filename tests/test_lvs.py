"""The LVS director: NAT costs it every reply byte and packet and never carries more than its link
and packet core allow; schedulers spread load as rr, wrr and lc should; a pair of directors is as
available as the Markov model of two repairable units."""

import math

import numpy as np
import pytest
import simpy
from hypothesis import given
from hypothesis import strategies as st
from lvs_cluster import run_cluster

from model import catalog, params, scenario
from model.servers import availability, lvs, relay
from model.sim.flows import FlowNetwork
from model.sim.rng import stream


@given(
    request_B=st.floats(40, 20_000),
    request_packets=st.floats(1, 20),
    reply_B=st.floats(40, 5e6),
    reply_packets=st.floats(1, 4000),
)
def test_nat_costs_the_director_every_reply_byte_and_packet(
    request_B, request_packets, reply_B, reply_packets
):
    nat, dr, tun = (
        lvs.forwarded(mode, request_B, request_packets, reply_B, reply_packets)
        for mode in ("nat", "dr", "tun")
    )
    assert nat.in_B == pytest.approx(request_B + reply_B)
    assert nat.out_B == pytest.approx(request_B + reply_B)
    assert nat.packets == pytest.approx(request_packets + reply_packets)
    assert (dr.in_B, dr.out_B, dr.packets) == (request_B, request_B, request_packets)
    assert tun.out_B == pytest.approx(request_B + lvs.IPIP_HEADER_B * request_packets)
    assert tun.in_B == dr.in_B and tun.packets == dr.packets


def test_nat_replies_through_the_director_never_exceed_its_capacity():
    """The relay's traffic as max-min flows through a NAT director: no station ever runs over its
    capacity, and what the sites receive stays within the relay model's bottleneck law."""
    loaded = scenario.load("psu_relay", ["variant=nat", "feed.sites=60"])
    kit = relay.machines(loaded, catalog.load(), params.calibrated()["bus_efficiency"])
    caps = kit.capacities([30, 30])
    stages = relay.Stages(loaded.body, kit.mtu_B)
    sites = [30, 30]
    env = simpy.Environment()
    net = FlowNetwork(env)
    resources = {name: net.resource(name, cap) for name, cap in caps.items()}
    product_B = 2e6
    worst = [0.0]

    def check():
        worst[0] = max(worst[0], *(r.load / r.capacity for r in net.resources.values()))

    def weights(work, payload_B):
        return {resources[name]: w / payload_B for name, w in work.items() if w > 0}

    for _ in range(20):
        feed = stages.upstream(product_B)
        for i in range(2):
            for name, w in stages.to_real_server(i, product_B).items():
                feed[name] = feed.get(name, 0.0) + w
            net.transfer(
                sites[i] * product_B,
                weights(stages.to_sites(i, sites[i], product_B), sites[i] * product_B),
            )
        net.transfer(product_B, weights(feed, product_B))
        check()
    while env.peek() < math.inf:
        env.step()
        check()
    assert worst[0] <= 1 + 1e-9
    delivered_MBps = 20 * sum(sites) * product_B / env.now / 1e6
    assert delivered_MBps <= relay.bound_MBps(stages, caps, sites) * (1 + 1e-9)
    assert delivered_MBps >= 0.9 * relay.bound_MBps(stages, caps, sites)  # the director saturates


def test_round_robin_hands_out_connections_in_turn():
    d = run_cluster(
        1, "rr", [1.0, 1.0, 1.0], arrival_rate_per_s=20, mean_service_s=0.1, connections=3001
    )
    assert max(d.assigned) - min(d.assigned) <= 1


def test_weighted_round_robin_follows_the_weights():
    d = run_cluster(
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
    rr = run_cluster(
        2, "rr", speeds, arrival_rate_per_s=18, mean_service_s=0.15, connections=20_000
    )
    lc = run_cluster(
        2, "lc", speeds, arrival_rate_per_s=18, mean_service_s=0.15, connections=20_000
    )
    assert lc.assigned[1] > 1.5 * lc.assigned[0] and rr.assigned[0] == rr.assigned[1]

    def mean(d):
        return sum(s.response_s_total for s in d.servers) / sum(s.completions for s in d.servers)

    assert mean(lc) < mean(rr)


def test_single_unit_availability_is_mttf_over_mttf_plus_mttr():
    a = availability.units(1, mttf_h=1000.0, mttr_h=10.0)
    assert a.availability == pytest.approx(1000 / 1010)
    assert a.outages_per_year == pytest.approx(8766 / 1010)


def _simulated_pair(seed, mttf_h, mttr_h, horizon_h):
    """Two repairable units and one repair crew, event by event: the share of time one is up."""
    env = simpy.Environment()
    crew = simpy.Resource(env, capacity=1)
    up = [True, True]
    down_since, down_total = [None], [0.0]
    rng = stream(seed, "failures")

    def unit(i):
        while True:
            yield env.timeout(rng.exponential(mttf_h))
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
    mttf_h, mttr_h = 200.0, 50.0  # frequent failures so that the simulation sees many
    markov = availability.units(2, mttf_h, mttr_h, repair_crews=1)
    runs = np.array([_simulated_pair(seed, mttf_h, mttr_h, 200_000.0) for seed in range(10)])
    half = 3.25 * runs.std(ddof=1) / math.sqrt(len(runs))  # t(0.995, 9) for a 99% interval
    assert abs(runs.mean() - markov.availability) <= half
    assert markov.availability > availability.units(1, mttf_h, mttr_h).availability


def test_takeover_time_costs_availability():
    quick = availability.units(2, 5000.0, 24.0, takeover_s=5.0)
    slow = availability.units(2, 5000.0, 24.0, takeover_s=300.0)
    assert slow.availability < quick.availability
    assert slow.outages_per_year == pytest.approx(quick.outages_per_year)


@pytest.mark.parametrize("takeover_s", [3600.0, 8 * 3600.0, 1e5, 1e9])
def test_a_takeover_slower_than_a_repair_costs_no_more_than_the_repair(takeover_s):
    """The physics fuzz's case: a takeover of 10^9 s gave -455 % availability. The failed director,
    repaired first, serves again: a takeover's outage is the lesser of the two, so a pair is about
    as available as one director however slow its takeover (a takeover as slow as the repairs
    leaves it one director's outages, and the one crew's queue a hair more), more where it is
    quicker."""
    mttf_h, mttr_h = 50_000.0, 8.0
    one = availability.units(1, mttf_h, mttr_h)
    pair = availability.units(2, mttf_h, mttr_h, takeover_s=takeover_s)
    assert one.availability - 1e-6 < pair.availability <= 1.0
    assert 0.0 <= pair.downtime_h_per_year < one.downtime_h_per_year + 0.01
    if takeover_s <= 3600.0:
        assert pair.availability > one.availability
    # the mean of the lesser of the takeover and an exponential repair of mean mttr_h
    lesser_h = mttr_h * (1.0 - math.exp(-takeover_s / 3600.0 / mttr_h))
    quick = availability.units(2, mttf_h, mttr_h, takeover_s=1e-9)
    takeovers_per_h = (quick.outages_per_year / availability.HOURS_PER_YEAR) - (
        availability.units(2, mttf_h, mttr_h).outages_per_year / availability.HOURS_PER_YEAR
    )
    assert quick.availability - pair.availability == pytest.approx(
        takeovers_per_h * lesser_h, rel=1e-6
    )


def test_k_of_n_units_with_a_crew_each_are_the_binomial_sum():
    """With a crew for every unit the units fail and mend independently: k of n up is the binomial
    sum of each one's availability."""
    mttf_h, mttr_h, n = 300.0, 20.0, 4
    p = mttf_h / (mttf_h + mttr_h)
    for needed in range(1, n + 1):
        up = [k >= needed for k in range(n + 1)]
        a = availability.serving(n, up, mttf_h, mttr_h, repair_crews=n)
        binomial = sum(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(needed, n + 1))
        assert a.availability == pytest.approx(binomial, rel=1e-12)
        # an outage begins when one of the `needed` units up fails
        entered = math.comb(n, needed) * p**needed * (1 - p) ** (n - needed) * needed / mttf_h
        assert a.outages_per_year == pytest.approx(entered * availability.HOURS_PER_YEAR)


def test_one_of_n_serving_is_the_units_chain_without_takeovers():
    for n, crews in ((1, 1), (2, 1), (3, 2)):
        one = availability.units(n, 500.0, 50.0, crews)
        k = availability.serving(n, [False] + [True] * n, 500.0, 50.0, crews)
        assert k.availability == pytest.approx(one.availability, rel=1e-12)
        assert k.outages_per_year == pytest.approx(one.outages_per_year, rel=1e-9)
    # needing more units up never makes the service more available
    shares = [
        availability.serving(3, [k >= m for k in range(4)], 500.0, 50.0).availability
        for m in (1, 2, 3)
    ]
    assert shares == sorted(shares, reverse=True) and shares[2] < shares[0]


def test_serving_marks_every_state():
    with pytest.raises(ValueError):
        availability.serving(2, [False, True], 500.0, 50.0)


def test_equal_weights_deal_the_sites_as_the_dispatcher_does():
    for scheduler in ("rr", "wrr", "lc", "wlc"):
        for servers, sites in ((1, 5), (3, 60), (4, 7), (7, 3)):
            dealt = relay.assign_sites(scheduler, (), servers, sites).active
            assert relay.sites_per_server(scheduler, (), servers, sites) == tuple(dealt)
