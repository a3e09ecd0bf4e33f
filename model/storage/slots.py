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
4.0. How many segments a host holds is not checked: a server's front NVMe bays are cabled to
connectors on its board that its list of riser slots does not count. A host whose buses the
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

from ..catalog import Catalog
from ..errors import UserError
from ..nic_links import link_words, nic_cards
from ..parts import Bus, Controller, Host
from .spec import StorageBody


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
