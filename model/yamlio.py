"""Safe YAML loading of users' files, through libyaml's C parser where PyYAML has it.

Every YAML file the project reads from a user (scenarios, grids, parts) passes here, and a file
that would exhaust the machine is refused with one line naming it (``UserError``, exit 2) before
it is built: a file above ``MAX_FILE_BYTES`` (``/dev/zero`` included), a directory, bytes that
are not UTF-8, nesting deeper than ``MAX_DEPTH``, and anchors whose aliases would stand for more
than ``MAX_ALIAS_NODES`` nodes in all (a 442-byte "billion laughs" grid expands to billions of
nodes). A first pass over the parser's events checks depth and alias expansion, stopping at the
first excess (libyaml's parse time grows with the square of the depth), then the C loader builds
the data as before.
"""

import re
from pathlib import Path

import yaml

from .errors import UserError

_BASE = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
YAMLError = yaml.YAMLError


class _Loader(_BASE):
    """The safe loader with YAML 1.2's numbers: ``1e12`` and ``1.0e12`` are floats (YAML 1.1, which
    PyYAML follows, wants a dot and a signed exponent, so it read them as strings)."""

    yaml_implicit_resolvers = {k: list(v) for k, v in _BASE.yaml_implicit_resolvers.items()}


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)[eE][-+]?[0-9]+$"),
    list("-+0123456789."),
)
_LOADER = _Loader

MAX_FILE_BYTES = 1_000_000  # 1 MB: the largest shipped YAML file is under 30 kB
MAX_DEPTH = 32  # mappings and lists inside one another; shipped files reach 6
MAX_ALIAS_NODES = 10_000  # nodes that aliases stand for, in all; shipped files use a few dozen


def read_text(path: Path, where: str) -> str:
    """The text of a user's YAML file, refused when it is not a readable, small, UTF-8 file."""
    path = Path(path)
    if path.is_dir():
        raise UserError(where, None, "is a directory; expected a YAML file")
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise UserError(where, None, "no such file") from None
    except OSError as exc:
        raise UserError(where, None, f"cannot read it ({exc.strerror or exc})") from None
    if len(data) > MAX_FILE_BYTES:
        raise UserError(where, None, f"larger than {MAX_FILE_BYTES:,} bytes; not a YAML file here")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UserError(
            where, None, f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from None


def _check_events(text: str, where: str) -> None:
    """Refuse nesting deeper than MAX_DEPTH and aliases standing for more than MAX_ALIAS_NODES."""
    sizes: dict[str, int] = {}  # anchor -> nodes its value holds, aliases expanded
    frames: list[list] = [[None, 0]]  # [anchor, nodes so far] per open collection
    mappings: list[list] = [[None, False]]  # [keys seen, next node is a key] per open collection
    through_aliases = 0
    loader = _LOADER(text)
    try:
        while loader.check_event():
            event = loader.get_event()
            kind = type(event)  # one test an event: a catalog load sees thousands of them
            if kind is yaml.ScalarEvent:
                _check_key(mappings[-1], event, where)
                if event.anchor is not None:
                    sizes[event.anchor] = 1
                frames[-1][1] += 1
            elif kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
                _check_key(mappings[-1], event, where)
                mappings.append([set(), True] if kind is yaml.MappingStartEvent else [None, False])
                if len(frames) > MAX_DEPTH:
                    mark = event.start_mark
                    raise UserError(
                        where,
                        None,
                        f"nested deeper than {MAX_DEPTH} levels (line {mark.line + 1})",
                    )
                frames.append([event.anchor, 1])
            elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
                mappings.pop()
                anchor, size = frames.pop()
                if anchor is not None:
                    sizes[anchor] = size
                frames[-1][1] += size
            elif kind is yaml.AliasEvent:
                _check_key(mappings[-1], event, where)
                size = sizes.get(event.anchor, 1)
                through_aliases += size
                frames[-1][1] += size
                if through_aliases > MAX_ALIAS_NODES:
                    raise UserError(
                        where,
                        None,
                        f"its aliases stand for more than {MAX_ALIAS_NODES:,} nodes "
                        f"(line {event.start_mark.line + 1}); write the values out",
                    )
    finally:
        loader.dispose()


def _check_key(mapping: list, event, where: str) -> None:
    """In a mapping, every other node is a key: refuse one given twice (YAML would keep the last
    silently)."""
    keys, is_key = mapping
    if keys is None:
        return
    mapping[1] = not is_key
    if is_key and isinstance(event, yaml.ScalarEvent):
        if event.value in keys:
            raise UserError(
                where, event.value, f"given twice (line {event.start_mark.line + 1}); keep one"
            )
        keys.add(event.value)


def safe_load(text: str, where: str = "YAML text"):
    """The data of ``text`` (safe tags only); a bomb or a too-deep nesting raises ``UserError``,
    malformed YAML ``YAMLError``."""
    _check_events(text, where)
    return yaml.load(text, Loader=_LOADER)
