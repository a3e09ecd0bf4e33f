"""The microscope ingest path: LACP hashing, stage limits, the storage model beneath,
microscopes."""

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scenario_copies import copy_scenario

from model import catalog, params, reference, scenario
from model.errors import UserError
from model.network import tcp
from model.params import Recording
from model.servers import ingest
from model.storage.parameters import PARAMETERS as STORAGE_PARAMETERS

BASE = scenario.load("em_ingest_microscopes")


def config(storage: tuple[str, ...] | None = None, **changes):
    """The ingest scenario with body keys changed; ``storage``: the store's overrides."""
    if storage is not None:
        changes["storage_overrides"] = storage
    return scenario.changed(BASE, **changes)


def predict(configured, values=None):
    return ingest.predict(
        configured, catalog.load(), params.calibrated() if values is None else values
    )


PAYLOAD = ingest.smb_payload_per_byte(BASE.body)
LINK_MBps = 10e9 / 8 / tcp.tcp_wire_per_byte(1500) / PAYLOAD / 1e6  # one 10 GbE link's image bytes
EIGHT_WIRES = (
    "variant=striped",
    "volumes.lv.group_paths=[sas0,sas1,sas2,sas3,sas4,sas5,sas6,sas7]",
)
VARIANTS = ("linear_4k", "linear_large_block", "striped")
MICROSCOPE_CLIENT_MBps = 3e12 / 3600 / 8 / 1e6  # one of a microscope's eight servers at 3 TB/h


def _cheap_cpu():
    """The calibrated parameters with the write path costing one copy; with GRO on (``CHEAP``, its
    receive work from the socket's backlog small) the network, not smbd, limits."""
    return dict(params.calibrated(), io_copy_passes=1.0)


CHEAP = {"gro": True}  # a host that receives at Linux 5.4's cost, beside _cheap_cpu


def test_smb_framing_of_a_612_KiB_image():
    # ten 64 KiB writes, each with a 64-byte SMB2 header, a 48-byte WRITE request and a 4-byte
    # length
    assert PAYLOAD == pytest.approx(1 + 10 * 116 / (612 * 1024))


def test_hashing_places_connections_as_named():
    assert predict(config(clients=5, hashing="balanced")).bond_member_of_client == (0, 1, 0, 1, 0)
    assert predict(config(clients=5, hashing="collide")).bond_member_of_client == (0,) * 5
    seeded = predict(config(clients=8, hashing="seeded")).bond_member_of_client
    assert seeded == predict(config(clients=8, hashing="seeded")).bond_member_of_client
    assert predict(config(clients=5, hashing="seeded")).bond_member_of_client == seeded[:5]


def test_one_client_never_exceeds_one_link():
    r = predict(config(clients=1, storage=EIGHT_WIRES, **CHEAP), _cheap_cpu())
    assert r.aggregate_MBps == pytest.approx(
        LINK_MBps
    )  # its link, not the bond's two, is the limit
    assert r.bottleneck_stage == "acquisition NICs"
    assert r.stage_capacity_MBps["bond (as hashed)"] == pytest.approx(LINK_MBps)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.integers(0, 1), min_size=1, max_size=12), st.sampled_from(VARIANTS), st.booleans()
)
def test_no_client_beats_its_link_and_no_total_beats_its_stages(members, variant, cheap):
    r = predict(
        config(clients=len(members), assignment=tuple(members), storage=(f"variant={variant}",)),
        _cheap_cpu() if cheap else None,
    )
    assert max(r.per_client_MBps) <= LINK_MBps * (1 + 1e-9)
    on_member = [
        sum(rate for rate, m in zip(r.per_client_MBps, members, strict=True) if m == k)
        for k in (0, 1)
    ]
    assert max(on_member) <= LINK_MBps * (1 + 1e-9)  # a member carries at most one link
    assert r.aggregate_MBps <= len(set(members)) * LINK_MBps * (1 + 1e-9)
    assert r.aggregate_MBps <= min(r.stage_capacity_MBps.values()) * (1 + 1e-9)
    assert r.aggregate_MBps <= r.bound_MBps * (1 + 1e-9)


def test_two_clients_on_different_members_get_twice_one():
    # smbd's core limits each client, then its link does
    for values, host in ((None, {}), (_cheap_cpu(), CHEAP)):
        one = predict(config(clients=1, storage=EIGHT_WIRES, **host), values).aggregate_MBps
        apart = predict(config(clients=2, assignment=(0, 1), storage=EIGHT_WIRES, **host), values)
        together = predict(
            config(clients=2, assignment=(1, 1), storage=EIGHT_WIRES, **host), values
        )
        assert apart.aggregate_MBps == pytest.approx(2 * one)
        assert together.aggregate_MBps == pytest.approx(min(2 * one, LINK_MBps))
        # the shared member binds where two smbd cores carry more than its link
        expected = "nic storage.1" if 2 * one > LINK_MBps else "core storage.smbd0"
        assert together.bottleneck == expected


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("hashing", ["balanced", "collide", "seeded"])
def test_end_to_end_never_exceeds_the_storage_path_nor_the_bond(variant, hashing):
    for n in (1, 2, 3, 8, 16):
        r = predict(config(clients=n, hashing=hashing, storage=(f"variant={variant}",)))
        assert r.aggregate_MBps <= r.storage.bound_MBps * (1 + 1e-9)
        # simulate()'s own figure for n dd writers also counts the drives' first access in its run
        assert r.aggregate_MBps <= r.storage.throughput_MBps * (1 + 1e-3)
        assert r.aggregate_MBps <= 2 * LINK_MBps * (1 + 1e-9)


def test_the_storage_stage_is_the_storage_models_prediction():
    r = predict(config(clients=8, storage=("variant=linear_4k",)))
    assert r.aggregate_MBps == pytest.approx(
        r.storage.throughput_MBps, rel=1e-3
    )  # the network adds no limit
    assert r.bottleneck == r.storage.bottleneck


def test_an_unlucky_hash_makes_the_bond_the_bottleneck():
    lucky = predict(config(clients=8, hashing="balanced"))
    unlucky = predict(config(clients=8, hashing="collide"))
    assert unlucky.bottleneck == "nic storage.0"
    assert unlucky.aggregate_MBps == pytest.approx(LINK_MBps)
    assert lucky.aggregate_MBps > unlucky.aggregate_MBps
    # a lucky hash fills both links: the store's four x4 wires carry more than the bond
    assert lucky.aggregate_MBps == pytest.approx(2 * LINK_MBps)
    assert lucky.stage_capacity_MBps["storage path"] > lucky.aggregate_MBps


@pytest.mark.parametrize("hashing", ["balanced", "collide", "seeded"])
def test_more_clients_never_lower_the_aggregate(hashing):
    for variant in VARIANTS:
        rates = [
            predict(
                config(clients=n, hashing=hashing, storage=(f"variant={variant}",))
            ).aggregate_MBps
            for n in range(1, 17)
        ]
        # more clients write more bytes, further into the drives' slower inner zones: a linear
        # LUN's drives, when they limit, lose about 0.05 % a client
        rising = all(b >= a * (1 - 1e-3) for a, b in zip(rates, rates[1:], strict=False))
        assert rising, (variant, rates)


@pytest.mark.parametrize("hashing", ["balanced", "collide", "seeded"])
def test_more_microscopes_never_lower_the_aggregate(hashing):
    carried = [
        predict(
            config(clients=8 * m, hashing=hashing, client_cap_MBps=MICROSCOPE_CLIENT_MBps)
        ).aggregate_TBph
        for m in (1, 2)
    ]
    assert carried[0] == pytest.approx(3.0)  # one microscope's eight servers are carried in full
    assert carried[1] >= carried[0]


def test_microscopes_is_the_floor_of_the_aggregate_over_3_TBph():
    for configured in (
        config(),
        config(hashing="collide"),
        config(clients=1),
        config(storage=("variant=linear_4k",)),
        config(client_cap_MBps=MICROSCOPE_CLIENT_MBps),
    ):
        r = predict(configured)
        assert r.aggregate_TBph == pytest.approx(r.aggregate_MBps * 3600 / 1e6)
        assert r.microscopes == math.floor(r.aggregate_TBph / 3.0 + 1e-9)
        assert r.files_per_s == pytest.approx(r.aggregate_MBps * 1e6 / (612 * 1024))
    assert predict(config(client_cap_MBps=MICROSCOPE_CLIENT_MBps)).microscopes == 1


def test_offered_load_below_every_stage_is_carried_in_full():
    r = predict(config(clients=8, client_cap_MBps=50.0))
    assert r.per_client_MBps == pytest.approx((50.0,) * 8)
    assert r.bottleneck == "offered load"


def test_only_the_storage_models_calibrated_parameters_are_read():
    recording = Recording(params.calibrated())
    predict(config(), recording)
    assert recording.read and recording.read <= {p.name for p in STORAGE_PARAMETERS}


def test_mistakes_are_named():
    with pytest.raises(UserError, match="clients"):
        config(clients=0)
    with pytest.raises(UserError, match="assignment"):
        config(clients=2, assignment=(0,))
    with pytest.raises(UserError, match="members are 0 to 1"):
        predict(config(clients=2, assignment=(0, 2)))
    with pytest.raises(UserError, match="hashing"):
        config(hashing="round_robin")


def test_the_cli_predicts_the_ingest_scenario_as_predict_does(run_cli):
    status, out, _ = run_cli("predict", "em_ingest_microscopes", "--json")
    assert status == 0
    data = json.loads(out)
    assert data["throughput_MBps"] == pytest.approx(predict(BASE).aggregate_MBps, rel=1e-9)
    status, out, _ = run_cli(
        "predict", "em_ingest_microscopes", "--set", "variant=unlucky_hash", "--json"
    )
    assert json.loads(out)["bottleneck"] == "bond (as hashed)"


def test_a_bad_hashing_in_the_scenario_is_one_line_and_exit_2(run_cli):
    status, out, err = run_cli("predict", "em_ingest_microscopes", "--set", "hashing=random")
    assert status == 2 and len(err.strip().splitlines()) == 1 and "hashing" in err


def test_an_uneven_assignment_bounds_the_aggregate_by_the_clients_on_each_member():
    """Seven clients on one bond member and one on the other: the bottleneck law counts each
    member's clients, so the lone client's member adds what that client can carry (its smbd core),
    not a whole link (the bound once printed the balanced 2,349 MB/s where 1,563 was carried)."""
    balanced = predict(config())
    uneven = predict(config(assignment=(0,) * 7 + (1,)))
    assert balanced.bound_MBps == pytest.approx(2 * LINK_MBps)
    assert uneven.aggregate_MBps == pytest.approx(LINK_MBps + uneven.per_client_MBps[7])
    assert uneven.per_client_MBps[7] < 0.5 * LINK_MBps  # smbd's core holds the lone client
    assert uneven.aggregate_MBps <= uneven.bound_MBps * (1 + 1e-9)
    assert uneven.bound_MBps == pytest.approx(uneven.aggregate_MBps, rel=1e-9)
    collide = predict(config(hashing="collide"))
    assert collide.bound_MBps == pytest.approx(collide.aggregate_MBps, rel=1e-9)


def test_tso_cuts_no_frame_of_the_host_and_sizes_the_senders_window():
    """The ingest only writes: the storage host sends acknowledgements, which TSO does not cut, so
    at the report's round trip it changes nothing; but every end takes the host's settings, and
    with TSO a send buffer is all window, which binds on a long round trip with Linux's old
    tcp_wmem (the audit: its meaning had said it changes nothing, 523.3 against 261.7 MB/s)."""
    assert predict(config(tso=True)).aggregate_MBps == predict(config()).aggregate_MBps
    small = {"lan_rtt_ms": 2.0, "tcp_wmem_B": (4096, 16384, 131072)}
    with_tso = predict(config(tso=True, **small)).aggregate_MBps
    assert with_tso == pytest.approx(2 * predict(config(**small)).aggregate_MBps, rel=1e-3)
    meaning = reference.find("ingest", "tso").meaning
    assert "acknowledgements" in meaning and "send_window_B" in meaning


def test_servers_asking_for_less_than_the_path_carries_name_their_offered_load(run_cli):
    """Eight servers capped at 50 MB/s each: the ingest keeps up, and the printed bottleneck says
    so instead of naming a 17 % busy bond."""
    status, out, _ = run_cli(
        "predict", "em_ingest_microscopes", "--set", "client_cap_MBps=50", "--point"
    )
    assert status == 0
    assert "bottleneck   offered load (it keeps up; the busiest resource, bond" in out


def test_a_store_with_parts_of_its_own_is_simulated_with_them(tmp_path):
    """The ingest's storage scenario may load parts of its own (catalogs:): the store was
    simulated with the ingest's catalog, so its own controller was 'unknown'. Its parts are used,
    and a slower RAID processor of its own moves the prediction."""
    from model import scenario
    from model.simulate import simulate

    (tmp_path / "parts.yaml").write_text(
        "controllers:\n  my_md:\n    like: dell_md3260\n    processor_MHz: 100\n"
        '    sources: {processor_MHz: "estimated: a test"}\n'
    )
    copy_scenario(
        tmp_path,
        "em_ingest",
        "store.yaml",
        ("part: dell_md3260", "part: my_md"),
        head="catalogs: [parts.yaml]\n",
    )
    ingest = copy_scenario(
        tmp_path,
        "em_ingest_microscopes",
        "ingest.yaml",
        ("storage: em_ingest", "storage: store.yaml"),
    )
    own = simulate(scenario.load(ingest))
    shipped = simulate(scenario.load("em_ingest_microscopes"))
    assert own.throughput_MBps < shipped.throughput_MBps


def test_an_id_the_store_and_the_ingest_define_differently_is_refused(tmp_path, run_cli):
    """Each file's ids keep their meaning: a NIC the ingest defines for its clients and the store
    defines otherwise under the same id took the store's (the clients got its 100 GbE)."""
    nic = (
        "  my_nic:\n    like: nic_gbe\n    rate_Gbps: {rate}\n"
        "    sources: {{rate_Gbps: 'estimated: a test'}}\n"
    )
    (tmp_path / "parts.yaml").write_text("nics:\n" + nic.format(rate=100))
    copy_scenario(tmp_path, "em_ingest", "store.yaml", head="catalogs: [parts.yaml]\n")
    own_nic = nic.format(rate=1).replace("  my_nic", "    my_nic").replace("\n    ", "\n      ")
    ingest = copy_scenario(
        tmp_path,
        "em_ingest_microscopes",
        "ingest.yaml",
        ("storage: em_ingest", "storage: store.yaml"),
        ("client_nic: nic_10gbe", "client_nic: my_nic"),
        head="parts:\n  nics:\n" + own_nic,
    )
    status, out, err = run_cli("predict", ingest)
    assert status == 2 and not out and err.count("\n") == 1
    assert "store.yaml: nics.my_nic: is defined here and, differently" in err


def test_small_files_are_bound_by_their_create_and_close_round_trips():
    """Each file waits for an SMB2 CREATE and a CLOSE across the LAN: 1 KiB files at 0.05 ms a
    round trip are at most 10,000 files a second a client, 10.24 MB/s, eight clients 81.9 MB/s
    (they were carried at 2,114 MB/s, two million files a second); the report's 612 KiB images are
    not bound by it."""
    from model import scenario
    from model.simulate import simulate

    small = simulate(scenario.load("em_ingest_microscopes", ["file_KiB=1"]))
    assert small.bottleneck == "file round trips"
    assert small.throughput_MBps == pytest.approx(8 * 1024 / 0.1e-3 / 1e6, rel=0.001)
    images = simulate(scenario.load("em_ingest_microscopes"))
    assert images.bottleneck != "file round trips"


def test_a_client_s_window_is_its_own_stage_not_its_nic_s():
    """The network audit's case: at a 100 ms round trip a client's 2 MiB window carries 21 MB/s,
    its 10 GbE NIC 1,177: the window's share had been shown as the acquisition NICs' load (15 %
    however far the rate fell), where the NICs carried 0.3 %."""
    far = predict(config(lan_rtt_ms=100.0))
    assert far.stage_utilization["acquisition NICs"] == pytest.approx(
        far.aggregate_MBps / far.clients / LINK_MBps, rel=0.01
    )
    assert far.stage_utilization["acquisition NICs"] < 0.01
    windows = far.stage_utilization["TCP windows"]
    assert windows == pytest.approx(far.aggregate_MBps / far.stage_capacity_MBps["TCP windows"])
    assert windows > 0.1
