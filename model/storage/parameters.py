"""Free parameters of the storage path. Each says which measured tables inform it (those whose
predictions move with it, ``model.calibrate``); the others keep their defaults."""

from ..freeparameter import FreeParameter

PARAMETERS = (
    FreeParameter(
        "disk_format_efficiency",
        "1",
        0.64,
        0.40,
        0.95,
        "share of a drive's raw internal media rate (datasheet 'buffer to disk' Mbit/s) that "
        "reaches the host as user data, after sector headers, ECC, servo fields and zoning. "
        "Default: the outer-zone sustained rate over the maximum internal rate of two 7200 rpm "
        "drives whose makers give both, Hitachi's Deskstar 7K500 (64.8 of 102.1 MB/s) and "
        "T7K250 (67.8 of 105.4 MB/s), 0.635 and 0.643 (TechReport, 'Hitachi's Deskstar 7K500 "
        "hard drive', spec table, https://techreport.com/review/8752/hitachi-deskstar-7k500-hard-"
        "drive). Informed by atlas_disk (every drive of the catalog takes it; eah_download's "
        "request-level simulation reads it too, but calibration leaves that table out of the fit)",
    ),
    FreeParameter(
        "bus_efficiency",
        "1",
        0.90,
        0.50,
        1.00,
        "share of a parallel bus's or drive channel's peak rate that DMA bursts sustain after "
        "arbitration, command and turnaround cycles (a serial link's share is its frames': "
        "model/storage/framing.py). Informed by atlas_disk (its IDE channels and PCI buses)",
    ),
    FreeParameter(
        "io_copy_passes",
        "1",
        5.0,
        1.0,
        20.0,
        "core time a byte streamed through the kernel's buffered I/O path costs, in units of "
        "one memory-to-memory copy of that byte on the host (page cache, copy to or from user "
        "space, block layer, interrupts) when it is read; scaled by each host's copy rate. "
        "Informed by atlas_disk, atlas_hosts, atlas_wan, em_ingest, psu_copy and psu_write",
    ),
    FreeParameter(
        "io_write_extra_passes",
        "1",
        1.0,
        0.0,
        20.0,
        "core time a byte written through the buffered I/O path costs beyond one read, in "
        "copies of that byte on the host (block allocation, dirtying pages and buffers, "
        "submitting the write-back); scaled by each host's copy rate. Informed by the tables "
        "io_copy_passes is",
    ),
    FreeParameter(
        "raid_cycles_per_cache_block",
        "cycle/block",
        20000.0,
        1000.0,
        200000.0,
        "processor cycles a RAID array's controller that keeps its writes in cache blocks (an "
        "MD-series array's cache_block_KiB setting, one of the catalog's cache_block_sizes_KiB) "
        "spends on each cache block of user data it writes (cache allocation, mirroring to its "
        "partner, destaging, parity set-up); a read costs it model.storage.attachment."
        "RAID_READ_CYCLES_PER_REQUEST a request instead (HP's Smart Array brief of 2012: the "
        "processor does not affect read performance greatly), and a card without cache blocks "
        "raid_cycles_per_write_command a drive command it writes. Informed by em_ingest (the "
        "MD3260's controllers)",
    ),
    FreeParameter(
        "raid_cycles_per_write_command",
        "cycle/command",
        5000.0,
        1250.0,
        5000.0,
        "processor cycles a RAID card that keeps no cache blocks (no cache_block_sizes_KiB in "
        "the catalog: a MegaRAID, a Smart Array, an Areca) spends on each drive command its writes "
        "send: each copy of a mirror's, each chunk of a stripe row's parity, each read and write "
        "of a small parity write's read-modify-write. From HP's 'Smart Array Controllers and "
        "basic RAID performance factors' (2012): the P421's 1000 MHz RAID-on-Chip 'can support "
        "up to 200,000 4 KB random IOPS', 5,000 cycles an I/O if the brief counts drive commands "
        "(the default, the dearer reading), 1,250 if it counts host requests of RAID5 writes, "
        "each four commands (the low end). No table informs it: it keeps its default, and a "
        "prediction's interval spans its range",
    ),
    FreeParameter(
        "iop332_driver_write_ns_per_byte",
        "ns/B",
        20.0,
        0.0,
        200.0,
        "host CPU the driver path of the Intel SE7520AF2's IOP332 RAID costs per byte written "
        "under 64-bit Red Hat EL 4 (the Penn State report's RAID write problem). Informed by "
        "psu_write and psu_copy (the one host and driver it describes; psu_copy is predicted "
        "within 5 % with psu_write's rows alone, validate --holdout)",
    ),
    FreeParameter(
        "io_cycles_per_request",
        "cycle/request",
        5000.0,
        500.0,
        20000.0,
        "host CPU cycles one I/O request costs whatever its size: the system call, the file "
        "system and block layer, the driver's submission and its completion interrupt; a "
        "request is charged the larger of this and its bytes' cost (the per-byte passes were "
        "fitted on 32 KiB to 1 MiB requests, whose fixed cost they already hold). No table "
        "informs it: it keeps its default, 1.5 us a request on a 3.3 GHz core, an interrupt-"
        "driven asynchronous path. Low: the leanest path measured, polled io_uring with "
        "registered buffers, 10M IOPS on one core of a Ryzen 9 5950X (Jens Axboe, 2021, "
        "Phoronix 'Newest Linux Optimizations Can Achieve 10M IOPS Per-Core With IO_uring'), "
        "some 490 cycles at its 4.9 GHz; his 2.58M a core at depth 128 on an Ice Lake-SP (5.9-rc1, "
        "linux-block, 2020) is about 1,100. High: 11M 4 KiB reads a second with fio and io_uring "
        "on the 64 Zen 2 cores of a ThreadRipper Pro 3995WX (Tanel Poder, 'Achieving 11M IOPS & "
        "66 GB/s IO on a Single ThreadRipper Workstation', 2021), at most 5.8 us of a core a "
        "request, fio's own work included, some 20,000 cycles at 3.5 GHz",
    ),
    FreeParameter(
        "md_workers_past_measured",
        "1",
        0.5,
        0.0,
        1.0,
        "what md's stripe threads past raid5d and 4 workers at once add (volumes.NAME."
        "md_group_thread_cnt, on a host with the cores for them), as a share of the extra rate "
        "Amdahl's law "
        "gives them at the serial share measured from raid5d alone to 4 workers "
        "(model.storage.raid5d: stock RAID6 rebuilding 200 MB/s at group_thread_cnt 0 and 585 at "
        "4, scopedog/md-kmec): 1, the array's device_lock keeps the share it had; 0, its "
        "contention holds the array at 5 threads' rate. No run of stock md past 4 workers beside "
        "its own group_thread_cnt 0 is published, so no table informs it: it keeps its default, "
        "the middle, and a prediction's interval spans its range; a fall past 5 threads, which a "
        "contended spinlock can give, is not in it",
    ),
    FreeParameter(
        "nfs_call_cycles",
        "cycle/call",
        25000.0,
        10000.0,
        60000.0,
        "host CPU cycles a Linux kernel NFS server's thread spends on one call beyond the I/O "
        "it asks for (io_cycles_per_request and the data's copy) and its TCP frames: sunrpc's "
        "hand-off of the call to an idle nfsd thread and that thread's wake-up, the call's XDR "
        "decoding, the file handle's check (fh_verify), the reply's encoding. No published "
        "figure isolates it; the range brackets those that exist: the hand-off alone took 0.9 "
        "to 2.5 us a call on Linux 6.5 with 8 to 512 threads (Chuck Lever, linux-nfs list, "
        "2023, svc_xprt_enqueue to wake_idle, 914 to 2,506 ns mean, "
        "http://mail.spinics.net/lists/linux-nfs/msg99093.html), and a whole call, TCP and "
        "interrupts included, at most 66.7 us on a 4-CPU SGI Altix held CPU-bound at 60,000 "
        "calls a second (Greg Banks, Linux commit 59a252ff8c0f, 'sustained call rate in excess "
        "of 60000 calls/sec before being CPU-bound on the server'), of which an NFS server's "
        "own path is the larger part (twice an iSCSI target's, Radkov et al., FAST '04). "
        "Default 25,000, some 8 us on a 3 GHz core, an estimate between them; low 10,000 (the "
        "hand-off and as much again), high 60,000 (20 us). No table informs it: it keeps its "
        "default, and a prediction's interval spans its range",
    ),
    FreeParameter(
        "disk_cache_command_us",
        "us",
        30.0,
        10.0,
        30.0,
        "a hard disk's own time on a command it answers from its cache (a read its look-ahead "
        "already holds, a write its write cache takes), beyond the data's transfer across its "
        "interface. IBM's drive specifications give it for a read, 'from last byte of command "
        "phase to the first byte of data phase': 'Cache Hit <0.03 msec', 'Cache Not Hit <0.40 "
        "msec' (Ultrastar DDRS-39130, section 3.4.1 Command overhead) and 'Cache Hit <30 us' "
        "(Ultrastar 146Z10, section 4.5.1). Default and high: the 30 us they give as the most; "
        "low: a third of it, an assumption (no manual read gives a typical figure). Taken for "
        "every hard disk, and for a write into its cache too (the manuals give the read case). "
        "No table informs it: no report measures small direct requests on a disk",
    ),
)
