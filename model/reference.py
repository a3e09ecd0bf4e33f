"""The reference of every scenario key, generated from the models' spec dataclasses (one source).

For each registered model (``model.registry``) the body dataclass is walked field by field: a nested
dataclass is a section (``workload``), a mapping of dataclasses a section of named entries
(``volumes.NAME``, NAME being the user's own), a tuple a list. Each key gets its type in words, its
unit (from its name's suffix, ``model.units``), its default (the field's, ``required`` when it has
none), what values are allowed (``Literal`` options, ``schema.Bound`` or ``schema.Words`` words)
and its meaning: the sentences of its class docstring that name it in double backticks, and the
comments on its lines or right above it in the spec's source. ``python -m model schema`` prints it
and ``docs/scenario-reference.md`` holds its markdown (``tests/test_reference.py`` fails when
stale).
"""

from __future__ import annotations

import ast
import dataclasses
import fnmatch
import functools
import inspect
import io
import re
import textwrap
import tokenize
import types
import typing
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from . import catalog, registry, unknowns
from .design_points import MAX_SIMULATIONS
from .errors import UserError
from .parts import CATEGORIES
from .scenario import MAX_VARIANTS
from .schema import named_scenarios, type_hints, words_of
from .units import unit_of
from .unknowns import Unknown

NAME = (
    "NAME"  # stands for the user's own name of a mapping's entry (``volumes.md0`` is volumes.NAME)
)

# The keys every scenario file has besides its model's body (``model.scenario.HEADER_KEYS``).
HEADER: dict[str, tuple[str, str, str, str]] = {  # key -> (type, default, allowed, meaning)
    "name": (
        "string",
        "required",
        "",
        "The scenario's name, printed with every prediction (--set name=... changes it).",
    ),
    "model": ("string", "required", "a registered model", "The model that simulates it."),
    "description": ("string", "required", "", "What the scenario describes, in words."),
    "source": (
        "string",
        "required",
        "",
        "Where its figures come from: a report and its section, or 'estimated' and why.",
    ),
    "seed": ("integer", "1", "zero or a positive integer", "The seed of the run's random streams."),
    "variants": (
        "mapping",
        "none",
        "",
        "Named sets of dotted.key: value overrides; --set variant=NAME picks one. At most "
        f"{MAX_VARIANTS} (every one is checked when the file loads); a sweep grid is the place for "
        "more.",
    ),
    "unknowns": (
        "mapping",
        "none",
        "KEY: {options: [...]} or {range: [low, high]}, or NAME: {options: {OPTION: {KEY: value, "
        "...}, ...}}; with source: (and variants: [...])",
        "Facts the sources leave unsaid: a scenario key (dotted, as --set takes it) with the "
        "values its documentation allows and where they come from; the scenario's own value is the "
        "documented default. One fact that sets several keys together (how many host adapters "
        "carry an array's wires sets the link each wire hangs from) is one unknown: a NAME (words, "
        "no dots) whose options each set the same keys, so that what they do together is ranked "
        "as that fact's; the scenario's own values must be one option's. Predictions carry their "
        "spread (model.uncertainty), whose simulations grow with them: an interval that would "
        f"need more than {MAX_SIMULATIONS} is refused (predict --point gives the prediction "
        "alone). A catalog "
        "part may declare them too (one key each), keyed beside the key that names it; where the "
        "scenario leaves that key null to take the part's own figure, the figure is the default.",
    ),
}


@dataclass(frozen=True)
class Key:
    """One key of a scenario: dotted (NAME for a mapping's entries), with what the user needs."""

    key: str
    type: str
    unit: str
    default: str
    allowed: str
    meaning: str


@dataclass(frozen=True)
class Section:
    """The keys of one dataclass inside a body (``key`` empty for the body's own top level)."""

    key: str
    meaning: str
    keys: tuple[Key, ...]


@dataclass(frozen=True)
class ModelReference:
    name: str
    summary: str
    sections: tuple[Section, ...]
    kind: str = "model"  # or "parts": a category of a parts file (``model.user_parts``)


def _strip(tp: Any) -> tuple[Any, bool]:
    """``tp`` without ``Annotated`` and ``None``, and whether it may be left unset (None)."""
    optional = False
    while True:
        origin, args = typing.get_origin(tp), typing.get_args(tp)
        if origin is Annotated:
            tp = args[0]
        elif origin in (typing.Union, types.UnionType) and type(None) in args:
            optional, rest = True, [a for a in args if a is not type(None)]
            if len(rest) != 1:
                return tp, optional
            tp = rest[0]
        else:
            return tp, optional


_WORDS = {int: "integer", float: "number", str: "string", bool: "true or false"}
_PLURAL = {"integer": "integers", "number": "numbers", "string": "strings"}


def _type_words(tp: Any) -> str:
    """A key's type in words: integer, number, string, list of integers, mapping..."""
    core, optional = _strip(tp)
    origin = typing.get_origin(core)
    if origin is Literal:  # the kind its options share: strings, integers, true or false
        kinds = {_WORDS.get(type(a), "string") for a in typing.get_args(core)}
        words = kinds.pop() if len(kinds) == 1 else "string"
    elif origin in (tuple, list):
        item = _type_words(typing.get_args(core)[0])
        words = f"list of {_PLURAL.get(item, f'({item})')}"
    elif origin is dict or dataclasses.is_dataclass(core):
        words = "mapping"
    elif origin in (typing.Union, types.UnionType):  # its kinds (true or false, or a string)
        kinds = (_type_words(a) for a in typing.get_args(core) if a is not type(None))
        words = " or ".join(dict.fromkeys(kinds))
    else:
        words = _WORDS.get(core, getattr(core, "__name__", str(core)))
    return f"{words}, or unset" if optional else words


def _allowed(tp: Any) -> str:
    """What a type admits beyond its kind: Literal options, numeric bounds (schema's words)."""
    origin = typing.get_origin(tp)
    if origin is Annotated:
        base, *extra = typing.get_args(tp)
        words = words_of(extra)
        return words if words is not None else _allowed(base)
    if origin is Literal:
        return ", ".join(str(a) for a in typing.get_args(tp))
    if origin in (typing.Union, types.UnionType):
        return " or ".join(
            filter(None, (_allowed(a) for a in typing.get_args(tp) if a is not type(None)))
        )
    if origin in (tuple, list):
        inner = _allowed(typing.get_args(tp)[0])
        return f"each {inner.removeprefix('a ').removeprefix('an ')}" if inner else ""
    return ""


def _shown(value: Any) -> str:
    """A default as a scenario file would write it."""
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(_shown(v) for v in value) + "]"
    return str(value)


@functools.cache
def _source(cls: type) -> tuple[str | None, dict[str, str]]:
    """A dataclass's docstring and each field's comments (on its lines, and the comment lines
    right above it), read from its source."""
    text = textwrap.dedent(inspect.getsource(cls))
    node = ast.parse(text).body[0]
    assert isinstance(node, ast.ClassDef)
    comments = {
        tok.start[0]: tok.string.lstrip("#").strip()
        for tok in tokenize.generate_tokens(io.StringIO(text).readline)
        if tok.type == tokenize.COMMENT
    }
    lines = text.splitlines()
    found: dict[str, str] = {}
    for stmt in node.body:
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            continue
        above, line = [], stmt.lineno - 1
        while line >= 1 and lines[line - 1].lstrip().startswith("#"):
            above.insert(0, comments[line])
            line -= 1
        inside = [comments[n] for n in range(stmt.lineno, stmt.end_lineno + 1) if n in comments]
        found[stmt.target.id] = " ".join(above + inside)
    return ast.get_docstring(node), found


def _sentences(doc: str | None) -> list[str]:
    if not doc:
        return []
    out = []
    for paragraph in re.split(r"\n\s*\n", doc):
        flat = " ".join(paragraph.split())
        out += re.split(r"(?<=[.!?])\s+(?=[A-Z`(\"])", flat)
    return out


def _names(sentence: str, name: str) -> bool:
    """Whether a docstring sentence names ``name`` in double backticks (``core_*`` as a pattern,
    ``io: mmap`` naming ``io``)."""
    tokens = re.findall(r"``([^`]+)``", sentence)
    return any(fnmatch.fnmatchcase(name, t.split(":")[0].strip()) for t in tokens)


# a docstring sentence naming more keys than this is about the section, not about one of them: a key
# with a comment of its own leaves it to the section's summary
SECTION_SENTENCE_KEYS = 3


def meaning(cls: type, name: str) -> str:
    """What the spec says a key of ``cls`` means: its comments, then its docstring's sentences
    naming it (those naming many keys only where the key has no comment of its own). A dataclass
    that extends another (``TcpTuned`` of ``TcpCaps``) keeps what its base says of a key: the
    comment is the nearest class's that has one, the sentences those of each class's docstring,
    the class's own first."""
    sources = [_source(c) for c in cls.__mro__ if dataclasses.is_dataclass(c)]
    said: list[str] = []
    comment = next((c[name] for _, c in sources if c.get(name)), "").rstrip(".")
    if comment:  # a sentence, unless it opens with a key or value (``per_file: ...``)
        first = comment.split()[0]
        said.append(
            (first if "_" in first else first[0].upper() + first[1:]) + comment[len(first) :] + "."
        )
    for doc, _ in sources:
        for sentence in _sentences(doc):
            keys = {t.split(":")[0].strip() for t in re.findall(r"``([^`]+)``", sentence)}
            if (
                _names(sentence, name)
                and not (comment and len(keys) > SECTION_SENTENCE_KEYS)
                and sentence not in said
            ):
                said.append(sentence)
    return " ".join(said)


def summary(cls: type) -> str:
    """A dataclass docstring's first paragraph, on one line."""
    doc, _ = _source(cls)
    return " ".join((doc or "").split("\n\n")[0].split())


def _walk(cls: type, prefix: str, defaults: Any, intro: str, out: list[Section]) -> None:
    """Append the section of ``cls`` at ``prefix``, then its subsections, in field order."""
    hints = type_hints(cls)
    at = len(out)
    keys: list[Key] = []
    for f in dataclasses.fields(cls):
        if not f.init:  # set by the loader, not written in a file
            continue
        tp, dotted = hints[f.name], prefix + f.name
        core, _ = _strip(tp)
        if defaults is not None:
            default: Any = getattr(defaults, f.name)
        elif f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        else:
            default = dataclasses.MISSING
        said = meaning(cls, f.name)
        if dataclasses.is_dataclass(core):
            inner = default if dataclasses.is_dataclass(default) else None
            _walk(core, dotted + ".", inner, " ".join(filter(None, (said, summary(core)))), out)
            continue
        if typing.get_origin(core) is dict:
            item, _ = _strip(typing.get_args(core)[1])
            if dataclasses.is_dataclass(item):
                text = " ".join(filter(None, (said, summary(item))))
                _walk(item, f"{dotted}.{NAME}.", None, text, out)
                continue
            dotted += f".{NAME}"
        keys.append(
            Key(
                key=dotted,
                type=_type_words(tp),
                unit=unit_of(f.name),
                default="required" if default is dataclasses.MISSING else _shown(default),
                allowed=_allowed(tp),
                meaning=said,
            )
        )
    out.insert(at, Section(prefix.rstrip("."), intro, tuple(keys)))


def model_reference(name: str) -> ModelReference:
    """The reference of one registered model."""
    return _model_reference(name, registry.MODELS[name].body)


@functools.cache
def _model_reference(name: str, body: type) -> ModelReference:
    sections: list[Section] = []
    _walk(body, "", None, "", sections)
    return ModelReference(name, summary(body), tuple(s for s in sections if s.keys))


# the key a user's part may start with besides its parameters (``model.user_parts``)
LIKE = Key(
    "like",
    "string",
    "",
    "unset",
    "an id of the same category",
    "Start from that part (the catalog's or another of the file's) and change only the keys given, "
    "each changed number with a source of its own.",
)


@functools.cache
def parts_reference(category: str) -> ModelReference:
    """The keys of one category of a parts file (``--catalog FILE``, a scenario's ``parts:``),
    as the catalog's own files (data/hardware/CATEGORY.yaml) have them."""
    cls = CATEGORIES[category]
    sections: list[Section] = []
    _walk(cls, "", None, "", sections)
    first, *rest = (s for s in sections if s.keys)
    first = dataclasses.replace(first, keys=(LIKE, *first.keys))
    return ModelReference(category, summary(cls), (first, *rest), kind="parts")


def references() -> list[ModelReference]:
    return [model_reference(name) for name in registry.MODELS]


def header_section() -> Section:
    models = ", ".join(registry.MODELS)
    keys = tuple(
        Key(k, t, "", d, models if k == "model" else a, m) for k, (t, d, a, m) in HEADER.items()
    )
    return Section("", "The keys every scenario file has, whatever its model.", keys)


def _matches(pattern: str, section: str) -> bool:
    """Whether a user's ``SECTION`` (``volumes``, ``volumes.NAME.disks``, ``volumes.md0.disks``)
    names ``section`` or one inside it."""
    want, have = pattern.split("."), section.split(".")
    return len(want) <= len(have) and all(
        w == h or h == NAME for w, h in zip(want, have, strict=False)
    )


def select(target: str | None, where: str = "schema") -> list[ModelReference]:
    """The references ``MODEL[.SECTION]`` asks for (every model when None)."""
    if not target:
        return references()
    name, _, section = target.partition(".")
    if name in CATEGORIES:
        if section:
            raise UserError(
                where, target, f"a parts file's category takes no section: ask for {name} alone"
            )
        return [parts_reference(name)]
    if name not in registry.MODELS:
        raise UserError(
            where,
            name,
            f"unknown model{_scenario_of_model(name)}; allowed: {', '.join(registry.MODELS)}, or "
            f"a category of a parts file: {', '.join(CATEGORIES)}",
        )
    ref = model_reference(name)
    if not section:
        return [ref]
    head, _, inner = section.partition(".")
    named = named_scenarios(registry.MODELS[name].body).get(head)
    if named is not None:  # ingest.storage.volumes: the keys --set storage.volumes... reaches
        model = next(m for m in registry.MODELS if registry.MODELS[m].body is named)
        try:
            return select(f"{model}.{inner}" if inner else model, where)
        except UserError as exc:  # told at the section as the user asked for it
            raise UserError(where, target, exc.message) from None
    chosen = tuple(s for s in ref.sections if s.key and _matches(section, s.key))
    if not chosen:
        allowed = ", ".join(s.key for s in ref.sections if s.key)
        raise UserError(
            where,
            target,
            f"unknown section of {name}; "
            + (f"allowed: {allowed}" if allowed else f"its keys are all top level: schema {name}"),
        )
    return [dataclasses.replace(ref, sections=chosen)]


def _scenario_of_model(name: str) -> str:
    """Where ``name`` is a project scenario's, which model it is of, for a refusal that asked the
    schema of a scenario (``schema atlas_triumf_send``: a physics audit); "" otherwise."""
    from . import scenario as scenario_module

    if name not in scenario_module.shipped_names():
        return ""
    model = scenario_module.load(name).model
    return f" ({name} is a scenario, of model {model}: schema {model} lists its keys)"


def find(model: str, dotted: str) -> Key | None:
    """The reference's entry for a key as a scenario writes it (``volumes.md0.level``), or None."""
    for section in model_reference(model).sections:
        for key in section.keys:
            parts, want = key.key.split("."), dotted.split(".")
            if len(parts) == len(want) and all(
                p == w or p == NAME for p, w in zip(parts, want, strict=True)
            ):
                return key
    return None


@dataclass(frozen=True)
class Declared:
    """An unknown a shipped scenario or catalog part declares."""

    owner: str  # the scenario's file name or the part's id
    unknown: Unknown


def declared() -> list[Declared]:
    """Every unknown the shipped scenarios (``data/scenarios/``) and catalog parts declare."""
    from . import paths
    from . import scenario as scenario_module

    found = []
    for path in sorted(paths.SCENARIOS.glob("*.yaml")):
        raw = scenario_module.read_yaml(path)
        found += [
            Declared(path.stem, u) for u in unknowns.parse(raw.get("unknowns"), paths.shown(path))
        ]
    for table in catalog.load().parts.values():
        for pid, part in sorted(table.items()):
            found += [
                Declared(f"part {pid}", u)
                for u in unknowns.parse(part.unknowns or None, part.declared_in, f"{pid}.unknowns")
            ]
    return found


def _declared_line(d: Declared) -> str:
    variants = f" (variants {', '.join(d.unknown.variants)})" if d.unknown.variants else ""
    return f"{d.owner}: {d.unknown.key}{variants}, {d.unknown.allowed()}"


def _facts(key: Key) -> str:
    facts = [key.type] + ([key.unit] if key.unit else [])
    facts.append("required" if key.default == "required" else f"default {key.default}")
    return ", ".join(facts) + (f"; {key.allowed}" if key.allowed else "")


def _wrapped(text: str, indent: str) -> str:
    plain = text.replace("``", "`")
    return textwrap.fill(plain, 100, initial_indent=indent, subsequent_indent=indent)


def text(refs: list[ModelReference], header: bool = True) -> str:
    """The reference as ``python -m model schema`` prints it."""
    blocks = []
    if header:
        section = header_section()
        blocks.append(_wrapped("every scenario: " + section.meaning, ""))
        blocks += [
            f"  {k.key}  ({_facts(k)})\n{_wrapped(k.meaning, '      ')}" for k in section.keys
        ]
        blocks.append("declared unknowns (the scenarios' and parts' unknowns: blocks):")
        blocks += [
            f"  {_declared_line(d)}\n{_wrapped('source: ' + d.unknown.source, '      ')}"
            for d in declared()
        ]
    for ref in refs:
        what = "model" if ref.kind == "model" else "parts file, category"
        blocks.append(_wrapped(f"== {what} {ref.name}: {ref.summary}", ""))
        if ref.kind == "parts":  # where a refusal of an unknown id sends the user
            blocks.append(_wrapped(_catalog_ids(ref.name), ""))
        for section in ref.sections:
            if section.key:
                blocks.append(_wrapped(f"[{section.key}] {section.meaning}", ""))
            for k in section.keys:
                blocks.append(f"  {k.key}  ({_facts(k)})\n{_wrapped(k.meaning, '      ')}")
    return "\n".join(blocks)


def _catalog_ids(category: str) -> str:
    ids = ", ".join(sorted(catalog.load().parts[category]))
    return f"the catalog's ids (data/hardware/{category}.yaml): {ids}"


def _cell(value: str) -> str:
    return value.replace("|", "\\|") or " "


def _table(keys: tuple[Key, ...]) -> list[str]:
    rows = ["| key | type | unit | default | allowed | meaning |", "|---|---|---|---|---|---|"]
    for k in keys:
        cells = (f"`{k.key}`", k.type, k.unit, k.default, k.allowed, k.meaning)
        rows.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return rows


def markdown(refs: list[ModelReference], header: bool = True) -> str:
    """The reference in markdown: what ``docs/scenario-reference.md`` holds."""
    lines = [
        "# Scenario reference",
        "",
        "Every key of every model's scenario: its type, unit, default, allowed values and meaning.",
        "Generated from the spec dataclasses (`model/*/spec.py`, `model/settings.py`) by",
        "`python -m model schema --markdown > docs/scenario-reference.md`; do not edit it by hand",
        "(`tests/test_reference.py` fails when it is stale). `NAME` stands for a name you choose",
        "(`volumes.NAME` is `volumes.md0` in a scenario); a list is written `[a, b]`.",
    ]
    if header:
        section = header_section()
        lines += ["", "## Every scenario", "", section.meaning, "", *_table(section.keys)]
        lines += [
            "",
            "## Declared unknowns",
            "",
            "What the shipped scenarios and catalog parts declare under `unknowns:`.",
            "",
            "| declared by | key | variants | allowed | source |",
            "|---|---|---|---|---|",
        ]
        lines += [
            "| "
            + " | ".join(
                _cell(c)
                for c in (
                    d.owner,
                    f"`{d.unknown.key}`",
                    ", ".join(d.unknown.variants) or "all",
                    d.unknown.allowed(),
                    d.unknown.source,
                )
            )
            + " |"
            for d in declared()
        ]
    for ref in refs:
        lines += ["", f"## {ref.name}", "", ref.summary or f"The `{ref.name}` model."]
        for section in ref.sections:
            title = f"`{section.key}`" if section.key else "top level"
            lines += ["", f"### {ref.name}: {title}", ""]
            if section.meaning:
                lines += [section.meaning, ""]
            lines += _table(section.keys)
    return "\n".join(lines) + "\n"
