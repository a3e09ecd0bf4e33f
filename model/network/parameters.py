"""Free parameters of the remote database-client model, fitted on ``mdsplus_read``
(``004_892e9be6fdf9fcf4.txt``).

Three parameters on the table's ten result rows. The WAN model has none of its own: its per-frame
CPU cost comes from the literature (``model.settings.NET_CYCLES_PER_FRAME``), its settings from the
report and the tools, its disk arrays from the storage model's parameters.
"""

from ..freeparameter import FreeParameter

PARAMETERS = (
    FreeParameter(
        "mds_serve_cycles_per_byte",
        "cycle/B",
        20.0,
        10.0,
        1000.0,
        "CPU cycles a data server process (the MDSplus mdsip server or the PTDATA server) spends "
        "per byte of stored record it reads for a client: tree and record lookup, the read "
        "through the file system, building the reply. Default: a count of what MDSplus's own "
        "code does with a record (MDSplus/mdsplus: treeshr/TreeGetRecord.c reads it in one "
        "read(), mdsshr/MdsSerialize.c and tdishr/TdiDecompress.c each copy the stored bytes, "
        "the reply's message takes one memcpy of the result before its one send(), each into "
        "freshly mapped pages): three copies a stored byte and one a result byte (1.3 a stored "
        "byte at the scenario's compression), a copy 2 to 4 cycles a byte on the servers' 533 "
        "MT/s front-side bus (4.26 GB/s, a copy moving 2 to 3 bytes over it, lmbench's bw_mem) "
        "and a fresh page 0.5 to 1.5 (an assumption): 4.3 x 2.5 to 5.5, some 11 to 24 cycles a "
        "stored byte, 17 at the middle, to 29 for a record in the old format, which takes a "
        "fourth copy; with the expanded result's own fresh pages and the call's parsing, 20. "
        "No published figure of an MDSplus "
        "server's cost was found (MDSplus/mdsplus issue #2912's mdsip rate names no CPU). The "
        "report's table, the only one that informs it, puts it some twenty times higher: its "
        "servers did far more a byte than the code shows, for a reason the report does not give "
        "(they were in daily use by others; a RAMDisk and larger TCP buffers made reads slower), "
        "or a cost a read that one read size cannot tell from a cost a byte; so it does not "
        "transfer (validate --holdout: the table predicted without itself). Whatever it is, it "
        "takes a server's CPU: six thin clients take 3.0 times one client's time a read (8.5 "
        "against 2.8 MB/s), as six processes sharing the server's two CPUs do, where a wait a "
        "read that takes no CPU would overlap across clients. Nothing in MDSplus's code sizes it "
        "as a cost a connection: fork and exec of the mdsip server, its libraries' linking, the "
        "mdsip.hosts check and the tree's opening are some 5 to 20 ms (lmbench's fork+/bin/sh "
        "-c took 2.9 to 3.5 ms in Ingo Molnar's O(1) scheduler announcement, linux-kernel, 4 "
        "January 2002, the scheduler RHEL 3's 2.4.21 carries), against the 0.55 to 0.8 s of CPU "
        "a read the table asks",
    ),
    FreeParameter(
        "tdi_math_cycles_per_value",
        "cycle/value",
        600.0,
        384.0,
        1000.0,
        "CPU cycles TDI spends per value evaluating sin(_data)+cos(_data)+tan(_data): glibc's "
        "i386 sin, cos and tan are the x87 FSIN, FCOS and FPTAN instructions (sysdeps/i386/fpu), "
        "and on the NetBurst Xeon DP (family F, model 2) FSIN takes 128 to 248 cycles, median "
        "188, and FCOS 128 to 248, median 212, over the arguments InstLatX64 measured "
        "(InstLatx64/InstLatx64, GenuineIntel0000F25_P4_GallatinDP_InstLatX86.txt, the same "
        "figures as the Northwood P4's F29 file). No FPTAN figure is published for this core; "
        "it is taken in the same range at FSIN's median. Default: 188 + 212 + 188 = 588, "
        "rounded up for the two array additions; low: all three at their 128-cycle minimum; "
        "high: all three at their 248-cycle maximum (744) and about 250 more for TDI's passes "
        "over the two-million-value temporaries. Informed by mdsplus_read (its math rows)",
    ),
    FreeParameter(
        "server_background_load",
        "1",
        0.3,
        0.0,
        0.8,
        "share of each MDSplus/PTDATA server core taken by other users' work during the "
        "report's production-hours tests (the servers were in daily use); the client machines "
        "are LSF job slots and carry none. Default: an assumption; the report gives no figure "
        "of that load. Informed by mdsplus_read alone: its baseline rows see it only as "
        "mds_serve_cycles_per_byte / (1 - load), its math rows also through "
        "tdi_math_cycles_per_value on the same loaded cores, and those pull it to no load",
    ),
)
