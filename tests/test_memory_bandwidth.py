"""A host's memory bandwidth as a shared resource (``model.memory``): every byte a path moves
crosses the host's DRAM by the passes the models charge the CPU for (a DMA once, a copy twice, a
checksum or a parity's read once, the parity written once a byte of it), at most a STREAM run's
share of the catalog's peak; a host the catalog gives no memory bandwidth has no such resource."""

import pytest
import simpy
from flash_parts import BIG_HOST, on_hba, on_riser, scenario
from quote_parts import write

from model import catalog, memory, params
from model import scenario as loader
from model.network import wan
from model.servers import ingest
from model.sim.flows import FlowNetwork
from model.simulate import simulate
from model.storage import stream, topology
from model.storage.filesystem import metadata_share

EPYC_PEAK_MBps = 2 * 12 * 4800 * 8  # two sockets of twelve DDR5-4800 channels
EPYC_SUSTAINED_MBps = EPYC_PEAK_MBps * 378 / 460.8  # Micron's STREAM share (model.memory)

# The memory audit's what-if: its parts file and scenario (reported beside the change)
AUDIT_PARTS = {
    "cpus": {
        "epyc_96": {
            "like": "amd_epyc_9354",
            "name": "AMD EPYC 9354 stretched to 96 cores (a what-if of the audit)",
            "cores": 96,
            "sources": {"cores": "estimated: the audit's what-if, 96 cores a socket"},
        }
    },
    "hosts": {
        "sr665_96": {
            "like": "lenovo_sr665_v3",
            "name": "Lenovo SR665 V3 with two 96-core EPYC (the audit's what-if)",
            "cpu": "epyc_96",
        }
    },
}
SEGMENTS = {f"s{i}": {"part": "pcie5_x16" if i < 4 else "pcie5_x8"} for i in range(8)}
ATTACH = [f"nvme.s{i}.{d}" for i in range(8) for d in range(4 if i < 4 else 2)]


def _audit(tmp_path, op: str = "read"):
    write(tmp_path / "parts.yaml", AUDIT_PARTS)
    data = {
        "name": "zfs24",
        "model": "storage",
        "description": "24 NVMe drives as two RAIDZ2 vdevs of twelve, 192 buffered readers",
        "source": "estimated: the memory audit's what-if",
        "seed": 1,
        "catalogs": ["parts.yaml"],
        "host": "sr665_96",
        "buses": SEGMENTS,
        "volumes": {
            "pool": {
                "engine": "zfs",
                "vdevs": {"type": "raidz2", "count": 2},
                "record_KiB": 1024,
                "ashift": 12,
                "disks": {"part": "micron_9550_max_6400", "count": 24, "attach": ATTACH},
                "filesystem": {"type": "zfs"},
            }
        },
        "workload": {
            "op": op,
            "target": "pool",
            "streams": 192,
            "total_MB": 10000,
            "request_KiB": 1024,
        },
    }
    return loader.load(write(tmp_path / "zfs24.yaml", data))


def test_the_audits_all_nvme_pool_reads_no_faster_than_the_hosts_memory_carries(tmp_path):
    """A buffered ZFS read crosses DRAM four times a byte: the drives' DMA into the ARC, the
    fletcher4 checksum, the copy out's read and write. 192 readers on 192 cores read 262 GB/s
    where the CPU alone bound them, past what 921.6 GB/s of peak memory carries four times."""
    r = simulate(_audit(tmp_path))
    assert r.bottleneck == "memory host"
    assert r.bound_MBps == pytest.approx(EPYC_SUSTAINED_MBps / 4, rel=1e-9)
    assert r.throughput_MBps == pytest.approx(EPYC_SUSTAINED_MBps / 4, rel=1e-4)  # first access
    assert (
        "memory host binds: each byte crosses the host's memory 4 times (drives' DMA 1, "
        "checksum 1, ARC's copy 2), against the 756,000 MB/s it sustains (82 % of its "
        "921,600 MB/s peak" in " ".join(r.notes)
    )


def _crossings(tmp_path, data) -> dict[str, float]:
    s = loader.load(write(tmp_path / "s.yaml", data))
    net = FlowNetwork(simpy.Environment())
    path = topology.build(net, s.body, s.catalog, params.calibrated(), s.path, 1e9)
    return stream.memory_crossings(path, s.body)


SAS_SSD = "samsung_pm1643_30tb"  # on the quote's HBA, eight of them at most


def _zfs(count: int) -> dict:
    volume = {k: v for k, v in on_hba(SAS_SSD, count, "raid0").items() if k != "level"}
    return {
        **volume,
        "engine": "zfs",
        "vdevs": {"type": "raidz2", "count": 1},
        "record_KiB": 1024,
        "ashift": 12,
        "filesystem": {"type": "zfs"},
    }


WRITE = {"op": "write", "request_KiB": 1024, "total_MB": 1000}
READ = {**WRITE, "op": "read"}


@pytest.mark.parametrize(
    "volume, workload, expected",
    [
        # the drives' data sectors into the ARC, fletcher4, the copy out
        (_zfs(6), READ, {"drives' DMA": 1, "checksum": 1, "ARC's copy": 2}),
        # a 1 MiB record on six drives: 256 data sectors, 2 x 64 parity (384, a multiple of 3):
        # the copy in, fletcher4, the parity's read of the data and its 128 sectors written,
        # every sector out to the drives
        (
            _zfs(6),
            WRITE,
            {
                "drives' DMA": 384 / 256,
                "checksum": 1,
                "parity reads": 1,
                "parity writes": 128 / 256,
                "ARC's copy": 2,
            },
        ),
        # md RAID6 of eight: a full stripe's two parity chunks for six of data
        (
            on_hba(SAS_SSD, 8, "raid6", chunk_KiB=512),
            WRITE,
            {
                "drives' DMA": 8 / 6,
                "page cache's copy": 2,
                "parity reads": 1,
                "parity writes": 2 / 6,
            },
        ),
        # a direct read: the drives move the program's buffer themselves
        (
            on_riser("micron_9550_max_6400", 2, "raid0"),
            {**READ, "io": "direct"},
            {"drives' DMA": 1},
        ),
        # a mirror written: both copies out of the one page
        (
            on_riser("micron_9550_max_6400", 2, "raid1"),
            WRITE,
            {"drives' DMA": 2, "page cache's copy": 2},
        ),
    ],
)
def test_a_byte_crosses_memory_by_the_passes_its_path_charges_the_cpu(
    tmp_path, volume, workload, expected
):
    data = scenario(volume, {**workload, "streams": 1}, segment="pcie4_x16")
    got = _crossings(tmp_path, data)
    assert got == pytest.approx(expected, rel=1e-12)


def test_a_raid_card_moves_its_volume_s_user_bytes_once():
    """The MD3260 keeps its volume's parity and copies in its own memory: the host's DMA carries
    the user bytes once, and the writer's copy into the page cache twice."""
    s = loader.load("em_ingest")
    net = FlowNetwork(simpy.Environment())
    path = topology.build(net, s.body, s.catalog, params.calibrated(), s.path, 1e9)
    assert stream.memory_crossings(path, s.body) == {"RAID card's DMA": 1, "page cache's copy": 2}


def _with_memory(host: dict, peak_MBps: float) -> dict:
    return {
        **host,
        "memory_bandwidth_MBps": peak_MBps,
        "sources": {**host["sources"], "memory_bandwidth_MBps": "estimated: a test's memory"},
    }


def _on_host(host: dict, volume: dict, workload: dict) -> dict:
    data = scenario(volume, workload, segment="pcie4_x16")
    data["parts"]["hosts"]["big_server"] = host
    return data


def test_only_a_host_the_catalog_gives_memory_bandwidth_has_a_memory_resource(tmp_path):
    volume, workload = on_riser("micron_9550_max_6400", 2, "raid0"), {**READ, "streams": 1}
    without = simulate(
        loader.load(write(tmp_path / "a.yaml", _on_host(BIG_HOST, volume, workload)))
    )
    given = _on_host(_with_memory(BIG_HOST, 100000), volume, workload)
    with_it = simulate(loader.load(write(tmp_path / "b.yaml", given)))
    assert "memory host" not in without.utilization
    # one stream's 3 crossings a byte of the 82,031 MB/s the memory sustains
    share = with_it.throughput_MBps * 3 / (100000 * 378 / 460.8)
    assert with_it.utilization["memory host"] == pytest.approx(share, rel=1e-6)
    assert with_it.throughput_MBps == pytest.approx(without.throughput_MBps, rel=1e-9)


def test_a_front_side_bus_host_sustains_half_its_peak_an_on_die_one_82_percent():
    hosts = catalog.load().parts["hosts"]
    assert memory.sustained_Bps(hosts["supermicro_p4dl6_triumf"]) == pytest.approx(1600e6)
    assert memory.sustained_Bps(hosts["lenovo_sr665_v3"]) == pytest.approx(
        EPYC_SUSTAINED_MBps * 1e6
    )
    assert memory.sustained_Bps(hosts["dell_r720"]) is None  # no memory bandwidth in the catalog


def test_clients_reading_over_the_lan_cross_memory_by_the_socket_s_copy_and_the_nic_s_dma_too(
    tmp_path,
):
    """A LAN client's byte: the drives' DMA, the page cache's copy, the socket's copy and the NIC's
    DMA, six crossings, on a host whose memory sustains 820 MB/s: 137 MB/s, below the NICs."""
    host = _with_memory({**BIG_HOST, "nics": ["mellanox_cx4_lx_25g", "mellanox_cx4_lx_25g"]}, 1000)
    data = _on_host(host, on_riser("micron_9550_max_6400", 2, "raid0"), {**READ, "total_MB": 100})
    data["clients"] = {
        "count": 4,
        "protocol": "smb",
        "nic": "intel_x710_da2",
        "link": "lan_25gbe",
        "hashing": "balanced",
        "tso": True,
        "gro": True,
    }
    r = simulate(loader.load(write(tmp_path / "s.yaml", data)))
    sustained_MBps = 1000 * 378 / 460.8
    assert r.bottleneck == "memory storage"
    assert r.bound_MBps == pytest.approx(sustained_MBps / 6, rel=1e-9)
    assert r.throughput_MBps == pytest.approx(sustained_MBps / 6, rel=1e-3)  # the first access
    assert (
        "each byte crosses the host's memory 6 times (drives' DMA 1, page cache's copy 2, "
        "socket's copy 2, NIC's DMA 1)" in " ".join(r.notes)
    )


def test_a_wan_transfer_s_byte_crosses_each_end_s_memory_six_times_disk_to_disk():
    """The sender's drives' DMA (the ext2 block map riding with the data), page cache's copy,
    socket's copy and NIC's DMA; the receiver's the same the other way."""
    s = loader.load("atlas_lightpath")
    built = wan.build(s, catalog.load(), params.calibrated())
    resources = built.net.resources
    for role, ref in (("sender", "sender_storage"), ("receiver", "receiver_storage")):
        store = s.refs[ref].body
        block_map = metadata_share(store.volumes[store.workload.target].filesystem)
        for flow in built.flows:
            assert flow.usage[resources[f"memory {role}"]] == pytest.approx(6.0 + block_map)


def test_repeated_runs_from_the_cache_go_no_faster_than_memory_carries_their_copies(tmp_path):
    """Four readers on 32 fast cores would read the page cache at 13.7 GB/s; the copy out crosses
    memory twice a byte, which sustains 8.2 GB/s: the later runs take their bytes twice over it."""
    host = _with_memory(BIG_HOST, 10000)
    volume = on_riser("micron_9550_max_6400", 2, "raid0")
    workload = {**READ, "streams": 4}
    once = simulate(loader.load(write(tmp_path / "a.yaml", _on_host(host, volume, workload))))
    thrice_data = _on_host(host, volume, {**workload, "runs": 3})
    thrice = simulate(loader.load(write(tmp_path / "b.yaml", thrice_data)))
    later_s = 2 * 4 * 1000e6 * 2 / (10000e6 * 378 / 460.8)
    assert thrice.elapsed_s * 3 == pytest.approx(once.elapsed_s + later_s, rel=1e-9)
    assert "as fast as the host's memory carries their copies out of it" in thrice.notes[-1]


def test_an_mdsplus_server_s_replies_cross_its_memory_by_its_copy_and_its_nic(tmp_path):
    parts = {
        "hosts": {
            "slow_memory_server": {
                "like": "ga_mdsplus_server",
                "name": "The MDSplus server with very slow memory (a test's)",
                "memory_bandwidth_MBps": 6,
                "sources": {"memory_bandwidth_MBps": "estimated: a test's memory"},
            }
        }
    }
    path = write(tmp_path / "parts.yaml", parts)
    s = loader.load("mdsplus", ["server_host=slow_memory_server"], catalogs=(path,))
    r = simulate(s)
    assert r.bottleneck == "memory server0"
    assert (
        "memory server0 binds: each byte crosses the host's memory 3 times (socket's copy 2, "
        "NIC's DMA 1)" in " ".join(r.notes)
    )


def test_an_ingest_s_host_memory_is_a_stage_where_the_catalog_gives_the_host_s_bandwidth():
    """The NVMe purchase's one-socket EPYC (378 GB/s sustained) behind the microscopes' SMB
    writers: the NIC's DMA, the socket's copy, the page cache's copy and both copies of the md
    RAID10 out to the drives, seven crossings; the R720 of the report has no memory figure."""
    report = loader.load("em_ingest_microscopes")
    nvme = loader.load("em_ingest_microscopes", ["storage=purchase_nvme", "storage_overrides=[]"])
    without, with_it = (
        ingest.predict(s, catalog.load(), params.calibrated()) for s in (report, nvme)
    )
    assert "host memory" not in without.stage_capacity_MBps
    sustained_MBps = 12 * 4800 * 8 * 378 / 460.8
    assert with_it.stage_capacity_MBps["host memory"] == pytest.approx(sustained_MBps / 7)
