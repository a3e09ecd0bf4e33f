"""Storage path models: disks, channels and buses, controllers, volumes and streaming processes.

The ``storage`` model: buffered and direct (``O_DIRECT``) streams run as flows over the storage
path (``stream``); the memory-mapped queue test runs page by page (``mmap``); clients over a LAN
in front of the host (``clients``) as flows from their NICs down the same path (``front``); a ZFS
pool's ARC serves a repeated read from memory (``zfs``).
"""

from ..catalog import Catalog
from ..result import Result
from ..spec import ModelRecord, Scenario
from . import front, mmap, stream, zfs
from .parameters import PARAMETERS
from .spec import StorageBody


def simulate(scenario: Scenario, catalog: Catalog, params: dict[str, float]) -> Result:
    body = scenario.body
    if body.clients is not None:
        return front.simulate(scenario, catalog, params)
    if body.workload.io == "mmap":
        return mmap.simulate(scenario, catalog, params)
    result = stream.simulate(scenario, catalog, params)
    if body.volumes[body.workload.target].engine != "zfs":
        return result
    host = catalog.get("hosts", body.host, scenario.path, "host")
    read_s = stream.io_s_per_byte(params, host.copy_rate_MBps, "read")
    return zfs.with_arc(result, body, host, read_s)


def _not_fitted(body: StorageBody) -> str | None:
    return "a page-level simulation, about 2 s a run" if body.workload.io == "mmap" else None


MODEL = ModelRecord("storage", StorageBody, simulate, PARAMETERS, _not_fitted)
