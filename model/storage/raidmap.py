"""Where a logical read lands: a byte range of a RAID volume mapped onto its member drives.

RAID0 stripes chunks over every member; RAID5 and RAID6 rotate one or two parity chunks per stripe
row (left-symmetric: the parity moves one member to the left each row and the data chunks follow
it), and a read touches only the data chunks; RAID10 stripes over mirrored pairs, and either drive
of a pair can serve a read. Used by the download server of ``002_d084885fd2f4dc68.txt``; direct I/O
takes its stripe widths from ``raid.LEVELS`` and the fluid storage path only the shares in
``topology``. The left-symmetric layout is md's default for RAID5 and RAID6
(``ALGORITHM_LEFT_SYMMETRIC``, drivers/md/raid5.h and raid5.c's raid5_compute_sector).
"""

from __future__ import annotations

from dataclasses import dataclass

from .raid import LEVELS


@dataclass(frozen=True)
class Piece:
    """``length_B`` bytes at ``offset_B`` of a member; ``members`` are the drives that hold a
    copy."""

    members: tuple[int, ...]
    offset_B: int
    length_B: int


def data_members(level: str, drives: int) -> int:
    """Members' worth of user data per stripe row (of a level whose reads map chunk by chunk)."""
    layout = LEVELS[level]
    if not layout.striped_reads:
        raise ValueError(f"no read mapping for {level}")
    problem = layout.problem(drives)
    if problem:
        raise ValueError(f"{problem}, got {drives}")
    return layout.data_members(drives)


def capacity_B(level: str, drives: int, drive_B: float) -> float:
    return data_members(level, drives) * drive_B


def pieces(level: str, drives: int, chunk_B: int, offset_B: int, length_B: int) -> list[Piece]:
    """The member pieces a logical read of ``length_B`` at ``offset_B`` reads, one per chunk."""
    width = data_members(level, drives)
    out: list[Piece] = []
    position, end = offset_B, offset_B + length_B
    while position < end:
        chunk, within = divmod(position, chunk_B)
        take = min(chunk_B - within, end - position)
        row, column = divmod(chunk, width)
        member_offset = row * chunk_B + within
        if LEVELS[level].pairs:
            members = (2 * column, 2 * column + 1)
        else:
            parity = LEVELS[level].parity_chunks
            first_data = (drives - 1 - row % drives + parity) % drives if parity else 0
            members = ((first_data + column) % drives,)
        out.append(Piece(members, member_offset, take))
        position += take
    return out
