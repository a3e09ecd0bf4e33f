"""Scenarios for the flash, random-request and ZFS tests: a many-core server of the quote parts, and
a volume of catalog or quote drives on its bus segments, controllers or NVMe lanes."""

from quote_parts import PARTS

# a 32-core server whose cores copy fast enough that the drives, not the CPU, set the pace
BIG_HOST = {
    **PARTS["hosts"]["quote_server"],
    "name": "A 32-core server",
    "cores_per_cpu": 32,
    "copy_rate_MBps": 20000,
    # risers of PCIe 4.0 x16 beside the quote's PCIe 3.0 x8 slots (model.storage.slots)
    "buses": [{"bus": "pcie4_x16", "count": 2}, {"bus": "pcie3_x8", "count": 2}],
    "sources": {
        **PARTS["hosts"]["quote_server"]["sources"],
        "cores_per_cpu": "estimated: a 2020s 32-core server",
        "copy_rate_MBps": "estimated: a 2020s core's memory copy",
    },
}


def scenario(volume: dict, workload: dict, segment: str = "pcie3_x16") -> dict:
    """A storage scenario: the quote's HBA in one slot, ``segment`` (a riser) for NVMe drives."""
    return {
        "name": "today",
        "model": "storage",
        "description": "a proposed server",
        "source": "a planner's proposal",
        "parts": {**PARTS, "hosts": {**PARTS["hosts"], "big_server": BIG_HOST}},
        "host": "big_server",
        "buses": {"slot": {"part": "pcie3_x8"}, "riser": {"part": segment}},
        "controllers": {"hba": {"part": "quote_hba", "bus": "slot"}},
        "volumes": {"v": volume},
        "workload": {"target": "v", **workload},
    }


# XFS maps extents: no block map rides with the data, so the analytic bounds are the devices'
XFS = {"type": "xfs"}


def on_hba(part: str, count: int, level: str, **more) -> dict:
    return {
        "level": level,
        "disks": {"part": part, "count": count, "attach": [f"hba.{i}" for i in range(count)]},
        "filesystem": XFS,
        **more,
    }


def on_riser(part: str, count: int, level: str) -> dict:
    attach = [f"nvme.riser.{i}" for i in range(count)]
    return {
        "level": level,
        "disks": {"part": part, "count": count, "attach": attach},
        "filesystem": XFS,
    }
