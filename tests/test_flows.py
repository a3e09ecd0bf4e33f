"""The flow primitive: max-min fairness on textbook cases, conservation, capacities, properties."""

import math
from dataclasses import dataclass

import pytest
import simpy
from hypothesis import given, settings
from hypothesis import strategies as st

from model.sim.flows import Flow, FlowNetwork, FlowResource, max_min_rates, rated_usage


def _run(capacities, flows):
    """``flows``: (size_B, {resource name: coefficient}, start_s, max_rate) -> (network, flows)."""
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
    for r in net.resources.values():
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


# --- The solver against the progressive filling it replaced ---------------------------------------
# The oracle below is the network as it was before the incremental solver: every start and every end
# shares out every active flow again, by progressive filling at one common level.


@dataclass(eq=False)
class _OracleResource:
    name: str
    capacity: float
    load: float = 0.0
    carried: float = 0.0


@dataclass(eq=False)
class _OracleFlow:
    name: str
    size_B: float
    usage: dict
    max_rate_Bps: float
    done: simpy.Event
    remaining_B: float = 0.0
    rate_Bps: float = 0.0
    finished_s: float | None = None


def _oracle_rates(flows):
    rates = {f: 0.0 for f in flows}
    spare = {r: r.capacity for f in flows for r in f.usage}
    unfrozen = [f for f in flows if f.remaining_B > 0]
    level = 0.0
    while unfrozen:
        weight = {}
        for f in unfrozen:
            for r, a in f.usage.items():
                weight[r] = weight.get(r, 0.0) + a
        step = min([spare[r] / w for r, w in weight.items() if w > 0], default=math.inf)
        for f in unfrozen:
            step = min(step, f.max_rate_Bps - level)
        if math.isinf(step):
            raise ValueError("unlimited flow")
        level += max(step, 0.0)
        full = set()
        for r, w in weight.items():
            spare[r] -= max(step, 0.0) * w
            if spare[r] <= 1e-12 * r.capacity:
                full.add(r)
        still = []
        for f in unfrozen:
            if f.max_rate_Bps - level <= 1e-12 * max(level, 1.0) or any(r in full for r in f.usage):
                rates[f] = level
            else:
                still.append(f)
        unfrozen = still
    return rates


class _OracleNetwork:
    def __init__(self, env):
        self.env, self.resources, self.active = env, {}, []
        self._updated_s, self._generation = env.now, 0

    def resource(self, name, capacity):
        self.resources[name] = _OracleResource(name, float(capacity))
        return self.resources[name]

    def transfers(self, specs):
        self._advance()
        # The one change from the old code: a flow whose last byte moved at this very instant, its
        # end not yet processed, ends now. The old code gave it rate 0 and ended it only at the
        # next end of another flow, late; the new solver ends it at once.
        ended = [f for f in self.active if f.remaining_B <= 0]
        for f in ended:
            f.remaining_B, f.finished_s = 0.0, self.env.now
            self.active.remove(f)
        started = []
        for size_B, usage, name, cap in specs:
            f = _OracleFlow(name, size_B, {r: a for r, a in usage.items() if a > 0}, cap, None)
            f.done, f.remaining_B = self.env.event(), size_B
            self.active.append(f)
            started.append(f)
        self._reallocate()
        for f in ended:
            f.done.succeed(f)
        return started

    def _advance(self):
        dt = self.env.now - self._updated_s
        if dt > 0:
            for f in self.active:
                f.remaining_B -= f.rate_Bps * dt
            for r in self.resources.values():
                r.carried += r.load * dt
        self._updated_s = self.env.now

    def _reallocate(self):
        rates = _oracle_rates(self.active)
        for r in self.resources.values():
            r.load = 0.0
        for f in self.active:
            f.rate_Bps = rates[f]
            for r, a in f.usage.items():
                r.load += a * f.rate_Bps
        self._generation += 1
        horizon = min(
            (f.remaining_B / f.rate_Bps for f in self.active if f.rate_Bps > 0), default=None
        )
        if horizon is not None:
            generation = self._generation
            wake = self.env.timeout(max(horizon, 0.0))
            wake.callbacks.append(lambda _event: self._on_wake(generation))

    def _on_wake(self, generation):
        if generation != self._generation:
            return
        self._advance()
        finished = [
            f for f in self.active if f.remaining_B <= 1e-12 * f.size_B + f.rate_Bps * 1e-12
        ]
        for f in finished:
            f.remaining_B, f.finished_s = 0.0, self.env.now
            self.active.remove(f)
        self._reallocate()
        for f in finished:
            f.done.succeed(f)


def _replay(network_class, capacities, batches):
    """Run ``batches`` (start_s, [(size_B, {resource: coefficient}, max_rate_Bps)]) on a new
    network, each batch started at once. Returns the flows, the rates each batch saw at its
    start, the resources' carried units and the end time."""
    env = simpy.Environment()
    net = network_class(env)
    res = {k: net.resource(k, c) for k, c in capacities.items()}
    flows, seen = [], []

    def start(at, specs):
        yield env.timeout(at)
        started = net.transfers(
            [(size, {res[k]: a for k, a in usage.items()}, "f", cap) for size, usage, cap in specs]
        )
        flows.extend(started)
        seen.append((env.now, [f.rate_Bps for f in started]))

    for at, specs in batches:
        env.process(start(at, specs))
    env.run()
    return flows, seen, {k: r.carried for k, r in res.items()}, env.now


def _close(a, b, rel=1e-9):
    return a == b or abs(a - b) <= rel * max(abs(a), abs(b))


resource_names = "abcdefgh"
# round sizes, coefficients, caps and start times as well as arbitrary ones, so that flows tie:
# equal shares, ends at the same instant, starts at another flow's end
oracle_flow = st.tuples(
    st.one_of(st.floats(1.0, 1e9), st.sampled_from([100.0, 200.0, 1000.0])),
    st.dictionaries(
        st.sampled_from(resource_names),
        st.one_of(st.floats(0.01, 10.0), st.sampled_from([0.5, 1.0, 2.0])),
        min_size=1,
        max_size=4,
    ),
    st.one_of(st.just(math.inf), st.just(math.inf), st.floats(0.5, 1e6), st.just(50.0)),
)
oracle_batches = st.lists(
    st.tuples(
        st.one_of(st.floats(0.0, 1e4), st.sampled_from([0.0, 1.0, 2.0, 10.0])),
        st.lists(oracle_flow, min_size=1, max_size=6),
    ),
    min_size=1,
    max_size=8,
)
oracle_capacities = st.fixed_dictionaries(
    {k: st.one_of(st.floats(1.0, 1e9), st.just(100.0)) for k in resource_names}
)


@settings(max_examples=200, deadline=None)
@given(oracle_capacities, oracle_batches)
def test_solver_agrees_with_progressive_filling_on_random_networks(capacities, batches):
    """Random capacities, flows crossing random resources at random coefficients, some capped,
    started in random batches at random times: the incremental solver gives every flow the rates
    and the end the old solver gave it, and every resource the same carried units, within 1e-9
    (rates seen at an instant where another flow ends aside: they last no time)."""
    new, new_seen, new_carried, new_end = _replay(FlowNetwork, capacities, batches)
    old, old_seen, old_carried, old_end = _replay(_OracleNetwork, capacities, batches)
    assert _close(new_end, old_end)
    for n, o in zip(new, old, strict=True):
        assert _close(n.finished_s, o.finished_s), (n.finished_s, o.finished_s)
    ends = [o.finished_s for o in old]
    for (at, n_rates), (_, o_rates) in zip(new_seen, old_seen, strict=True):
        if any(_close(at, end) for end in ends):
            continue  # a start at another flow's end: which goes first decides a 0 s interval
        assert all(_close(n, o) for n, o in zip(n_rates, o_rates, strict=True)), (n_rates, o_rates)
    for k in resource_names:
        assert _close(new_carried[k], old_carried[k], rel=1e-9) or (
            abs(new_carried[k] - old_carried[k]) <= 1e-9 * max(new_carried.values())
        )


@settings(max_examples=200, deadline=None)
@given(oracle_capacities, st.lists(oracle_flow, min_size=1, max_size=30))
def test_max_min_rates_agrees_with_progressive_filling(capacities, specs):
    """One share-out of a random set of flows, some of them with nothing left to move."""
    env = simpy.Environment()
    new_net, old_net = FlowNetwork(env), _OracleNetwork(env)
    new_res = {k: new_net.resource(k, c) for k, c in capacities.items()}
    old_res = {k: old_net.resource(k, c) for k, c in capacities.items()}
    live = [i % 5 != 4 for i in range(len(specs))]
    new_flows, old_flows = [], []
    for (size, usage, cap), alive in zip(specs, live, strict=True):
        new_flows.append(
            Flow("f", size, {new_res[k]: a for k, a in usage.items()}, cap, env.event())
        )
        old = _OracleFlow("f", size, {old_res[k]: a for k, a in usage.items()}, cap, None)
        old.remaining_B = size if alive else 0.0
        old_flows.append(old)
    new_rates = max_min_rates(new_flows, live)
    old_rates = _oracle_rates(old_flows)
    assert all(_close(n, old_rates[o]) for n, o in zip(new_rates, old_flows, strict=True))


def test_identical_flows_started_together_cost_one_share_out():
    """10,000 identical streams over one shared resource and their own cores, started in one
    batch, finish together at the bottleneck's fair share, in two share-outs (start and end)."""
    env = simpy.Environment()
    net = FlowNetwork(env)
    disk = net.resource("disk", 1e9)
    cores = [net.resource(f"core {i}", 1.0) for i in range(10_000)]
    flows = net.transfers([(1e6, {disk: 1.0, core: 1e-8}, "s", math.inf) for core in cores])
    assert {f.rate_Bps for f in flows} == {1e9 / 10_000}
    env.run()
    assert net._generation == 2  # shared out at the start and at the one end of them all
    assert {f.finished_s for f in flows} == {10.0}


def test_flows_that_processes_start_at_one_instant_cost_one_share_out():
    """A thousand clients, each its own process, start a read at the same instant over one shared
    server core: shared out once at the end of that instant's events (they were a thousand
    share-outs of a growing component, quadratic in the clients), with the rates of sharing
    after each start."""
    env = simpy.Environment()
    net = FlowNetwork(env)
    server = net.resource("server", 1e9)
    nics = [net.resource(f"nic {i}", 1e8) for i in range(1000)]
    flows = []

    def client(nic):
        yield env.timeout(1.0)
        flows.append(net.transfer(1e6, {server: 1.0, nic: 1.0}))

    for nic in nics:
        env.process(client(nic))
    env.run()
    assert net._generation == 2  # the starts and the one end of them all
    assert {f.finished_s for f in flows} == {1.0 + 1e6 / (1e9 / 1000)}


def test_amounts_read_in_the_instant_a_flow_starts_count_what_moved_before():
    """A flow reads what it has left, and a resource what it carried, right after another flow
    starts beside it at that instant: the share-out that read brings about must not drop the
    bytes moved before it (900 B left of 1,000 after 1 s at 100 B/s, 100 B carried)."""
    env = simpy.Environment()
    net = FlowNetwork(env)
    link = net.resource("link", 100.0)
    seen = {}

    def later():
        yield env.timeout(1.0)
        net.transfer(1000.0, {link: 1.0})
        seen["left"], seen["carried"] = first.remaining_B, link.carried

    first = net.transfer(1000.0, {link: 1.0})
    env.process(later())
    env.run(until=1.5)
    assert seen == {"left": pytest.approx(900.0), "carried": pytest.approx(100.0)}


def test_an_end_shares_out_only_its_own_component():
    """Two separate links: an end on one leaves the other's flows alone (same rate, same entry)."""
    env = simpy.Environment()
    net = FlowNetwork(env)
    a, b = net.resource("a", 10.0), net.resource("b", 10.0)
    short, long_ = net.transfers([(10.0, {a: 1}, "s", math.inf), (100.0, {a: 1}, "l", math.inf)])
    other = net.transfer(1000.0, {b: 1})
    assert other.rate_Bps == 10.0  # read: the flows started at this instant are shared out
    version = other._version
    env.run(until=3.0)
    assert short.finished_s == pytest.approx(2.0)
    assert long_.rate_Bps == pytest.approx(10.0)
    assert other._version == version  # never shared out again
    env.run()
    assert other.finished_s == pytest.approx(100.0)
    assert b.carried == pytest.approx(1000.0)


def test_scaling_exponent_is_the_power_laws_slope():
    """``model.scaling`` fits time ~ size^k over each curve's top two decades."""
    from model.scaling import exponent

    quadratic = [(n, 1e-6 * n**2) for n in (1, 10, 100, 1000, 10000)]
    assert exponent(quadratic) == pytest.approx(2.0)
    # a fixed start-up cost below the top two decades does not bend the fit
    assert exponent([(1, 5.0), (100, 0.5), (1000, 5.0), (10000, 50.0)]) == pytest.approx(1.0)
    assert exponent([(10, 1.0)]) is None


def test_every_scaling_curve_s_largest_system_is_a_valid_scenario(tmp_path):
    """``make bench``'s curves run to their largest size: each scenario loads, and the storage
    ones fit their drives (a workload larger than its volume would stop the curve with exit 2)."""
    from model.params import calibrated
    from model.scaling import curves
    from model.simulate import simulate

    for curve in curves(tmp_path):
        largest = curve.build(max(curve.sizes))
        if largest.model == "storage":
            assert simulate(largest, calibrated()).throughput_MBps > 0


def test_a_start_at_the_instant_of_an_end_leaves_that_end_on_time():
    """The second flow starts at t=1, the instant the first moves its last byte, before that end is
    processed: the first still ends at 1 s (the old solver ended it at the second's end, 2 s)."""
    (first, second), _, carried, end_s = _replay(
        FlowNetwork,
        {"a": 1.0},
        [(0.0, [(1.0, {"a": 1.0}, math.inf)]), (1.0, [(1.0, {"a": 1.0}, math.inf)])],
    )
    assert (first.finished_s, second.finished_s, end_s) == (1.0, 2.0, 2.0)
    assert carried["a"] == pytest.approx(2.0)


def test_a_rated_capacity_is_at_least_the_capacity_and_an_endless_resource_bounds_nothing():
    """A resource's rated capacity leaves out CPU work its capacity counts, so it is never less
    (one of 50 under a capacity of 100 had doubled its usage and put the ceiling below the bound);
    an endless controller, rated at its endless capacity, had scaled its usage to NaN
    (inf / inf) in the rated bound."""
    net = FlowNetwork(simpy.Environment())
    with pytest.raises(ValueError, match="rated capacity must be at least"):
        net.resource("requests 0", 100.0, rated_capacity=50.0)
    endless = net.resource("controller ahci", math.inf)
    drive = net.resource("disk drive.0", 560e6)
    usage = rated_usage({endless: 1.0, drive: 1.0})
    assert usage == {endless: 1.0, drive: 1.0}
    requests = net.resource("requests 1", 100.0, rated_capacity=400.0)
    assert rated_usage({requests: 2.0}) == {requests: 0.5}


def test_the_partition_bound_takes_a_resource_a_flow_crosses_at_no_cost_as_not_holding_it():
    """A flow whose usage of a resource every flow crosses is 0 is not held back by it: the
    bound is the others' (it had divided by the 0, a ZeroDivisionError, the review)."""
    from model.network.hosts import partition_bound_Bps

    net = FlowNetwork(simpy.Environment())
    link = FlowResource("link", 10.0, "B", net)
    core = FlowResource("core", 4.0, "B", net)
    usages = [{link: 1.0, core: 0.0}, {link: 1.0, core: 1.0}]
    assert partition_bound_Bps(usages, [math.inf, math.inf]) == 10.0  # the link, both flows
    assert partition_bound_Bps(usages, [3.0, math.inf]) == 7.0  # 3 + the core's 4
