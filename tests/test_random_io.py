"""Random requests: a disk's seek and half turn, RAID5's write penalty, the CPU of a request."""

import pytest
from flash_parts import on_hba, scenario
from quote_parts import PARTS, write

from model import scenario as loader
from model.simulate import simulate
from model.storage import disk as disk_model

# 8.5 ms seek, 7200 rpm, 200 to 100 MB/s; one command at a time, nothing reordered
HDD = PARTS["disks"]["quote_hdd_fifo"]


def _load(tmp_path, data):
    return loader.load(write(tmp_path / "s.yaml", data))


def _random(op: str, depth: int = 1, request_KiB: float = 4, total_MB: float = 4) -> dict:
    return {
        "op": op,
        "io": "direct",
        "pattern": "random",
        "request_KiB": request_KiB,
        "queue_depth": depth,
        "total_MB": total_MB,
    }


def _service_s(s, request_B: float) -> float:
    """Average seek + half a revolution + the transfer at the drive's mean rate over its span."""
    part = s.catalog.get("disks", "quote_hdd_fifo", "", "")
    rate_Bps = disk_model.mean_rate_MBps(part, 1.0, 0.0, 1.0) * 1e6
    return HDD["avg_seek_read_ms"] / 1e3 + 0.5 * 60 / HDD["rpm"] + request_B / rate_Bps


def test_random_4k_reads_on_one_disk_pay_a_seek_and_half_a_turn(tmp_path):
    s = _load(tmp_path, scenario(on_hba("quote_hdd_fifo", 1, "single"), _random("read")))
    iops = simulate(s).throughput_MBps * 1e6 / 4096
    assert iops == pytest.approx(1 / _service_s(s, 4096), rel=0.005)  # about 79 IOPS


def test_raid5_small_writes_pay_four_commands(tmp_path):
    # four drives, 32 writes in flight: the drives' commands are the limit, 4 per write
    s = _load(tmp_path, scenario(on_hba("quote_hdd_fifo", 4, "raid5"), _random("write", depth=32)))
    iops = simulate(s).throughput_MBps * 1e6 / 4096
    assert iops == pytest.approx(4 / (4 * _service_s(s, 4096)), rel=0.005)
    reads = simulate(
        _load(tmp_path, scenario(on_hba("quote_hdd_fifo", 4, "raid5"), _random("read", 32)))
    )
    assert reads.throughput_MBps == pytest.approx(4 * simulate(s).throughput_MBps, rel=0.005)


def test_one_byte_writes_cost_more_cpu_per_byte_than_1_mib_writes(tmp_path):
    def cpu_s_per_byte(request_KiB: float, total_MB: float) -> tuple[float, float]:
        workload = {"op": "write", "request_KiB": request_KiB, "total_MB": total_MB}
        r = simulate(_load(tmp_path, scenario(on_hba("quote_hdd_fifo", 1, "single"), workload)))
        return r.cpu_sys_s / r.bytes_moved, r.throughput_MBps

    tiny, tiny_MBps = cpu_s_per_byte(1 / 1024, 1)
    big, big_MBps = cpu_s_per_byte(1024, 1000)
    assert tiny == pytest.approx(5000 / 3.0e9, rel=1e-6)  # a request's cycles on a 3 GHz core
    assert tiny > 1000 * big and tiny_MBps < big_MBps / 100


@pytest.mark.parametrize(
    "change, message",
    [
        ({"op": "copy", "source": "v"}, "workload.pattern: random takes op read or write"),
        ({"io": "buffered"}, "workload.queue_depth: only io: direct keeps more than one"),
        ({"pattern": "zigzag"}, "workload.pattern"),
        ({"queue_depth": 0}, "workload.queue_depth"),
        # a depth of 10^8 was taken: the key's sanity limit, a drive holding its own depth at most
        (
            {"queue_depth": 65_537},
            "workload.queue_depth: must be a positive integer up to 65,536 (a sanity limit, "
            "Linux's default fs.aio-max-nr; a drive holds at most its own queue depth of them), "
            "got 65,537",
        ),
    ],
)
def test_a_request_mistake_is_one_line_and_status_2(tmp_path, run_cli, change, message):
    data = scenario(on_hba("quote_hdd_fifo", 1, "single"), {**_random("read", depth=4), **change})
    status, out, err = run_cli("predict", write(tmp_path / "s.yaml", data))
    assert status == 2 and not out and err.count("\n") == 1 and message in err, err


def test_the_deepest_queue_depth_the_key_takes_still_predicts(run_cli):
    status, out, err = run_cli(
        "predict", "ext_arr_cm4_980", "--point", "--set", "workload.queue_depth=65536"
    )
    assert status == 0 and "MB/s" in out, err
