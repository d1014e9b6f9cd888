"""The pipeline end to end: bytes -> results -> response (raf-spec 3.6, 3.7 A and B)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import msgspec
import pytest

from raf.model import AgentResponseResult, Usage, contents
from raf.pipeline import Pipeline, arespond, arun, respond, run
from tests.helpers import CHUNKINGS, split

T0 = datetime(2026, 11, 29, tzinfo=UTC)


def frame(*chunks: dict[str, Any], done: bool = True) -> bytes:
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks)
    return (body + ("data: [DONE]\n\n" if done else "")).encode()


def no_meta(results: list[AgentResponseResult]) -> list[AgentResponseResult]:
    return [
        msgspec.structs.replace(
            r, contents=tuple(msgspec.structs.replace(c, meta=None) for c in r.contents)
        )
        for r in results
    ]


def r(*items: contents.Content, **fields: Any) -> AgentResponseResult:
    return AgentResponseResult(contents=items, **fields)


# raf-spec 3.7 A: text only, finish with usage in the same chunk.
SEQ_A = frame(
    {"id": "r1", "model": "m", "choices": [{"index": 0, "delta": {"content": "Hi"}}]},
    {"id": "r1", "model": "m", "choices": [{"index": 0, "delta": {"content": ", there"}}]},
    {
        "id": "r1",
        "model": "m",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7},
    },
)
USAGE_A = Usage(prompt_tokens=5, completion_tokens=2, total_tokens=7)

# raf-spec 2.6 / 3.7 B: text, one tool call, finish, usage-only chunk.
SEQ_B = (
    b'data: {"id":"r1","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"}}]}\n'
    b"\n: keep-alive\n\n"
    b'data: {"id":"r1","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get","arguments":""}}]}}]}\n\n'
    b'data: {"id":"r1","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"q\\":"}}]}}]}\n\n'
    b'data: {"id":"r1","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]}}]}\n\n'
    b'data: {"id":"r1","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\n'
    b'data: {"id":"r1","model":"m","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15,"prompt_tokens_details":{"cached_tokens":8}}}\n\n'
    b"data: [DONE]\n\n"
)
USAGE_B = Usage(
    prompt_tokens=10,
    completion_tokens=5,
    total_tokens=15,
    prompt_cache_hit_tokens=8,
    prompt_cache_miss_tokens=2,
)


@pytest.mark.parametrize("how", CHUNKINGS)
def test_spec_sequence_a(how: str) -> None:
    assert no_meta(list(run(split(SEQ_A, how)))) == [
        r(contents.Text(delta="Hi")),
        r(contents.Text(delta=", there")),
        r(contents.Usage(usage=USAGE_A)),
        r(id="r1", model="m", finish_reason="stop"),
    ]


@pytest.mark.parametrize("how", CHUNKINGS)
def test_spec_sequence_b(how: str) -> None:
    assert no_meta(list(run(split(SEQ_B, how)))) == [
        r(contents.Text(delta="Hi")),
        r(contents.ToolCallStart(call_id="call_a", name="get")),
        r(contents.ToolCallArgs(call_id="call_a", args_delta='{"q":')),
        r(
            contents.ToolCallArgs(call_id="call_a", args_delta="1}"),
            contents.ToolCallArgsParsed(call_id="call_a", name="q", value=1),
        ),
        r(contents.Usage(usage=USAGE_B)),
        r(
            contents.ToolCallEnd(call_id="call_a"),
            contents.ToolCalling(call_id="call_a", name="get", arguments={"q": 1}),
            id="r1",
            model="m",
            finish_reason="tool_calls",
        ),
    ]


def test_respond_aggregates_sequence_b() -> None:
    response = respond([SEQ_B])
    assert (response.text, response.finish_reason, response.usage, response.id, response.model) == (
        "Hi",
        "tool_calls",
        USAGE_B,
        "r1",
        "m",
    )
    assert [(c.id, c.name, c.arguments) for c in response.tool_calls] == [
        ("call_a", "get", {"q": 1})
    ]
    assert response.errors == ()


def test_the_last_finish_reason_wins_and_is_finalized_once() -> None:
    body = frame(
        {
            "id": "x",
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {"index": 0, "id": "c", "function": {"name": "f", "arguments": "{}"}}
                        ]
                    },
                    "finish_reason": "tool_calls",
                }
            ],
        },
        {
            "id": "x",
            "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        },
    )
    results = list(run([body]))
    assert sum(isinstance(c, contents.ToolCalling) for res in results for c in res.contents) == 1
    assert results[-1].finish_reason == "tool_calls"


def test_truncated_stream_keeps_text_and_reports_both_problems() -> None:
    body = frame(
        {
            "id": "x",
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "content": "partial ",
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "c1",
                                "function": {"name": "write", "arguments": '{"text": "ab'},
                            }
                        ],
                    },
                }
            ],
        },
        done=False,
    )
    response = respond(split(body, "random"))
    assert response.text == "partial "
    assert response.finish_reason is None
    # the call was still streaming when the stream was cut: incomplete, with what arrived
    assert [e.error_code for e in response.errors] == ["stream_truncated", "tool_call_incomplete"]
    assert response.errors[1].raw == '{"text": "ab'
    assert response.errors[1].call_id == "c1"


def test_metadata_options_reach_every_content() -> None:
    results = list(
        run(
            [SEQ_B], agent_id="agent-1", executor_id="exec", properties={"k": "v"}, clock=lambda: T0
        )
    )
    metas = [c.meta for res in results for c in res.contents]
    assert metas
    assert all(
        m is not None
        and (m.agent_id, m.model_id, m.executor_id, m.timestamp, m.properties)
        == ("agent-1", "m", "exec", T0, {"k": "v"})
        for m in metas
    )


def test_pipeline_object_is_sans_io_and_stops_at_done() -> None:
    pipeline = Pipeline("openai_chat", clock=lambda: T0)
    out = pipeline.feed(SEQ_A[:40])
    assert out == []
    out += pipeline.feed(SEQ_A[40:])
    assert pipeline.done
    assert pipeline.feed(b'data: {"choices":[{"delta":{"content":"late"}}]}\n\n') == []
    out += pipeline.close()
    assert out[-1].finish_reason == "stop"
    assert pipeline.close() == []


def test_async_twins_match_the_sync_functions() -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for piece in split(SEQ_B, "random"):
            yield piece

    async def collect_results() -> list[AgentResponseResult]:
        return [res async for res in arun(chunks(), clock=lambda: T0)]

    assert asyncio.run(collect_results()) == list(run(split(SEQ_B, "whole"), clock=lambda: T0))
    assert asyncio.run(arespond(chunks())) == respond([SEQ_B])


def test_raise_on_error_option() -> None:
    from raf.errors import AgentResponseError  # noqa: PLC0415

    with pytest.raises(AgentResponseError) as info:
        respond([b"data: {oops\n\n"], raise_on_error=True)
    assert [e.error_code for e in info.value.response.errors] == [
        "sse_parse_error",
        "stream_truncated",
    ]
