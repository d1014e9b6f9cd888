"""raf.dialects.templates: a payload read through a template must decode to exactly what the
full decode gives, and a template is only made where that is certain."""

from __future__ import annotations

import json
from typing import Any

import msgspec
from hypothesis import event, given
from hypothesis import strategies as st

from raf.dialects.templates import Templates, cut

# A chunk like the usual Chat Completions fragment, with an optional field before and after.
texts = st.text(st.characters(codec="utf-8"), max_size=12)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=6,
)


SEP = (",", ":")
# Compact, as raf's benchmarks and most SDK servers write; Python's json default (a space
# after the colon and the comma); and a newline and indentation after the colon.
SEPARATORS = st.sampled_from([SEP, (", ", ": "), (",", ":\n\t ")])


def certain(payload: bytes) -> bool:
    """Whether a template must be made: the key once, and no backslash anywhere (so none
    outside the token either); a surrogate pair token cannot be cut (it is not UTF-8)."""
    if payload.count(b'"arguments":') == 1 and b"\\" not in payload:
        try:
            payload.decode()
        except UnicodeDecodeError:
            return False
        return True
    return False


def chunk(arguments: str, before: Any, after: Any, index: int = 0) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "before": before,
        "choices": [
            {
                "index": 0,
                "delta": {"tool_calls": [{"index": index, "function": {"arguments": arguments}}]},
            }
        ],
        "after": after,
    }


def arguments_of(payload: bytes) -> Any:
    return json.loads(payload)["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"]


def encodings(value: str) -> st.SearchStrategy[bytes]:
    """The JSON string token of ``value``, escaped every way JSON allows."""
    return st.sampled_from(
        [
            json.dumps(value).encode(),
            json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass"),
            (
                '"' + "".join(f"\\u{ord(c):04x}" if ord(c) < 0x10000 else c for c in value) + '"'
            ).encode("utf-8", "surrogatepass"),
        ]
    )


@given(texts, texts, json_values, json_values, st.data())
def test_a_match_decodes_as_the_whole_payload_does(
    first: str, second: str, before: Any, after: Any, data: st.DataObject
) -> None:
    separators = data.draw(SEPARATORS)
    payload = json.dumps(
        chunk(first, before, after), ensure_ascii=False, separators=separators
    ).encode("utf-8", "surrogatepass")
    templates: Templates[str] = Templates()
    made = templates.add(payload, "arguments", first, "call 0")
    event(f"template made: {made}")
    if not made:
        assert certain(payload) is False
        return
    token = data.draw(encodings(second))
    prefix, suffix = cut(payload, "arguments", first)  # type: ignore[misc]
    other = prefix + token + suffix
    matched = templates.match(other)
    try:
        expected = arguments_of(other)
    except (ValueError, UnicodeDecodeError):
        assert matched is None  # not JSON (e.g. a lone surrogate): never matched
        return
    assert matched == (expected, "call 0")
    assert msgspec.json.decode(other)["choices"] == json.loads(other)["choices"]


@given(texts, json_values, json_values, st.binary(max_size=8))
def test_a_middle_that_is_not_one_string_token_never_matches(
    value: str, before: Any, after: Any, middle: bytes
) -> None:
    payload = json.dumps(chunk(value, before, after), separators=SEP).encode()
    templates: Templates[None] = Templates()
    if not templates.add(payload, "arguments", value, None):
        assert certain(payload) is False
        return
    prefix, suffix = cut(payload, "arguments", value)  # type: ignore[misc]
    other = prefix + middle + suffix
    matched = templates.match(other)
    try:
        token = msgspec.json.decode(middle, type=str)
    except (msgspec.DecodeError, msgspec.ValidationError):
        assert matched is None
    else:
        assert matched == (token, None)


def test_no_template_where_the_member_is_not_certainly_the_one_decoded() -> None:
    usual = b'{"id":"c","choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"a"}}]}}]}'
    assert cut(usual, "arguments", "a") == (
        usual[: usual.index(b'"a"')],
        usual[usual.index(b'"a"') + 3 :],
    )
    # The key twice: the decoder keeps the last one, which one was cut is not certain.
    twice = usual.replace(b'"arguments":"a"', b'"arguments":"x","arguments":"a"')
    assert cut(twice, "arguments", "a") is None
    # A key spelt with an escape elsewhere: the literal one may not be the member decoded.
    escaped = b'{"extra":{"arguments":"a"},' + usual[1:].replace(
        b'"arguments"', b'"argu\\u006dents"'
    )
    assert cut(escaped, "arguments", "a") is None
    # Whitespace after the colon is part of the prefix (Python's json writes it).
    spaced = usual.replace(b':"a"', b': \n "a"')
    assert cut(spaced, "arguments", "a") == (
        spaced[: spaced.index(b'"a"')],
        spaced[spaced.index(b'"a"') + 3 :],
    )
    # Whitespace before the colon, a value that is not a string, a value decoded otherwise.
    assert cut(usual.replace(b'":"a"', b'" :"a"'), "arguments", "a") is None
    assert cut(usual.replace(b'"a"', b"1"), "arguments", "1") is None
    assert cut(usual, "arguments", "b") is None
    # The key inside a string value is not a key.
    inside = b'{"content":"\\"arguments\\":\\"a\\"","x":1}'
    assert cut(inside, "arguments", "a") is None


def test_templates_are_tried_in_turn_and_bounded() -> None:
    templates: Templates[int] = Templates(limit=2)
    payloads = [json.dumps(chunk("x", None, None, i), separators=SEP).encode() for i in range(3)]
    assert templates.add(payloads[0], "arguments", "x", 0)
    assert templates.add(payloads[1], "arguments", "x", 1)
    assert not templates.add(payloads[2], "arguments", "x", 2)  # the limit
    assert len(templates) == 2
    other = [p.replace(b'"x"', b'"y\\n"') for p in payloads]
    assert templates.match(other[1]) == ("y\n", 1)
    assert templates.match(other[0]) == ("y\n", 0)
    assert templates.match(other[2]) is None
    assert templates.match(other[0][:-1]) is None  # the suffix differs
    templates.clear()
    assert len(templates) == 0
    assert templates.match(other[0]) is None


def test_a_stream_whose_chunks_cannot_be_cut_stops_being_tried() -> None:
    templates: Templates[None] = Templates(tries=3)
    escaped = b'{"id":"a\\u0062","choices":[{"delta":{"content":"x"}}]}'
    assert [templates.add(escaped, "content", "x", None) for _ in range(4)] == [False] * 4
    usual = b'{"id":"ab","choices":[{"delta":{"content":"x"}}]}'
    assert not templates.add(usual, "content", "x", None)  # no longer tried
    assert Templates[None]().add(usual, "content", "x", None)


def test_no_lookup_once_no_template_can_match() -> None:
    templates: Templates[None] = Templates(tries=2)
    assert templates.matcher() == templates.match  # none yet, but add() still tries
    escaped = b'{"id":"a\\u0062","choices":[{"delta":{"content":"x"}}]}'
    assert not templates.add(escaped, "content", "x", None)
    assert templates.matcher() is not None
    assert not templates.add(escaped, "content", "x", None)
    assert templates.matcher() is None  # empty, and add() stopped trying
    kept: Templates[None] = Templates(tries=1)
    usual = b'{"id":"ab","choices":[{"delta":{"content":"x"}}]}'
    assert kept.add(usual, "content", "x", None)
    assert not kept.add(escaped, "content", "x", None)
    matcher = kept.matcher()  # the template kept still reads its payloads
    assert matcher is not None
    assert matcher(usual.replace(b'"x"', b'"y"')) == ("y", None)
