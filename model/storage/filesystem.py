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

from ..errors import UserError
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


def journal(filesystem: FileSystem, op: str, where: str, key: str) -> Journal:
    """The journal's work on a byte ``op`` moves on ``filesystem``; a journal mode on a file
    system without one is the user's mistake."""
    if filesystem.type not in ("ext3", "ext4"):
        if filesystem.journal != "ordered":
            raise UserError(
                where,
                key,
                f"is ext3's and ext4's data= mode; this volume's file system is "
                f"{filesystem.type}, which has none (leave journal out)",
            )
        return Journal()
    if op != "write":
        return Journal()
    if filesystem.journal == "journal":
        return Journal(copies=2.0, map_copies=2.0, waits=True)
    return Journal(map_copies=2.0)
