"""md RAID5/6's raid5d thread: the host CPU an md array's writes cost, one thread per array.

Each write costs the array's raid5d ``MD_PARITY_COPIES`` memory copies per byte for the parity and,
for every stripe_head it handles (``MD_STRIPE_B`` of each member), its dispatch and completion of
the member requests and its pass over every member (``md_raid5d_cycles_per_byte``); a read of a
whole array passes it by. The parity's copies come from the kernel's boot-time xor and RAID6
benchmarks; the per-request and per-member cycles are calibrated on a published run of stock md
RAID6 on RAM disks (scopedog/md-kmec, README.md, 'Benchmark -- raidkm vs stock raid6', 2026),
checked against scopedog/mdraid's full-stripe bench and Shaohua Li's linux-raid figure (2012).
"""

from __future__ import annotations

import math

from .. import memory
from ..parts import Host
from .raid import LEVELS

# Linux md computes a RAID5/6 array's parity in the array's own kernel thread (raid5d, one per
# array): streaming xor over the data costs about one memory copy per data byte; RAID6's P and Q
# together about 1.5, the ratio of the kernel's boot-time benchmarks (for instance "raid5: using
# function: generic_sse (5212.400 MB/sec)" beside "raid6: using algorithm sse2x4 (3492 MB/s)" on
# one 2005 host; 7620 against 4378 MB/s on another).
MD_PARITY_COPIES = {"raid5": 1.0, "raid6": 1.5}

# raid5d does more than the parity: it runs every stripe_head through handle_stripe and dispatches
# (and, for its next pass, takes back) every member request. A stripe_head is one page of each
# member (STRIPE_SIZE: PAGE_SIZE, and 4096 by default since Linux 5.10, commit e236858243d7 'md/
# raid5: set default stripe_size as 4096'); a request is split page by page into stripe_heads, and
# each issues its own page-sized member bios (the block layer merges them on the way to a drive):
#   - a small write (read-modify-write) is one stripe_head per page written, with the level's
#     write penalty in member requests (RAID5 2 reads and 2 writes, RAID6 3 and 3; a RAID6 whose
#     read-modify-write reads no fewer than a reconstruct-write takes the reconstruct-write, with
#     as many requests on 6 members: the 3 other data pages, then 3 writes);
#   - a full-stripe write is one stripe_head per page of each data member, writing every member;
#     since Linux 4.1 (commit 59fc630b8b5f 'RAID5: batch adjacent full stripe write') the
#     stripe_heads of one chunk row go through handle_stripe once, as a batch ('A batch list can
#     only include full stripe write and can't cross chunk boundary'), while each still dispatches
#     its own bios.
# Their cost: MD_CYCLES_PER_MEMBER_REQUEST per member request raid5d dispatches and completes, and
# MD_CYCLES_PER_MEMBER_SLOT per member of each stripe_head (or batch) it takes through
# handle_stripe (analyse_stripe and the dirtying and I/O passes walk every member's r5dev). Both
# come from a published run of stock md RAID6 at group_thread_cnt 0 (the default: every stripe_head
# in the one raid5d thread) on brd RAM disks, whose members cost nothing, so raid5d binds ('stock
# raid6's RMW path is serialized at gtc=0'): fio 4 KiB random direct writes, 4 jobs x QD32, on
# Intel Xeon Platinum 8481C cores (Google Cloud c3, sustained all-core turbo 3.0 GHz), Linux 6.12
# (RHEL 10.2); scopedog/md-kmec, README.md, 'Benchmark -- raidkm vs stock raid6', stock column
# (2026): 6 members (k=4, m=2) on a c3-standard-8, 72,767 and 83,852 IOPS on two dates (mean
# 78,310); 16 members (k=14, m=2) on a c3-standard-22, 54,266 IOPS. At 3.0 GHz a write costs
# 38,310 cycles on 6 members and 55,283 on 16: 1,697 more per member, and the rest, 28,125, over
# its 6 member requests, 4,688 each. The figure carries brd's page copies and the bios'
# completions (brd completes a bio inside its submitter, raid5d; an NVMe drive's completion runs in
# its interrupt, though raid5d still takes the stripe back) and the parity of a 4 KiB write, which
# MD_PARITY_COPIES charges again (about 4 % of it): it errs high, as a planner wants it.
# Checks, neither with a figure of its own to derive from: on an AMD Ryzen 7 5800X (boost 4.7
# GHz), 6 members, the same run gave 124,327 and 129,367 IOPS, 38,310 cycles at 4.8 to 5.0 GHz
# (the README's 'Worker-thread tuning detail' and 'SIMD spectrum' tables); on that machine's
# VM, 6 loop devices (k=4, 64 KiB chunks), stock RAID6 wrote 256 KiB full stripes at 2,549 MB/s
# (scopedog/mdraid, notes/bench_2026-04-27.md, 'rhel10 VM (no-GFNI Zen 3...)', bottleneck not
# stated), at most 30,200 cycles a stripe_head at 4.7 GHz, parity and copies in it, against
# 28,760 here before the parity; Shaohua Li on linux-raid (2012, mail.spinics.net/lists/raid/
# msg39330.html): 'in my test raid5 thread must handle > 450k requests per second. Just doing
# dispatch and completion will make raid5 thread incapable': a 4-member RAID5's small write here
# is 6,385 cycles a member request, 390,000 to 470,000 a second at 2.5 to 3 GHz (his processor is
# not named, nor is the Atom of his commit 765d704db1f5, whose 9-disk RAID5 wrote ~600 MB/s).
MD_STRIPE_B = 4096
MD_REFERENCE_CLOCK_GHZ = 3.0  # Google Cloud c3 (Xeon Platinum 8481C), sustained all-core turbo
MD_REFERENCE_RMW_IOPS = {6: (72_767 + 83_852) / 2, 16: 54_266.0}  # members -> 4 KiB RAID6 writes/s


def _md_reference_costs() -> tuple[float, float]:
    """Cycles raid5d spends per member request and per member slot of a stripe_head, from the
    published RAID6 small-write rates on two widths (``MD_REFERENCE_RMW_IOPS``)."""
    (narrow, narrow_iops), (wide, wide_iops) = sorted(MD_REFERENCE_RMW_IOPS.items())
    narrow_cycles, wide_cycles = (
        MD_REFERENCE_CLOCK_GHZ * 1e9 / iops for iops in (narrow_iops, wide_iops)
    )
    slot = (wide_cycles - narrow_cycles) / (wide - narrow)
    return (narrow_cycles - narrow * slot) / LEVELS["raid6"].write_penalty, slot


MD_CYCLES_PER_MEMBER_REQUEST, MD_CYCLES_PER_MEMBER_SLOT = _md_reference_costs()


def md_raid5d_cycles_per_byte(
    level: str, drives: int, chunk_B: float, small_write_B: float | None, commands: int
) -> float:
    """Cycles an md RAID5/6 group of ``drives`` spends in its raid5d per byte written, beyond the
    parity: writes of ``small_write_B``, smaller than a stripe (a stripe_head per page, each its
    ``commands`` member requests, ``requests.small_write_commands``, and a pass over every
    member), or full stripes (None: a stripe_head per page of each data member, each a write to
    every member, and a pass over every member per batch, a chunk's pages)."""
    lvl = LEVELS[level]
    if small_write_B is None:
        batch = max(chunk_B / MD_STRIPE_B, 1.0)
        per_stripe = drives * (MD_CYCLES_PER_MEMBER_REQUEST + MD_CYCLES_PER_MEMBER_SLOT / batch)
        return per_stripe / (lvl.data_members(drives) * MD_STRIPE_B)
    # a stripe_head is a page of every member: a write over several chunks fills several of its
    # data pages, so it takes a stripe_head per page of one chunk's share
    touched = min(math.ceil(small_write_B / chunk_B), lvl.data_members(drives))
    stripes = math.ceil(small_write_B / touched / MD_STRIPE_B)
    per_stripe = commands * MD_CYCLES_PER_MEMBER_REQUEST + drives * MD_CYCLES_PER_MEMBER_SLOT
    return stripes * per_stripe / small_write_B


def raid5d_s_per_byte(
    host: Host,
    level: str,
    drives: int,
    chunk_B: float,
    small_write_B: float | None,
    commands: int,
) -> float:
    """Seconds the group's raid5d spends per byte written: the parity's copies and stripe_heads."""
    stripe_cycles = md_raid5d_cycles_per_byte(level, drives, chunk_B, small_write_B, commands)
    return MD_PARITY_COPIES[level] / (host.copy_rate_MBps * 1e6) + stripe_cycles / (
        host.clock_GHz * 1e9
    )


def memory_per_byte(level: str, drives: int, small: bool) -> dict[str, float]:
    """Times each byte written to a group of ``drives`` crosses the host's memory in the parity's
    pass (``MD_PARITY_COPIES``; ``model.memory``): it reads the data and writes the parity, the
    level's parity chunks for each row of data chunks of a full stripe, or for each chunk a
    ``small`` write changes (the read-modify-write's reads of the old data and parity, which the
    pass reads too, not counted: a floor)."""
    lvl = LEVELS[level]
    rows = 1.0 if small else lvl.data_members(drives)
    return {"parity reads": memory.READ_PASS, "parity writes": lvl.parity_chunks / rows}


def thread_note(bottleneck: str) -> tuple[str, ...]:
    """A note where an array's raid5d is what binds (``bottleneck``, the result's): its one
    thread is the default, and md can share its stripes with worker threads, which the model does
    not."""
    if not bottleneck.startswith("raid5d "):
        return ()
    return (
        f"{bottleneck} binds: md handles an array's stripes and parity in its one raid5d thread at "
        "group_thread_cnt 0, the default (/sys/block/mdN/md/group_thread_cnt); from Linux 3.12 "
        "worker threads can share that work, which the model does not take: this is one thread's "
        "rate",
    )
