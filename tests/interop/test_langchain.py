"""raf's LangChain export as LangChain itself reads it: every bundled stream under every
chunking and every agent run loads with ``messages_from_dict``, its chunks add up (``+``) to
the ``AIMessage`` of ``aggregate``, its v3 events pass LangChain's lifecycle validator and are
what LangChain's own bridge makes of the chunks, and ``from_ai_message`` reads the added-up
message back; the decoder never raises."""

from __future__ import annotations

import json
from typing import Any

import pytest

from raf.collect import collect_agent_response
from raf.interop import comparable, encode_all, native_paths, project
from raf.interop.langchain import (
    LANGCHAIN_EXTRAS,
    MODEL,
    aggregate,
    from_ai_message,
    native,
    objects,
    v3_events,
)
from raf.model import contents
from raf.model.canonical import to_canonical
from raf.model.codes import ErrorCode
from raf.model.response import AgentResponseResult
from tests.interop.support import (
    Stream,
    agent_runs,
    bundled_streams,
    distinct_results,
    library,
    stream_id,
)


def _groups(messages: list[Any]) -> list[Any]:
    """The messages as LangChain's user sees them: each AI message's chunks (up to the one
    with ``chunk_position == "last"``) as one list, each tool message alone."""
    out: list[Any] = []
    current: list[Any] = []
    for message in messages:
        if message.type == "tool":
            assert not current, "a tool message inside an AI message's chunks"
            out.append(message)
            continue
        current.append(message)
        if message.chunk_position == "last":
            out.append(current)
            current = []
    assert not current, "the chunks of an AI message do not end with chunk_position 'last'"
    return out


def _add_up(chunks: list[Any]) -> Any:
    """The chunks added up with LangChain's ``+`` (one sum of them all, as ``chunk +
    [chunks]`` does)."""
    return chunks[0] + chunks[1:] if len(chunks) > 1 else chunks[0]


def _reasoning(message: Any) -> str:
    return "".join(
        str(block.get("reasoning") or "")
        for block in message.content
        if isinstance(block, dict) and block.get("type") == "reasoning"
    )


def _calls(calls: list[Any]) -> list[tuple[Any, Any, Any]]:
    return [(c["id"], c["name"], c["args"]) for c in calls]


def _assert_sum_is_the_aggregate(summed: Any, whole: Any) -> None:
    """What LangChain derives of the added-up chunks is what ``aggregate`` says."""
    from langchain_core.utils.json import parse_partial_json  # noqa: PLC0415

    assert summed.text == whole.text
    assert _reasoning(summed) == _reasoning(whole)
    assert summed.usage_metadata == whole.usage_metadata
    assert summed.response_metadata.get("finish_reason") == whole.response_metadata.get(
        "finish_reason"
    )
    invalid = {c["id"]: c for c in whole.invalid_tool_calls}
    assert [c for c in _calls(summed.tool_calls) if c[0] not in invalid] == _calls(whole.tool_calls)
    # A call raf found invalid keeps its raw text; LangChain parses the added-up text itself,
    # and completes a JSON prefix (a cut stream) into a call of its own.
    for call in summed.invalid_tool_calls:
        assert call["args"] == invalid[call["id"]]["args"]
    for call in summed.tool_calls:
        if call["id"] in invalid:
            assert call["args"] == parse_partial_json(invalid[call["id"]]["args"])
    assert {c["id"] for c in summed.invalid_tool_calls} | {
        c["id"] for c in summed.tool_calls
    } >= set(invalid)


def _bridge(chunks: list[Any]) -> list[Any]:
    """LangChain's own v3 events of ``chunks``."""
    from langchain_core.language_models._compat_bridge import (  # noqa: PLC0415
        chunks_to_events,
    )
    from langchain_core.outputs import ChatGenerationChunk  # noqa: PLC0415

    return list(chunks_to_events(iter([ChatGenerationChunk(message=c) for c in chunks])))


def _comparable_events(events: list[Any]) -> list[Any]:
    """Events as the bridge makes them: without raf's ``error`` events, and without the
    ``extras`` of a call's later chunks (which raf keeps on the finished call, and the bridge
    drops)."""
    out = []
    for event in events:
        if event["event"] == "error":
            continue
        if event["event"] == "content-block-finish" and event["content"]["type"] in (
            "tool_call",
            "invalid_tool_call",
        ):
            block = event["content"]
            keep = ("type", "id", "name", "args", "error")
            out.append({**event, "content": {k: v for k, v in block.items() if k in keep}})
        else:
            out.append(event)
    return out


def _split_events(events: list[Any]) -> list[list[Any]]:
    out: list[list[Any]] = []
    for event in events:
        if event["event"] == "message-start":
            out.append([])
        out[-1].append(event)
    return out


def _check(results: tuple[AgentResponseResult, ...]) -> None:
    library("langchain_core")
    from langchain_tests.utils.stream_lifecycle import (  # noqa: PLC0415
        assert_valid_event_stream,
    )

    items = list(encode_all(MODEL, results))
    json.dumps(items)  # plain JSON
    groups = _groups(objects(items))
    response = collect_agent_response(results)
    whole = objects(aggregate(response))
    assert len(groups) == len(whole)
    summed_messages = []
    for group, message in zip(groups, whole, strict=True):
        if not isinstance(group, list):
            assert message.type == "tool"
            assert (group.tool_call_id, group.content, group.status, group.name) == (
                message.tool_call_id,
                message.content,
                message.status,
                message.name,
            )
            continue
        summed = _add_up(group)
        summed_messages.append((group, summed))
        _assert_sum_is_the_aggregate(summed, message)
        mine, theirs = from_ai_message(message), from_ai_message(summed)
        assert (mine.text, mine.reasoning_text, mine.finish_reason, mine.usage) == (
            theirs.text,
            theirs.reasoning_text,
            theirs.finish_reason,
            theirs.usage,
        )
        assert mine.turn_transcript == theirs.turn_transcript
    # What the run (not each round) has: its model, on the last round that said it; its errors
    # and calls waiting for approval, wherever they came.
    models = [m.response_metadata.get("model_name") for _, m in summed_messages]
    assert ([m for m in models if m] or [None])[-1] == response.model
    for key in ("raf_errors", "raf_notices", "raf_approval_requests"):
        found = [x for _, m in summed_messages for x in m.response_metadata.get(key, [])]
        kept = [x for m in whole if m.type == "ai" for x in m.response_metadata.get(key, [])]
        assert found == kept, key
    events = _split_events(v3_events(results))
    assert len(events) == len(summed_messages)
    for lifecycle, (group, _) in zip(events, summed_messages, strict=True):
        assert_valid_event_stream(lifecycle)
        assert _comparable_events(lifecycle) == _comparable_events(_bridge(group))
    if len(summed_messages) == 1 and not response.tool_messages:
        summed = summed_messages[0][1]
        assert comparable(MODEL, from_ai_message(summed)) == comparable(MODEL, response)
        assert comparable(MODEL, from_ai_message(whole[-1])) == comparable(MODEL, response)


@pytest.mark.parametrize("stream", bundled_streams(), ids=stream_id)
def test_langchain_adds_up_a_bundled_stream_under_every_chunking_as_raf_does(
    stream: Stream,
) -> None:
    for results in distinct_results(stream):
        _check(results)


@pytest.mark.parametrize("run", [name for name, _ in agent_runs()])
def test_langchain_reads_an_agent_run_round_by_round(run: str) -> None:
    _check(dict(agent_runs())[run])


def _result(*items: Any, finish: str | None = None) -> AgentResponseResult:
    return AgentResponseResult(contents=tuple(items), finish_reason=finish)


def test_interleaved_parallel_calls_add_up_apart() -> None:
    library("langchain_core")
    results = (
        _result(contents.ToolCallStart(call_id="a", name="get_weather")),
        _result(contents.ToolCallStart(call_id="b", name="get_time")),
        _result(contents.ToolCallArgs(call_id="a", args_delta='{"city": ')),
        _result(contents.ToolCallArgs(call_id="b", args_delta='{"zone": ')),
        _result(contents.ToolCallArgs(call_id="a", args_delta='"Paris"}')),
        _result(contents.ToolCallArgs(call_id="b", args_delta='"CET"}')),
        _result(
            contents.ToolCalling(call_id="a", name="get_weather", arguments={"city": "Paris"}),
            contents.ToolCalling(call_id="b", name="get_time", arguments={"zone": "CET"}),
            finish="tool_calls",
        ),
    )
    summed = _add_up(objects(encode_all(MODEL, results)))
    assert _calls(summed.tool_calls) == [
        ("a", "get_weather", {"city": "Paris"}),
        ("b", "get_time", {"zone": "CET"}),
    ]
    assert summed.invalid_tool_calls == []
    assert summed.response_metadata["finish_reason"] == "tool_calls"
    back = from_ai_message(summed)
    assert [(c.id, c.name, c.arguments) for c in back.tool_calls] == _calls(summed.tool_calls)


def test_invalid_arguments_are_an_invalid_tool_call_with_the_raw_text() -> None:
    library("langchain_core")
    raw = '{"city": }'
    results = (
        _result(contents.ToolCallStart(call_id="a", name="get_weather")),
        _result(contents.ToolCallArgs(call_id="a", args_delta=raw)),
        _result(
            contents.Error(
                error_code=ErrorCode.INVALID_TOOL_ARGUMENTS,
                message="the arguments are not JSON",
                call_id="a",
                raw=raw,
            ),
            finish="tool_calls",
        ),
    )
    summed = _add_up(objects(encode_all(MODEL, results)))
    assert summed.tool_calls == []
    assert [(c["id"], c["name"], c["args"]) for c in summed.invalid_tool_calls] == [
        ("a", "get_weather", raw)
    ]
    (message,) = objects(aggregate(collect_agent_response(results)))
    assert message.tool_calls == []
    assert message.invalid_tool_calls == [
        {
            "type": "invalid_tool_call",
            "id": "a",
            "name": "get_weather",
            "args": raw,
            "error": "the arguments are not JSON",
        }
    ]
    for source in (summed, message):
        back = from_ai_message(source)
        assert back.tool_calls == ()
        assert [(e.error_code, e.call_id, e.raw) for e in back.errors] == [
            (ErrorCode.INVALID_TOOL_ARGUMENTS, "a", raw)
        ]


def test_usage_comes_once_so_that_adding_chunks_up_does_not_double_it() -> None:
    from raf.model.usage import Usage  # noqa: PLC0415

    first = Usage(prompt_tokens=10, completion_tokens=1, total_tokens=11)
    last = Usage(prompt_tokens=10, completion_tokens=5, total_tokens=15, reasoning_tokens=3)
    results = (
        _result(contents.Usage(usage=first)),
        _result(contents.Text(delta="Hi")),
        _result(contents.Usage(usage=last), finish="stop"),
    )
    items = list(encode_all(MODEL, results))
    usages = [i["data"]["usage_metadata"] for i in items if i["data"]["usage_metadata"]]
    assert usages == [
        {
            "input_tokens": 10,
            "output_tokens": 5,
            "total_tokens": 15,
            "output_token_details": {"reasoning": 3},
        }
    ]
    assert items[-1]["data"]["chunk_position"] == "last"


def test_the_decoder_reports_what_it_cannot_read_and_keeps_the_rest() -> None:
    hello = list(encode_all(MODEL, [_result(contents.Text(delta="Hello"))]))
    items = [
        *hello,
        "not a message",
        {"type": "human", "data": {"content": "hi"}},
        {"type": "AIMessageChunk", "data": {"content": " world", "chunk_position": "last"}},
    ]
    assert MODEL.decoder is not None
    decoder = MODEL.decoder()
    results = [r for item in items for r in decoder.feed(item)] + decoder.close()
    response = collect_agent_response(results)
    assert response.text == "Hello world"
    assert [e.error_code for e in response.errors] == [ErrorCode.INVALID_CHUNK]
    assert response.errors[0].message.startswith(f"item {len(hello)}:")
    assert [n.error_code for n in response.notices] == [ErrorCode.UNRECOGNISED_CHUNKS]


def test_a_provider_message_reads_back_with_its_signatures_and_calls() -> None:
    """An ``AIMessage`` as langchain-anthropic builds it (its own blocks, ``stop_reason``)."""
    message = {
        "type": "ai",
        "data": {
            "content": [
                {"type": "thinking", "thinking": "Need weather.", "signature": "SIG"},
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}},
            ],
            "response_metadata": {"stop_reason": "tool_use", "model_name": "claude"},
            "id": "msg_1",
            "tool_calls": [
                {"name": "get_weather", "args": {"city": "Paris"}, "id": "toolu_1"},
            ],
            "invalid_tool_calls": [],
            "usage_metadata": {
                "input_tokens": 10,
                "output_tokens": 5,
                "total_tokens": 15,
                "input_token_details": {"cache_read": 4},
            },
        },
    }
    response = from_ai_message(message)
    assert (response.id, response.model, response.finish_reason) == ("msg_1", "claude", "tool_use")
    assert (response.text, response.reasoning_text) == ("Checking.", "Need weather.")
    assert [(c.id, c.name, c.arguments) for c in response.tool_calls] == [
        ("toolu_1", "get_weather", {"city": "Paris"})
    ]
    assert response.usage is not None
    assert response.usage.prompt_cache_hit_tokens == 4
    (turn,) = response.turn_transcript
    assert [type(b).__name__ for b in turn.blocks] == ["Reasoning", "Text", "ToolCall"]
    assert turn.blocks[0].signature == "SIG"  # type: ignore[union-attr]


MALFORMED: list[Any] = [
    None,
    5,
    {"type": "AIMessageChunk"},
    {"type": "AIMessageChunk", "data": []},
    {
        "type": "AIMessageChunk",
        "data": {
            "content": [1, None, {"type": "text", "text": 5}, {"type": "reasoning", "extras": "x"}],
            "tool_call_chunks": [None, {"index": 0, "args": 7}, {"index": [1], "id": 3}],
        },
    },
    {"type": "AIMessageChunk", "data": {"response_metadata": "x", "usage_metadata": [1]}},
    {"type": "AIMessageChunk", "data": {"response_metadata": {"raf_errors": [1, {"message": 2}]}}},
    {"type": "ai", "data": {"content": None, "invalid_tool_calls": [{"args": {"a": 1}}, 3]}},
    {"type": "tool", "data": {"tool_call_id": {"x": 1}}},
    {"type": "AIMessageChunk", "data": {"content": [{"type": "server_tool_call"}, {}]}},
]


def test_malformed_messages_are_reported_by_position_never_raised() -> None:
    assert MODEL.decoder is not None
    decoder = MODEL.decoder()
    results = [r for item in MALFORMED for r in decoder.feed(item)] + decoder.close()
    response = collect_agent_response(results)
    positions = [int(e.message.split(":")[0].removeprefix("item ")) for e in response.errors]
    assert positions == [0, 1, 2, 3, 4, 7, 8]
    assert {e.error_code for e in response.errors} == {ErrorCode.INVALID_CHUNK}
    for item in MALFORMED:
        from_ai_message(item if isinstance(item, dict) else {})


def _sums(items: list[Any]) -> list[Any]:
    """Each AI message's chunks added up, in order (tool messages left out)."""
    return [_add_up(g) for g in _groups(objects(items)) if isinstance(g, list)]


def _plain(message: Any) -> dict[str, Any]:
    """What a consumer that knows only LangChain reads of an added-up message."""
    return {
        "text": message.text,
        "content_blocks": message.content_blocks,
        "tool_calls": message.tool_calls,
        "invalid_tool_calls": message.invalid_tool_calls,
        "usage_metadata": message.usage_metadata,
        "response_metadata": message.response_metadata,
        "id": message.id,
    }


def test_without_raf_s_keys_langchain_adds_up_the_same_message() -> None:
    """The chunks without raf's extension data (``native``) add up, with LangChain's own
    ``+``, to the message the whole chunks add up to less raf's keys: raf's data never
    changes what LangChain derives (text, blocks, calls, usage, finish reason), and what is
    left of it is only LangChain's own ``extras`` keys."""
    library("langchain_core")
    runs = [r for s in bundled_streams() for r in distinct_results(s)]
    runs += [results for _, results in agent_runs()]
    for results in runs:
        items = list(encode_all(MODEL, results))
        natives = [n for n in (native(item) for item in items) if n is not None]
        full, plain = _sums(items), _sums(natives)
        assert len(full) == len(plain)
        for whole, mine in zip(full, plain, strict=True):
            stripped = native({"type": "AIMessageChunk", "data": whole.model_dump()})
            assert stripped is not None
            (expected,) = _sums(
                [{**stripped, "data": {**stripped["data"], "chunk_position": "last"}}]
            )
            assert _plain(mine) == _plain(expected)
            assert not any(k.startswith("raf_") for k in mine.response_metadata)
            for block in mine.content_blocks:
                extras = set(block.get("extras") or ())
                assert extras <= LANGCHAIN_EXTRAS.get(block["type"], frozenset()), block
        response = collect_agent_response(results)
        failed = any(e.call_id for e in response.errors)
        if len(plain) == 1 and not response.tool_messages and not failed:
            # from_ai_message of what LangChain added up reads back every row not raf's own
            # (a call raf found invalid is left out: without raf_errors, LangChain's `+`
            # completes a cut call's arguments into a call of its own, as it does for any
            # chat model; raf's decoder, reading the chunks, does not)
            paths = native_paths(MODEL)
            back = to_canonical(from_ai_message(plain[0]))
            assert project(back, paths) == project(to_canonical(response), paths)


def test_redacted_reasoning_reads_back_from_langchain_s_own_blocks() -> None:
    """Anthropic's redacted thinking as LangChain's ``content_blocks`` give it (a
    ``non_standard`` block), and Bedrock Converse's (``extras.redacted_content``, raf's own
    form), read back as redacted reasoning."""
    library("langchain_core")
    from langchain_core.messages import AIMessage  # noqa: PLC0415

    anthropic = AIMessage(
        content=[{"type": "redacted_thinking", "data": "XYZ"}, {"type": "text", "text": "yes"}],
        response_metadata={"model_provider": "anthropic", "stop_reason": "end_turn"},
    )
    bedrock = {
        "type": "ai",
        "data": {
            "content": [
                {"type": "reasoning", "reasoning": "", "extras": {"redacted_content": "XYZ"}},
                {"type": "text", "text": "yes"},
            ],
        },
    }
    for message in (anthropic, bedrock):
        (turn,) = from_ai_message(message).turn_transcript
        assert [type(b).__name__ for b in turn.blocks] == ["Reasoning", "Text"]
        assert turn.blocks[0].redacted == "XYZ"  # type: ignore[union-attr]
