"""A host's memory bandwidth as a shared resource: every byte a path moves crosses the host's DRAM
as often as its passes read and write it, and together they take no more than the memory sustains.

A byte crosses DRAM once for each time a device or a core reads or writes it there:

- a device's DMA (a drive's, a NIC's) writes a byte read into memory, or reads a byte written out
  of it: ``DMA``, once;
- a core's copy (the page cache's copy to or from the program's buffer, the copy between a
  program's buffer and its socket) reads the byte and writes it: ``COPY``, twice;
- a pass that only reads it (ZFS's fletcher4 checksum, the parity's read of the data):
  ``READ_PASS``, once; the parity it writes crosses once for each of its own bytes.

The crossings are the passes the models already charge the CPU for, counted in bytes of memory
traffic (``model.storage.topology``: the drives' DMA, ZFS's checksums and RAIDZ parity, md's
parity; ``model.storage.stream``: the page cache's copy; ``model.network.hosts``: the socket's copy
and the NIC's DMA); a pass no model charges (md's copy of a written page into its stripe cache,
a cache line read for ownership before it is written), and two it charges the CPU but not memory
(ZFS's compression and decompression of a record, and the ARC's copy a ZFS file's direct reads
take before OpenZFS 2.3, counted as a direct read's none), are not counted: the figure is a floor.

The memory sustains its peak (the catalog's ``memory_bandwidth_MBps``) times the share of it a
STREAM run reaches on that class of platform (``sustained_share``), counted as STREAM counts, a
byte read and a byte written each once. A host whose catalog entry gives no memory bandwidth has no
memory resource: nothing bounds its paths' memory traffic.
"""

from __future__ import annotations

from .parts import Host
from .sim.flows import FlowNetwork, FlowResource

DMA = 1.0  # a device's DMA writes a byte into memory, or reads it out, once
COPY = 2.0  # a core's copy reads the byte and writes it
READ_PASS = 1.0  # a pass that only reads the byte (a checksum, the parity's read of the data)

# The share of its peak a host's memory sustains, by the class of its platform, each from a
# published STREAM run (bytes read and written, as the crossings count them):
# - processors that reach memory over a front side bus and a north bridge (a host with fsb_MHz: the
#   reports' NetBurst and Pentium III machines): SiSoft Sandra's bandwidth test, "a modified, more
#   intensive version of Stream", on Pentium 4 boards of 2001: "DDR SDRAM is realizing over half of
#   its bandwidth potential here [about 1100 MB/s on the P4X266], while the RDRAM system [the i850,
#   dual PC800] comes up shy of 50% of its 3.2GB/s theoretical peak" (TechReport, memory performance
#   of a Pentium 4 chipset review, http://techreport.com/articles.x/2843/4); one core's own reads
#   reach less, 1,175 to 1,283 MB/s of the i850's 2.98 GB/s (tecchannel, 'Review: Pentium 4 at 1,4,
#   1,5 and 1,6 GHz', tecMEM, the address below), one core's limit, not the memory's;
#   http://www.tecchannel.de/a/review-pentium-4-at-1-4-1-5-and-1-6-ghz,401568,4
# - processors that hold their memory controllers (a host without a front side bus: the DDR5 EPYC
#   9004 and Xeon of data/hardware/cpus.yaml): Micron's STREAM run on one 4th Gen AMD EPYC socket
#   with twelve channels of DDR5-4800, 378 GB/s a socket, of its 12 x 4800 x 8 B = 460.8 GB/s peak
#   (Micron Technology, 'Micron DDR5 Memory Now Available for 4th Gen AMD EPYC Processors',
#   GlobeNewswire, 10 November 2022, the first address below; its figures, which the English text
#   read here stops before, as CTimes reports the release, the second: 378 GB/s a socket, against
#   189 GB/s on a 3rd Gen EPYC with DDR4-3200, 92 % of that socket's 204.8 GB/s). The DDR5
#   platform's share is taken, the catalog's on-die processors being DDR5 ones.
#   http://business.newportvermontdailyexpress.com/newportvermontdailyexpress/article/gnwcq-2022-11-10-micron-ddr5-memory-now-available-for-4th-gen-amd-epyc-processors  # noqa: E501
#   https://www.ctimes.com.tw/DispNews-cn.asp?k=DDR5%2FPCIe-Gen5%2FCXL-3%2FDRAM%2F%E7%BE%8E%E5%85%89%E7%A7%91%E6%8A%80&o=2211231820AR  # noqa: E501
FSB_STREAM_SHARE = 0.5
ON_DIE_STREAM_SHARE = 378.0 / 460.8


def sustained_share(host: Host) -> float:
    """The share of ``host``'s peak memory bandwidth its memory sustains: a front side bus
    host's (``fsb_MHz`` given, ``FSB_STREAM_SHARE``) or an on-die controller's
    (``ON_DIE_STREAM_SHARE``)."""
    return FSB_STREAM_SHARE if host.fsb_MHz is not None else ON_DIE_STREAM_SHARE


def sustained_Bps(host: Host) -> float | None:
    """Bytes a second ``host``'s memory sustains, read and written alike; None where its catalog
    entry gives no memory bandwidth."""
    if host.memory_bandwidth_MBps is None:
        return None
    return host.memory_bandwidth_MBps * 1e6 * sustained_share(host)


def resource(net: FlowNetwork, host: Host, label: str) -> FlowResource | None:
    """``host``'s memory as a resource named ``memory LABEL``, in bytes crossing it a second; None
    where its catalog entry gives no memory bandwidth (``sustained_Bps``)."""
    capacity = sustained_Bps(host)
    return None if capacity is None else net.resource(f"memory {label}", capacity)


def charge(
    usage: dict[FlowResource, float], memory: FlowResource | None, crossings: dict[str, float]
) -> None:
    """Add the ``crossings`` (pass -> times a byte crosses) of a byte to ``memory`` in ``usage``;
    nothing where the host has no memory resource."""
    total = sum(crossings.values())
    if memory is not None and total > 0.0:
        usage[memory] = usage.get(memory, 0.0) + total


def merged(*parts: dict[str, float]) -> dict[str, float]:
    """The crossings of several legs of a path, a pass named in more than one summed."""
    out: dict[str, float] = {}
    for part in parts:
        for name, times in part.items():
            if times:
                out[name] = out.get(name, 0.0) + times
    return out


def note(bottleneck: str, label: str, host: Host, crossings: dict[str, float]) -> tuple[str, ...]:
    """Where ``host``'s memory binds (``bottleneck``, a result's, is its resource ``memory
    LABEL``): how many times a byte crosses it, pass by pass (``crossings``), against what it
    sustains."""
    if bottleneck != f"memory {label}" or host.memory_bandwidth_MBps is None:
        return ()
    share = sustained_share(host)
    passes = ", ".join(f"{name} {times:.3g}" for name, times in crossings.items())
    return (
        f"{bottleneck} binds: each byte crosses the host's memory {sum(crossings.values()):.3g} "
        f"times ({passes}), against the {share * host.memory_bandwidth_MBps:,.0f} MB/s it "
        f"sustains ({100 * share:.0f} % of its {host.memory_bandwidth_MBps:,.0f} MB/s peak, a "
        "STREAM run's share on its class of platform)",
    )
