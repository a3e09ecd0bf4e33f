"""What a volume's file system adds to the bytes a stream moves: ext2's and ext3's block map
(``metadata_share``) and ext3's and ext4's journal (``Journal``, the ``data=`` mount option).

An ext2 or ext3 file maps its data block by block, 4 bytes of indirect block a data block, read and
written with the data; ext3 journals that map before it goes to its place, and under
``data=journal`` the data too, the writer waiting for its own bytes' checkpoint. ext4 maps
extents, whose map is too small to model, and journals as ext3 does (JBD2's
``__jbd2_log_wait_for_space`` calls ``jbd2_log_do_checkpoint`` in the writing process, as JBD's
did), so only its ``data=journal`` moves a stream; XFS maps extents and journals metadata only.
No free parameter: the figures are the formats' own (Card, Ts'o and Tweedie, "Design and
Implementation of the Second Extended Filesystem", 1994; the kernel's
Documentation/filesystems/ext3.txt and JBD's ``__log_wait_for_space``); the CERN receive host's
ext3 row (``atlas_cern_receive``) is predicted with them, its journal mode a declared unknown.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import NotModelled, UserError
from .spec import FileSystem

# A block pointer of ext2 and ext3: 4 bytes in an indirect block for each data block (Card, Ts'o and
# Tweedie, "Design and Implementation of the Second Extended Filesystem", 1994: 12 direct blocks,
# then indirect blocks of 4-byte block numbers); double-indirect blocks add a pointer per
# block_B / 4 of those, under a thousandth more, left out.
BLOCK_POINTER_B = 4


def metadata_share(filesystem: FileSystem) -> float:
    """Bytes of block map read or written per byte of file data."""
    if filesystem.type in ("ext2", "ext3"):
        return BLOCK_POINTER_B / (filesystem.block_KiB * 1024)
    return 0.0


@dataclass(frozen=True)
class Journal:
    """What ext3's journal adds to a byte written (``FileSystem.journal``, the ``data=`` mode).

    The journal is a region of the volume itself (mke2fs's internal journal). Every mode journals
    the block map before it goes to its place, so the map is written twice; ``data=journal``
    journals the data too: each byte crosses the path twice (``copies``), and since a streaming
    writer fills the journal in a fraction of a second, the writer itself checkpoints it
    (JBD's ``__log_wait_for_space`` calls ``log_do_checkpoint`` in the writing process, which writes
    the journalled blocks to their places and waits for them): it waits for its own bytes' second
    write (``waits``). Reads are not touched.
    """

    copies: float = 1.0  # times each data byte is written
    map_copies: float = 1.0  # times each byte of block map is written
    waits: bool = False  # the writer waits for the checkpoint writes of its bytes

    def written_share(self, block_map: float) -> float:
        """Bytes written per byte of data and ``block_map`` of block map written once."""
        return (self.copies + self.map_copies * block_map) / (1.0 + block_map)


def journal(filesystem: FileSystem, op: str, io: str, where: str, key: str) -> Journal:
    """The journal's work on a byte ``op`` moves by ``io`` (the workload's) on ``filesystem``,
    whose mode ``check_mode`` has passed."""
    check_mode(filesystem, io, where, key)
    if filesystem.type not in ("ext3", "ext4") or op != "write":
        return Journal()
    if filesystem.journal == "journal":
        return Journal(copies=2.0, map_copies=2.0, waits=True)
    return Journal(map_copies=2.0)


def check_mode(filesystem: FileSystem, io: str, where: str, key: str) -> None:
    """The ``data=`` mode at ``key`` of a volume the workload moves its bytes by ``io`` on: a
    mode on a file system without one is the user's mistake, and so is ``data=journal`` where
    the program cannot open its file; where the model has no path for it, it is not modelled.

    A direct stream (``O_DIRECT``) on ext3: its journalled files' address space has no direct_IO
    (fs/ext3/inode.c, ``ext3_journalled_aops``, where the ordered and writeback ones have
    ``ext3_direct_IO``), and open(2) refuses O_DIRECT on such a file with EINVAL (fs/open.c,
    ``open_check_o_direct``; xfstests ext4/039: 'ext3 and ext4 don't support direct IO in
    journalling mode'): the program cannot open it, the user's mistake. On ext4 the open succeeds
    and every request falls back to the buffered path, a write as an O_DSYNC one (T. Ts'o, 'ext4:
    fake direct I/O mode for data=journal'; fs/ext4/file.c, ``ext4_dio_supported`` false under
    ``ext4_should_journal_data``; fs/ext4/super.c warns 'mounting with data=journal disables
    delayed allocation, dioread_nolock, and O_DIRECT support!'), a path the model does not have.
    Nor does it have a memory map's write-back through the journal (ext3's and ext4's journalled
    writepage), which the memory-mapped test writes by."""
    if filesystem.type not in ("ext3", "ext4") and filesystem.journal != "ordered":
        raise UserError(
            where,
            key,
            f"is ext3's and ext4's data= mode; this volume's file system is "
            f"{filesystem.type}, which has none (leave journal out)",
        )
    if filesystem.journal != "journal" or io == "buffered":
        return
    if io == "direct" and filesystem.type == "ext3":
        raise UserError(
            where,
            key,
            "ext3 mounted data=journal refuses O_DIRECT (open(2) fails with EINVAL: its "
            "journalled files have no direct I/O), and workload.io is direct; allowed: "
            "data= ordered or writeback, or workload.io buffered",
            related=("workload.io", key.removesuffix("journal") + "type"),
        )
    raise NotModelled(
        f"{filesystem.type} mounted data=journal under workload.io {io}: "
        + (
            "ext4 serves each O_DIRECT request through the page cache, a write as an O_DSYNC one, "
            "which the model does not simulate"
            if io == "direct"
            else "a memory map's pages written back through the journal"
        )
    )
