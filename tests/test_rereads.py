"""A read test repeated back to back (``workload.runs``, ``model.storage.rereads``): data the page
cache or the ARC holds come from memory after the first pass; data larger than it, or read
around the cache, from the drives every time."""

import pytest

from model import scenario
from model.params import calibrated
from model.settings import page_cache_B
from model.simulate import simulate
from model.storage import stream

IS = ("atlas_intellistation", "volumes.md0.disks.count=2")


def _run(name, *overrides):
    return simulate(scenario.load(name, list(overrides)), calibrated())


def test_a_repeated_read_the_page_cache_holds_comes_from_memory():
    once = _run(*IS, "workload.total_MB=200")
    thrice = _run(*IS, "workload.total_MB=200", "workload.runs=3")
    assert thrice.throughput_MBps > 1.5 * once.throughput_MBps
    # a run's mean, as the memory-mapped test and a run from the drives report it (the storage
    # audit: three runs' bytes and time here, one run's there)
    assert thrice.bytes_moved == once.bytes_moved
    assert thrice.elapsed_s < once.elapsed_s
    assert thrice.notes[-1] == "runs 2 to 3 read from the page cache (the figures: a run's mean)"


@pytest.mark.parametrize("more", [("workload.io=direct",), ("workload.op=write",)])
def test_direct_reads_and_writes_repeat_at_the_drives_rate(more):
    once = _run(*IS, "workload.total_MB=200", *more)
    thrice = _run(*IS, "workload.total_MB=200", "workload.runs=3", *more)
    assert thrice.throughput_MBps == pytest.approx(once.throughput_MBps, rel=1e-9)


def test_data_larger_than_the_page_cache_are_read_from_the_drives_every_run():
    host = scenario.load(IS[0], IS[1:]).catalog.get(
        "hosts", "ibm_intellistation_m_pro_6850", "", ""
    )
    too_big = page_cache_B(host.memory_MB) / 1e6 * 1.1
    once = _run(*IS, f"workload.total_MB={too_big}")
    thrice = _run(*IS, f"workload.total_MB={too_big}", "workload.runs=3")
    assert thrice.throughput_MBps == pytest.approx(once.throughput_MBps, rel=1e-9)
    assert (thrice.bytes_moved, thrice.elapsed_s) == (once.bytes_moved, once.elapsed_s)


def test_lan_clients_repeating_a_read_the_cache_holds_are_not_modelled(run_cli):
    status, _, err = run_cli(
        "predict",
        "purchase_hdd_md",
        "--set",
        "workload.op=read",
        "--set",
        "workload.total_MB=100",
        "--set",
        "workload.runs=3",
        "--point",
    )
    assert status == 3 and len(err.strip().splitlines()) == 1
    assert "repeated runs" in err


def test_repeated_runs_keep_their_rate_under_their_bound():
    """The bottleneck law over all runs: the first at its bound, the others at memory's pace (the
    bound was the first pass's alone, below the rate printed beside it)."""
    thrice = _run(*IS, "workload.total_MB=200", "workload.runs=3")
    assert thrice.throughput_MBps <= thrice.bound_MBps * (1 + 1e-9)


def test_the_later_runs_keep_the_stream_s_core_busy_and_count_its_time():
    """The what-if audit's case: with runs from memory the stream's core had been shown idle
    through them (its first run's busy time over all runs' time), and the CPU time dropped. The
    core reads each later run's bytes at the page cache's cost, so it stays as busy as its runs
    keep it, and a run's CPU time is the mean of the first's and the later ones'."""
    once = _run(*IS, "workload.total_MB=200")
    thrice = _run(*IS, "workload.total_MB=200", "workload.runs=3")
    loaded = scenario.load(*IS[:1], [*IS[1:], "workload.total_MB=200"])
    host = loaded.catalog.get("hosts", loaded.body.host, "", "")
    later_s = 200e6 * stream.io_s_per_byte(calibrated(), host.copy_rate_MBps, "read")
    total_s = 3 * thrice.elapsed_s
    core = "core 0"
    busy_s = once.utilization[core] * once.elapsed_s + 2 * later_s
    assert thrice.utilization[core] == pytest.approx(busy_s / total_s, rel=1e-9)
    assert thrice.cpu_sys_s == pytest.approx((once.cpu_sys_s + 2 * later_s) / 3, rel=1e-9)
    assert thrice.io_wait_pct == pytest.approx(once.io_wait_pct * once.elapsed_s / total_s)
