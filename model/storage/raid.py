"""The RAID levels the lab models, in one table: members, parity, copies, read mapping, write
penalty.

Every part of the lab that needs a level's layout reads it here: a scenario's validation (how many
drives a group needs), the fluid storage path (how many bytes land on each drive's surface), the
request-level read mapping (``model.storage.raidmap``) and small-write costs
(``model.storage.requests.small_write_commands``).

- ``single``: one drive. ``raid0``: chunks striped over every member.
- ``raid1``: every member holds a copy; a read goes to one of them.
- ``raid10``: chunks striped over mirrored pairs. md's raid10 (its default near-2 layout) lays the
  two copies of each chunk on consecutive members, row after row, so it takes an odd count too
  (drivers/md/raid10.c: "near_copies copies of each chunk is stored (each on a different drive)
  ... near_copies and far_copies must be at least one, and their product is at most
  raid_disks"): n drives hold n / 2 drives' worth of data, every drive a copy of half of it. A
  RAID controller's RAID10 spans mirrored pairs and needs an even count.
- ``raid5``/``raid6``: one or two parity chunks per stripe row, rotating (left-symmetric).
- ``raidz1``/``raidz2``/``raidz3``: a ZFS RAIDZ vdev, one to three parity sectors per record
  spread over the vdev's drives (``model.storage.zfs``); only a ZFS pool has them.

The write penalty is the drive commands a small random write costs (read data and parity, write
them back): 1, 2 for mirrors, 4 for RAID5 and 6 for RAID6 (Patterson, Gibson and Katz, "A Case for
Redundant Arrays of Inexpensive Disks (RAID)", SIGMOD 1988, and the vendors' sizing guides). RAIDZ
never reads to write: every record is written whole, with its parity, to free space (Bonwick,
"RAID-Z", Oracle blog, 2005: "full-stripe writes"), so a small write costs its data and p parity
commands.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Level:
    """One RAID level's layout."""

    name: str
    parity_chunks: int  # parity chunks per stripe row
    copies: int  # copies of every data chunk (2 for a mirror of pairs, every member for raid1)
    least_drives: int  # the fewest drives a group of this level has
    write_penalty: int  # drive commands per small random write
    drives_exactly: int | None = None  # a level built from exactly this many drives
    pairs: bool = False  # members come in mirrored pairs (an even count but on md)
    striped_reads: bool = True  # reads map onto members chunk by chunk (``raidmap.pieces``)
    zfs_only: bool = False  # a ZFS vdev type, which md and RAID controllers do not have

    def copies_in(self, drives: int) -> int:
        """Copies of every data chunk in a group of ``drives``: each member of a RAID1, two of a
        mirror of pairs, one otherwise."""
        return drives if self.name == "raid1" else self.copies

    def data_members(self, drives: int) -> float:
        """Members' worth of user data per stripe row of ``drives`` members: half of a mirror of
        pairs, 2.5 of md's near-2 RAID10 on five drives (its readahead's stripe, raid10_run's
        'stripe = conf->geo.raid_disks * ((mddev->chunk_sectors << 9) / PAGE_SIZE)' then
        'stripe /= conf->geo.near_copies', and the drives' worth a stream reads at once: each
        drive reads every other chunk it holds, half its media rate, n of them n / 2)."""
        if self.name == "raid1":
            return 1
        if self.pairs:
            return drives // 2 if drives % 2 == 0 else drives / 2
        return drives - self.parity_chunks

    def drive_share(self, drives: int, op: str) -> float:
        """Bytes on each drive's surface per byte written (``op`` "write") or read to a group."""
        if self.parity_chunks:
            return 1.0 / (drives - self.parity_chunks)
        if self.name == "raid1":
            return 1.0 if op == "write" else 1.0 / drives
        if self.pairs:
            return 2.0 / drives if op == "write" else 1.0 / drives
        return 1.0 / drives

    def transfer_share(self, drives: int, op: str) -> float:
        """Bytes each drive transfers (over its link, and out of a flash drive) per byte written to
        or read from a group: a read leaves the parity chunks where they are, though a platter
        turns past them (``drive_share``); a write carries them."""
        if self.parity_chunks and op != "write":
            return 1.0 / drives
        return self.drive_share(drives, op)

    def problem(self, drives: int, md: bool = False) -> str | None:
        """Why a group of ``drives`` cannot be built at this level (by Linux md where ``md``, else
        by a RAID controller), or None."""
        if self.drives_exactly is not None and drives != self.drives_exactly:
            return f"{self.name} is exactly {self.drives_exactly} drive(s)"
        if drives < self.least_drives:
            return f"{self.name} needs at least {self.least_drives} drives"
        if self.pairs and drives % 2 and not md:
            return (
                f"a controller's {self.name} mirrors pairs: it needs an even number of drives "
                "(md's raid10, engine: md, takes an odd one)"
            )
        return None


LEVELS: dict[str, Level] = {
    level.name: level
    for level in (
        Level("single", 0, 1, 1, 1, drives_exactly=1, striped_reads=False),
        Level("raid0", 0, 1, 1, 1),
        Level("raid1", 0, 2, 2, 2, striped_reads=False),
        Level("raid5", 1, 1, 3, 4),
        Level("raid6", 2, 1, 4, 6),
        Level("raid10", 0, 2, 2, 2, pairs=True),
        Level("raidz1", 1, 1, 2, 2, striped_reads=False, zfs_only=True),
        Level("raidz2", 2, 1, 3, 3, striped_reads=False, zfs_only=True),
        Level("raidz3", 3, 1, 4, 4, striped_reads=False, zfs_only=True),
    )
}

# the levels md and RAID controllers build that the lab simulates (the raidz ones are a ZFS
# pool's vdev types)
MODELLED_LEVELS = tuple(name for name, level in LEVELS.items() if not level.zfs_only)
# the levels RAID cards' datasheets list (the catalog's raid_levels) that the lab does not
# simulate: Areca's raid3, the MegaRAID cards' spans of RAID5 and RAID6 groups (raid50, raid60),
# and the MD3260's Dynamic Disk Pools (ddp). A volume a card keeps at one of them is not modelled
# yet (status 3), one its card does not list a mistake; md builds none of them
UNMODELLED_LEVELS = ("raid3", "raid50", "raid60", "ddp")
EngineLevel = Literal[MODELLED_LEVELS + UNMODELLED_LEVELS]
# the levels whose reads map onto their members chunk by chunk (``raidmap.pieces``)
StripedLevel = Literal[tuple(name for name, level in LEVELS.items() if level.striped_reads)]
