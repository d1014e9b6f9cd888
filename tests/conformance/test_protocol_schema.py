"""The published JSON Schemas of what an implementation sends (its hello, its results) say
exactly what raf accepts: a line the schema accepts is decoded, one it rejects is not, and a
rejected result with a string id is an :class:`InvalidResult` naming the field (the case
fails, the conversation goes on). Checked on handpicked lines and on generated ones; a call
may have no name.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from raf.conformance.levels import compare_response
from raf.conformance.protocol import (
    ImplementationHello,
    InvalidResult,
    ProtocolError,
    Result,
    decode_from_implementation,
)
from tests.conformance.protocol_lines import RESPONSES, RESULT_FIELDS

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "conformance" / "schema"
ID = "openai_chat/parallel_tool_calls#0@bytes"


def validator(name: str) -> jsonschema.Draft202012Validator:
    path = SCHEMA_DIR / f"protocol_{name}.schema.json"
    return jsonschema.Draft202012Validator(json.loads(path.read_text(encoding="utf-8")))


RESULT = validator("result")
HELLO = validator("implementation_hello")


def decoded(message: Any) -> Result | ImplementationHello | ProtocolError:
    try:
        return decode_from_implementation(json.dumps(message).encode() + b"\n")
    except ProtocolError as exc:
        return exc


LINES = [({"type": "result", "id": ID, "response": r}, path) for r, path in RESPONSES] + [
    ({"type": "result", "id": ID, **fields}, path) for fields, path in RESULT_FIELDS
]


@pytest.mark.parametrize(("message", "path"), LINES, ids=[str(m) for m, _ in LINES])
def test_a_result_is_decoded_exactly_when_the_schema_accepts_it(
    message: dict[str, Any], path: str | None
) -> None:
    assert RESULT.is_valid(message) == (path is None)
    outcome = decoded(message)
    if path is None:
        assert isinstance(outcome, Result)
        assert outcome.id == ID
    else:
        assert isinstance(outcome, InvalidResult)
        assert outcome.case_id == ID
        assert f"at `{path}`" in str(outcome)


@pytest.mark.parametrize(
    "line",
    [
        b"not json",
        b"[1, 2]",
        b'{"type": "result"}',
        b'{"type": "result", "id": 5, "response": {}}',
        b'{"type": "resultat", "id": "' + ID.encode() + b'"}',
        b'{"id": "' + ID.encode() + b'", "response": {"tool_calls": "x"}}',
        b'{"type": "hello", "id": "' + ID.encode() + b'"}',
    ],
)
def test_a_line_without_a_result_type_and_string_id_is_no_answer_to_a_case(line: bytes) -> None:
    with pytest.raises(ProtocolError) as info:
        decode_from_implementation(line)
    assert not isinstance(info.value, InvalidResult)
    if line != b"not json":
        assert not RESULT.is_valid(json.loads(line))


def test_an_implementations_hello_schema_leaves_out_what_has_a_default() -> None:
    minimal = {"type": "hello", "protocol": "raf-conformance/1"}
    for message, valid in (
        (minimal, True),
        ({**minimal, "dialects": ["openai_chat"], "future_field": {"x": 1}}, True),
        ({**minimal, "name": None}, False),
        ({**minimal, "levels": "response"}, False),
        ({"type": "hello"}, False),
    ):
        assert HELLO.is_valid(message) == valid, message
        assert isinstance(decoded(message), ImplementationHello) == valid, message


# Any JSON value, and objects whose every field is left out, of its own type, or anything.
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)
NUMBER = st.integers() | st.floats(allow_nan=False, allow_infinity=False)


def objects(fields: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    optional = {name: strategy | JSON for name, strategy in fields.items()}
    return st.fixed_dictionaries({}, optional={**optional, "not_in_the_protocol": JSON})


CALL = objects({"id": st.none() | st.text(), "name": st.none() | st.text(), "arguments": JSON})
USAGE = objects(
    dict.fromkeys(("prompt_tokens", "completion_tokens", "total_tokens"), NUMBER)
    | {
        name: st.none() | NUMBER
        for name in ("prompt_cache_hit_tokens", "prompt_cache_miss_tokens", "reasoning_tokens")
    }
)
ERROR = objects({"error_code": st.none() | st.text(), "message": st.text()})
RESPONSE = objects(
    {
        "text": st.text(),
        "reasoning_text": st.none() | st.text(),
        "tool_calls": st.lists(CALL, max_size=3),
        "finish_reason": st.none() | st.text(),
        "usage": st.none() | USAGE,
        "errors": st.lists(ERROR, max_size=2),
    }
)
RESULTS = st.fixed_dictionaries(
    {"type": st.just("result"), "id": st.just(ID) | JSON},
    optional={
        "response": st.none() | RESPONSE | JSON,
        "results": st.none() | st.lists(JSON) | JSON,
        "updates": st.none() | st.lists(JSON) | JSON,
        "raised": st.none() | st.text() | JSON,
    },
)


@given(RESULTS)
def test_the_schema_and_the_decoder_agree_on_any_result(message: dict[str, Any]) -> None:
    outcome = decoded(message)
    if RESULT.is_valid(message):
        assert isinstance(outcome, Result)
    elif isinstance(message["id"], str):
        assert isinstance(outcome, InvalidResult)
        assert outcome.case_id == message["id"]
    else:
        assert isinstance(outcome, ProtocolError)
        assert not isinstance(outcome, InvalidResult)


def test_a_call_without_a_name_is_judged_not_refused() -> None:
    call: dict[str, Any]
    for call in ({"id": "c1", "arguments": {}}, {"id": "c1", "name": None, "arguments": {}}):
        result = decoded({"type": "result", "id": ID, "response": {"tool_calls": [call]}})
        assert isinstance(result, Result)
        assert result.response is not None
        assert result.response.tool_calls[0].name is None
        expected = {"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {}}]}
        (mismatch,) = compare_response(expected, result.response)
        assert mismatch.where == "tool_calls[0].name"
        assert mismatch.summary() == 'tool_calls[0].name: expected "get_weather", got null'
