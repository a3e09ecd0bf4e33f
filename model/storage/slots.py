"""The host's slots: a storage scenario's top-level bus segments must be ones its host has.

A scenario declares the segments its controllers and NVMe drives use (``buses``); a segment that
hangs from no other (no ``via``) is one of the host's own: a PCI or PCI-X bus, a hub link, or a
PCI Express slot. Where the catalog describes the host's buses (``hosts.yaml``, ``buses``), each
such segment must be of a kind one of them holds: a PCI Express segment a slot of no older
generation and no fewer lanes (a card's link trains to what both ends share, so a PCIe 2.0 x8
HBA's segment fits a PCIe 3.0 x16 slot, and a PCIe 4.0 segment fits no PCIe 3.0 slot: PCI Express
Base Specification, 4.2, Link Initialization and Training); a PCI or PCI-X segment a bus as wide
and as fast (a 32-bit 33 MHz card runs in a 64-bit 66 MHz slot: PCI Local Bus Specification 2.2,
64-bit extension; PCI-X 1.0, a PCI card in a PCI-X slot); a hub link the host's hub link. Without
this check a scenario of PCIe 4.0 segments moved to a PCIe 3.0 host by ``--set host=...`` ran at
4.0. A segment of NVMe bays takes no slot: a server's front NVMe bays are cabled to connectors on
its board that its list of riser slots does not count; a segment holding a controller card takes
one, and the host's NIC cards the fastest left (``card_slots``, ``check_card_slots``). The drives
inside the host fit its bays (``check_bays``). A host whose buses the
catalog does not describe, or lists only in part (``buses_complete: false``), is not checked at
all: its segments are taken as declared. Drive
channels (an onboard SCSI or ATA channel) are not slots and are not checked.

A controller's own host interface must fit the segment it sits in (``check_cards``): a PCI Express
card fits no PCI, PCI-X or hub-link segment, nor a PCI, PCI-X or hub-link card a PCI Express one (a
PCIe card's edge has no parallel bus's pins; PCI Express Card Electromechanical Specification),
while a parallel card fits a parallel segment as the standards let it (a PCI card in a PCI-X
segment, a 64-bit card in a 32-bit one: ``model.storage.buses`` runs the segment at the slowest
card's clock), and an I/O hub's own controller (on a point-to-point hub link: the ICH's SATA and
IDE) only its hub link, nor a PCI card the link itself. An I/O processor that bridges its PCI
Express host side to a PCI-X segment of its own (the catalog's ``bridged_bus``: the IOP332) may sit
on a segment of that kind, which stands for the one below its bridge. Without this check a PCIe 4.0
HBA in a 64-bit 66 MHz PCI segment predicted at the PCI rate. A controller whose host interface is
neither (an external array's SAS port, whose segment is the HBA link it hangs from) is not checked.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from ..catalog import Catalog
from ..errors import UserError
from ..nic_links import card_links, check_nic_slots, link_words, nic_cards
from ..parts import Bus, Controller, Host, Slot, pcie_trained
from .spec import NVME, StorageBody


def fits(segment: Bus, slot: Bus) -> bool:
    """Whether a segment of ``segment``'s kind runs in a slot of ``slot``'s."""
    if segment.protocol == "pcie" or slot.protocol == "pcie":
        return (
            segment.protocol == slot.protocol == "pcie"
            and segment.lane_rate_Gbps <= slot.lane_rate_Gbps
            and segment.lanes <= slot.lanes
        )
    if segment.kind != "parallel" or slot.kind != "parallel":
        return False
    return (
        segment.multidrop == slot.multidrop
        and segment.width_bits <= slot.width_bits
        and segment.peak_MBps <= slot.peak_MBps * (1 + 1e-9)
    )


def is_slot(bus: Bus) -> bool:
    """A bus a host holds segments of: PCI Express, or a parallel bus (PCI, PCI-X, a hub link)."""
    return bus.protocol == "pcie" or bus.kind == "parallel"


def _unfitted_segments(body: StorageBody, catalog: Catalog, where: str) -> list[tuple[str, str]]:
    """The (name, bus id) of each top-level slot segment of a kind none of the host's listed buses
    is (every one where it lists none), in the scenario's order."""
    host: Host = catalog.get("hosts", body.host, where, "host")
    kinds = [
        catalog.get("buses", slot.bus, "data/hardware/hosts.yaml", f"{body.host}: buses")
        for slot in host.buses
    ]
    return [
        (name, segment.part)
        for name, segment in body.buses.items()
        if segment.via is None
        and is_slot(bus := catalog.get("buses", segment.part, where, f"buses.{name}.part"))
        and not any(fits(bus, kind) for kind in kinds)
    ]


def check_segments(body: StorageBody, catalog: Catalog, where: str) -> None:
    """Refuse, in one line, a top-level segment of a kind none of the host's described buses is."""
    host: Host = catalog.get("hosts", body.host, where, "host")
    if not host.buses or not host.buses_complete:
        return
    unfitted = _unfitted_segments(body, catalog, where)
    if unfitted:
        name, part = unfitted[0]
        held = ", ".join(f"{s.count} x {s.bus}" for s in host.buses)
        raise UserError(
            where,
            f"buses.{name}.part",
            f"a {part} segment fits none of the host {body.host}'s buses ({held}): "
            "declare one the host has, or a slower, narrower link that trains in one",
        )


def trusted_segments_note(body: StorageBody, catalog: Catalog, where: str) -> str | None:
    """A result's note naming the top-level slot segments (PCI, PCI-X, hub link, PCI Express) taken
    on trust: every one where the host's catalog entry lists no buses, those of a kind none of its
    listed buses is where it lists them only in part (``buses_complete: false``); None where every
    segment was checked."""
    host: Host = catalog.get("hosts", body.host, where, "host")
    if host.buses and host.buses_complete:
        return None
    trusted = [name for name, _ in _unfitted_segments(body, catalog, where)]
    if not trusted:
        return None
    listed = "lists no buses" if not host.buses else "lists its buses only in part"
    return (
        f"{body.host}: its catalog entry {listed}, so the bus segment(s) {', '.join(trusted)} are "
        "taken as declared, not checked against its slots"
    )


def check_lanes(body: StorageBody, catalog: Catalog, where: str) -> None:
    """Refuse, in one line, more PCI Express lanes than the host's processors provide: its
    top-level PCI Express segments (slots, and the lanes its board cables to NVMe bays, which no
    slot list counts) and its PCI Express NIC cards together take at most its sockets' lanes less
    what a multi-socket board gives the links between them (``Cpu.socket_link_lanes``). A host
    that names no processor with published lanes is not checked; a segment behind a switch or a
    chipset shares its upstream link and takes none of its own."""
    host: Host = catalog.get("hosts", body.host, where, "host")
    if host.cpu is None:
        return
    cpu = catalog.get("cpus", host.cpu, "data/hardware/hosts.yaml", f"{body.host}: cpu")
    if cpu.pcie_lanes is None:
        return
    links = cpu.socket_link_lanes if host.cpus > 1 else 0
    provided = host.cpus * (cpu.pcie_lanes - links)
    taken = []
    for name, segment in body.buses.items():
        bus = catalog.get("buses", segment.part, where, f"buses.{name}.part")
        if segment.via is None and bus.protocol == "pcie":
            taken.append((f"buses.{name}", bus.lanes))
    segments = [what for what, _ in taken]
    for nic_id in dict.fromkeys(host.nics):
        nic = catalog.get("nics", nic_id, "data/hardware/hosts.yaml", f"{body.host}: nics")
        card = catalog.get("buses", nic.host_bus, "data/hardware/nics.yaml", nic_id)
        if card.protocol == "pcie":
            cards = nic_cards(nic, host.nics.count(nic_id))
            taken.append((f"{cards} x {nic_id}", cards * card.lanes))
    used = sum(lanes for _, lanes in taken)
    if used > provided:
        sockets = f"{host.cpus} x {cpu.pcie_lanes}" + (
            f" less {links} a socket's link" if links else ""
        )
        raise UserError(
            where,
            "buses",
            f"the PCI Express segments and NIC cards take {used:,} lanes ("
            + ", ".join(f"{what} {lanes}" for what, lanes in taken)
            + f"), more than the {provided:,} the host {body.host}'s processors provide "
            f"({sockets}, {cpu.name.split(' (')[0]})",
            # the segments counted and the host (its NICs, its processors): the one changed last
            # is named, a segment added by --set as that --set (``Scenario.relocated``)
            related=(*segments, "host"),
        )


# what a card of each family fits, for check_cards' messages
_PARALLEL = "PCI, PCI-X or hub-link"


def check_cards(body: StorageBody, catalog: Catalog, where: str) -> None:
    """Refuse, in one line, a controller whose own host interface does not fit its segment: a PCI
    Express card on a parallel segment (PCI, PCI-X, a hub link) unless it bridges to one of that
    kind (``Controller.bridged_bus``), or a parallel card on a PCI Express segment. The parts are
    known to exist (``model.storage.simulation.check_parts``)."""
    segments = {
        n: catalog.get("buses", s.part, where, f"buses.{n}.part") for n, s in body.buses.items()
    }
    for name, slot in body.controllers.items():
        ctrl: Controller = catalog.get("controllers", slot.part, where, f"controllers.{name}.part")
        own = catalog.get("buses", ctrl.host_bus, where, f"controllers.{name}.part")
        seg = segments[slot.bus]
        if own.protocol == "pcie" and seg.kind == "parallel":
            card, slots = "a PCI Express card", f"a {_PARALLEL} slot"
            fitting = [n for n, bus in segments.items() if bus.protocol == "pcie"]
            allowed = "a PCI Express segment"
            if ctrl.bridged_bus is not None:  # or one of the kind of the segment below its bridge
                bridged = catalog.get("buses", ctrl.bridged_bus, where, f"controllers.{name}.part")
                if fits(seg, bridged):
                    continue
                fitting += [n for n, bus in segments.items() if fits(bus, bridged)]
                allowed += f", or one of the {ctrl.bridged_bus} kind its bridge drives"
        elif own.kind == "parallel" and seg.protocol == "pcie":
            card, slots = f"a {_PARALLEL} card", "a PCI Express slot"
            fitting = [n for n, bus in segments.items() if bus.kind == "parallel"]
            allowed = f"a {_PARALLEL} segment"
        elif own.kind == "parallel" and own.multidrop != seg.multidrop:
            # a controller on a point-to-point hub link is the I/O hub's own (the ICH's SATA and
            # IDE): it sits on that link, not on a PCI or PCI-X bus, nor a PCI card on a hub link
            hub = not own.multidrop
            card = "an I/O hub's own controller" if hub else "a PCI or PCI-X card"
            slots = "a PCI or PCI-X bus" if hub else "a hub link"
            fitting = [
                n
                for n, bus in segments.items()
                if bus.kind == "parallel" and bus.multidrop == own.multidrop
            ]
            allowed = "a hub-link segment" if hub else "a PCI or PCI-X segment"
        else:
            continue
        declared = (
            f"this scenario's: {', '.join(fitting)}" if fitting else "this scenario declares none"
        )
        raise UserError(
            where,
            f"controllers.{name}.bus",
            f"{slot.part}'s host interface is {link_words(own)} and its segment {slot.bus} is "
            f"{link_words(seg)} ({body.buses[slot.bus].part}): {card} does not fit {slots}; "
            f"allowed: {allowed} ({declared})",
            related=(f"controllers.{name}.part", f"buses.{slot.bus}.part"),
        )


def check_one_card_a_segment(body: StorageBody, catalog: Catalog, where: str) -> None:
    """Refuse, in one line, two cards in one PCI Express segment: a PCI Express link runs from one
    port to one device, so a segment is one slot's link and holds one card (a controller whose own
    host interface is PCI Express, an add-in-card SSD); two HBAs declared in one x8 segment had
    shared its 7,202 MB/s where each takes a slot of its own (14,403 against some 18,550 MB/s
    for sixteen SAS-3 lanes). A card of two controllers is one catalog part (a -16i HBA)."""
    # segment: the cards in it, as the scenario names them, and the key that puts each there
    held: dict[str, list[tuple[str, str]]] = {}
    for name, slot in body.controllers.items():
        ctrl: Controller = catalog.get("controllers", slot.part, where, f"controllers.{name}.part")
        own = catalog.get("buses", ctrl.host_bus, where, f"controllers.{name}.part")
        if own.protocol == "pcie":
            card = f"controllers.{name}"
            held.setdefault(slot.bus, []).append((card, f"{card}.bus"))
    for segment, vname, i, _ in _add_in_ssds(body, catalog, where):
        card = (f"volumes.{vname}.disks[{i}]", f"volumes.{vname}.disks.attach")
        held.setdefault(segment, []).append(card)
    for segment, cards in held.items():
        part = body.buses[segment].part
        if catalog.get("buses", part, where, f"buses.{segment}.part").protocol != "pcie":
            continue
        if len(cards) > 1:
            (first, _), (second, key) = cards[:2]
            raise UserError(
                where,
                key,
                f"{first} and {second} are both cards in buses.{segment}, a PCI Express segment "
                f"({part}): a PCI Express link holds one card, so each takes a segment of its "
                f"own (buses.NAME: {{part: {part}}}), the slot it sits in",
                related=tuple(k for _, k in cards),
            )


def _card_segments(body: StorageBody, catalog: Catalog, where: str) -> list[tuple[str, Bus]]:
    """The scenario's top-level PCI Express segments that hold an add-in card, in its order, each
    with the link the card trains to there (``parts.pcie_trained``: a PCIe 4.0 x8 HBA declared in
    a PCIe 3.0 x16 segment is a PCIe 3.0 x8 card, which an x8 slot takes): one a controller sits
    in whose own host interface is PCI Express (the catalog's ``host_bus``: an HBA or a RAID card),
    one SAS or SATA links hang from (``via``: an HBA's wires, as em_ingest declares its cards), or
    one holding an add-in-card SSD (``form_factor: add-in card``). Not counted: a segment of NVMe
    drives in bays, which is the lanes the board cables to its bays; one a PCI Express switch
    hangs from (``via`` segments of PCI Express), which a backplane holds as often as a card (the
    template nvme_server.yaml's switched bays), so it takes no slot here; the catalog's onboard
    controllers, which sit on hub links and PCI buses (the ICH's, the OSB4's, the AIC-7899). A
    chipset's own controller declared on a PCI Express segment (ext_870_evo's AHCI ports) is
    counted as a card: the catalog does not mark a controller onboard."""
    seated: dict[str, Bus] = {}  # segment: its card's own host interface
    for name, slot in body.controllers.items():
        ctrl: Controller = catalog.get("controllers", slot.part, where, f"controllers.{name}.part")
        own = catalog.get("buses", ctrl.host_bus, where, f"controllers.{name}.part")
        if own.protocol == "pcie":
            seated[slot.bus] = own
    ssds = {segment: own for segment, _, _, own in _add_in_ssds(body, catalog, where)}
    for segment, own in ssds.items():
        seated.setdefault(segment, own)
    wired = set()  # segments SAS or SATA links hang from: an HBA's
    for name, segment in body.buses.items():
        child = catalog.get("buses", segment.part, where, f"buses.{name}.part")
        if segment.via is not None and child.protocol != "pcie":
            wired.add(segment.via)
    cards = []
    for name, segment in body.buses.items():
        bus = catalog.get("buses", segment.part, where, f"buses.{name}.part")
        if segment.via is None and bus.protocol == "pcie" and (name in seated or name in wired):
            cards.append((name, pcie_trained(seated[name], bus) if name in seated else bus))
    return cards


def _add_in_ssds(
    body: StorageBody, catalog: Catalog, where: str
) -> Iterator[tuple[str, str, int, Bus]]:
    """Each add-in-card SSD (``form_factor: add-in card``): the segment it sits in, its volume and
    its place among the volume's drives, and its own host interface: the card sits in a slot of
    the host's."""
    for vname, volume in body.volumes.items():
        if _form_factor(catalog, volume.disks.part) != "add-in card":
            continue
        drive = catalog.parts["ssds"][volume.disks.part]
        own = catalog.get("buses", drive.host_bus, where, f"volumes.{vname}.disks.part")
        for i, point in enumerate(volume.disks.attach[: volume.disks.count]):
            holder, _, rest = point.partition(".")
            if holder == NVME:
                yield rest.partition(".")[0], vname, i, own


def card_slots(body: StorageBody, catalog: Catalog, where: str) -> dict[str, str]:
    """The host's PCI Express slot (a bus id of its ``buses``) each of the scenario's controller
    cards takes (``_card_segments``): the widest cards first, each the narrowest free slot that
    fits it, so that the host's NIC cards keep the fastest slots left (``nic_catalog``). Empty where
    the host's buses are not listed in full (``buses_complete: false``), or not at all; a card
    that finds no free slot is refused in one line."""
    host: Host = catalog.get("hosts", body.host, where, "host")
    if not host.buses or not host.buses_complete:
        return {}
    listed = "data/hardware/hosts.yaml"
    free = [
        (entry.bus, catalog.get("buses", entry.bus, listed, f"{body.host}: buses"))
        for entry in host.buses
        for _ in range(entry.count)
    ]
    free.sort(key=lambda slot: slot[1].peak_MBps)
    cards = sorted(
        _card_segments(body, catalog, where), key=lambda card: card[1].peak_MBps, reverse=True
    )
    taken: dict[str, str] = {}
    for name, bus in cards:
        slot = next((slot for slot in free if fits(bus, slot[1])), None)
        if slot is None:
            listed = ", ".join(f"{e.count} x {e.bus}" for e in host.buses)
            raise UserError(
                where,
                f"buses.{name}.part",
                f"the controller cards' segments {', '.join(n for n, _ in cards)} need "
                f"{len(cards)} PCI Express slots, and the host {body.host} has no free one that "
                f"takes a {link_words(bus)} card for {name} ({listed}): remove a card, or choose a "
                "host with more slots",
                related=(*(f"buses.{n}" for n, _ in cards), "host"),
            )
        free.remove(slot)
        taken[name] = slot[0]
    return taken


def _slots_left(host: Host, taken: list[str]) -> tuple[Slot, ...]:
    """The entries of ``host``'s buses less one slot for each bus id in ``taken``."""
    left = []
    for entry in host.buses:
        count = entry.count - taken.count(entry.bus)
        if count > 0:
            left.append(replace(entry, count=count))
    return tuple(left)


def nic_catalog(body: StorageBody, catalog: Catalog, where: str, taken: dict[str, str]) -> Catalog:
    """``catalog`` with the scenario's host listing the slots its controller cards leave (``taken``,
    ``card_slots``): the one the storage host's NICs are placed with (``nic_links.card_links``
    gives them the fastest of those), so that a NIC whose x16 slots the HBAs hold trains at x8."""
    if not taken:
        return catalog
    host: Host = catalog.get("hosts", body.host, where, "host")
    left = replace(host, buses=_slots_left(host, list(taken.values())))
    parts = {**catalog.parts, "hosts": {**catalog.parts["hosts"], body.host: left}}
    return replace(catalog, parts=parts)


def check_card_slots(body: StorageBody, catalog: Catalog, where: str) -> None:
    """Refuse, in one line, controller cards and the host's PCI Express NIC cards together past the
    host's PCI Express slots (``card_slots``, ``nic_links.check_nic_cards``): a host of four slots
    took two HBAs and three NIC cards. Hosts whose buses are not listed in full are not counted."""
    taken = card_slots(body, catalog, where)
    if not taken:
        return
    host: Host = catalog.get("hosts", body.host, where, "host")
    related = tuple(f"buses.{name}" for name in taken)
    check_nic_slots(catalog, host, where, "host", related=related, held=tuple(taken))


def held_slots_note(
    body: StorageBody,
    catalog: Catalog,
    placed: Catalog,
    where: str,
    taken: dict[str, str],
    nic_ports: tuple[str, int] | None = None,
    whose: str = "the controller cards",
) -> str | None:
    """A result's note where the scenario's controller cards (``whose``; the slots they take,
    ``taken``: ``card_slots``) hold slots the host's NIC cards would otherwise have taken
    (``placed``: ``catalog`` as ``nic_catalog`` leaves the host's slots): which segments hold which
    slots; the NIC's own note (``nic_links.nic_bus_note``) says where its link then binds. The NICs
    are the host's own, or (``nic_ports``) that many ports of that NIC (a transfer's circuits).
    None where no NIC card moves."""
    host: Host = catalog.get("hosts", body.host, where, "host")
    nic_id, ports = nic_ports or ((host.nics[0], len(host.nics)) if host.nics else (None, 0))
    if nic_id is None:
        return None
    nic = catalog.get("nics", nic_id, "data/hardware/hosts.yaml", f"{body.host}: nics")
    cards = nic_cards(nic, ports)
    before = card_links(catalog, nic.host_bus, body.host, cards, nic.form_factor)
    after = card_links(placed, nic.host_bus, body.host, cards, nic.form_factor)
    if before == after:
        return None
    held = ", ".join(f"buses.{n} in a {slot}" for n, slot in taken.items())
    return (
        f"{nic_id}: {whose} hold {body.host}'s slots ({held}), so its "
        f"{'cards take' if cards > 1 else 'card takes'} the fastest left: "
        + ", ".join(link_words(link) for link in after)
    )


def check_bays(body: StorageBody, catalog: Catalog, where: str) -> None:
    """Refuse, in one line, more drives in the host's bays than it has (hosts.yaml
    ``drive_bays``), or more NVMe drives in them than its NVMe-cabled bays (``nvme_bays``):
    twenty-four U.2 drives in a host of ten bays were predicted. In its bays are the drives
    ``_in_host`` places there (on its controllers' internal ports, behind a bare expander) and
    its NVMe drives on its own lanes (``nvme.SEGMENT.N``) but those whose form factor is no bay's
    (``_off_bays``: an M.2 drive on the board, an add-in card in a slot); a JBOD's drives are
    counted against its own bays (``model.storage.attachment``). Only the drives a volume uses
    count (``disks.count`` of its attach points). A host whose bays the catalog does not describe
    is not checked; one whose figure is an estimate (its source says so) is refused all the same,
    and the message says it is one."""
    host: Host = catalog.get("hosts", body.host, where, "host")
    if host.drive_bays is None:
        return
    inside, nvme = [], []  # the attach key of each drive in the host's bays, of each NVMe one
    for vname, volume in body.volumes.items():
        if _off_bays(catalog, volume.disks.part):
            continue
        for i, point in enumerate(volume.disks.attach[: volume.disks.count]):
            at = f"volumes.{vname}.disks.attach[{i}]"
            holder = point.partition(".")[0]
            if holder == NVME:
                nvme.append(at)
            if holder == NVME or _in_host(body, catalog, where, holder):
                inside.append(at)
    checked = [(inside, host.drive_bays, "drives in the bays of", "drive_bays")]
    if host.nvme_bays is not None:  # unset, every bay is NVMe-cabled: the count above holds
        checked.insert(0, (nvme, host.nvme_bays, "NVMe drives in the bays of", "nvme_bays"))
    for held, bays, words, key in checked:
        if len(held) > bays:
            estimate = str(host.sources.get(key, "")).startswith("estimated")
            raise UserError(
                where,
                held[bays],
                f"the scenario puts {len(held)} {words} the host {body.host}, which has {bays} "
                f"such bays (its {key}{', an estimate' if estimate else ''}): at most {bays}; put "
                f"the rest in a shelf (shelves:), choose a host with more bays, or give yours its "
                f"chassis's (a parts file's host with like: {body.host} and {key}, sourced)",
                related=("host",),
            )


def _off_bays(catalog: Catalog, part: str) -> bool:
    """Whether drives of ``part`` take no drive bay: its form factor an M.2 module, which sits on
    the board or a riser, or an add-in card, which takes a PCI Express slot (``_card_segments``);
    a drive whose form factor the catalog does not give takes a bay."""
    return _form_factor(catalog, part) in ("m.2", "add-in card")


def _form_factor(catalog: Catalog, part: str) -> str | None:
    """The form factor of the drive ``part`` (``Ssd.form_factor``); None for a hard disk, which
    the catalog gives none, or an SSD whose catalog entry does not."""
    drive = catalog.parts["ssds"].get(part)
    return None if drive is None else drive.form_factor


def _in_host(body: StorageBody, catalog: Catalog, where: str, holder: str) -> bool:
    """Whether the drives attached to ``holder`` sit in the host's bays: those on the channels of a
    controller in the host (its own host interface a PCI Express or parallel bus) whose drive
    ports are internal (an HBA with external ports cables its drives to an enclosure of their
    own, as an external array's controller, whose host interface is its SAS or SCSI port, holds
    them in its own), and those behind a bare expander (``expanders``: a card or backplane in the
    host, the AEC-82885T powered from its PCIe edge); not a JBOD's (``enclosures``), which are its
    own bays'."""
    if holder in body.shelves:
        return body.shelves[holder].part in catalog.parts["expanders"]
    if holder not in body.controllers:
        return False
    part = body.controllers[holder].part
    ctrl: Controller = catalog.get("controllers", part, where, f"controllers.{holder}.part")
    own = catalog.get("buses", ctrl.host_bus, where, f"controllers.{holder}.part")
    return is_slot(own) and ctrl.drive_ports == "internal"
