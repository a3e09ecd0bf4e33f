"""The unit a key's name carries (``rtt_ms`` is in ms, ``seq_read_MBps`` in MB/s), and a number a
user wrote as text with its unit ("3.5 GB/s") in a key's unit: what the refusal of such a text
tells them to write (``model.schema``), never a value taken for it.
"""

from __future__ import annotations

import re

# A key's unit from its name's suffix (the longest that matches wins). MB = 10^6 B, MiB = 2^20 B.
UNITS: dict[str, str] = {
    "_B": "bytes",
    "_kB": "kB (10^3 B)",
    "_KiB": "KiB (2^10 B)",
    "_MB": "MB (10^6 B)",
    "_MiB": "MiB (2^20 B)",
    "_GB": "GB (10^9 B)",
    "_GiB": "GiB (2^30 B)",
    "_TB": "TB (10^12 B)",
    "_TiB": "TiB (2^40 B)",
    "_MBps": "MB/s",
    "_MiBps": "MiB/s",
    "_GBps": "GB/s",
    "_Mbps": "Mbit/s",
    "_Gbps": "Gbit/s",
    "_GBph": "GB/h",
    "_TBph": "TB/h",
    "_ns": "ns",
    "_us": "µs",
    "_ms": "ms",
    "_s": "s",
    "_h": "hours",
    "_pct": "%",
    "_MHz": "MHz",
    "_GHz": "GHz",
    "_rpm": "revolutions per minute",
    "_iops": "I/O operations per second",
    "_pages": "pages",
    "_segments": "TCP segments",
    "_cycles_per_byte": "CPU cycles per byte",
    "_cycles_per_frame": "CPU cycles per Ethernet frame",
    "_cycles_per_packet": "CPU cycles per packet",
    "_cycles": "CPU cycles",
}

# The units a number is written with, by what they measure: each spelling (a key's suffix without
# its underscore among them: MBps, KiB, us) with its factor to the measure's own unit (a byte, a
# byte a second, a second, a hertz, an operation a second, a percent).
_BYTES: dict[str, float] = {
    "B": 1,
    "kB": 1e3,
    "KB": 1e3,
    "KiB": 2**10,
    "MB": 1e6,
    "MiB": 2**20,
    "GB": 1e9,
} | {"GiB": 2**30, "TB": 1e12, "TiB": 2**40}
_MEASURES: tuple[dict[str, float], ...] = (
    _BYTES,
    {"B/s": 1, "kB/s": 1e3, "MB/s": 1e6, "MBps": 1e6, "MiB/s": 2**20, "MiBps": 2**20}
    | {"GB/s": 1e9, "GBps": 1e9, "Mb/s": 1.25e5, "Mbit/s": 1.25e5, "Mbps": 1.25e5}
    | {"Gb/s": 1.25e8, "Gbit/s": 1.25e8, "Gbps": 1.25e8},
    {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "min": 60, "h": 3600},
    {"MHz": 1e6, "GHz": 1e9},
    {"iops": 1, "IOPS": 1},
    {"pct": 1, "%": 1},
)

# a number written with its unit after it: "14000 MB/s", "3.5GB/s", "1,000 MiB" (a comma only
# between groups of three digits: "3,5 GB/s" is no number this reads)
_WITH_UNIT = re.compile(
    r"\s*(?P<number>[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?(?:[eE][-+]?\d+)?)"
    r"\s*(?P<unit>[^\W\d_]\S*|%)\s*"
)


def unit_of(name: str) -> str:
    """The unit a key's name carries (``rtt_ms`` -> ms), or "" for a count, a name or a ratio."""
    suffix = _suffix(name)
    return UNITS[suffix] if suffix else ""


def _suffix(name: str) -> str:
    matches = [suffix for suffix in UNITS if name.endswith(suffix)]
    return max(matches, key=len) if matches else ""


def with_unit(text: str) -> tuple[float, str] | None:
    """The number and the unit of a text that is a number followed by a unit of ``_MEASURES``
    ("3.5 GB/s"), or None: "2x4", "4M" and "8 servers" are no number with its unit."""
    found = _WITH_UNIT.fullmatch(text)
    if found is None or not any(found["unit"] in measure for measure in _MEASURES):
        return None
    return float(found["number"].replace(",", "")), found["unit"]


# the byte units many tools write for the binary ones (a KB of 1,024 bytes): each with the suffixes
# of its two readings; one written for a key in another unit of bytes is converted in neither
_EITHER = {
    "KB": ("_kB", "_KiB"),
    "MB": ("_MB", "_MiB"),
    "GB": ("_GB", "_GiB"),
    "TB": ("_TB", "_TiB"),
}


def readings(name: str, unit: str) -> str | None:
    """The two things ``unit`` may mean where the key ``name`` is in another unit of bytes ("kB
    (10^3 B) or KiB (2^10 B)" for KB in a _KiB or a _B key), whose numbers differ; None where it
    reads one way there (MB in a _MB key, MiB anywhere)."""
    own = _suffix(name).removeprefix("_")
    if unit not in _EITHER or own == unit or own not in _BYTES:
        return None
    return " or ".join(UNITS[suffix] for suffix in _EITHER[unit])


def in_unit_of(name: str, number: float, unit: str) -> float | None:
    """``number`` of ``unit`` in the unit of the key ``name``: as it is where the key's name
    carries that unit, converted where both measure the same thing and ``unit`` reads one way
    there (3.5 GB/s is 3500 of a _MBps key, 100 Gb/s 12500); None where they do not, where the
    key carries no unit (a count) and where ``unit`` reads two ways (``readings``)."""
    own = _suffix(name).removeprefix("_")
    if own == unit:
        return number
    if readings(name, unit):
        return None
    both = next((m for m in _MEASURES if unit in m and own in m), None)
    return None if both is None else float(f"{number * both[unit] / both[own]:.12g}")
