"""The interval's cap in every model: the bottleneck law over the path's rated parts
(``Result.ceiling_MBps``: links, NICs, drives, memory, a TCP window a round trip, a rate the
scenario sets), never the CPU work a model estimates in cycles; ``validate.bound_excess`` still
holds a measurement to the whole bound (``Result.bound_MBps``).

One CPU-bound case a model family: the WAN transfer's single 100 GbE stream held to its receiving
core (capped at that core's 4,236 MB/s where its NICs allow 12,376), the MDSplus server's core,
the microscope ingest's interrupt core, the download server's interrupt core sending without TSO,
and the relay's director forwarding its sites' packets on one core."""

from __future__ import annotations

import json
import math

import pytest
import test_download
import test_relay

from model import measured, model_error, params, registry, scenario, uncertainty, validate
from model.network import tcp
from model.simulate import simulate

# the relay of current machines the planner's audit quoted, its director forwarding every site's
# ACKs on one core; the download server sending a data set cached in memory on 10 GbE, its TCP
# sending work on one core without TSO
RELAY_CURRENT = test_relay.CURRENT
DOWNLOAD_CACHED = (*test_download.CACHED_10GBE, "tcp.tso=false")

# (scenario, overrides that bind it on estimated CPU work, the resource that binds, overrides of
# the same path that bind it on its rated parts instead)
CASES = {
    "wan_transfer": (
        "ext_net_fasterdata_100g",
        ("variant=single_stream",),
        "core receiver.s0",
        ("variant=parallel_12",),  # twelve streams fill the NICs
    ),
    "db_clients": ("mdsplus", ("variant=thin",), "core server0.c0", None),
    "ingest": (
        "em_ingest_microscopes",
        ("irq_affinity=cpu0",),
        "interrupts",
        ("irq_affinity=spread",),  # the hashed bond binds
    ),
    "download_server": (
        "eah_download",
        (*DOWNLOAD_CACHED, "irq_affinity=cpu0"),
        "server irq (TCP sending)",
        (*DOWNLOAD_CACHED, "irq_affinity=rss"),  # the link binds
    ),
    "relay_cluster": (
        "psu_relay",
        RELAY_CURRENT,
        "director packets",
        (*RELAY_CURRENT, "irq_affinity=spread"),  # the real servers' links bind
    ),
}


@pytest.fixture
def wide_model_error(monkeypatch, tmp_path):
    """A model error of e^4 each way for every model, so an interval reaches as far as its cap."""
    wide = {"log_widen_90": 4.0, "covers": "a test's"}
    path = tmp_path / "model_error.json"
    every = {name: wide for name in registry.MODELS}
    path.write_text(json.dumps({"models": every, "new_hardware": every}))
    monkeypatch.setattr(model_error, "MODEL_ERROR", path)


def _cpu_bound(model: str):
    name, overrides, binds, _ = CASES[model]
    loaded = scenario.load(name, list(overrides))
    result = simulate(loaded, params.calibrated())
    assert result.bottleneck == binds
    return loaded, result


def _rated_MBps(model: str) -> float | None:
    """What the path's rated parts carry, from a run of it they bind; None for an MDSplus client,
    whose every path a core binds (``test_an_mdsplus_client_s_ceiling_is_...``)."""
    name, _, _, rated = CASES[model]
    if rated is None:
        return None
    return simulate(scenario.load(name, list(rated)), params.calibrated()).bound_MBps


@pytest.mark.parametrize("model", list(CASES))
def test_a_cpu_bound_interval_reaches_past_its_cpu_bound_to_its_rated_parts(
    model, wide_model_error
):
    """The ext_net_fasterdata_100g single stream was capped at its receiving core's 4,236 MB/s
    where its NICs allow 12,376 MB/s and fasterdata's runs reach 4,375 MB/s."""
    loaded, result = _cpu_bound(model)
    if _rated_MBps(model) is not None:
        assert result.ceiling_MBps == pytest.approx(_rated_MBps(model), rel=1e-6)
    assert result.ceiling_MBps > 1.4 * result.bound_MBps
    assert result.ceiling("throughput_MBps") == result.ceiling_MBps
    wide = uncertainty.interval(loaded)
    assert wide.high > 1.05 * result.bound_MBps  # past the estimated CPU work
    assert wide.high == pytest.approx(wide.path_limit)  # but capped, at the rated parts
    assert result.ceiling_MBps <= wide.path_limit <= 1.05 * result.ceiling_MBps


def test_the_text_gives_the_rated_parts_as_the_cap_beside_the_whole_bound(
    run_cli, wide_model_error
):
    status, out, err = run_cli(
        "predict", "ext_net_fasterdata_100g", "--set", "variant=single_stream"
    )
    assert status == 0, err
    assert (
        "  capped       at the path's capacity: 12,376 MB/s, the bottleneck law's bound over its "
        "rated parts (not the CPU work it estimates)" in out
    )
    assert "  bound        4,236 MB/s  (bottleneck law)" in out


def test_an_mdsplus_client_s_ceiling_is_its_round_trips_and_its_nic():
    """A client's reads one after another, each at least its request's round trip and its bytes
    at the NIC's rate: under 1 GbE's TCP payload, over ten times its server core's bound."""
    _, result = _cpu_bound("db_clients")
    gigabit_MBps = 1e9 / 8 / tcp.tcp_wire_per_byte(1500) / 1e6
    assert 10 * result.bound_MBps < result.ceiling_MBps < gigabit_MBps


def _row(name: str, overrides: tuple[str, ...], MBps: float) -> measured.Row:
    return measured.Row(
        table="a_test",
        id="cpu_bound",
        scenario=name,
        overrides=overrides,
        role="result",
        config={},
        metric="throughput_MBps",
        value=MBps,
        unit="MB/s",
        relative_to=None,
        bound="",
        source="a test",
        note="",
    )


@pytest.mark.parametrize("model", list(CASES))
def test_a_measurement_past_the_cpu_bound_still_falsifies_the_cost(model):
    """Validation holds a measurement to the whole bound, the estimated CPU work included
    (``validate.bound_excess``): one between the CPU bound and the rated ceiling lies past the
    path, by its log ratio past the rounding."""
    name, overrides, _, _ = CASES[model]
    _, result = _cpu_bound(model)
    assert result.limit("throughput_MBps") == result.bound_MBps
    past = 1.3 * result.bound_MBps
    assert past < result.ceiling_MBps
    row = _row(name, overrides, past)
    excess = validate.bound_excess(row, params.calibrated())
    assert excess == pytest.approx(math.log(1.3 / (1 + measured.ROUNDING)), rel=1e-6)


@pytest.mark.parametrize(
    "name, overrides",
    [
        ("ext_970_evo_plus", ("variant=randwrite_qd1",)),
        ("ext_arr_cm4_980", ("variant=iozone_4k_randwrite",)),
        (  # one SMB client reading at random, its one request at a time over the LAN
            "purchase_nvme",
            (
                "workload.pattern=random",
                "workload.op=read",
                "workload.request_KiB=4",
                "workload.total_MB=1000",
                "clients.count=1",
            ),
        ),
    ],
)
def test_a_request_limit_s_rated_part_leaves_out_the_host_s_time(name, overrides):
    """A stream's requests in flight (Little's law) wait for the drives and for the host's time a
    request; the host's is the model's estimate (io_cycles_per_request), so the ceiling counts
    the drives' alone and does not move with it (the 970 EVO Plus's QD1 writes were capped at
    961.5 MB/s by that parameter's range, 'moved most by io_cycles_per_request')."""
    s = scenario.load(name, list(overrides))
    values = params.calibrated()
    cheap = simulate(s, {**values, "io_cycles_per_request": 500.0})
    dear = simulate(s, {**values, "io_cycles_per_request": 20000.0})
    assert dear.bound_MBps < cheap.bound_MBps
    assert dear.ceiling_MBps == pytest.approx(cheap.ceiling_MBps, rel=1e-9)
    assert cheap.ceiling_MBps >= cheap.bound_MBps


def test_an_nfs_thread_s_drive_wait_is_a_rated_limit():
    """A kernel NFS server's threads each hold a random read's call while its drives answer
    (nfsd_read into vfs_read): eight threads of 64 KiB calls on the purchase's md array carry some
    39 MB/s whatever the CPU's estimate, so the ceiling is that, not the 184.8 MB/s of its drives
    and ports (the pool's resource counts CPU beside the waits and was left out whole)."""
    s = scenario.load(
        "purchase_hdd_md",
        [
            "clients.protocol=nfs",
            "workload.op=read",
            "workload.pattern=random",
            "workload.request_KiB=64",
            "workload.total_MB=200",
            "clients.queue_depth=16",
        ],
    )
    values = params.calibrated()
    idle_cpu = {
        **values,
        "nfs_call_cycles": values["nfs_call_cycles"] * 1e-3,
        "io_copy_passes": values["io_copy_passes"] * 1e-3,
        "io_cycles_per_request": 500.0,
    }
    r, bare = simulate(s, values), simulate(s, idle_cpu)
    assert r.bottleneck == "nfsd threads"
    assert r.bound_MBps <= r.ceiling_MBps <= 1.01 * bare.bound_MBps
