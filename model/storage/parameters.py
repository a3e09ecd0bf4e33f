"""Free parameters of the storage path (calibrated on atlas_disk, atlas_hosts and the storage tables)."""
from ..freeparameter import FreeParameter

PARAMETERS = (
    FreeParameter("disk_format_efficiency", "1", 0.65, 0.40, 0.95,
                  "share of a drive's raw internal media rate (datasheet 'buffer to disk' Mbit/s) that "
                  "reaches the host as user data, after sector headers, ECC, servo fields and zoning"),
    FreeParameter("bus_efficiency", "1", 0.90, 0.50, 1.00,
                  "share of a parallel bus's or IDE channel's peak rate that DMA bursts sustain after "
                  "arbitration, command and turnaround cycles"),
    FreeParameter("io_cycles_per_byte", "cycle/B", 8.0, 1.0, 40.0,
                  "CPU cycles one core spends per byte a process streams through the kernel's "
                  "buffered I/O path (page cache, copy to or from user space, block layer, interrupts)"),
)
