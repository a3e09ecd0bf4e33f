"""How a NIC reaches its host and its wire: the link each card trains to in the host's slots
(fastest first), what that link and the line carry in the wire bytes the network models count,
the notes a result gives when a link binds or a host lists fewer of a card's ports than it has,
and the checks of a path's MTU, receive-side scaling and a host's slots.

The line rates are the catalog's NIC datasheet figures; a PCI Express link carries what its packets
leave of its encoded rate (``model.storage.framing``), a PCI or PCI-X bus its peak times the
calibrated ``bus_efficiency`` (``001_4cf980d67b39ffac.txt``, the ATLAS IDE channels and PCI buses).
Used by every model with a NIC: ``model.network``, ``model.servers`` and the storage path's LAN
clients (``model.storage.front``) and slots (``model.storage.slots``).
"""

from __future__ import annotations

from typing import Any, Protocol

from .errors import UserError
from .parts import Bus, Host, Nic, pcie_trained


class Catalog(Protocol):
    """What this module asks of ``model.catalog.Catalog`` (which imports this module to check a
    host's NIC slots as it loads): a part by its category and id."""

    def get(self, category: str, part_id: str, where: str, key: str) -> Any: ...


def _trained_links(
    catalog: Catalog, own: Bus, host_id: str | None, form_factor: str = "card"
) -> list[Bus] | None:
    """The links a card on bus ``own`` would train to in each of host ``host_id``'s slots that take
    it (``parts.pcie_trained``; a PCI card at the slower of its bus and the slot's), a slot of
    ``count`` n listed n times, fastest first: empty where none is of its kind; None where no host
    is named or its buses are not listed in full. An OCP module (``form_factor`` ocp) takes the
    host's OCP slots (``ocp_slots``) instead, and a NIC on the board none (None: its own bus)."""
    if host_id is None or form_factor == "onboard":
        return None
    host = catalog.get("hosts", host_id, "data/hardware/hosts.yaml", host_id)
    if not _described(host, form_factor):
        return None
    links = []
    for entry in host.ocp_slots if form_factor == "ocp" else host.buses:
        slot = catalog.get("buses", entry.bus, "data/hardware/hosts.yaml", f"{host_id}: buses")
        if own.protocol == slot.protocol == "pcie":
            links += [pcie_trained(own, slot)] * entry.count
        elif own.kind == slot.kind == "parallel" and own.multidrop == slot.multidrop:
            links += [slot if slot.peak_MBps < own.peak_MBps else own] * entry.count
    return sorted(links, key=lambda bus: bus.peak_MBps, reverse=True)


def _described(host: Host, form_factor: str) -> bool:
    """Whether ``host`` lists the slots a NIC of ``form_factor`` takes: for a card, its buses, every
    kind (``buses_complete``); for an OCP module, its OCP slots, or (none, then) its buses in full.
    A host whose buses a storage scenario's controller cards hold all of
    (``model.storage.slots.nic_catalog``) still has its OCP slots."""
    listed = host.buses_complete and bool(host.buses)
    return bool(host.ocp_slots) or listed if form_factor == "ocp" else listed


def card_links(
    catalog: Catalog, own_bus: str, host_id: str | None, cards: int = 1, form_factor: str = "card"
) -> list[Bus]:
    """The bus each of ``cards`` cards whose own host interface is ``own_bus`` crosses into host
    ``host_id``: the cards take the host's slots that take them fastest first, each its link
    trained there (``_trained_links``), where the catalog lists the host's buses in full (three
    100 GbE cards in a host of one PCIe 3.0 x16 slot and two x8 ones: one at x16, two at x8; each
    had run at x16). Their own bus where no host is named, the host's buses are not described or
    only in part, or none of them is of the cards' kind (NICs on the board, as a server's gigabit
    ports are). A card past the host's slots takes the slowest (``check_nic_cards`` refuses more
    PCI Express cards than slots; a parallel segment takes several). OCP modules take the host's
    OCP slots, a NIC on the board none (``form_factor``, ``_trained_links``)."""
    own = catalog.get("buses", own_bus, "data/hardware/nics.yaml", own_bus)
    links = _trained_links(catalog, own, host_id, form_factor) or [own]
    return [links[min(card, len(links) - 1)] for card in range(cards)]


# the Max_Payload_Size a NIC's PCI Express transfers carry, the platforms' common setting (a storage
# scenario's pcie_max_payload_B default)
NIC_MAX_PAYLOAD_B = 256


def card_link_Bps(
    catalog: Catalog,
    own_bus: str,
    host_id: str | None,
    *,
    mtu_B: int,
    bus_efficiency: float,
    form_factor: str = "card",
) -> float:
    """What a card's link into the host carries, in the wire bytes a second the network models
    count (``nic_rate_Bps``): a PCI Express link the payload its packets leave of its encoded rate
    (``model.storage.framing``, at ``NIC_MAX_PAYLOAD_B``: 7,202 of a PCIe 3.0 x8 link's 7,877
    MB/s), a PCI or PCI-X bus its peak times ``bus_efficiency`` (the storage path's fitted share of
    a parallel bus's peak its DMA bursts sustain); each full-sized frame crosses the link as its
    header and packet (``_wire_per_link_byte``)."""
    return card_links_Bps(
        catalog,
        own_bus,
        host_id,
        mtu_B=mtu_B,
        bus_efficiency=bus_efficiency,
        form_factor=form_factor,
    )[0]


def card_links_Bps(
    catalog: Catalog,
    own_bus: str,
    host_id: str | None,
    cards: int = 1,
    *,
    mtu_B: int,
    bus_efficiency: float,
    form_factor: str = "card",
) -> list[float]:
    """What each of ``cards`` cards' links into the host carries (``card_links``: the host's
    fastest slots first), as ``card_link_Bps`` counts it."""
    return [
        _link_data_Bps(link, bus_efficiency) * _wire_per_link_byte(mtu_B)
        for link in card_links(catalog, own_bus, host_id, cards, form_factor)
    ]


def cards_Bps(
    catalog: Catalog,
    nic: Nic,
    host_id: str | None,
    ports: int,
    *,
    mtu_B: int,
    bus_efficiency: float,
) -> list[tuple[int, float]]:
    """Each card ``ports`` ports of ``nic`` take in host ``host_id``: the ports it carries
    (``card_ports``) and what its link into the host carries (``card_links_Bps``: the host's
    fastest slots first)."""
    on_cards = card_ports(nic, ports)
    links_Bps = card_links_Bps(
        catalog,
        nic.host_bus,
        host_id,
        len(on_cards),
        mtu_B=mtu_B,
        bus_efficiency=bus_efficiency,
        form_factor=nic.form_factor,
    )
    return list(zip(on_cards, links_Bps, strict=True))


def _link_data_Bps(bus: Bus, bus_efficiency: float) -> float:
    """What ``bus`` carries of a card's frames, bytes a second (``card_link_Bps``)."""
    from .storage.framing import sustained_Bps  # the storage package imports this module

    return sustained_Bps(bus, NIC_MAX_PAYLOAD_B, bus_efficiency)


def _wire_per_link_byte(mtu_B: int) -> float:
    """Wire bytes per byte a NIC moves over its host bus: a full-sized frame crosses the bus as
    its 14 B header and its packet, and the line as those with the preamble, start delimiter, FCS
    and inter-frame gap (the NIC adds the FCS when sending and strips it when receiving, as Linux
    drivers have it by default)."""
    from .network.tcp import ETHERNET_HEADER_B, ETHERNET_OVERHEAD_B

    return (mtu_B + ETHERNET_OVERHEAD_B) / (mtu_B + ETHERNET_HEADER_B)


def nic_rate_Bps(
    catalog: Catalog,
    nic: Nic,
    host_id: str | None = None,
    *,
    mtu_B: int,
    bus_efficiency: float,
) -> float:
    """What a NIC moves each way, in wire bytes a second (frames with their framing and gap, as
    the network models charge a NIC): its line rate, or what its link into the host carries
    (``card_link_Bps``: its own host bus, trained in the host's slot) where that is less (a
    100 GbE card in a PCIe 3.0 x8 slot, a gigabit card on a 32-bit, 33 MHz PCI bus)."""
    link_Bps = card_link_Bps(
        catalog,
        nic.host_bus,
        host_id,
        mtu_B=mtu_B,
        bus_efficiency=bus_efficiency,
        form_factor=nic.form_factor,
    )
    return min(nic.rate_Gbps * 1e9 / 8.0, link_Bps)


def _slot_words(nic: Nic) -> str:
    """Where a card of ``nic``'s form factor sits in its host, as the notes say it."""
    return "OCP slot" if nic.form_factor == "ocp" else "slot"


def link_words(bus: Bus) -> str:
    """A bus as a reader names it: "PCIe 3.0 x8" for a PCI Express link, else its name."""
    if bus.protocol != "pcie":
        return bus.name
    generation = {2.5: 1, 5.0: 2, 8.0: 3, 16.0: 4, 32.0: 5, 64.0: 6}.get(bus.lane_rate_Gbps)
    return f"PCIe {generation}.0 x{bus.lanes}" if generation else bus.name


def trained_words(own: Bus, link: Bus, where: str) -> str:
    """A device's own host interface ``own`` trained down to ``link`` ``where`` it sits, as the
    notes say it: "its PCIe 5.0 x4 host interface, trained to PCIe 4.0 x4 on segment bay" (a
    NIC's, ``nic_bus_note``; an NVMe drive's, ``model.storage.topology``)."""
    return f"its {link_words(own)} host interface, trained to {link_words(link)} {where}"


def nic_bus_note(
    catalog: Catalog,
    nic_id: str,
    host_id: str | None = None,
    ports: int = 1,
    *,
    mtu_B: int,
    bus_efficiency: float,
) -> str | None:
    """A result's note when a NIC's link into its host, not its line, sets what it moves (the
    resource named after the NIC is then the link's limit), when ``ports`` of it take cards in
    slower slots than the first's that bind them (``card_links``), or when the host, its buses
    listed in full, has no slot of the NIC's kind (the NIC then taken as on its board), else
    None."""
    nic = catalog.get("nics", nic_id, "data/hardware/nics.yaml", nic_id)
    own = catalog.get("buses", nic.host_bus, "data/hardware/nics.yaml", nic.host_bus)
    links = _trained_links(catalog, own, host_id, nic.form_factor)
    bus = links[0] if links else own
    said = []
    if links == [] and nic.form_factor == "ocp":  # refused by check_nic_cards where it runs
        said.append(f"{host_id} lists no OCP slot (ocp_slots): taken at its own {link_words(own)}")
    elif links == []:  # the host's buses listed in full, none of the NIC's kind
        host = catalog.get("hosts", host_id, "data/hardware/hosts.yaml", host_id)
        held = ", ".join(f"{e.count} x {e.bus}" for e in host.buses)
        said.append(
            f"{host_id} has no slot of its {link_words(own)} kind ({held}): taken as on the board"
        )
    line_MBps = nic.rate_Gbps * 1e3 / 8.0
    link_MBps = _link_data_Bps(bus, bus_efficiency) / 1e6
    on_cards = card_ports(nic, ports)
    # the first card's ports all cross its one link (two 40 GbE ports behind a PCIe 3.0 x8 link
    # were held by it with nothing said: the network audit)
    first = on_cards[0]
    if link_MBps * _wire_per_link_byte(mtu_B) < first * line_MBps:
        link = (
            f"its host bus {nic.host_bus}"
            if link_words(bus) == link_words(own)  # a slot that trains it to its own link
            else trained_words(own, bus, f"in {host_id}'s {_slot_words(nic)}")
        )
        lines = (
            f"its {nic.rate_Gbps:g} Gbit/s line ({line_MBps:,.0f} MB/s)"
            if first == 1
            else f"the {first} ports' lines on the card ({first} x {nic.rate_Gbps:g} Gbit/s, "
            f"{first * line_MBps:,.0f} MB/s)"
        )
        said.append(
            f"{link} ({link_MBps:,.0f} MB/s of data) is slower than {lines}: the card moves at "
            "most the bus's rate"
        )
    links = card_links(catalog, nic.host_bus, host_id, len(on_cards), nic.form_factor)
    # the later cards whose slots train them below the first's and bind their ports, by link
    later = [
        link_words(link)
        for n, link in zip(on_cards[1:], links[1:], strict=True)
        if link != bus
        and _link_data_Bps(link, bus_efficiency) * _wire_per_link_byte(mtu_B) < n * line_MBps * 1e6
    ]
    if later:
        held = ", ".join(f"{later.count(w)} at {w}" for w in dict.fromkeys(later))
        said.append(
            f"its {len(on_cards)} cards take {host_id}'s fastest slots first: {held}, slower than "
            "their ports' lines, move at most their links' rates"
        )
    return f"{nic_id}: " + "; ".join(said) if said else None


def nic_notes(
    catalog: Catalog,
    *nics: tuple[str, str | None] | tuple[str, str | None, int],
    mtu_B: int,
    bus_efficiency: float,
) -> tuple[str, ...]:
    """``nic_bus_note`` of each (NIC, host it sits in or None[, ports of it there]) among ``nics``
    (once each) whose link into the host is slower than its line, whose later cards sit in slots
    that bind them, or whose host has no slot of its kind."""
    framing = {"mtu_B": mtu_B, "bus_efficiency": bus_efficiency}
    notes = [note for n in nics if (note := nic_bus_note(catalog, *n, **framing))]
    notes += [note for n in nics if (note := unknown_mtu_note(catalog, n[0], mtu_B))]
    return tuple(dict.fromkeys(notes))


def listed_ports_notes(catalog: Catalog, *listed: tuple[str, str, int]) -> tuple[str, ...]:
    """A result's note for each (host, NIC, ports carrying traffic) among ``listed`` (once each)
    whose host lists the NIC (hosts.yaml's ``nics``, a card once a port) fewer times than its
    cards have ports: a dual-port card listed once, as one card is described, was taken as one
    port with nothing said but which bond members carried the traffic (the quote audit). Not
    refused: a scenario may cable one port on purpose. Made for every model that reads a host's
    NICs (the storage path's LAN clients and the ingest's, ``model.storage.front``; the relay's
    machines, ``model.servers.relay``)."""
    notes = []
    for host_id, nic_id, carrying in listed:
        host: Host = catalog.get("hosts", host_id, "data/hardware/hosts.yaml", host_id)
        nic: Nic = catalog.get("nics", nic_id, "data/hardware/nics.yaml", nic_id)
        count = host.nics.count(nic_id)
        if count % nic.ports == 0:
            continue
        cards = nic_cards(nic, count)
        every = "both" if cards * nic.ports == 2 else f"all {cards * nic.ports}"
        notes.append(
            f"{nic_id} has {nic.ports} ports; {host_id} lists {count}, so {carrying} "
            f"{'carries' if carrying == 1 else 'carry'} traffic (list "
            f"{'the' if cards == 1 else 'each'} card once a port to use {every})"
        )
    return tuple(dict.fromkeys(notes))


# jumbo frames' most common limit: 'The payload limit for jumbo frames is variable: while 9000 bytes
# is the most commonly used limit, smaller and larger limits exist' (Wikipedia, 'Jumbo frame');
# no IEEE 802.3 standard sets one
USUAL_JUMBO_MTU_B = 9000


def unknown_mtu_note(catalog: Catalog, nic_id: str, mtu_B: int) -> str | None:
    """What to say of an MTU above ``USUAL_JUMBO_MTU_B`` on a NIC whose largest the catalog does
    not know (no ``max_mtu_B``): taken as given, not checked; None where there is nothing to say."""
    nic: Nic = catalog.get("nics", nic_id, "data/hardware/nics.yaml", nic_id)
    if mtu_B <= USUAL_JUMBO_MTU_B or nic.max_mtu_B is not None:
        return None
    return (
        f"{nic_id}: an MTU of {mtu_B:,} bytes is taken as given: the catalog has no largest MTU "
        f"for this NIC (max_mtu_B), and jumbo frames most often stop at {USUAL_JUMBO_MTU_B:,}; "
        "its driver's is maxmtu in `ip -d link show`"
    )


def pcie_slots(catalog: Catalog, host: Host, nic: Nic) -> int | None:
    """The PCI Express slots of ``host`` a PCI Express ``nic`` fits, where its buses are listed in
    full (each such slot takes one card; 0 where it has none, a NIC of its own then on its board,
    ``card_links``): its OCP slots for an OCP module; None where they cannot be counted (a NIC on a
    parallel bus, whose segments take several cards; one on the board, which takes none; a host's
    slots not all listed)."""
    own = catalog.get("buses", nic.host_bus, "data/hardware/nics.yaml", nic.host_bus)
    if own.protocol != "pcie" or nic.form_factor == "onboard":
        return None
    if not _described(host, nic.form_factor):
        return None
    if nic.form_factor == "ocp":
        return sum(entry.count for entry in host.ocp_slots)
    count = sum(
        entry.count
        for entry in host.buses
        if catalog.get("buses", entry.bus, "data/hardware/hosts.yaml", entry.bus).protocol == "pcie"
    )
    return count


def card_ports(nic: Nic, ports: int) -> list[int]:
    """The ports each card of ``ports`` ports of ``nic`` carries: consecutive ports share a card,
    ``nic.ports`` a card, the last one's as many as are left."""
    return [min(nic.ports, ports - first) for first in range(0, ports, nic.ports)]


def nic_cards(nic: Nic, ports: int) -> int:
    """The cards ``ports`` ports of ``nic`` take (``card_ports``)."""
    return len(card_ports(nic, ports))


# the largest MTU of Ethernet below a gigabit: 802.3's 1,500-byte payload; jumbo frames came with
# Gigabit Ethernet, and no 10 or 100 Mb/s NIC or link carries them
STANDARD_MTU_B = 1500


def check_mtu(
    mtu_B: int,
    catalog: Catalog,
    where: str,
    nics: dict[str, str],
    links: dict[str, str] | None = None,
) -> None:
    """The path's MTU on each NIC and link that carries it, named by the keys that give them
    (``nics``, ``links``: key -> catalog id). Fast Ethernet (under 1 Gb/s) carries no frame over
    ``STANDARD_MTU_B``; no NIC more than its driver takes (its ``max_mtu_B``, where known)."""
    carriers = {}  # key -> (id, rate in Gb/s, largest MTU or None)
    for key, nic_id in nics.items():
        nic = catalog.get("nics", nic_id, where, key)
        carriers[key] = (nic_id, nic.rate_Gbps, nic.max_mtu_B)
    for key, link_id in (links or {}).items():
        carriers[key] = (link_id, catalog.get("links", link_id, where, key).capacity_Gbps, None)
    slow = {
        key: f"{key} {name} at {rate:g} Gb/s"
        for key, (name, rate, _) in carriers.items()
        if rate < 1
    }
    if slow and mtu_B > STANDARD_MTU_B:
        raise UserError(
            where,
            "mtu_B",
            f"Ethernet under 1 Gb/s ({' and '.join(slow.values())}) has no jumbo frames: mtu_B "
            f"from 576 to {STANDARD_MTU_B:,} bytes there, got {mtu_B:,}",
            related=tuple(slow),
        )
    for key, (name, _, most_B) in carriers.items():
        if most_B is not None and mtu_B > most_B:
            raise UserError(
                where,
                "mtu_B",
                f"the {key} {name} takes an MTU of at most {most_B:,} bytes (its driver's "
                f"max_mtu): mtu_B from 576 to {most_B:,} there, got {mtu_B:,}",
                related=(key,),
            )


def check_rss(irq_affinity: str, catalog: Catalog, where: str, nics: dict[str, str]) -> None:
    """Receive-side scaling (``irq_affinity: rss``) hashes flows over a NIC's receive queues: no NIC
    the keys ``nics`` name (key -> catalog id) may have a single one (its ``rx_queues``)."""
    if irq_affinity != "rss":
        return
    for key, nic_id in nics.items():
        if catalog.get("nics", nic_id, where, key).rx_queues == 1:
            raise UserError(
                where,
                "irq_affinity",
                f"rss hashes flows over a NIC's receive queues, and the {key} {nic_id} has one "
                "(its driver's single receive ring): cpu0 or spread",
                related=(key,),
            )


def check_nic_cards(
    catalog: Catalog,
    host: Host,
    ports: dict[str, int],
    where: str,
    key: str,
    related: tuple[str, ...] = (),
    held: tuple[str, ...] = (),
) -> None:
    """The PCI Express NICs a host holds, ``ports`` of each id (``ports`` of them a card), need no
    more cards than it has PCI Express slots (``pcie_slots``) less those a storage scenario's
    controller cards hold (``held``, their segments' names: ``model.storage.slots.card_slots``):
    twelve cards in a server of seven slots were taken, each in its fastest. OCP modules count
    against the host's OCP slots instead (``ocp_slots``; a host that lists none takes none), NICs
    on the board against nothing. NICs on parallel buses, and hosts whose slots are not all listed,
    are not counted. A host of no PCI Express slot holds a PCI Express card only on its board, one
    of its own (hosts.yaml nics): another is refused (a 100 GbE card on a host of PCI-X segments
    ran as if on its board)."""
    pools: dict[str, tuple[int, int]] = {}  # form factor: cards, slots
    named: dict[str, list[str]] = {}  # form factor: the NICs' ports, in words
    for nic_id, count in ports.items():
        nic = catalog.get("nics", nic_id, where, key)
        fits = pcie_slots(catalog, host, nic)
        if nic.form_factor == "onboard" and nic_id not in host.nics:
            raise UserError(
                where,
                key,
                f"{nic_id} is a NIC on a host's board, and it is not one of those on the board "
                f"of the host ({host.name}): {', '.join(host.nics) or 'none listed'}; name one of "
                "them, or a card",
                related=related,
            )
        if fits == 0 and nic.form_factor == "ocp":
            raise UserError(
                where,
                key,
                f"{nic_id} is an OCP NIC 3.0 module, and the host ({host.name}) lists no OCP slot "
                "for it: give the host's ocp_slots (a parts file's host with like: and "
                "ocp_slots, sourced), or name the NIC's PCI Express card",
                related=related,
            )
        if fits == 0 and nic_id not in host.nics:
            listed = ", ".join(f"{e.count} x {e.bus}" for e in host.buses)
            raise UserError(
                where,
                key,
                f"{host.name} has no PCI Express slot ({listed}) for a {nic_id} card, and it is "
                f"not one of the NICs on its board ({', '.join(host.nics) or 'none listed'})",
                related=related,
            )
        if fits:
            cards, _ = pools.get(nic.form_factor, (0, fits))
            pools[nic.form_factor] = (cards + nic_cards(nic, count), fits)
            named.setdefault(nic.form_factor, []).append(f"{count} port(s) of {nic_id}")
    if "ocp" in pools and pools["ocp"][0] > pools["ocp"][1]:
        cards, slots = pools["ocp"]
        raise UserError(
            where,
            key,
            f"{', '.join(named['ocp'])} {_needs(cards)} {counted(cards, 'OCP module')}, and "
            f"the host ({host.name}) has {counted(slots, 'OCP slot')}: list fewer, or name the "
            "NICs' PCI Express cards",
            related=related,
        )
    if "card" in pools and pools["card"][0] + len(held) > pools["card"][1]:
        cards, slots = pools["card"]
        cards_held = (
            f", {len(held)} of them held by the controller cards of segments {', '.join(held)}"
            if held
            else ""
        )
        free = max(slots - len(held), 0)
        raise UserError(
            where,
            key,
            f"{', '.join(named['card'])} {_needs(cards)} {counted(cards, 'card')}, and the "
            f"host ({host.name}) has {counted(slots, 'PCI Express slot')}{cards_held}: at most "
            f"{counted(free, 'NIC card')}; list fewer, or describe a host of more slots (a parts "
            "file's host with like: and its own buses, sourced)",
            related=related,
        )


def check_placed(catalog: Catalog, nics: tuple[tuple[str, str, str, int], ...], where: str) -> None:
    """Each NIC a model names on a host (``nics``: (its key, NIC id, host id, ports of it there))
    sits where its form factor can: OCP modules in the OCP slots the host lists, where its buses
    are listed in full, no more of them than those; a NIC on the board one of the host's own
    ``nics``. Cards are not counted here (a card in a host of no slot of its kind is taken as on
    its board, and its note says so)."""
    for key, nic_id, host_id, ports in nics:
        nic = catalog.get("nics", nic_id, where, key)
        host = catalog.get("hosts", host_id, where, key)
        if nic.form_factor == "card":
            continue
        check_nic_cards(catalog, host, {nic_id: ports}, where, key)


def _needs(cards: int) -> str:
    return "need" if cards > 1 else "needs"


def counted(n: int, thing: str) -> str:
    """``n`` things, in words ("1 card", "2 cards")."""
    return f"{n} {thing}{'' if n == 1 else 's'}"


def check_nic_slots(
    catalog: Catalog,
    host: Host,
    where: str,
    key: str,
    related: tuple[str, ...] = (),
    held: tuple[str, ...] = (),
) -> None:
    """A host's own NICs fit its slots, less those a storage scenario's controller cards hold
    (``check_nic_cards``)."""
    ports = {nic_id: host.nics.count(nic_id) for nic_id in dict.fromkeys(host.nics)}
    check_nic_cards(catalog, host, ports, where, key, related=related, held=held)
