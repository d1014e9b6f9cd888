"""StreamingArgsParser: raf-spec 4.2's reference table (with raf's intended behaviour where RAF
has a quirk), and properties checked against the strict JSON parse of the whole text."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from raf.args_parser import ArgsEvent, ArgsParsed, ArgsProgress, StreamingArgsParser

P = ArgsParsed
G = ArgsProgress


def polls(
    *fragments: str | bytes, use_feed: bool = False
) -> tuple[list[list[ArgsEvent]], StreamingArgsParser]:
    """Events per fragment, through push + poll, or through feed (which has a fast path)."""
    parser = StreamingArgsParser()
    out = []
    for fragment in fragments:
        if use_feed:
            out.append(parser.feed(fragment))
        else:
            parser.push(fragment)
            out.append(parser.poll())
    return out, parser


TABLE: list[tuple[str, tuple[str | bytes, ...], list[list[ArgsEvent]]]] = [
    ("one_string", ('{"path":"/tmp/a.txt"}',), [[P("path", "/tmp/a.txt")]]),
    (
        "mixed_scalars",
        ('{"a":42,"b":true,"c":"hello"}',),
        [[P("a", 42), P("b", True), P("c", "hello")]],
    ),
    (
        "string_over_two_pushes",
        ('{"text":"Hel', 'lo World"}'),
        [[G("text", 3, "Hel")], [P("text", "Hello World")]],
    ),
    (
        "code_with_parens",
        ('{"code":"fn main(', ') {}"}'),
        [[G("code", 8, "fn main(")], [P("code", "fn main() {}")]],
    ),
    ("escape_decoded", ('{"t":"a\\nb"}',), [[P("t", "a\nb")]]),
    ("escape_cut_by_a_push", ('{"t":"a\\', '"b"}'), [[G("t", 1, "a")], [P("t", 'a"b')]]),
    (
        "unicode_escape_cut",
        ('{"t":"x\\u00', "e9y", '"}'),
        [[G("t", 1, "x")], [G("t", 3, "éy")], [P("t", "xéy")]],
    ),
    (
        "surrogate_pair_cut_between_halves",
        ('{"t":"\\ud83d', "\\ude00", '"}'),
        [[], [G("t", 1, "😀")], [P("t", "😀")]],
    ),
    ("utf8_bytes_cut_inside_a_character", (b'{"t":"\xc3', b'\xa9"}'), [[], [P("t", "é")]]),
    ("key_cut", ('{"pa', 'th":"x"}'), [[], [P("path", "x")]]),
    ("nested_object", ('{"o":{"a":{"b":1}},"n":2}',), [[P("o", {"a": {"b": 1}}), P("n", 2)]]),
    ("array_cut", ('{"a":[1,2', "]}"), [[], [P("a", [1, 2])]]),
    ("numbers_with_spaces", ('{"n": 42 , "m":-1.5e3}',), [[P("n", 42), P("m", -1500.0)]]),
    ("number_complete_only_at_its_terminator", ('{"n":42', "}"), [[], [P("n", 42)]]),
    (
        "big_integer_exact",
        ('{"n":123456789012345678901234567890}',),
        [[P("n", 123456789012345678901234567890)]],
    ),
    (
        "duplicate_key_reported_twice_last_wins",
        ('{"a":"x","a":"y"}',),
        [[P("a", "x"), P("a", "y")]],
    ),
    ("empty_string", ('{"a":""}',), [[P("a", "")]]),
    ("empty_object", ("{}",), [[]]),
    ("key_with_escaped_quote_is_decoded", ('{"a\\"b":1}',), [[P('a"b', 1)]]),
    ("key_with_space", ('{"my key":1}',), [[P("my key", 1)]]),
    # RAF counts only braces inside nested values, so a brace in a string breaks them [quirk].
    ("brace_inside_nested_string", ('{"o":{"a":"}"},"b":1}',), [[P("o", {"a": "}"}), P("b", 1)]]),
    (
        "bracket_inside_nested_string",
        ('{"arr":[1,{"x":"]"}],"z":null}',),
        [[P("arr", [1, {"x": "]"}]), P("z", None)]],
    ),
    ("escaped_quote_inside_nested_string", ('{"o":{"a":"\\"}"}}',), [[P("o", {"a": '"}'})]]),
    ("whitespace_everywhere", (' \n{ "a" :\t"b" ,\r\n "c" : [ ] } ',), [[P("a", "b"), P("c", [])]]),
    (
        "one_progress_per_push_not_per_byte",
        ('{"t":"', "abcdef", "ghi"),
        [[], [G("t", 6, "abcdef")], [G("t", 9, "ghi")]],
    ),
]


@pytest.mark.parametrize("use_feed", [False, True], ids=["push_poll", "feed"])
@pytest.mark.parametrize(("name", "fragments", "expected"), TABLE, ids=[t[0] for t in TABLE])
def test_reference_table(
    name: str, fragments: tuple[str | bytes, ...], expected: list[list[ArgsEvent]], use_feed: bool
) -> None:
    out, parser = polls(*fragments, use_feed=use_feed)
    assert out == expected
    assert parser.error is None


@pytest.mark.parametrize("text", ["", '"hello"', "null", "[1]", "42"])
def test_non_objects_give_no_events_and_no_error(text: str) -> None:
    out, parser = polls(text)
    assert out == [[]]
    assert parser.error is None


@pytest.mark.parametrize(
    ("name", "text", "reason"),
    [
        ("raw_newline", '{"a":"x\ny"}', "control character"),
        ("lone_high_surrogate", '{"t":"\\ud83d"}', "lone surrogate"),
        ("lone_low_surrogate", '{"t":"\\ude00"}', "lone surrogate"),
        ("high_then_plain", '{"t":"\\ud83dx"}', "lone surrogate"),
        ("bad_escape", '{"t":"\\x"}', "invalid escape"),
        ("bad_unicode_escape", '{"t":"\\u12G4"}', "invalid escape"),
        ("leading_zero", '{"n":01}', "invalid value"),
        ("bare_word", '{"n":nul}', "invalid value"),
        ("trailing_garbage", '{"a":1} x', "after the arguments object"),
        ("second_document", '{"a":1}{"b":2}', "after the arguments object"),
        ("missing_colon", '{"a" 1}', "expected ':'"),
        ("trailing_comma", '{"a":1,}', "expected a key"),
        ("bad_nested_value", '{"o":{"a":tru}}', "invalid value"),
    ],
)
def test_strict_json_rejections_stop_the_parser(name: str, text: str, reason: str) -> None:
    parser = StreamingArgsParser()
    for ch in text:  # one character at a time: the hardest fragmentation
        parser.push(ch)
    parser.poll()
    assert parser.error is not None
    assert reason in parser.error
    with pytest.raises((msgspec.DecodeError, msgspec.ValidationError)):
        msgspec.json.decode(text)  # the strict final parse rejects it too
    parser.push('"more"')
    assert parser.poll() == []  # nothing after a failure


@pytest.mark.parametrize("use_feed", [False, True], ids=["push_poll", "feed"])
@pytest.mark.parametrize(
    ("fragments", "reason"),
    [
        (('{"t":"a\ud800b"}',), "lone surrogate in the value of 't'"),
        (('{"t":"a', "\udfff", 'b"}'), "lone surrogate in the value of 't'"),
        (('{"t":"\\n\ud800"}',), "lone surrogate in the value of 't'"),
        (('{"o":["x\ud800"]}',), "lone surrogate in the value of 'o'"),
        (('{"k\ud800":1}',), "lone surrogate in a key"),
    ],
)
def test_a_lone_surrogate_character_in_a_str_fragment_stops_the_parser(
    fragments: tuple[str, ...], reason: str, use_feed: bool
) -> None:
    # A str fragment can hold what no UTF-8 text can: the parser stops, it does not raise.
    _, parser = polls(*fragments, use_feed=use_feed)
    assert parser.error == reason
    assert not parser.done


@pytest.mark.parametrize("use_feed", [False, True], ids=["push_poll", "feed"])
@pytest.mark.parametrize(
    "fragments",
    [
        ('{"t":"a', "b\ud800", 'c"}'),
        ('{"t":"a', "\ud83d", "\ude00", '"}'),
        ('{"t":"a', "\\n\udfff"),
    ],
    ids=["after_text", "raw_pair_halves", "after_an_escape"],
)
def test_progress_never_reports_a_lone_surrogate_character(
    fragments: tuple[str, ...], use_feed: bool
) -> None:
    # Progress reports only complete characters (docs/converter.md): the fragment holding the
    # surrogate stops the parser before anything of it is reported.
    out, parser = polls(*fragments, use_feed=use_feed)
    assert out == [[G("t", 1, "a")]] + [[]] * (len(fragments) - 1)
    assert parser.error == "lone surrogate in the value of 't'"


def test_events_before_a_failure_are_kept() -> None:
    out, parser = polls('{"a":1,"b":', "oops}")
    assert out == [[P("a", 1)], []]
    assert parser.error is not None


# -- properties -----------------------------------------------------------------------------

keys = st.text(max_size=6)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
values: st.SearchStrategy[Any] = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
    max_leaves=8,
)
objects = st.dictionaries(keys, values, max_size=6)


@st.composite
def documents(draw: st.DrawFn) -> tuple[dict[str, Any], str, list[str]]:
    obj = draw(objects)
    style = draw(st.sampled_from(["compact", "ascii", "spaced", "indent"]))
    if style == "compact":
        text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    elif style == "ascii":
        text = json.dumps(obj)  # every non-ASCII character as \\u escapes, astral ones as pairs
    elif style == "spaced":
        text = json.dumps(obj, ensure_ascii=False)
    else:
        text = json.dumps(obj, indent=2)
    cuts = sorted(
        draw(st.sets(st.integers(min_value=1, max_value=max(len(text) - 1, 1)), max_size=12))
    )
    fragments, prev = [], 0
    for cut in [*cuts, len(text)]:
        fragments.append(text[prev:cut])
        prev = cut
    return obj, text, fragments


@given(documents(), st.booleans())
def test_parsed_values_agree_with_the_final_strict_parse(
    doc: tuple[dict[str, Any], str, list[str]], use_feed: bool
) -> None:
    _obj, text, fragments = doc
    parser = StreamingArgsParser()
    events: list[ArgsEvent] = []
    per_push_progress: list[list[str]] = []
    for fragment in fragments:
        if use_feed:
            batch = parser.feed(fragment)
        else:
            parser.push(fragment)
            batch = parser.poll()
        per_push_progress.append([e.name for e in batch if isinstance(e, ArgsProgress)])
        events.extend(batch)
    final = msgspec.json.decode(text)
    assert parser.error is None
    assert parser.done
    last_parsed = {e.name: e.value for e in events if isinstance(e, ArgsParsed)}
    assert last_parsed == final
    # at most one progress per key per push
    for names in per_push_progress:
        assert len(names) == len(set(names))
    # progress of each string value: pieces of its decoded text, with running counts
    progress: dict[str, str] = {}
    for e in events:
        if isinstance(e, ArgsProgress):
            progress[e.name] = progress.get(e.name, "") + e.value
            assert e.received == len(progress[e.name])
        elif isinstance(e, ArgsParsed) and e.name in progress:
            assert isinstance(e.value, str)
            assert e.value.startswith(progress.pop(e.name))
    assert sum(len(e.value) for e in events if isinstance(e, ArgsProgress)) <= len(text)


@given(documents(), st.data())
def test_parsed_events_do_not_depend_on_fragmentation(
    doc: tuple[dict[str, Any], str, list[str]], data: st.DataObject
) -> None:
    _, text, fragments = doc
    whole, _ = polls(text)
    split_events = [e for batch in polls(*fragments)[0] for e in batch if isinstance(e, ArgsParsed)]
    assert split_events == [e for e in whole[0] if isinstance(e, ArgsParsed)]
    assert polls(*fragments, use_feed=True)[0] == polls(*fragments)[0]
    raw = text.encode()
    cut = data.draw(st.integers(min_value=0, max_value=len(raw)))
    as_bytes = [
        e for batch in polls(raw[:cut], raw[cut:])[0] for e in batch if isinstance(e, ArgsParsed)
    ]
    assert as_bytes == split_events


@given(
    st.text(alphabet='{}[]",:\\ \nabtrue0123456789.-eE\u00e9\U0001f600u', max_size=40), st.data()
)
def test_never_raises_and_never_contradicts_the_strict_parse(
    text: str, data: st.DataObject
) -> None:
    cut = data.draw(st.integers(min_value=0, max_value=len(text)))
    out, parser = polls(text[:cut], text[cut:])
    try:
        final = msgspec.json.decode(text)
    except (msgspec.DecodeError, msgspec.ValidationError):
        final = None
        assert parser.error is not None or not parser.done  # never "complete" when it is not
    if isinstance(final, dict):
        assert parser.error is None
        assert parser.done
        assert {
            e.name: e.value for batch in out for e in batch if isinstance(e, ArgsParsed)
        } == final
