"""A long text is read by the standard library's json when it reads it as msgspec would, and
by msgspec otherwise: the value, or the error, is msgspec's either way."""

from __future__ import annotations

import json
import sys
import tracemalloc
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from raf import safe_json
from raf.converter import AgentResponseConverter
from raf.model import contents, updates
from raf.model.codes import ErrorCode
from raf.pipeline import respond
from raf.safe_json import LEAN_FROM, UnusableJSON, decode, decode_strict

_msgspec = msgspec.json.Decoder().decode


def _outcome(read: Any, text: str) -> tuple[str, str]:
    """What reading ``text`` gives, comparable across libraries: the value's repr with its
    types (``1`` and ``1.0``, ``-0.0`` and ``0.0`` differ), or the error's class."""
    try:
        return "value", repr(read(text))
    except UnusableJSON as exc:
        return "error", f"{exc.code}: {exc.reason}"


def _reference(text: str) -> Any:
    """What msgspec alone makes of ``text`` (decode_strict as it was before json)."""
    try:
        return _msgspec(text)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise UnusableJSON(ErrorCode.SSE_PARSE_ERROR, str(exc), str(exc)) from None


# Tokens on which the two libraries differ, or nearly: dropped into JSON text anywhere.
_RISKY = [
    "NaN", "Infinity", "-Infinity", "1e400", "-1e309", "1.7976931348623159e308", "1e-400",
    "1" * 310 + ".5", "1" * 4301, "1" * 4300, "-0", "-0.0", "0.1e1", "1E+2",
    '"\\ud800"', '"\\udc00x"', '"\\ud83d\\ude00"', '"\ud800"', '"\\u00e9"', "\ufeff",
    '"\x01"', '"\x7f"', ",", "]", "}", ":", '"', "\\", " ", "\x0c", "01", "1.", ".5",
]  # fmt: skip

_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=12,
)


@st.composite
def _texts(draw: st.DrawFn) -> str:
    """JSON text, often with a risky token dropped in somewhere."""
    text = json.dumps(draw(_values), ensure_ascii=draw(st.booleans()))
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(_RISKY)) + text[at:]
    return text


def _lean_or_none(text: str) -> tuple[str, str] | None:
    try:
        return "value", repr(safe_json._lean(text))
    except safe_json._NotLean:
        return None


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(_texts())
@example('{"a": 1e400}')
@example('["\\ud800", 1]')
@example('{"a": NaN}')
@example('"\ud800"')
@example("1" * 4301)
def test_json_answers_only_with_msgspec_s_value(text: str) -> None:
    lean = _lean_or_none(text)
    if lean is not None:
        assert lean == _outcome(_reference, text)


@settings(max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(_texts())
def test_a_long_text_reads_as_msgspec_reads_it(text: str) -> None:
    long = text + " " * LEAN_FROM  # long enough for json to be tried first
    assert _outcome(decode_strict, long) == _outcome(_reference, long)


def test_json_reads_the_usual_long_arguments() -> None:
    # The lean path is taken where it matters: long strings with escapes and any script.
    for value in (
        {"content": 'line "one"\n\tcafé\\ 日本語 🚀 ' * 2000},
        {"numbers": list(range(3000)), "ratio": [0.5, -1.25e-3, 1e300]},
        ["\U0001f600 escaped"] * 10,
    ):
        for ensure_ascii in (False, True):
            text = json.dumps(value, ensure_ascii=ensure_ascii)
            expected = _msgspec(text)
            if ensure_ascii and "\\ud83d" in text:
                assert _lean_or_none(text) is None  # a surrogate escape: msgspec decides
            else:
                assert safe_json._lean(text) == expected
            assert decode_strict(text) == expected


@pytest.mark.parametrize("limit", [0, 1000, 4300, 5000])
def test_integer_limits_follow_the_interpreter_and_msgspec(limit: int) -> None:
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(limit)
    try:
        for digits in (999, 1001, 4300, 4301):
            text = " " * LEAN_FROM + "1" * digits
            assert _outcome(decode_strict, text) == _outcome(_reference, text)
    finally:
        sys.set_int_max_str_digits(before)


def test_a_lone_surrogate_character_is_not_json_not_a_crash() -> None:
    for text in ('{"a": "\ud800"}', '{"a": "\udfff"}' + " " * LEAN_FROM):
        with pytest.raises(UnusableJSON) as info:
            decode_strict(text)
        assert info.value.code == "sse_parse_error"
        assert "lone surrogate" in info.value.detail
        with pytest.raises(UnusableJSON):
            decode(text)


def test_a_call_whose_arguments_hold_a_lone_surrogate_gets_an_invalid_arguments_error() -> None:
    # Updates built by hand can hold what no stream decodes to; it was an internal error.
    converter = AgentResponseConverter()
    for update in (
        updates.ToolCallStart(id="a", name="f"),
        updates.ToolCallArgs(id="a", args_delta='{"a": "\ud800"}'),
        updates.ToolCallEnd(id="a"),
    ):
        converter.consume(update)
    (error,) = converter.finalize("tool_calls").contents
    assert isinstance(error, contents.Error)
    assert error.error_code == "invalid_tool_arguments"
    assert "lone surrogate" in error.message


# -- the heap of respond() ------------------------------------------------------------------


def _string_call(text: str, fragment: int = 5) -> Iterator[bytes]:
    arguments = json.dumps({"content": text}, ensure_ascii=False)
    head = {"id": "c", "model": "m", "choices": [{"index": 0, "delta": {}}]}
    first = {
        "id": "c",
        "model": "m",
        "choices": [
            {
                "index": 0,
                "delta": {
                    "tool_calls": [
                        {"index": 0, "id": "call_1", "function": {"name": "save", "arguments": ""}}
                    ]
                },
            }
        ],
    }
    yield b"data: " + json.dumps(head).encode() + b"\n\n" + b"data: " + json.dumps(first).encode()
    yield b"\n\n"
    body = bytearray()
    for start in range(0, len(arguments), fragment):
        piece = arguments[start : start + fragment]
        chunk = {
            "id": "c",
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "delta": {"tool_calls": [{"index": 0, "function": {"arguments": piece}}]},
                }
            ],
        }
        body += b"data: " + json.dumps(chunk, ensure_ascii=False).encode() + b"\n\n"
        if len(body) >= 4096:
            yield bytes(body[:4096])
            del body[:4096]
    yield (
        bytes(body) + b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\n'
    )
    yield b"data: [DONE]\n\n"


def test_respond_holds_a_long_string_argument_about_twice_at_its_peak() -> None:
    # The text and its value must coexist once (2 copies); msgspec's decode alone held 3.4
    # more copies of a string with escapes. The input is made before: it is not counted.
    text = ('a "quoted" word, café, \\ and a line\n' * 6000)[:200_000]
    respond(_string_call("warm up"))
    chunks = list(_string_call(text))
    tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        response = respond(iter(chunks))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert response.tool_calls[0].arguments == {"content": text}
    arguments_chars = len(json.dumps({"content": text}, ensure_ascii=False))
    assert (peak - base) / arguments_chars < 2.5
