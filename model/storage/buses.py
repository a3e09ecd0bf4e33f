"""A host's bus segments as flow resources: PCI, PCI-X and PCI Express segments, the switches and
chipset links they hang from, and the link a PCI Express card or drive trains to in its slot
(``model.parts.pcie_trained``).

A parallel bus runs at its datasheet peak times ``bus_efficiency`` (arbitration and turnaround), a
serial link (PCIe) at the payload its frames leave of the encoded rate (``model.storage.framing``).
A multidrop segment (PCI, PCI-X) runs at its slowest card's clock, and a card narrower than the
segment moves its own width a data phase (PCI Local Bus Specification 2.2; PCI-X Addendum 1.0). A
PCI Express link trains to the generation and lanes both its ends have (PCI Express Base
Specification, 4.2). ``bus_efficiency`` is the one fitted share, calibrated with the storage path's
other free parameters (``model.storage.parameters``) on ``atlas_disk``, ``atlas_hosts`` and the
other storage tables; the rest is the standards' arithmetic.

A PCI or PCI-X segment carries one transfer at a time, whichever way it goes; a PCI Express or SAS
link carries its rate each way at once (``full_duplex``). Where a workload moves bytes both ways (a
copy: its source's reads toward the host, its target's writes from it), such a link is a resource
each way, named for it (``bus up (reads)``, ``bus up (writes)``); otherwise it is one.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

from ..catalog import Catalog
from ..nic_links import link_words
from ..parts import Bus, Controller, pcie_trained
from ..sim.flows import FlowNetwork, FlowResource
from . import framing
from .spec import StorageBody


def full_duplex(bus: Bus) -> bool:
    """Whether ``bus`` carries its rate each way at once: a PCI Express link ("a dual-simplex
    communications channel", PCI Express Base Specification 1.0a, 1.2) or SAS lanes ("Data can
    move in both directions simultaneously across a SAS connection ... 600 MB/sec in full-duplex
    mode", Adaptec's SAS controller manual, appendix A, 'What is SAS?'). A parallel bus, a drive
    channel and a SATA link carry one way at a time (a SATA link moves one frame information
    structure at a time); each SATA or channel link serves one drive, whose bytes go one way."""
    return bus.kind == "serial" and bus.protocol in ("pcie", "sas")


def clock_words(clock_MHz: float) -> str:
    """A parallel bus's clock as the PCI specifications and the catalog's buses name it, its
    fraction dropped: 66.67 MHz is "66 MHz", 133.33 MHz "133 MHz"."""
    return f"{math.floor(clock_MHz)} MHz"


class Buses:
    """The scenario's bus segments, each a resource declared when a path first crosses it.

    ``direction``: the way the volume whose path is being built moves its bytes (``read``, toward
    the host; ``write``), set where the workload moves bytes both ways (a copy), None elsewhere."""

    def __init__(
        self,
        net: FlowNetwork,
        body: StorageBody,
        catalog: Catalog,
        params: dict[str, float],
        where: str,
    ) -> None:
        self.net, self.body, self.catalog, self.where = net, body, catalog, where
        self.efficiency = params["bus_efficiency"]
        self.declared: dict[str, FlowResource] = {}
        self.direction: str | None = None
        # for each segment whose PCIe switch link trains below it, what to tell the user
        self.switch_notes: dict[str, str] = {}
        # the resources of the segments and switch links a byte's time on is the times it crosses
        # them (``segment``, ``switch_link``: not a multidrop segment's, whose time a byte is
        # also its card's width), whose labels say how often it does (``label_crossings``)
        self.bus_links: set[FlowResource] = set()

    def resource(
        self,
        name: str,
        capacity: Callable[[], float],
        duplex: bool = False,
        unit: str = "B",
        label: str | None = None,
    ) -> FlowResource:
        """The resource ``name``, declared at ``capacity()`` ``unit`` a second the first time it is
        asked for (bytes; a processor's seconds, "core-s", for a RAID card's or raid5d's time),
        read as ``label`` (``FlowResource.label``); a link that carries each way at once
        (``duplex``: ``full_duplex``) one way's, where the workload moves bytes both ways
        (``direction``)."""
        if duplex and self.direction is not None:
            name = f"{name} ({self.direction}s)"
            label = None if label is None else f"{label} ({self.direction}s)"
        if name not in self.declared:
            self.declared[name] = self.net.resource(name, capacity(), unit, label=label)
        return self.declared[name]

    def sustained_Bps(self, bus: Bus) -> float:
        """What the bus carries: a parallel bus or drive channel its peak times
        ``bus_efficiency`` (arbitration and turnaround), a serial link the payload its frames
        leave of its encoded rate."""
        return framing.sustained_Bps(bus, self.body.pcie_max_payload_B, self.efficiency)

    def card_bus(self, cname: str) -> Bus:
        """The bus of a controller's own host interface."""
        key = f"controllers.{cname}.part"
        part = self.body.controllers[cname].part
        ctrl: Controller = self.catalog.get("controllers", part, self.where, key)
        return self.catalog.get("buses", ctrl.host_bus, self.where, key)

    def segment_bus(self, name: str) -> Bus:
        """The catalog bus of the scenario's segment ``name``."""
        return self.catalog.get(
            "buses", self.body.buses[name].part, self.where, f"buses.{name}.part"
        )

    def segment(self, name: str) -> FlowResource:
        """A bus segment, its rate reckoned once, when it is first declared, read as
        ``segment_words`` say."""
        segment = self.resource(
            f"bus {name}",
            lambda: self.segment_Bps(name),
            full_duplex(self.segment_bus(name)),
            label=self.segment_words(name),
        )
        if not self.segment_bus(name).multidrop:
            self.bus_links.add(segment)
        return segment

    def segment_words(self, name: str) -> str:
        """A segment as a planner reads it: its bus, whether others hang from it and, for a
        multidrop one, the clock its slowest card holds it to, where that is less than its own:
        "PCIe 4.0 x16 uplink up", "PCI-X 64-bit, 133 MHz segment pcix_a, held to 33 MHz by its
        slowest card"."""
        bus, running = self.segment_bus(name), self.running_bus(name)
        kind = "uplink" if any(seg.via == name for seg in self.body.buses.values()) else "segment"
        words = f"{link_words(bus)} {kind} {name}"
        if bus.multidrop and running.clock_MHz < bus.clock_MHz:
            words += f", held to {clock_words(running.clock_MHz)} by its slowest card"
        return words

    def segment_Bps(self, name: str) -> float:
        """What a segment carries (``sustained_Bps``) at the clock it runs at (``running_bus``)."""
        return self.sustained_Bps(self.running_bus(name))

    def running_bus(self, name: str) -> Bus:
        """The bus segment ``name`` runs as: a multidrop one (PCI, PCI-X) at the clock of its
        slowest card: a 33 MHz card holds a 66 MHz PCI segment at 33 MHz, and a conventional PCI
        card puts a PCI-X segment in conventional mode at that card's clock (PCI Local Bus
        Specification 2.2, the M66EN pin; PCI-X Addendum 1.0)."""
        bus = self.segment_bus(name)
        if not bus.multidrop:
            return bus
        clock_MHz = min(
            [bus.clock_MHz]
            + [
                own.clock_MHz
                for cname, slot in self.body.controllers.items()
                if slot.bus == name and (own := self.card_bus(cname)).kind == "parallel"
            ]
        )
        return replace(bus, clock_MHz=clock_MHz)

    def chain(self, name: str) -> list[str]:
        """A segment and those it hangs from (``BusSegment.via``), nearest first."""
        out = [name]
        while self.body.buses[out[-1]].via is not None:
            out.append(self.body.buses[out[-1]].via)
        return out

    def upstream(self, name: str) -> list[FlowResource]:
        """The segments ``name`` hangs from, each with the link it trains to where that is slower
        than the segment itself (``switch_link``)."""
        out = []
        for parent in self.chain(name)[1:]:
            out.append(self.segment(parent))
            link = self.switch_link(parent)
            if link is not None:
                out.append(link)
        return out

    def switch_link(self, parent: str) -> FlowResource | None:
        """A segment others hang from is a PCIe switch's uplink (or a chipset's link): it trains to
        what the switch and the slot share (``pcie_trained``), the switch as fast and as wide as
        its fastest downstream segment. A PCIe 4.0 switch in a 5.0 x8 slot runs at 4.0 x8, half
        the slot's rate. None where that is no slower than the segment."""
        bus = self.segment_bus(parent)
        below = [self.segment_bus(n) for n, seg in self.body.buses.items() if seg.via == parent]
        if bus.protocol != "pcie" or any(b.protocol != "pcie" for b in below):
            return None
        fastest = max(below, key=lambda b: b.lane_rate_Gbps)
        switch = replace(fastest, lanes=max(b.lanes for b in below))
        link = pcie_trained(switch, bus)
        if self.sustained_Bps(link) >= self.sustained_Bps(bus):
            return None
        self.switch_notes[parent] = (
            f"link {parent}: the PCIe switch in segment {parent} ({link_words(bus)}) is taken as "
            f"fast and as wide as the fastest segment below it ({link_words(switch)}), so its "
            f"link trains at {link_words(link)}; for a switch of a later generation or more lanes "
            "than the devices below it, give the segments below it the switch's ports (each "
            "device's own link still trains down to the device)"
        )
        uplink = self.resource(
            f"link {parent}",
            lambda: self.sustained_Bps(link),
            full_duplex(link),
            label=f"{link_words(link)} link of the PCIe switch in segment {parent}",
        )
        self.bus_links.add(uplink)
        return uplink

    def label_crossings(self, usage: dict[FlowResource, float], bytes_words: str) -> None:
        """Add to the label of each segment or switch link (``bus_links``) a byte of ``usage``
        crosses more than once (to three figures) how many times it does (``bytes_words``, whose
        bytes: "each byte written to data"): an md RAID10 write's two copies both cross a PCIe
        switch's uplink."""
        for res, times in usage.items():
            shown = f"{times:.3g}"
            if res in self.bus_links and float(shown) > 1:
                count = "twice" if shown == "2" else f"{shown} times"
                res.label = f"{res.label}, which {bytes_words} crosses {count}"

    def slot_costs(self, cname: str) -> dict[FlowResource, float]:
        """Segment time a byte the controller moves takes on its slot's segment
        (``segment_cost``) and on each segment that one hangs from (a PCIe switch's uplink, a
        chipset's link to the processor: one byte each)."""
        slot = self.body.controllers[cname].bus
        return {
            self.segment(slot): self.segment_cost(cname),
            **dict.fromkeys(self.upstream(slot), 1.0),
        }

    def segment_cost(self, cname: str) -> float:
        """Segment time a byte the controller moves takes, in the segment's own bytes: a 32-bit
        card on a 64-bit multidrop segment moves four bytes a data phase, not eight."""
        bus = self.segment_bus(self.body.controllers[cname].bus)
        own = self.card_bus(cname)
        if bus.multidrop and own.kind == "parallel" and own.width_bits < bus.width_bits:
            return bus.width_bits / own.width_bits
        return 1.0
