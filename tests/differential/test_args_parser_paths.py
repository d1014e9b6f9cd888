"""StreamingArgsParser: the fast paths of ``feed`` against the general path (``push`` then
``poll``), on valid and invalid arguments cut every way that matters.

Both sides read the same fragments; after every fragment the events (compared by ``repr``, so
``1`` and ``1.0`` differ), ``error`` and ``done`` must be identical, and neither may raise.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from raf.args_parser import StreamingArgsParser

Step = tuple[list[str], str | None, bool]


def through_feed(fragments: list[str], max_depth: int) -> list[Step]:
    parser = StreamingArgsParser(max_depth=max_depth)
    return [
        ([repr(e) for e in parser.feed(fragment)], parser.error, parser.done)
        for fragment in fragments
    ]


def through_push(fragments: list[str], max_depth: int) -> list[Step]:
    parser = StreamingArgsParser(max_depth=max_depth)
    out = []
    for fragment in fragments:
        parser.push(fragment)
        out.append(([repr(e) for e in parser.poll()], parser.error, parser.done))
    return out


def assert_same_paths(fragments: list[str], max_depth: int = 256) -> None:
    assert through_feed(fragments, max_depth) == through_push(fragments, max_depth)


# -- texts ------------------------------------------------------------------------------------

# Characters that matter inside strings: quotes, backslashes, controls, non-ASCII (BMP and
# astral, so that ensure_ascii writes surrogate pairs), line separators, and plain letters.
_STRING_CHARS = st.sampled_from(
    list('"\\/\n\r\t\b\f\x00\x01\x1f\x7f é€\u2028\ufeff😀\U0010ffffabcu{}[],:')
)
strings = st.text(_STRING_CHARS, max_size=12) | st.text(max_size=8)
keys = strings
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | strings
)
values: st.SearchStrategy[Any] = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=12,
)
objects = st.dictionaries(keys, values, max_size=5)


@st.composite
def valid_texts(draw: st.DrawFn) -> str:
    obj = draw(objects)
    style = draw(st.sampled_from(["compact", "ascii", "spaced", "indent"]))
    if style == "compact":
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    if style == "ascii":
        return json.dumps(obj)  # \\uXXXX escapes, astral characters as surrogate pairs
    if style == "spaced":
        return json.dumps(obj, ensure_ascii=False)
    indents: list[int | str] = [1, 2, "\t"]
    return json.dumps(obj, indent=draw(st.sampled_from(indents)))


# What a mutation inserts: cut or bad escapes, lone surrogates (escaped, and as a raw
# character, which a str fragment can hold), raw control characters, stray structure,
# malformed numbers and literals.
_SNIPPETS = [
    "\\",
    "\\u",
    "\\u00",
    "\\u12G4",
    "\\x",
    "\\U0041",
    "\\'",
    "\\ud83d",
    "\\ude00",
    "\\ud83d\\u0041",
    "\\ud83d\\ud83d",
    "\\uD83D\\uDE00",
    "\\\\",
    "\\\\u",
    "\\\\ud83d",
    "\ud800",
    "\udfff",
    "\x00",
    "\n",
    "\x1f",
    '"',
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    " ",
    "tru",
    "nul",
    "01",
    "-",
    "1e999",
    "1.",
    ".5",
    "x",
    '{"a":1}',
]


@st.composite
def mutated_texts(draw: st.DrawFn) -> str:
    text = draw(valid_texts())
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        at = draw(st.integers(min_value=0, max_value=len(text)))
        how = draw(st.sampled_from(["insert", "insert", "delete", "truncate"]))
        if how == "insert":
            text = text[:at] + draw(st.sampled_from(_SNIPPETS)) + text[at:]
        elif how == "delete":
            text = text[:at] + text[at + 1 :]
        else:
            text = text[:at]
    return text


@st.composite
def deep_texts(draw: st.DrawFn) -> str:
    """A nested value around the depth limit, with strings holding brackets."""
    depth = draw(st.integers(min_value=1, max_value=8))
    opener = draw(st.sampled_from(["[", '{"k":']))
    closer = "]" if opener == "[" else "}"
    inner = draw(st.sampled_from(["1", '"]}[{"', '"\\"]"', "[]", "{}", '"\\\\"']))
    closed = draw(st.integers(min_value=depth - 1, max_value=depth))  # maybe one short
    return '{"a":' + opener * depth + inner + closer * closed + ',"b":"\\n"}'


soup = st.text(alphabet='{}[]",:\\ \nabtrue0123456789.-eEu\u00e9\U0001f600\ud800\x01', max_size=40)
texts = valid_texts() | mutated_texts() | deep_texts() | soup


# -- fragmentations ------------------------------------------------------------------------


def cut_at(text: str, cuts: set[int]) -> list[str]:
    points = sorted(c for c in cuts if 0 < c < len(text))
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]


def near_escapes(text: str) -> set[int]:
    """Every position from a backslash to 6 characters after it: cuts inside escapes,
    inside \\uXXXX and between the two halves of a surrogate pair."""
    return {i + d for i, c in enumerate(text) if c == "\\" for d in range(7)}


@st.composite
def fragmentations(draw: st.DrawFn, text: str) -> list[str]:
    how = draw(st.sampled_from(["chars", "random", "escapes", "sized", "whole"]))
    if how == "chars":
        return list(text)
    if how == "whole":
        return [text]
    if how == "sized":
        size = draw(st.integers(min_value=1, max_value=12))
        return [text[i : i + size] for i in range(0, len(text), size)]
    n = max(len(text) - 1, 1)
    cuts = draw(st.sets(st.integers(min_value=1, max_value=n), max_size=16))
    if how == "escapes":
        special = sorted(near_escapes(text))
        if special:
            cuts |= set(draw(st.lists(st.sampled_from(special), max_size=16)))
    fragments = cut_at(text, cuts)
    if draw(st.booleans()):  # empty fragments are allowed anywhere
        at = draw(st.integers(min_value=0, max_value=len(fragments)))
        fragments.insert(at, "")
    return fragments


# -- properties -----------------------------------------------------------------------------


@given(texts, st.data())
def test_feed_fast_paths_equal_push_poll(text: str, data: st.DataObject) -> None:
    max_depth = data.draw(st.sampled_from([256, 2, 3, 4, 6]))
    for _ in range(3):
        assert_same_paths(data.draw(fragmentations(text)), max_depth)


@given(texts)
def test_one_character_at_a_time_and_at_every_escape(text: str) -> None:
    assert_same_paths(list(text))
    assert_same_paths(cut_at(text, near_escapes(text)))


@given(st.lists(st.sampled_from(['\\"', "\\\\", "\\n", "\\u00e9", "\\ud83d\\ude00", "ab", "é"])))
def test_long_escaped_string_value_cut_everywhere(pieces: list[str]) -> None:
    text = '{"content":"' + "".join(pieces) * 3 + '","n":1}'
    for size in (1, 2, 3, 5, 7):
        assert_same_paths([text[i : i + size] for i in range(0, len(text), size)])
    assert_same_paths(cut_at(text, near_escapes(text)))


@given(st.data())
def test_nested_values_cut_everywhere(data: st.DataObject) -> None:
    value = data.draw(st.lists(values, min_size=1, max_size=4))
    text = json.dumps({"items": value, "opts": {"x": value[:1]}})
    max_depth = data.draw(st.sampled_from([256, 3, 5]))
    assert_same_paths(list(text), max_depth)
    assert_same_paths(data.draw(fragmentations(text)), max_depth)


def test_examples_of_each_fast_path() -> None:
    cases = [
        ['{"t":"', "a\\nb", '\\"c', "\\\\", "d"],  # escapes inside a string value
        ['{"t":"', "ab\\", "n", "cd\\u0", "0e9", "\\ud83d", "\\ude00", '"}'],  # cut escapes
        ['{"t":"', "x\\\\", "\\", '""}'],  # an escaped backslash, then a cut one
        ['{"t":"', "x\\ud83d", "y", '"}'],  # a lone high surrogate
        ['{"t":"', "a\ud800b", '"}'],  # a raw lone surrogate character: an error, no raise
        ['{"t":"', "a\tb"],  # a raw control character
        ['{"o":{"a":"}', '"},"b":', "[1,[2,", '"]"]]', "}"],  # nested, strings with brackets
        ['{"o":[\\', "]]}"],  # a backslash outside a string of a nested value
        ['{"o":[', "1\\", "]]}"],  # ... ending a fragment
        ['{"o":["', "a\\", '"]', "]}"],  # a backslash ending a fragment inside a string
        ['{"t":"', "ab\\u12G4", '"}'],  # a bad \u escape near the end
        ['{"t":"', "a\\u1", "2G", '"}'],  # ... cut
        ['{"o":[[[[', "1]]]]}"],  # too deep for max_depth=4
    ]
    for fragments in cases:
        for max_depth in (256, 4):
            assert_same_paths(fragments, max_depth)
