"""The flow primitive: max-min fairness on textbook cases, conservation, capacities, properties."""

import math

import pytest
import simpy
from hypothesis import given, settings
from hypothesis import strategies as st

from model.sim.flows import FlowNetwork


def _run(capacities, flows):
    """``flows``: (size_B, {resource name: coefficient}, start_s, max_rate) -> (network, flow objects)."""
    env = simpy.Environment()
    net = FlowNetwork(env)
    res = {name: net.resource(name, cap) for name, cap in capacities.items()}
    started = []

    def start(size, usage, at, cap):
        yield env.timeout(at)
        started.append(net.transfer(size, {res[k]: a for k, a in usage.items()}, max_rate_Bps=cap))

    for size, usage, at, cap in flows:
        env.process(start(size, usage, at, cap))
    env.run()
    return net, started, env


def test_one_flow_takes_the_bottleneck_rate():
    net, (f,), env = _run({"a": 100.0, "b": 40.0}, [(400.0, {"a": 1, "b": 1}, 0.0, math.inf)])
    assert f.finished_s == pytest.approx(10.0)


def test_textbook_max_min_three_flows_two_links():
    # Bertsekas & Gallager: link 1 (cap 1) carries flows A and C, link 2 (cap 2) carries B and C.
    # Max-min: A = C = 0.5 on link 1, B takes the rest of link 2: 1.5.
    env = simpy.Environment()
    net = FlowNetwork(env)
    l1, l2 = net.resource("l1", 1.0), net.resource("l2", 2.0)
    a = net.transfer(100.0, {l1: 1})
    b = net.transfer(100.0, {l2: 1})
    c = net.transfer(100.0, {l1: 1, l2: 1})
    assert (a.rate_Bps, b.rate_Bps, c.rate_Bps) == pytest.approx((0.5, 1.5, 0.5))


def test_rate_cap_leaves_the_rest_to_others():
    env = simpy.Environment()
    net = FlowNetwork(env)
    link = net.resource("link", 10.0)
    slow = net.transfer(100.0, {link: 1}, max_rate_Bps=2.0)
    fast = net.transfer(100.0, {link: 1})
    assert (slow.rate_Bps, fast.rate_Bps) == pytest.approx((2.0, 8.0))


def test_coefficients_weight_the_share():
    # A RAID0 stream over 2 disks of 50 B/s uses each at 1/2: it runs at 100 B/s.
    env = simpy.Environment()
    net = FlowNetwork(env)
    d1, d2 = net.resource("d1", 50.0), net.resource("d2", 50.0)
    stream = net.transfer(1000.0, {d1: 0.5, d2: 0.5})
    assert stream.rate_Bps == pytest.approx(100.0)


def test_rates_are_recomputed_when_a_flow_ends():
    # Two flows share 10 B/s; the short one (20 B) ends at t=4, then the long one runs alone.
    net, (short, long_), env = _run(
        {"l": 10.0}, [(20.0, {"l": 1}, 0.0, math.inf), (100.0, {"l": 1}, 0.0, math.inf)]
    )
    assert short.finished_s == pytest.approx(4.0)
    assert long_.finished_s == pytest.approx(4.0 + 80.0 / 10.0)


def test_terabyte_costs_no_more_events_than_a_gigabyte():
    counts = []
    for size in (1e9, 1e12):
        env = simpy.Environment()
        net = FlowNetwork(env)
        link = net.resource("link", 125e6)
        net.transfer(size, {link: 1})
        steps = 0
        while env.peek() < math.inf:
            env.step()
            steps += 1
        counts.append(steps)
    assert counts[0] == counts[1]


flow_strategy = st.lists(
    st.tuples(
        st.floats(1.0, 1e6),
        st.dictionaries(st.sampled_from("abcd"), st.floats(0.1, 3.0), min_size=1),
        st.floats(0.0, 50.0),
        st.one_of(st.just(math.inf), st.floats(1.0, 1e4)),
    ),
    min_size=1,
    max_size=8,
)
capacity_strategy = st.fixed_dictionaries({k: st.floats(1.0, 1e4) for k in "abcd"})


@settings(max_examples=60, deadline=None)
@given(capacity_strategy, flow_strategy)
def test_properties_bytes_conserved_and_capacities_respected(capacities, flows):
    env = simpy.Environment()
    net = FlowNetwork(env)
    res = {k: net.resource(k, c) for k, c in capacities.items()}
    worst = {"over": 0.0}
    all_flows = []

    def check():
        for r in net.resources.values():
            worst["over"] = max(worst["over"], r.load / r.capacity - 1.0)

    def start(size, usage, at, cap):
        yield env.timeout(at)
        all_flows.append(
            net.transfer(size, {res[k]: a for k, a in usage.items()}, max_rate_Bps=cap)
        )
        check()

    for spec in flows:
        env.process(start(*spec))
    while env.peek() < math.inf:
        env.step()
        check()
    assert worst["over"] <= 1e-9
    assert all(f.finished_s is not None and f.remaining_B == 0 for f in all_flows)
    # every resource carried exactly the bytes of its flows times their coefficients
    for name, r in net.resources.items():
        expected = sum(f.size_B * a for f in all_flows for rr, a in f.usage.items() if rr is r)
        assert r.carried == pytest.approx(expected, rel=1e-6, abs=1e-6)
    # utilisation stays in 0..1
    assert all(0.0 <= u <= 1.0 for u in net.utilization(env.now).values())


@settings(max_examples=60, deadline=None)
@given(capacity_strategy, flow_strategy)
def test_property_max_min_no_flow_can_grow_without_a_full_resource(capacities, flows):
    """Max-min optimality: every uncapped flow crosses at least one saturated resource."""
    env = simpy.Environment()
    net = FlowNetwork(env)
    res = {k: net.resource(k, c) for k, c in capacities.items()}
    started = [
        net.transfer(size, {res[k]: a for k, a in usage.items()}, max_rate_Bps=cap)
        for size, usage, _, cap in flows
    ]
    for f in started:
        at_cap = f.rate_Bps >= f.max_rate_Bps * (1 - 1e-9)
        saturated = any(r.load >= r.capacity * (1 - 1e-9) for r in f.usage)
        assert at_cap or saturated
