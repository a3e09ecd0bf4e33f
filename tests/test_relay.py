"""The relay cluster (psu_relay): the simulation never beats its bottleneck law, carries the offered
feed below capacity, NAT carries less than direct routing on the same machines, the scheduler's
weights steer the sites, a pair of directors is more available than one, and mistakes exit 2."""

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model import reference, scenario, templates
from model.simulate import simulate


def predict(*overrides):
    return simulate(scenario.load("psu_relay", list(overrides)))


@settings(max_examples=12, deadline=None)
@given(
    mode=st.sampled_from(["nat", "dr", "tun"]),
    sites=st.integers(1, 120),
    rate_GBph=st.floats(1.0, 40.0),
    servers=st.integers(1, 4),
)
def test_simulated_throughput_never_exceeds_the_bound(mode, sites, rate_GBph, servers):
    out = predict(
        f"director.mode={mode}",
        f"feed.sites={sites}",
        f"feed.rate_GBph={rate_GBph}",
        f"real_servers.count={servers}",
        "feed.products=100",
    )
    assert out.throughput_MBps <= out.bound_MBps * (1 + 1e-9)
    assert all(0.0 <= u <= 1.0 + 1e-9 for u in out.utilization.values())
    offered_MBps = sites * rate_GBph * 1e3 / 3600
    assert out.throughput_MBps <= offered_MBps * (1 + 1e-9)


def test_below_capacity_the_cluster_carries_the_offered_feed():
    out = predict()  # 30 sites of a 10 GB/h feed, well within two gigabit links
    offered_MBps = 30 * 10e3 / 3600
    assert out.throughput_MBps == pytest.approx(offered_MBps, rel=0.01)
    assert out.bottleneck.startswith("real server")


def test_nat_carries_less_than_direct_routing_on_the_same_machines():
    dr, nat, tun = (predict(f"variant={v}", "feed.sites=60") for v in ("dr", "nat", "tun"))
    assert nat.bound_MBps < dr.bound_MBps
    assert nat.throughput_MBps < 0.75 * dr.throughput_MBps  # 60 sites overload the NAT director
    assert nat.bottleneck.startswith("director link")
    assert nat.throughput_MBps == pytest.approx(nat.bound_MBps, rel=0.02)  # it saturates
    assert tun.bound_MBps <= dr.bound_MBps  # the outer header costs a little on the way out


def test_weights_steer_the_sites_and_the_heavier_server_limits():
    out = predict("real_servers.weights=[1,3]", "feed.sites=40")
    assert "sites per real server 10, 30" in out.notes[0]
    assert out.bottleneck == "real server 1 link out"
    even = predict("feed.sites=40")
    assert out.bound_MBps < even.bound_MBps


def _availability_pct(notes, label):
    line = next(n for n in notes if n.startswith(label + ":"))
    return float(re.search(r"availability ([\d.]+) %", line).group(1))


def test_a_pair_of_directors_is_more_available_than_one():
    one, pair = predict("variant=one_director"), predict("variant=director_pair")
    assert _availability_pct(pair.notes, "a failover pair of directors") > _availability_pct(
        pair.notes, "one director"
    )
    service = "the virtual server"
    assert _availability_pct(pair.notes, service + " (2 directors and the real servers)") > (
        _availability_pct(one.notes, service + " (1 director and the real servers)")
    )
    assert pair.throughput_MBps == one.throughput_MBps  # a standby director carries nothing


def test_the_reliability_keys_mean_any_cluster():
    """The schema and the template speak of any relay cluster; the report's "all three chassis
    are identical" is the Penn State scenario's comment, not the key's meaning."""
    keys = {k.key: k for s in reference.model_reference("relay_cluster").sections for k in s.keys}
    text = " ".join(keys[f"reliability.{k}"].meaning for k in ("mtbf_h", "mttr_h", "takeover_s"))
    assert "three" not in text and "chassis" not in text
    assert "chassis" not in templates.text("relay_cluster")
    assert "director or real server" in keys["reliability.mtbf_h"].meaning
    assert "all three chassis are identical" in scenario.resolve("psu_relay").read_text()


def test_predict_json_and_variants(run_cli):
    for args in ((), ("--set", "variant=nat"), ("--set", "variant=director_pair")):
        status, out, err = run_cli("predict", "psu_relay", *args, "--json")
        assert status == 0, err
        data = json.loads(out)
        assert data["bottleneck"] in data["utilization"]
        assert data["throughput_MBps"] <= data["bound_MBps"]
        assert any("h/year" in n for n in data["notes"])


@pytest.mark.parametrize(
    "override, key",
    [
        ("director.bogus=1", "director.bogus"),
        ("director.mode=lvs", "director.mode"),
        ("real_servers.weights=[1,2,3]", "real_servers.weights"),
        ("director.scheduler=rr;real_servers.weights=[1,2]", "real_servers.weights"),
        ("director.nic=nic_10gbe", "director.nic"),
        ("link=no_such_link", "link"),
        ("feed.sites=0", "feed.sites"),
    ],
)
def test_a_wrong_key_gives_one_line_and_status_2(run_cli, override, key):
    args = []
    for one in override.split(";"):
        args += ["--set", one]
    status, out, err = run_cli("predict", "psu_relay", *args)
    assert status == 2
    assert out == "" and len(err.strip().splitlines()) == 1 and key in err
