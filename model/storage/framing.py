"""What a serial link's frames leave for data: the share of its encoded rate that carries payload.

Every frame of a serial link carries at most a fixed payload behind a fixed header, so a stream
of large transfers moves ``payload / (payload + overhead)`` of the link's encoded rate
(``parts.Bus.peak_MBps``, after 8b/10b or 128b/130b):

- PCI Express: a memory write or read completion carries at most Max_Payload_Size bytes (the
  platform's setting, 128 to 4,096 B; ``lspci -vv`` shows it under DevCtl) behind 24 B: framing
  (STP and END, or Gen 3's STP token), sequence number, a 4-dword header (64-bit addresses) and the
  LCRC (Intel, AN 829 and AN 855, 'Protocol Overhead': 5 to 7 dwords a TLP, 0 to 1,024 dwords of
  payload). Flow-control and acknowledgement packets travel the other way and are left out.
- SAS: an SSP data frame carries at most 1,024 B behind SOF, a 24 B frame header, the CRC and EOF
  (36 B; SAS-2, ISO/IEC 14776-152, 'SSP frame format').
- SATA: a Data FIS carries at most 8,192 B behind SOF, its type dword, the CRC and EOF (16 B), and
  the link sends two ALIGN primitives every 256 dwords (Serial ATA revision 3.0, 'Data FIS' and
  'ALIGN primitive').

The result bounds a SATA link at 594 MB/s of its 600 and a SAS 12 Gb/s lane at 1,159 of 1,200,
above the flash drives' datasheet rates behind them (the Samsung 870 EVO's 560 MB/s; PCWorld
measured 562 MB/s), and a PCIe 2.0 lane at 421 MB/s of its 500 with 128 B payloads.
"""

from __future__ import annotations

from ..parts import Bus

TLP_OVERHEAD_B = 24  # PCI Express: framing 2-4 B, sequence 2 B, 4-dword header, LCRC 4 B
SAS_FRAME = (1024, 36)  # SSP data frame: payload, SOF + header + CRC + EOF
SATA_FIS = (8192, 16)  # Data FIS: payload, SOF + FIS type + CRC + EOF
SATA_ALIGN_SHARE = 256 / 258  # two ALIGN dwords every 256 dwords


def payload_share(bus: Bus, pcie_max_payload_B: int) -> float:
    """The share of ``bus``'s encoded rate that carries data; a parallel bus or channel: 1."""
    if bus.protocol == "pcie":
        return pcie_max_payload_B / (pcie_max_payload_B + TLP_OVERHEAD_B)
    if bus.protocol == "sas":
        payload, overhead = SAS_FRAME
        return payload / (payload + overhead)
    if bus.protocol == "sata":
        payload, overhead = SATA_FIS
        return payload / (payload + overhead) * SATA_ALIGN_SHARE
    return 1.0


def sustained_Bps(bus: Bus, pcie_max_payload_B: int, bus_efficiency: float) -> float:
    """What ``bus`` carries of data, bytes per second: a serial link the payload its frames leave
    of its encoded rate, a parallel bus or drive channel its peak times ``bus_efficiency`` (the
    share its DMA bursts sustain after arbitration and turnaround, the storage path's fitted
    parameter)."""
    if bus.kind == "serial":
        return bus.peak_MBps * 1e6 * payload_share(bus, pcie_max_payload_B)
    return bus.peak_MBps * 1e6 * bus_efficiency
