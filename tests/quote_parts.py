"""Parts a vendor's quote might hold, none of them in the catalog: a SAS drive, an HBA and a
one-socket server, with their sources, for the tests of user parts and shelves."""

import yaml

PARTS = {
    "disks": {
        "quote_hdd": {
            "name": "A vendor's 7200 rpm SAS drive (from the quote)",
            "interface": "sas",
            "capacity_GB": 4000,
            "rpm": 7200,
            "avg_seek_read_ms": 8.5,
            "track_to_track_ms": 0.5,
            "full_stroke_ms": 16,
            "cache_MB": 128,
            "media_rate_outer_MBps": 200,
            "media_rate_inner_MBps": 100,
            "interface_rate_MBps": 600,
            "queue_depth": 128,
            "sources": {
                k: "the vendor's quote of 2026-11-20"
                for k in (
                    "capacity_GB",
                    "rpm",
                    "avg_seek_read_ms",
                    "track_to_track_ms",
                    "full_stroke_ms",
                    "cache_MB",
                    "media_rate_outer_MBps",
                    "media_rate_inner_MBps",
                    "interface_rate_MBps",
                    "queue_depth",
                )
            },
        }
    },
    "controllers": {
        "quote_hba": {
            "name": "The quote's eight-port SAS HBA",
            "type": "hba",
            "host_bus": "pcie3_x8",
            "channels": 8,
            "channel_bus": "sas_6g_lane",
            "sources": {"channels": "the vendor's quote of 2026-11-20"},
        }
    },
    "hosts": {
        "quote_server": {
            "name": "The quote's one-socket server",
            "cpus": 1,
            "cores_per_cpu": 8,
            "threads_per_core": 1,
            "clock_GHz": 3.0,
            "copy_rate_MBps": 8000,
            "memory_MB": 65536,
            "arch_bits": 64,
            "buses": [{"bus": "pcie3_x8", "count": 2}],
            "controllers": ["quote_hba"],
            "sources": {
                k: "estimated: a 2020s one-socket server"
                for k in (
                    "cpus",
                    "cores_per_cpu",
                    "threads_per_core",
                    "clock_GHz",
                    "copy_rate_MBps",
                    "memory_MB",
                    "arch_bits",
                    "buses",
                )
            },
        }
    },
}

# The quote's drive as a SATA drive without command queueing: one command at a time, for the tests
# of a random request's own service time (seek, half a turn, transfer) with nothing reordered
_FIFO = {k: v for k, v in PARTS["disks"]["quote_hdd"].items() if k != "queue_depth"}
_FIFO["sources"] = {k: v for k, v in _FIFO["sources"].items() if k != "queue_depth"}
PARTS["disks"]["quote_hdd_fifo"] = {
    **_FIFO,
    "name": "The quote's drive as a SATA drive holding one command at a time",
    "interface": "sata",
}


def write(path, data) -> str:
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return str(path)
