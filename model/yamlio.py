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

import os
import re
import stat
from pathlib import Path

import yaml

from . import paths
from .errors import UserError

_BASE = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
YAMLError = yaml.YAMLError


class _Loader(_BASE):
    """The safe loader with YAML 1.2's numbers (its core schema): ``1e12`` is a float (YAML 1.1,
    which PyYAML follows, wants a dot and a signed exponent, so it read it as a string), ``0100`` is
    one hundred (1.1 read a leading zero as octal: 64) and ``1:30`` is text (1.1 read it in base 60:
    90); ``0o17`` and ``0x1F`` keep their bases. Digits with ``_`` are text too."""


_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
# a date is text here: the safe loader would build a datetime, which no key takes and which the
# project would then pass on as something other than the JSON kinds (see TAGS)
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag not in (_INT, _FLOAT, _TIMESTAMP)]
    for first, resolvers in _BASE.yaml_implicit_resolvers.items()
}
# the tags a user's file may give: text, numbers, true/false, null, lists and mappings (JSON's
# kinds). The safe loader also builds bytes (!!binary), sets (!!set), dates (!!timestamp) and
# ordered pairs (!!omap, !!pairs), which no key takes, and a bytes value escaped the quoting of a
# papermill sweep's parameters cell: its text ran as code in the notebook
TAGS = frozenset(
    {None, "!"}
    | {
        f"tag:yaml.org,2002:{kind}"
        for kind in ("str", "int", "float", "bool", "null", "seq", "map")
    }
)
_Loader.add_implicit_resolver(
    _INT, re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"), list("-+0123456789")
)
_Loader.add_implicit_resolver(
    _FLOAT,
    re.compile(
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*|[0-9]+(?:\.[0-9]*)?[eE][-+]?[0-9]+"
        r"|\.[0-9]+[eE][-+]?[0-9]+)|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
    list("-+0123456789."),
)


def _int(loader, node) -> int:
    text = loader.construct_scalar(node)
    try:
        if text.startswith(("0o", "0x")):
            return int(text[2:], 8 if text[1] == "o" else 16)
        return int(text, 10)
    except ValueError:  # an explicit !!int on text that is not one
        raise yaml.constructor.ConstructorError(
            None, None, f"not an integer: {text!r}", node.start_mark
        ) from None


_Loader.add_constructor(_INT, _int)
_LOADER = _Loader

MAX_FILE_BYTES = 1_000_000  # 1 MB: the largest shipped YAML file is about 40 kB
MAX_DEPTH = 32  # mappings and lists inside one another; shipped files reach 6
MAX_ALIAS_NODES = 10_000  # nodes that aliases stand for, in all; shipped files use a few dozen


def refuse_pipe(mode: int, where: str) -> None:
    """Refuse a pipe or a socket (file ``mode``), which a read would wait on or find no file at."""
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        raise UserError(where, None, "is a pipe or a socket, not a file; expected a YAML file")


def read_text(path: Path, where: str) -> str:
    """The text of a user's YAML file, refused when it is not a readable, small, UTF-8 file."""
    path = Path(path)
    if paths.is_dir(path):
        raise UserError(where, None, "is a directory; expected a YAML file")
    try:
        # never blocks: a FIFO opened for reading waits for a writer, which may never come
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with open(fd, "rb") as f:
            refuse_pipe(os.fstat(f.fileno()).st_mode, where)
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
    scalars: dict[str, tuple] = {}  # anchor of a scalar -> the key it makes, and its text
    frames: list[list] = [[None, 0]]  # [anchor, nodes so far] per open collection
    # per open collection: [keys seen (None: a list), next node is a key, where it sits (the keys
    # and list positions above it, said with a key given twice), its last key, its next position
    # (a list's; None at the document's root)]
    mappings: list[list] = [[None, False, (), None, None]]
    through_aliases = 0
    loader = _LOADER(text)
    try:
        while loader.check_event():
            event = loader.get_event()
            kind = type(event)  # one test an event: a catalog load sees thousands of them
            if getattr(event, "tag", None) not in TAGS:
                shown = event.tag.replace("tag:yaml.org,2002:", "!!")
                raise UserError(
                    where,
                    None,
                    f"a YAML tag (line {event.start_mark.line + 1}), {shown}, is not allowed: "
                    "write plain values (text, numbers, true or false, null, lists, mappings)",
                )
            if kind is yaml.ScalarEvent:
                _place(mappings[-1])
                _check_key(mappings[-1], event, where, loader, scalars)
                if event.anchor is not None:
                    sizes[event.anchor] = 1
                    scalars[event.anchor] = (_key(event, loader), event.value)
                frames[-1][1] += 1
            elif kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
                inside = _place(mappings[-1])
                _check_key(mappings[-1], event, where, loader, scalars)
                mappings.append(
                    [set(), True, inside, None, None]
                    if kind is yaml.MappingStartEvent
                    else [None, False, inside, None, 0]
                )
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
                _place(mappings[-1])
                _check_key(mappings[-1], event, where, loader, scalars)
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


def _place(collection: list) -> tuple:
    """Where the node that comes next in ``collection`` (``_check_events``' frame) sits: the keys
    and list positions down to it, a list's position counted on."""
    keys, is_key, place, last_key, position = collection
    if keys is not None:  # a mapping: a value sits under its key (a key, where the mapping is)
        return place if is_key else (*place, str(last_key))
    if position is None:  # the document's root
        return place
    collection[4] = position + 1
    return (*place, f"[{position}]")


def _dotted(place: tuple) -> str:
    """A place (``_place``) as the messages name a key: ``ssds.x.capacity_GB``, ``attach[2]``."""
    return "".join(p if p.startswith("[") or i == 0 else f".{p}" for i, p in enumerate(place))


def _check_key(mapping: list, event, where: str, loader, scalars: dict[str, tuple]) -> None:
    """In a mapping, every other node is a key: refuse one given twice (YAML would keep the last
    silently), as the loader will read it: ``1`` and ``0x1``, ``yes`` and ``true`` are one key; and
    as the schema will, which names every key by its text: ``1`` and ``'1'``, ``true`` and
    ``'True'`` are one key there. A key written as an alias is its anchor's scalar (``scalars``:
    the key each anchored scalar makes, and its text), so that ``{&k a: 2, *k : 3}`` gives ``a``
    twice (the hostile-input audit: the alias went unchecked and its value won); an alias of a
    list or a mapping is no key the loader takes, and it says so. A merge key (``<<: *a``) is
    refused: YAML 1.2 has none, and PyYAML's takes a key from each merged mapping unchecked."""
    keys, is_key, place = mapping[0], mapping[1], mapping[2]
    if keys is None:
        return
    mapping[1] = not is_key
    if not is_key:
        return
    if isinstance(event, yaml.ScalarEvent):
        if event.implicit[0] and event.value == "<<":
            raise UserError(
                where,
                "<<",
                f"a merge key (line {event.start_mark.line + 1}) is YAML 1.1's, which these files "
                "do not take: it lets a key be given twice unseen; write the keys themselves",
            )
        key, shown, through = _key(event, loader), event.value, ""
    elif isinstance(event, yaml.AliasEvent) and event.anchor in scalars:
        (key, shown), through = scalars[event.anchor], f", through the alias *{event.anchor}"
    else:
        return
    mapping[3] = shown
    text = ("text", str(key))
    if key in keys or text in keys:
        raise UserError(
            where,
            _dotted((*place, str(shown))),
            f"given twice (line {event.start_mark.line + 1}{through}); keep one",
        )
    keys.update((key, text))


def _key(event, loader):
    """The value a scalar key will have in the mapping the loader builds (its text if it cannot be
    built, which the loader then reports)."""
    if event.implicit[0]:  # plain: its tag resolved as the loader resolves it
        tag = loader.resolve(yaml.ScalarNode, event.value, (True, False))
    elif event.tag in (None, "!"):
        tag = "tag:yaml.org,2002:str"
    else:
        tag = event.tag
    try:
        value = loader.construct_object(yaml.ScalarNode(tag, event.value, event.start_mark))
        hash(value)
    except Exception:  # an unbuildable key is the loader's to report
        return event.value
    return value


def safe_load(text: str, where: str = "YAML text"):
    """The data of ``text`` (safe tags only); a bomb or a too-deep nesting raises ``UserError``,
    malformed YAML ``YAMLError``."""
    _check_events(text, where)
    return yaml.load(text, Loader=_LOADER)


def flow_text(value) -> str:
    """``value`` as one line of YAML that ``safe_load`` reads back as the same value: a string
    quoted where it would read as something else ("4 # eight" stays text, not 4; "null" stays the
    word), a list or a mapping in flow form. A grid's values reach a scenario as ``--set`` text
    through it."""
    text = yaml.safe_dump([value], default_flow_style=True, width=float("inf"), allow_unicode=True)
    text = text.strip()[1:-1]
    if isinstance(value, str) and safe_load(text) != value:  # plain to YAML 1.1, not to 1.2: 1e12
        text = "'" + value.replace("'", "''") + "'"
    return text
