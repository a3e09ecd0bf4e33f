"""The ``storage`` model: what a storage scenario's simulation checks first, and which of the
storage path's simulations runs it; its record, ``MODEL``.

Buffered and direct (``O_DIRECT``) streams run as flows over the storage path (``stream``); the
memory-mapped queue test runs page by page (``mmap``); clients over a LAN in front of the host
(``clients``) as flows from their NICs down the same path (``front``); a read test repeated over
data the ARC or the page cache holds is served from memory after its first pass (``rereads``).
"""

import simpy

from ..catalog import Catalog
from ..errors import NotModelled, UserError, readable
from ..parts import Controller
from ..result import Result
from ..sim.flows import FlowNetwork
from ..spec import ModelRecord, Scenario
from ..unknowns import shown
from . import attachment, front, mmap, rereads, slots, stream, topology, writecache, zfs
from .parameters import PARAMETERS
from .raid import MODELLED_LEVELS, UNMODELLED_LEVELS
from .spec import CACHE_BLOCK_KiB, StorageBody, Volume

# the free parameters a controller's driver_cost may name: a driver path's host CPU a byte written
DRIVER_COSTS = tuple(p.name for p in PARAMETERS if p.unit == "ns/B")


def simulate(scenario: Scenario, catalog: Catalog, params: dict[str, float]) -> Result:
    body = scenario.body
    check_parts(body, catalog, scenario.path)
    host = catalog.get("hosts", body.host, scenario.path, "host")
    if body.clients is not None:
        rereads.check_front(body, host)
        return front.simulate(scenario, catalog, params)
    if body.workload.io == "mmap":
        return mmap.simulate(scenario, catalog, params)
    again = rereads.served_again(body, host)
    if again:
        rereads.check_compressed(body)
    result = stream.simulate(scenario, catalog, params)
    if not again:
        return result
    read_s = stream.io_s_per_byte(params, host.copy_rate_MBps, "read")
    return rereads.with_cache(result, body, host, read_s)


def check_parts(body: StorageBody, catalog: Catalog, where: str) -> None:
    """Every part the scenario names is in the catalog, the ones this workload leaves idle too: a
    misspelt spare would otherwise pass unseen, and an override of it read as applied. A pool's
    ARC fits in the host it names (``zfs.check_arc``), its top-level bus segments in the host's
    slots (``slots.check_segments``) and their lanes in its processors' (``slots.check_lanes``),
    each controller's host interface in its segment (``slots.check_cards``), one card a PCI Express
    segment (``slots.check_one_card_a_segment``), its controller cards and NIC cards in its slots
    (``slots.check_card_slots``) and its drives in its bays (``slots.check_bays``), and each drive
    plugs into what its channel or bay takes, each shelf's uplink into SAS ports
    (``attachment.check_interfaces``)."""
    zfs.check_arc(body, catalog.get("hosts", body.host, where, "host"), where)
    slots.check_segments(body, catalog, where)
    slots.check_lanes(body, catalog, where)
    for name, segment in body.buses.items():
        catalog.get("buses", segment.part, where, f"buses.{name}.part")
    for name, slot in body.controllers.items():
        catalog.get("controllers", slot.part, where, f"controllers.{name}.part")
        if slot.driver_cost is not None and slot.driver_cost not in DRIVER_COSTS:
            # any parameter was read as ns a byte, and a misspelt one passed where no write
            # crossed the card (the code review)
            raise UserError(
                where,
                f"controllers.{name}.driver_cost",
                "must name a free parameter of a driver's host CPU a byte written (ns/B); "
                f"allowed: {', '.join(DRIVER_COSTS)}; got {slot.driver_cost!r}",
            )
    for name, shelf in body.shelves.items():
        catalog.get_one_of(("enclosures", "expanders"), shelf.part, where, f"shelves.{name}.part")
    for name, volume in body.volumes.items():
        catalog.get_one_of(
            ("disks", "ssds"), volume.disks.part, where, f"volumes.{name}.disks.part"
        )
    slots.check_cards(body, catalog, where)
    slots.check_one_card_a_segment(body, catalog, where)
    slots.check_card_slots(body, catalog, where)
    slots.check_bays(body, catalog, where)
    attachment.check_interfaces(body, catalog, where)
    _check_raid_settings(body, where)
    _check_cards(body, catalog, where)


# a RAID card's own settings, with their defaults: each means something only where the card heads
# a volume (engine: controller), and was accepted and ignored elsewhere (the code review: a plain
# IDE card's write_back=true moved nothing)
RAID_SETTINGS = {"write_back": False, "mirror_reads": "balanced", "processor_MHz": None}


# the card settings the model reads off a volume's first card alone (``writecache``, a mirror's
# reads): the cards of one volume must agree on them
ONE_CARD_SETTINGS = ("write_back", "mirror_reads")


def _check_raid_settings(body: StorageBody, where: str) -> None:
    heading: set[str] = set()
    for vname, volume in body.volumes.items():
        if volume.engine != "controller":
            continue
        cards = writecache.heads(body, volume)
        heading.update(cards)
        for other in cards[1:]:
            for key in ONE_CARD_SETTINGS:
                first = getattr(body.controllers[cards[0]], key)
                if getattr(body.controllers[other], key) != first:
                    raise UserError(  # a second card's own had been accepted and ignored
                        where,
                        f"controllers.{other}.{key}",
                        f"volume {vname} takes its cards' {key} from {cards[0]}, its first "
                        f"group's ({shown(first)}): set it alike on {', '.join(cards)}",
                    )
    for name, slot in body.controllers.items():
        for key, default in RAID_SETTINGS.items():
            if name not in heading and getattr(slot, key) != default:
                raise UserError(
                    where,
                    f"controllers.{name}.{key}",
                    "only for a controller whose RAID heads a volume (engine: controller); no "
                    f"volume here is {name}'s: remove the key, or --set controllers.{name}.{key}="
                    "null",
                )


def _check_cards(body: StorageBody, catalog: Catalog, where: str) -> None:
    """What each card that heads a volume (engine: controller) must offer it: a RAID level its
    datasheet lists (the catalog's ``raid_levels``; an empty list is a card whose levels no source
    gives, and is not checked; one drive alone is its jbod or a one-drive raid0), and a cache block
    its manual lists where the volume keeps them (``_check_cache_block``). Checked with the parts,
    before any card's clock is looked up. A level the card lists that the lab does not simulate
    (``raid.UNMODELLED_LEVELS``: the MD3260's ddp, a MegaRAID's raid50) is not modelled yet, told
    once the volume's other settings have passed, where the workload moves its bytes (an idle
    volume's level costs nothing to simulate)."""
    used = (body.workload.target, body.workload.source)
    for vname, volume in body.volumes.items():
        if volume.engine != "controller":
            continue
        for cname in writecache.heads(body, volume):
            part = body.controllers[cname].part
            ctrl = catalog.get("controllers", part, where, f"controllers.{cname}.part")
            offered = set(ctrl.raid_levels)
            single = volume.level == "single" and offered & {"jbod", "raid0"}
            if offered and volume.level not in offered and not single:
                raise UserError(
                    where,
                    f"volumes.{vname}.level",
                    f"{part} offers {', '.join(ctrl.raid_levels)} (the catalog's raid_levels), "
                    f"not {volume.level}: choose one of those, or engine: md over the card's "
                    "drives",
                )
            _check_cache_block(volume, ctrl, where, f"volumes.{vname}.cache_block_KiB")
            if volume.level in UNMODELLED_LEVELS and vname in used:
                raise NotModelled(
                    f"a {volume.level} volume on {part} (volumes.{vname}.level, a level "
                    f"{'its catalog entry lists' if offered else 'RAID cards offer'}): the lab "
                    f"simulates {', '.join(MODELLED_LEVELS)}"
                )


def _check_cache_block(volume: Volume, ctrl: Controller, where: str, key: str) -> None:
    """A volume's cache block is one its card's manual lists (``cache_block_sizes_KiB``), and
    set only on a card that keeps them (an MD-series setting, which moved nothing on another
    card, whatever the value: the input audit found 4, the default, accepted and ignored)."""
    sizes = ctrl.cache_block_sizes_KiB
    if not sizes and volume.cache_block_KiB is not None:
        raise UserError(
            where,
            key,
            f"{ctrl.name} keeps no cache blocks (an MD-series array's setting, the catalog's "
            "cache_block_sizes_KiB): its writes cost it their drive commands; remove the key",
        )
    if sizes and volume.cache_block_used_KiB not in sizes:
        given = volume.cache_block_KiB
        raise UserError(
            where,
            key,
            f"{ctrl.name} takes cache blocks of {', '.join(f'{size:g}' for size in sizes)} KiB "
            "(the catalog's cache_block_sizes_KiB), got "
            + (
                f"{readable(given)} KiB"
                if given is not None
                else f"none, so {CACHE_BLOCK_KiB:g} KiB, an MD-series array's as shipped: set one"
            ),
        )


def _not_fitted(body: StorageBody) -> str | None:
    return "a page-level simulation, about 2 s a run" if body.workload.io == "mmap" else None


def check_attached(
    body: StorageBody, catalog: Catalog, params: dict[str, float], where: str
) -> None:
    """What a storage scenario's simulation refuses before it runs, for a grid to check before any
    point: its parts (``check_parts``) and how its drives attach (``topology.build`` on a network
    that runs nothing: a hard disk in an NVMe bay, a bay past a shelf's). A configuration no model
    covers (a card's RAID level the lab does not simulate) is left to its point."""
    net = FlowNetwork(simpy.Environment())
    try:
        check_parts(body, catalog, where)
        topology.build(net, body, catalog, params, where, body.workload.total_MB * 1e6)
    except NotModelled:
        return


MODEL = ModelRecord(
    "storage", StorageBody, simulate, PARAMETERS, _not_fitted, check_parts=check_attached
)
