"""Cassette documents to and from YAML text: legible, exact, and safe. No file IO.

Bodies are written so that a person can read them and so that they load back byte for byte:

* text that YAML can hold verbatim in a literal block (``|``) is written that way, which is
  how a stream reads best: one SSE line per line;
* text that a literal block cannot carry exactly (carriage returns, a BOM, trailing spaces,
  control characters) is written as a double-quoted string with escapes;
* bytes that are not valid UTF-8 are written as ``!!binary`` (base64), which vcrpy reads too.

Every write is checked by loading it back. A cassette is untrusted input, so :func:`loads`
first scans the YAML event stream (the parser is iterative: nothing is built yet) and refuses
what a cassette never needs and an attacker could use: anchors and aliases (a "billion laughs"
file of a few hundred bytes expands to gigabytes), tags other than those raf and vcrpy write
(``str``, ``int``, ``float``, ``bool``, ``null``, ``map``, ``seq``, ``binary``; no tag can
construct an object), nesting deeper than :data:`raf.limits.MAX_YAML_DEPTH`, more than
:data:`raf.limits.MAX_YAML_NODES` nodes, and several documents in one file. Only then is the
document built, by a safe loader that resolves plain scalars to those same types only (a
date-like scalar stays text). Every refusal is a :class:`raf.errors.CassetteFormatError` with
the line.

``raf cassette lint`` reads more of the file than its document (:func:`read_for_lint`): the
keys that appear twice in one mapping (YAML keeps the later value and drops the first without
a word, so no reader of the document ever sees it) and the text that no value of the document
holds (comments, keys, the values of those dropped keys), for the secret scan to read too.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from re import Pattern
from typing import Any, ClassVar, cast

import yaml

from raf.errors import CassetteFormatError
from raf.limits import MAX_YAML_DEPTH, MAX_YAML_NODES

__all__ = [
    "ALLOWED_TAGS",
    "DuplicateKey",
    "LintView",
    "dumps",
    "loads",
    "loads_with_lines",
    "read_for_lint",
]

_Base: type[yaml.SafeLoader | yaml.CSafeLoader]
try:  # the C implementation when present, as vcrpy does
    _Base = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _Base = yaml.SafeLoader

ALLOWED_TAGS = frozenset(
    f"tag:yaml.org,2002:{name}"
    for name in ("str", "int", "float", "bool", "null", "map", "seq", "binary")
)
"""The YAML tags a cassette may use (explicitly, or by the resolution of a plain scalar)."""


class _Loader(_Base):  # type: ignore[valid-type, misc]
    """The safe loader, resolving plain scalars to allowed tags only: no implicit
    ``timestamp`` (a date stays text), ``merge`` (``<<``) or ``value`` (``=``)."""

    yaml_implicit_resolvers: ClassVar[dict[Any, list[tuple[str, Pattern[str]]]]] = {
        first: [(tag, pattern) for tag, pattern in resolvers if tag in ALLOWED_TAGS]
        for first, resolvers in _Base.yaml_implicit_resolvers.items()
    }


class _Frame:
    """An open mapping or sequence while the event stream is scanned (for the line index)."""

    __slots__ = ("count", "key", "keys", "last", "mapping", "path")

    def __init__(self, path: str | None, mapping: bool) -> None:
        self.path = path  # None: inside a mapping key, which has no place of its own
        self.mapping = mapping
        self.key: str | None = None  # the key whose value comes next (mappings)
        self.count = 0  # the index of the next item (sequences)
        # With a _Layout: each scalar key's line and the spans of its value, as indexes into
        # _Layout.values (the end is known once the next key starts); the last key seen.
        self.keys: dict[str, tuple[int, int, int]] = {}
        self.last: str | None = None

    def child(self, event: yaml.NodeEvent) -> str | None:
        """The place of the node that ``event`` starts (``None`` for a mapping key)."""
        if not self.mapping:
            self.count += 1
            return None if self.path is None else f"{self.path}[{self.count - 1}]"
        if self.key is None:  # this node is a key
            self.key = event.value if isinstance(event, yaml.ScalarEvent) else "?"
            return None
        key, self.key = self.key, None
        if self.path is None:
            return None
        return f"{self.path}.{key}" if self.path else key


@dataclass(frozen=True)
class DuplicateKey:
    """A key that appears twice in one mapping: YAML keeps the value of the later one."""

    where: str
    """The place of the value kept (``interactions[0].response.body.string``)."""
    key: str
    line: int
    """The line of the later key."""
    first_line: int
    """The line of the key whose value is dropped."""


class _Layout:
    """What the lint scan notes beside the line index: the character spans of the values
    (scalars that are not keys, nor inside a key), each ``[start, end, kept]``, and the
    duplicate keys; the spans of a dropped value are not kept."""

    def __init__(self) -> None:
        self.values: list[list[int]] = []
        self.duplicates: list[DuplicateKey] = []

    def key(self, frame: _Frame, event: yaml.ScalarEvent, line: int) -> None:
        """A scalar key of ``frame`` starts (at ``line``): the value of the previous key
        ends, and if this key was seen before, the earlier value is dropped."""
        self.end_value(frame)
        key = event.value
        earlier = frame.keys.get(key)
        if earlier is not None:
            first_line, start, end = earlier
            for span in self.values[start:end]:
                span[2] = 0
            where = f"{frame.path}.{key}" if frame.path else key
            self.duplicates.append(DuplicateKey(where, key, line, first_line))
        frame.keys[key] = (line, len(self.values), len(self.values))
        frame.last = key

    def end_value(self, frame: _Frame) -> None:
        """The value of ``frame``'s last key ends here."""
        if frame.last is not None:
            line, start, _ = frame.keys[frame.last]
            frame.keys[frame.last] = (line, start, len(self.values))
            frame.last = None


def _scan(
    text: str | bytes,
    source: str,
    index: dict[str, int] | None,
    layout: _Layout | None = None,
) -> None:
    """Refuse what a cassette must not hold, from the event stream alone; with ``index``,
    record the line of every value by its place (``interactions[0].request.uri``); with
    ``layout`` (and ``index``) too, the spans of the values and the duplicate keys."""
    depth = nodes = documents = 0
    stack: list[_Frame] = []
    events = cast(Generator[yaml.Event, None, None], yaml.parse(text, Loader=_Loader))

    def refuse(event: yaml.Event, problem: str) -> CassetteFormatError:
        mark = event.start_mark
        return CassetteFormatError(source, problem, line=None if mark is None else mark.line + 1)

    try:
        for event in events:
            if isinstance(event, yaml.NodeEvent):
                if isinstance(event, yaml.AliasEvent):
                    raise refuse(
                        event,
                        f"an alias (*{event.anchor}): raf's files never need anchors or "
                        "aliases, and aliases can make a small file expand without bound",
                    )
                if event.anchor is not None:
                    raise refuse(
                        event, f"an anchor (&{event.anchor}): raf's files never need anchors"
                    )
                tag = getattr(event, "tag", None)
                if tag is not None and tag != "!" and tag not in ALLOWED_TAGS:
                    raise refuse(
                        event,
                        f"the tag {tag!r} is not allowed (only str, int, float, bool, null, "
                        "map, seq and binary)",
                    )
                nodes += 1
                if nodes > MAX_YAML_NODES:
                    raise refuse(event, f"more than {MAX_YAML_NODES:,} YAML nodes")
                start = isinstance(event, yaml.CollectionStartEvent)
                if start:
                    depth += 1
                    if depth > MAX_YAML_DEPTH:
                        raise refuse(event, f"nested deeper than {MAX_YAML_DEPTH} levels")
                if index is not None:
                    parent = stack[-1] if stack else None
                    is_key = parent is not None and parent.mapping and parent.key is None
                    place = parent.child(event) if parent is not None else ""
                    mark, end_mark = event.start_mark, event.end_mark
                    if place is not None and mark is not None:
                        index[place] = mark.line + 1
                    if layout is not None and mark is not None and end_mark is not None:
                        if is_key and isinstance(event, yaml.ScalarEvent):
                            assert parent is not None
                            if parent.path is not None:
                                layout.key(parent, event, mark.line + 1)
                        elif place is not None and isinstance(event, yaml.ScalarEvent):
                            layout.values.append([mark.index, end_mark.index, 1])
                    if start:
                        stack.append(_Frame(place, isinstance(event, yaml.MappingStartEvent)))
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
                if index is not None:
                    frame = stack.pop()
                    if layout is not None:
                        layout.end_value(frame)
            elif isinstance(event, yaml.DocumentStartEvent):
                documents += 1
                if documents > 1:
                    raise refuse(event, "several YAML documents (a cassette is one)")
    except yaml.YAMLError as exc:
        problem, line = _yaml_problem(exc)
        raise CassetteFormatError(source, problem, line=line) from exc
    finally:
        events.close()


def _yaml_problem(exc: yaml.YAMLError) -> tuple[str, int | None]:
    """A one-line message and the line of a PyYAML error."""
    if isinstance(exc, yaml.MarkedYAMLError):
        problem = "; ".join(p for p in (exc.context, exc.problem) if p) or "error"
        if "maximum nesting depth" in problem:  # libyaml's own limit (1000 flow levels)
            problem = f"nested deeper than {MAX_YAML_DEPTH} levels"
        else:
            problem = f"not valid YAML: {problem}"
        mark = exc.problem_mark or exc.context_mark
        if mark is not None:
            return f"{problem} (column {mark.column + 1})", mark.line + 1
        return problem, None
    return f"not valid YAML: {' '.join(str(exc).split())}", None


def _construct(text: str | bytes, source: str) -> Any:
    try:
        return yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as exc:
        problem, line = _yaml_problem(exc)
        raise CassetteFormatError(source, problem, line=line) from exc
    except (
        ValueError,
        LookupError,
        TypeError,
        AttributeError,
        ArithmeticError,
        RecursionError,
    ) as exc:
        # A scalar its tag cannot read (``!!int x``, ``!!int ''``, ``!!bool maybe``, an
        # integer of more digits than Python converts), found only when it is built.
        raise CassetteFormatError(source, f"a value cannot be read: {exc!r}") from exc


def loads(text: str | bytes, *, source: str = "<cassette>") -> Any:
    """The document of one cassette's YAML text, after the safety scan.

    Raises:
        CassetteFormatError: refused by the scan (see the module docstring), or not valid
            YAML; the message names ``source`` and the line.
    """
    _scan(text, source, None)
    return _construct(text, source)


def loads_with_lines(
    text: str | bytes, *, source: str = "<cassette>"
) -> tuple[Any, dict[str, int]]:
    """:func:`loads`, and the 1-based line of every value by its place in the document
    (``""`` for the document, then ``raf.scenario``, ``interactions[0].request.headers.x[0]``;
    a key that is not a scalar is ``?``). Used by ``raf cassette lint``.

    Raises:
        CassetteFormatError: as :func:`loads`.
    """
    index: dict[str, int] = {}
    _scan(text, source, index)
    return _construct(text, source), index


@dataclass(frozen=True)
class LintView:
    """A cassette file as ``raf cassette lint`` reads it (:func:`read_for_lint`)."""

    document: Any
    lines: dict[str, int]
    """The 1-based line of every value by its place (see :func:`loads_with_lines`)."""
    duplicates: list[DuplicateKey]
    """Keys that appear twice in one mapping, in the order of the later ones."""
    outside: list[tuple[int, str, bool]]
    """The text of the file that no value of the document holds, in pieces, each with the
    line it starts on and whether it is the value of a dropped key (else comments, keys and
    YAML's indicators)."""


def read_for_lint(text: str | bytes, *, source: str = "<cassette>") -> LintView:
    """:func:`loads_with_lines`, the duplicate keys, and the text outside the values.

    Raises:
        CassetteFormatError: as :func:`loads`.
    """
    if isinstance(text, bytes):
        data = text
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            _scan(data, source, None)  # YAML's own error; what passes is UTF-16
            text = data.decode("utf-16")
    text = text.removeprefix("\ufeff")  # positions then count from the first character
    index: dict[str, int] = {}
    layout = _Layout()
    _scan(text, source, index, layout)
    document = _construct(text, source)
    outside: list[tuple[int, str, bool]] = []
    position = line = 0
    for start, end, kept in (*layout.values, (len(text), len(text), 1)):
        piece = text[position:start]
        if piece.strip():
            outside.append((line + 1, piece, False))
        line += piece.count("\n")
        if not kept:
            outside.append((line + 1, text[start:end], True))
        line += text.count("\n", start, end)
        position = end
    return LintView(document, index, layout.duplicates, outside)


class _Dumper(yaml.SafeDumper):
    """A safe dumper that writes multi-line text as literal blocks where that is exact, and
    never writes anchors or aliases (:func:`loads` refuses them)."""

    literal_blocks = True

    def ignore_aliases(self, data: Any) -> bool:
        return True


class _QuotingDumper(_Dumper):
    """The fallback: no literal blocks at all."""

    literal_blocks = False


def _text(dumper: _Dumper, text: str) -> yaml.ScalarNode:
    if dumper.literal_blocks and "\n" in text and _literal_is_exact(text):
        return dumper.represent_scalar("tag:yaml.org,2002:str", text, style="|")
    if (
        "\r" in text
        or "\ufeff" in text
        or any(c in text for c in "\x85\u2028\u2029")  # YAML line breaks inside plain text
        or any(ord(c) < 0x20 and c not in "\n\t" for c in text)
    ):
        return dumper.represent_scalar("tag:yaml.org,2002:str", text, style='"')
    return dumper.represent_str(text)


def _literal_is_exact(text: str) -> bool:
    """Whether a literal block reproduces ``text`` exactly (YAML normalises some text)."""
    if "\r" in text or "\ufeff" in text or "\x85" in text or "\u2028" in text or "\u2029" in text:
        return False
    if any(ord(c) < 0x20 and c not in "\n\t" for c in text):
        return False
    # Trailing spaces and tabs, and lines of only spaces, make PyYAML fall back to quotes;
    # the round-trip check in ``dumps`` catches anything else.
    return not any(line != line.rstrip(" \t") for line in text.split("\n"))


_Dumper.add_representer(str, _text)


def dumps(document: dict[str, Any]) -> str:
    """YAML text of a cassette document (keys in the document's order).

    Raises:
        ValueError: the text would not load back as the same document (a bug in raf),
            :func:`loads` would refuse it (a :class:`CassetteFormatError`: more nodes or
            deeper nesting than a cassette may have), or the document is nested too deeply
            for the interpreter's stack where this is called.
    """
    try:
        prepared = _prepare(document)
        for dumper in (_Dumper, _QuotingDumper):
            text = yaml.dump(
                prepared,
                Dumper=dumper,
                sort_keys=False,
                allow_unicode=True,
                width=100,
                default_flow_style=False,
            )
            if loads(text) == prepared:
                return text
    except RecursionError:  # PyYAML's representer recurses once per level of nesting
        raise ValueError("the cassette is nested too deeply to be written here") from None
    raise ValueError("the cassette does not survive a YAML round trip")


def _prepare(node: Any) -> Any:
    """Bodies: valid UTF-8 bytes become text; other bytes stay bytes (``!!binary``)."""
    if isinstance(node, dict):
        return {k: _prepare(v) for k, v in node.items()}
    if isinstance(node, list | tuple):
        return [_prepare(v) for v in node]
    if isinstance(node, bytes):
        try:
            return node.decode("utf-8")
        except UnicodeDecodeError:
            return node
    return node
