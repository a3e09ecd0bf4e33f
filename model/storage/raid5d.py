"""md RAID5/6's raid5d thread and its workers: the host CPU an md array's writes cost.

Each write costs the array's stripe handling ``MD_PARITY_COPIES`` memory copies per byte for the
parity and, for every stripe_head (``MD_STRIPE_B`` of each member), the dispatch and completion of
the member requests and a pass over every member (``md_raid5d_cycles_per_byte``); a read of a
whole array passes it by. The parity's copies come from the kernel's boot-time xor and RAID6
benchmarks; the per-request and per-member cycles are calibrated on a published run of stock md
RAID6 on RAM disks (scopedog/md-kmec, README.md, 'Benchmark -- raidkm vs stock raid6', 2026),
checked against scopedog/mdraid's full-stripe bench and Shaohua Li's linux-raid figure (2012).
At group_thread_cnt 0, Linux's default, the array's one raid5d thread does it all; worker threads
(``volumes.X.md_group_thread_cnt``) share it at the rate Amdahl's law leaves them past the work
they do one at a time under the array's device_lock (``stripe_threads_rate``), calibrated on the
one published pair of stock runs at 0 and 4 workers (md-kmec's rebuild table) and checked against
Shaohua Li's thread counts of 2012; past 4 workers no stock run is published, and the threads past
them add the share ``md_workers_past_measured`` (a free parameter no table informs) of what the law
gives them, its range in the prediction's interval.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from .. import memory
from ..parts import Host
from .raid import LEVELS
from .spec import StorageBody

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


# md's worker threads (Linux 3.12: Shaohua Li's 'raid5: offload stripe handle to workqueue',
# 851c30c9badf, and 'raid5: sysfs entry to control worker thread number'): writing N
# to /sys/block/mdN/md/group_thread_cnt gives the array N workers in each worker group, a group per
# NUMA node (drivers/md/raid5.c alloc_thread_groups: group_cnt = num_possible_nodes(), cnt workers
# each); the kernel takes 0 to 8192 (raid5_store_group_thread_cnt) and starts at 0 ('Don't enable
# multi-threading by default', setup_conf). A stripe_head to handle goes to the group of the CPU
# that made it (raid5_wakeup_stripe_thread, cpu_to_group(sh->cpu)), where a worker (raid5_do_work)
# takes up to MAX_STRIPE_BATCH (8) at a time through handle_stripe, its analysis, parity and
# member bios, as raid5d does; raid5d keeps its own passes (md_check_recovery, the bitmap, the
# delayed stripes' activation, retried reads) and takes stripes from any group's list too
# (__get_priority_stripe with ANY_GROUP): 1 + N x nodes threads handle the array's stripes, each
# on a core while it works, so no more of them at once than the host has cores. md wakes a further
# worker for each 8 stripe_heads its group holds (thread_cnt = stripes_cnt / MAX_STRIPE_BATCH - 1):
# the model takes a write's queue as keeping them all busy. Every thread takes and releases
# stripe_heads under the array's one device_lock, a spinlock (__get_priority_stripe,
# __release_stripe, release_stripe_list: __must_hold(&conf->device_lock)): the share of the work
# done under it goes one thread at a time (Amdahl's law), so n threads handle n / (1 + s (n - 1))
# times what raid5d alone does, the others' spinning meanwhile not charged to the host's cores.
# s is calibrated on the one published pair of stock md runs on one machine at 0 and at 4 workers:
# scopedog/md-kmec, README.md, 'Rebuild / resync speed' (2026): stock RAID6 of 6 brd RAM disks on
# a c3-standard-8 (8 vCPU, one NUMA node), rebuilding ~200 MB/s at group_thread_cnt 0 and ~585
# MB/s at 4: 5 threads 2.925 times one, s = (5 / 2.925 - 1) / 4 = 0.177. A rebuild's stripe_heads
# read five members and write one, a write's the same walk of the members; a wider array spends
# more of a stripe_head's work outside the lock, so s errs high there, as a planner wants it.
# Checks: Shaohua Li, linux-raid 2012 (mail.spinics.net/lists/raid/msg39330.html), his first
# multi-thread patches: 'In a 3-disk raid5 setup, 2 extra threads can provide 130% throughput
# improvement ... pretty close to theory value' (2.3 times; the model's 3 threads 2.22, short of
# a run its disks held) and '200% for 4-disk setup' with a thread a disk (3 times; the model's
# raid5d and 4 workers 2.93). Past 4 workers no run of stock md beside its own group_thread_cnt 0
# is published (Artur Paszkiewicz's null_blk RAID5 at group_thread_cnt 8, 463k IOPS, '[PATCH 0/3]
# Optimize wait_for_overlap', linux-raid, 27 August 2024, gives none; Shaohua Li's 765d704db1f5,
# 9 hard disks, 600 MB/s at 0 and 750 at 4, was held by their seeks): the threads past raid5d and
# MD_MEASURED_WORKERS add the share ``md_workers_past_measured`` (a free parameter no table
# informs, 0 to 1: the prediction's interval spans its 5 to 95 % points) of what Amdahl's law at
# the measured serial share gives them.
MD_REBUILD_MBps = {0: 200.0, 4: 585.0}  # group_thread_cnt -> stock RAID6 rebuild, one node
MD_MEASURED_WORKERS = max(MD_REBUILD_MBps)


def _md_serial_share() -> float:
    """The share of stripe handling done one thread at a time, from the rebuild rates at 0 and
    ``MD_MEASURED_WORKERS`` workers (Amdahl's law: n threads n / (1 + s (n - 1)) times one)."""
    threads = 1 + MD_MEASURED_WORKERS
    speedup = MD_REBUILD_MBps[MD_MEASURED_WORKERS] / MD_REBUILD_MBps[0]
    return (threads / speedup - 1) / (threads - 1)


MD_SERIAL_SHARE = _md_serial_share()


def numa_nodes(host: Host) -> int:
    """The host's NUMA nodes, md's worker groups: a socket each, where each has its own memory; one
    on a front-side-bus platform, whose sockets share one memory controller."""
    return 1 if host.fsb_MHz is not None else host.cpus


def stripe_threads(host: Host, group_thread_cnt: int, writers: int) -> int:
    """The threads that handle an array's stripe_heads at once: raid5d and ``group_thread_cnt``
    workers in each NUMA node's group that its ``writers`` reach (a stripe_head goes to the group
    of the CPU that made it: raid5.c's init_stripe sets sh->cpu, raid5_wakeup_stripe_thread picks
    cpu_to_group(sh->cpu); a lone writer feeds one node's workers, the review), no more than the
    host's cores."""
    return min(1 + group_thread_cnt * _nodes_reached(host, writers), host.cores)


def _nodes_reached(host: Host, writers: int) -> int:
    """The NUMA nodes whose worker groups ``writers`` feed: each its own, at most the host's."""
    return min(numa_nodes(host), max(1, writers))


def stripe_threads_rate(
    host: Host, group_thread_cnt: int, writers: int, params: Mapping[str, float]
) -> float:
    """How many times raid5d's rate alone the array's stripe threads (``stripe_threads``) handle
    (``_threads_rate``)."""
    return _threads_rate(stripe_threads(host, group_thread_cnt, writers), params)


def _threads_rate(threads: int, params: Mapping[str, float]) -> float:
    """How many times raid5d's rate alone ``threads`` stripe threads at once handle (``_amdahl``);
    past raid5d and ``MD_MEASURED_WORKERS`` workers, the measured threads' rate and the share
    ``params["md_workers_past_measured"]`` (read only there) of what Amdahl's law gives the rest."""
    measured = 1 + MD_MEASURED_WORKERS
    if threads <= measured:
        return _amdahl(threads)
    past = params["md_workers_past_measured"]
    return _amdahl(measured) + past * (_amdahl(threads) - _amdahl(measured))


def writers(body: StorageBody) -> int:
    """The processes whose writes reach md and make its stripe_heads, on the CPUs whose nodes'
    worker groups take them: direct streams each their own; buffered and mapped writes the
    per-device flusher (Linux 3.2's IO-less balance_dirty_pages leaves writers to dirty pages
    and kicks the flusher, and group_thread_cnt needs 3.12); behind a LAN the server's processes
    (nfsd's threads, an smbd a client: ``Clients.server_processes``)."""
    if body.clients is not None:
        return body.clients.server_processes
    return body.workload.streams if body.workload.io == "direct" else 1


def _amdahl(threads: int) -> float:
    """``threads`` threads' rate in one's, ``MD_SERIAL_SHARE`` of their work one at a time."""
    return threads / (1 + MD_SERIAL_SHARE * (threads - 1))


def thread_note(
    bottleneck: str, body: StorageBody, host: Host, params: Mapping[str, float]
) -> tuple[str, ...]:
    """A note where an array's stripe threads bind (``bottleneck``, the result's ``raid5d
    VOLUME.GROUP``): raid5d alone at group_thread_cnt 0, the default, which the volume's
    md_group_thread_cnt changes; else how many threads share it, at what rate."""
    if not bottleneck.startswith("raid5d "):
        return ()
    group_thread_cnt = body.volumes[bottleneck.split()[1].rpartition(".")[0]].md_group_thread_cnt
    if not group_thread_cnt:
        return (
            f"{bottleneck} binds: md handles an array's stripes and parity in its one raid5d "
            "thread at group_thread_cnt 0, the default (/sys/block/mdN/md/group_thread_cnt); "
            "worker threads (Linux 3.12) share that work where volumes.NAME.md_group_thread_cnt "
            f"sets them (stock md is measured with up to {MD_MEASURED_WORKERS}; more are "
            "predicted with a range, md_workers_past_measured): this is one thread's rate",
        )
    feeding = writers(body)
    threads = stripe_threads(host, group_thread_cnt, feeding)
    rate = _threads_rate(threads, params)
    beyond = threads - 1 - MD_MEASURED_WORKERS
    past = (
        f"; past raid5d and {MD_MEASURED_WORKERS} workers no run is published, and the "
        f"{'thread' if beyond == 1 else f'{beyond} threads'} past them "
        f"{'adds' if beyond == 1 else 'add'} {params['md_workers_past_measured']:.2f} of what "
        "that law gives (md_workers_past_measured, 0 to 1, a parameter no table informs: the "
        "90 % interval predict gives spans its 5 to 95 % points)"
        if beyond > 0
        else ""
    )
    nodes = _nodes_reached(host, feeding)
    where = f"each of the {nodes} NUMA nodes its writers reach" if nodes > 1 else "one NUMA node"
    return (
        f"{bottleneck} binds: raid5d and its workers (group_thread_cnt {group_thread_cnt} in "
        f"{where}), {threads} threads at once on the host's {host.cores} cores, handle the array's "
        f"stripes and parity at {rate:.2f} times "
        "one thread's rate: the share they do under the array's device_lock goes one thread at "
        f"a time ({MD_SERIAL_SHARE:.3f} of it, Amdahl's law, from stock md's rebuild at 0 and "
        f"{MD_MEASURED_WORKERS} workers){past}",
    )
