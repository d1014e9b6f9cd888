"""The ``cohere_v2`` dialect's fast path (``usual``): a ``content-delta`` or a
``tool-call-delta`` that decodes typed is read without the generic decode, and gives exactly
what the shared path gives, on drawn streams and on events of every shape."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from raf.formats.cohere_v2 import strategies
from raf.formats.cohere_v2.dialect import CohereV2Dialect
from raf.pipeline import respond
from tests.dialects.test_cohere_v2 import _JSON, _TYPES, frame
from tests.helpers import read_with_and_without_usual

NAME = "cohere_v2"


def test_the_usual_deltas_take_the_typed_path_and_the_others_the_shared_one() -> None:
    calls = [
        {"type": "message-start", "id": "m", "delta": {"message": {"role": "assistant"}}},
        {"type": "content-start", "index": 0,
         "delta": {"message": {"content": {"type": "text", "text": ""}}}},
        *({"type": "content-delta", "index": 0,
           "delta": {"message": {"content": {"text": f"w{n} "}}}} for n in range(20)),
        {"type": "content-end", "index": 0},
        {"type": "tool-call-start", "index": 0, "delta": {"message": {"tool_calls": {
            "id": "c0", "type": "function", "function": {"name": "f", "arguments": ""}}}}},
        *({"type": "tool-call-delta", "index": 0,
           "delta": {"message": {"tool_calls": {"function": {"arguments": piece}}}}}
          for piece in ('{"a"', ":", "1}")),
        {"type": "tool-call-end", "index": 0},
        {"type": "message-end", "delta": {"finish_reason": "TOOL_CALL"}},
    ]  # fmt: skip
    body = b"".join(frame(p) for p in calls) + b"data: [DONE]\n\n"
    dialect = CohereV2Dialect()
    response = respond([body], dialect)
    assert response.text == "".join(f"w{n} " for n in range(20))
    assert [(c.id, c.name, c.arguments) for c in response.tool_calls] == [("c0", "f", {"a": 1})]
    assert response.finish_reason == "tool_calls"
    assert not response.errors
    # 23 deltas typed; the 6 other events (starts, ends, message-end) decoded generically
    assert dialect.fast_path_counts() == {"typed": 23, "full": 6}


def test_deltas_that_do_not_fit_are_left_to_the_shared_path_which_names_them() -> None:
    events = [
        {"type": "content-start", "index": 0,
         "delta": {"message": {"content": {"type": "text", "text": ""}}}},
        {"type": "content-end", "index": 0},
        {"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": "late"}}}},
        {"type": "tool-call-delta", "index": 3,
         "delta": {"message": {"tool_calls": {"function": {"arguments": "{}"}}}}},
        {"type": "content-delta", "index": 1, "delta": {"message": {"content": {"text": 5}}}},
    ]  # fmt: skip
    body = b"".join(frame(p) for p in events)
    fast, shared = read_with_and_without_usual(NAME, body)
    assert fast == shared
    dialect = CohereV2Dialect()
    response = respond([body], dialect)
    assert response.text == "late"  # read all the same, after its violation
    codes = [e.error_code for e in response.errors]
    assert codes.count("protocol_violation") == 2
    assert "invalid_chunk" in codes  # the text that is a number
    assert dialect.fast_path_counts().get("typed", 0) == 0


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.lists(
        st.tuples(_TYPES, st.dictionaries(st.sampled_from(["index", "delta", "id"]), _JSON)),
        max_size=8,
    )
)
def test_the_fast_path_gives_what_the_shared_path_gives_on_any_events(events: list[Any]) -> None:
    body = b"".join(frame({**rest, "type": kind}) for kind, rest in events)
    fast, shared = read_with_and_without_usual(NAME, body)
    assert fast == shared


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_the_fast_path_gives_what_the_shared_path_gives_on_drawn_streams(
    data: st.DataObject,
) -> None:
    stream = data.draw(strategies.streams())
    fast, shared = read_with_and_without_usual(NAME, stream.body)
    assert fast == shared
    payloads = [json.loads(p) for p in stream.payloads if p != "[DONE]"]
    assert any(p["type"] == "message-start" for p in payloads)
