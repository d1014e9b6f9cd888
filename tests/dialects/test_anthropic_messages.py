"""anthropic_messages dialect: Anthropic Messages stream events -> updates.

Expected updates are written by hand from docs/dialects.md (section anthropic_messages); each
stream is also checked under whole, 1-byte and random network chunking.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from raf.dialects import create
from raf.formats.anthropic_messages.dialect import FINISH_REASONS, USAGE, AnthropicMessagesDialect
from raf.model import Usage, updates
from raf.model.updates import AgentResponseUpdate
from raf.pipeline import UpdateDecoder, respond
from raf.sse import ServerSentEvent
from tests.helpers import (
    CHUNKINGS,
    feed_all,
    read_with_and_without_usual,
    split,
)

NAME = "anthropic_messages"
MSG_ID = "msg_01XFDUDYJgAACzvnptvVoYEL"
MODEL = "claude-sonnet-4-5-20250929"
RM = updates.ResponseMetadata(id=MSG_ID, model=MODEL)
PV = "protocol_violation"


def event(kind: str, named: bool = True, **fields: Any) -> str:
    data = json.dumps({"type": kind, **fields}, separators=(",", ":"))
    return f"event: {kind}\ndata: {data}\n\n" if named else f"data: {data}\n\n"


def start(usage: dict[str, Any] | None = None, **message: Any) -> str:
    body: dict[str, Any] = {
        "id": MSG_ID,
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage
        if usage is not None
        else {
            "input_tokens": 25,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": 1,
        },
    }
    body.update(message)
    return event("message_start", message=body)


def block(index: int, **content_block: Any) -> str:
    return event("content_block_start", index=index, content_block=content_block)


def text_block(index: int, *texts: str) -> str:
    return (
        block(index, type="text", text="")
        + "".join(delta(index, type="text_delta", text=t) for t in texts)
        + stop(index)
    )


def delta(index: int | None, **d: Any) -> str:
    if index is None:
        return event("content_block_delta", delta=d)
    return event("content_block_delta", index=index, delta=d)


def stop(index: int) -> str:
    return event("content_block_stop", index=index)


def end(reason: str | None = "end_turn", usage: dict[str, Any] | None = None) -> str:
    return event(
        "message_delta",
        delta={"stop_reason": reason, "stop_sequence": None},
        usage=usage if usage is not None else {"output_tokens": 12},
    ) + event("message_stop")


def u(prompt: int, completion: int, hit: int | None = 0) -> Usage:
    return Usage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=prompt + completion,
        prompt_cache_hit_tokens=hit,
        prompt_cache_miss_tokens=None if hit is None else prompt - hit,
    )


def run(body: str | bytes, how: str = "whole") -> list[AgentResponseUpdate]:
    data = body.encode() if isinstance(body, str) else body
    decoder = UpdateDecoder(NAME)
    return feed_all(decoder.feed, decoder.close, split(data, how))


def run_all(body: str | bytes) -> list[AgentResponseUpdate]:
    """The updates, checked to be the same under every chunking."""
    runs = [run(body, how) for how in CHUNKINGS]
    assert runs[1] == runs[0]
    assert runs[2] == runs[0]
    return runs[0]


def codes(out: list[AgentResponseUpdate]) -> list[str]:
    return [x.error_code for x in out if isinstance(x, updates.Error)]


def without_errors(out: list[AgentResponseUpdate]) -> list[AgentResponseUpdate]:
    return [x for x in out if not isinstance(x, updates.Error)]


START_UPDATES = [RM, updates.Usage(usage=u(25, 1))]


# -- the basics ----------------------------------------------------------------------------------


def test_registered_and_declared() -> None:
    dialect = create(NAME)
    assert isinstance(dialect, AnthropicMessagesDialect)
    assert dialect.name == NAME
    assert dialect.framing == "sse"


def test_plain_text_stream() -> None:
    body = start() + event("ping") + text_block(0, "Hello", "", " world") + end()
    assert run_all(body) == [
        *START_UPDATES,
        updates.TextDelta(delta="Hello"),
        updates.TextDelta(delta=" world"),
        updates.Finish(finish_reason="stop", usage=u(25, 12)),
    ]


def test_data_only_stream_without_event_lines_reads_the_same() -> None:
    named = start() + text_block(0, "Hi") + end()
    bare = "".join(
        line + "\n" for line in named.split("\n") if not line.startswith("event:")
    ).replace("\n\n\n", "\n\n")
    assert run_all(bare) == run_all(named)


def test_crlf_framing_reads_the_same() -> None:
    body = start() + text_block(0, "Hi") + end()
    assert run_all(body.replace("\n", "\r\n")) == run_all(body)


def test_event_name_used_when_the_json_has_no_type() -> None:
    body = start() + text_block(0, "Hi") + "event: message_stop\ndata: {}\n\n"
    out = run_all(body)
    assert codes(out) == []  # message_stop by its event name: a clean end


def test_json_type_wins_over_the_event_name() -> None:
    body = (
        start()
        + block(0, type="text", text="")
        + 'event: ping\ndata: {"type":"content_block_delta","index":0,'
        '"delta":{"type":"text_delta","text":"kept"}}\n\n' + end()
    )
    assert updates.TextDelta(delta="kept") in run_all(body)


# -- thinking --------------------------------------------------------------------------------------


def test_thinking_then_signature_then_text() -> None:
    body = (
        start()
        + block(0, type="thinking", thinking="", signature="")
        + delta(0, type="thinking_delta", thinking="Need ")
        + delta(0, type="thinking_delta", thinking="weather.")
        + delta(0, type="signature_delta", signature="EqQBCgIYAhIM")
        + stop(0)
        + text_block(1, "Checking.")
        + end()
    )
    assert run_all(body) == [
        *START_UPDATES,
        updates.ReasoningDelta(delta="Need "),
        updates.ReasoningDelta(delta="weather."),
        updates.ReasoningSignature(signature="EqQBCgIYAhIM"),
        updates.TextDelta(delta="Checking."),
        updates.Finish(finish_reason="stop", usage=u(25, 12)),
    ]


def test_signature_split_over_two_deltas_gives_one_signature_at_the_stop() -> None:
    body = (
        start()
        + block(0, type="thinking", thinking="", signature="")
        + delta(0, type="thinking_delta", thinking="x")
        + delta(0, type="signature_delta", signature="AAA")
        + delta(0, type="signature_delta", signature="BBB")
        + stop(0)
        + end()
    )
    sigs = [x.signature for x in run_all(body) if isinstance(x, updates.ReasoningSignature)]
    assert sigs == ["AAABBB"]


def test_signature_in_the_start_is_emitted_at_the_stop_unless_a_delta_came() -> None:
    body = (
        start()
        + block(0, type="thinking", thinking="Early", signature="SIG0")
        + delta(0, type="thinking_delta", thinking=" more")
        + stop(0)
        + block(1, type="thinking", thinking="", signature="IGNORED")
        + delta(1, type="signature_delta", signature="SIG1")
        + stop(1)
        + end()
    )
    out = without_errors(run_all(body))[2:-1]
    assert out == [
        updates.ReasoningDelta(delta="Early"),
        updates.ReasoningDelta(delta=" more"),
        updates.ReasoningSignature(signature="SIG0"),
        updates.ReasoningSignature(signature="SIG1"),
    ]


def test_redacted_thinking_is_its_data_without_text() -> None:
    body = start() + block(0, type="redacted_thinking", data="EmwKAhgBEgy3va") + stop(0) + end()
    assert run_all(body)[2:-1] == [updates.RedactedReasoning(data="EmwKAhgBEgy3va")]


# -- tool calls -------------------------------------------------------------------------------------


def tool(index: int, call_id: str, name: str, *parts: str, **start_fields: Any) -> str:
    fields = {"type": "tool_use", "id": call_id, "name": name, "input": {}, **start_fields}
    return (
        block(index, **fields)
        + "".join(delta(index, type="input_json_delta", partial_json=p) for p in parts)
        + stop(index)
    )


def test_tool_call_explicit_updates_only() -> None:
    body = (
        start()
        + text_block(0, "Checking.")
        + tool(1, "toolu_01", "get_weather", "", '{"city": "Pa', 'ris"}')
        + end("tool_use")
    )
    out = run_all(body)
    assert out == [
        *START_UPDATES,
        updates.TextDelta(delta="Checking."),
        updates.ToolCallStart(id="toolu_01", name="get_weather"),
        updates.ToolCallArgs(id="toolu_01", args_delta='{"city": "Pa'),
        updates.ToolCallArgs(id="toolu_01", args_delta='ris"}'),
        updates.ToolCallEnd(id="toolu_01"),
        updates.Finish(finish_reason="tool_calls", usage=u(25, 12)),
    ]
    # never both explicit and legacy updates for one call (the RAF quirk, raf-spec 2.7)
    assert not any(isinstance(x, updates.ToolCallDelta) for x in out)
    response = respond([body.encode()], NAME)
    assert [(c.id, c.name, c.arguments) for c in response.tool_calls] == [
        ("toolu_01", "get_weather", {"city": "Paris"})
    ]
    assert not response.errors


def test_call_without_arguments_is_an_empty_object() -> None:
    body = start() + tool(0, "toolu_02", "get_time", "") + end("tool_use")
    out = run_all(body)
    assert out[2:4] == [
        updates.ToolCallStart(id="toolu_02", name="get_time"),
        updates.ToolCallEnd(id="toolu_02"),
    ]
    response = respond([body.encode()], NAME)
    assert [c.arguments for c in response.tool_calls] == [{}]
    assert not response.errors


def test_input_only_in_the_start_is_kept__pi2593() -> None:
    body = start() + tool(0, "toolu_03", "read", input={"path": "/tmp/a.txt"}) + end("tool_use")
    assert run_all(body)[2:5] == [
        updates.ToolCallStart(id="toolu_03", name="read"),
        updates.ToolCallArgs(id="toolu_03", args_delta='{"path":"/tmp/a.txt"}'),
        updates.ToolCallEnd(id="toolu_03"),
    ]
    assert respond([body.encode()], NAME).tool_calls[0].arguments == {"path": "/tmp/a.txt"}


def test_start_input_is_never_added_to_the_deltas() -> None:
    body = start() + tool(0, "toolu_04", "read", '{"path":', '"b"}', input={"path": "a"}) + end()
    args = [x.args_delta for x in run_all(body) if isinstance(x, updates.ToolCallArgs)]
    assert args == ['{"path":', '"b"}']


def test_block_index_counts_every_block_and_routes_interleaved_calls() -> None:
    body = (
        start()
        + block(0, type="thinking", thinking="", signature="")
        + stop(0)
        + text_block(1, "Two calls.")
        + block(2, type="tool_use", id="toolu_a", name="f", input={})
        + block(3, type="tool_use", id="toolu_b", name="f", input={})
        + delta(3, type="input_json_delta", partial_json='{"x": 2}')
        + delta(2, type="input_json_delta", partial_json='{"x": 1}')
        + stop(2)
        + stop(3)
        + end("tool_use")
    )
    response = respond([body.encode()], NAME)
    assert [(c.id, c.arguments) for c in response.tool_calls] == [
        ("toolu_a", {"x": 1}),
        ("toolu_b", {"x": 2}),
    ]
    assert not response.errors


def test_tool_use_without_id_uses_the_legacy_form() -> None:
    body = (
        start()
        + block(0, type="tool_use", name="lookup", input={})
        + delta(0, type="input_json_delta", partial_json='{"q": 1}')
        + stop(0)
        + end("tool_use")
    )
    out = run_all(body)
    assert without_errors(out)[2:4] == [
        updates.ToolCallDelta(index=0, id=None, name="lookup", arguments_delta=""),
        updates.ToolCallDelta(index=0, arguments_delta='{"q": 1}'),
    ]
    assert codes(out) == ["invalid_chunk"]
    response = respond([body.encode()], NAME)
    assert [(c.id, c.name, c.arguments) for c in response.tool_calls] == [
        ("__tc_0", "lookup", {"q": 1})
    ]


def test_invalid_json_from_fine_grained_streaming_is_reported_by_the_converter() -> None:
    body = start() + tool(0, "toolu_05", "edit", '{"path": "a.py", "text": "x', "\n") + end()
    response = respond([body.encode()], NAME)
    assert not response.tool_calls
    assert [e.error_code for e in response.errors] == ["invalid_tool_arguments"]


# -- server tools, citations, unknown kinds --------------------------------------------------------


def test_item_11_server_tool_use_and_results_are_hosted_never_client_calls() -> None:
    body = (
        start()
        + text_block(0, "Searching.")
        + block(1, type="server_tool_use", id="srvtoolu_01", name="web_search", input={})
        + delta(1, type="input_json_delta", partial_json='{"query": "x"}')
        + stop(1)
        + block(2, type="web_search_tool_result", tool_use_id="srvtoolu_01", content=[])
        + stop(2)
        + block(3, type="mcp_tool_use", id="mcptoolu_01", name="echo", server_name="s", input={})
        + stop(3)
        + block(4, type="compaction", content=None)
        + delta(4, type="compaction_delta", content="summary")
        + stop(4)
        + block(5, type="text", text="")
        + delta(5, type="citations_delta", citation={"type": "web_search_result_location"})
        + delta(5, type="text_delta", text="Found.")
        + stop(5)
        + end()
    )
    out = run_all(body)
    assert codes(out) == []
    assert [x for x in out if not isinstance(x, updates.Usage | updates.ResponseMetadata)] == [
        updates.TextDelta(delta="Searching."),
        updates.HostedToolCall(
            call_id="srvtoolu_01",
            name="web_search",
            arguments={"query": "x"},
            item={"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search"},
        ),
        updates.HostedToolResult(
            call_id="srvtoolu_01",
            name="web_search_tool_result",
            output=[],
            item={"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01"},
        ),
        updates.HostedToolCall(
            call_id="mcptoolu_01",
            name="echo",
            arguments={},
            item={"type": "mcp_tool_use", "id": "mcptoolu_01", "name": "echo", "server_name": "s"},
        ),
        updates.TextDelta(delta="Found."),
        updates.Finish(finish_reason="stop", usage=u(25, 12)),
    ]


def test_server_tool_result_errors_and_a_cut_server_call_keep_what_arrived() -> None:
    body = (
        start()
        + block(0, type="server_tool_use", id="srvtoolu_01", name="web_search", input={})
        + delta(0, type="input_json_delta", partial_json='{"query": "x"}')
        + stop(0)
        + block(
            1,
            type="web_search_tool_result",
            tool_use_id="srvtoolu_01",
            content={"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"},
        )
        + stop(1)
        + block(2, type="mcp_tool_result", tool_use_id="m1", is_error=True, content="boom")
        + stop(2)
        + block(3, type="server_tool_use", id="srvtoolu_02", name="web_search", input={})
        + delta(3, type="input_json_delta", partial_json='{"query": "y')
    )
    out = run_all(body)
    assert [(r.call_id, r.error) for r in out if isinstance(r, updates.HostedToolResult)] == [
        ("srvtoolu_01", "max_uses_exceeded"),
        ("m1", "boom"),
    ]
    calls = [c for c in out if isinstance(c, updates.HostedToolCall)]
    assert [(c.call_id, c.arguments) for c in calls] == [
        ("srvtoolu_01", {"query": "x"}),
        ("srvtoolu_02", '{"query": "y'),  # cut: the text that arrived, not made-up JSON
    ]
    assert codes(out) == ["stream_truncated"]


def test_unknown_events_and_delta_kinds_are_skipped_and_counted_in_one_notice() -> None:
    body = (
        start()
        + event("future_event", foo=1)
        + block(0, type="text", text="")
        + delta(0, type="future_delta", foo="bar")
        + delta(0, type="text_delta", text="ok")
        + stop(0)
        + end()
    )
    out = run_all(body)
    # The unknown event is counted (unknown delta kinds of a known block are the format's).
    assert codes(out) == ["unrecognised_chunks"]
    assert out[-1].message.startswith("1 chunk(s) of no kind")  # type: ignore[union-attr]
    assert updates.TextDelta(delta="ok") in out


def test_text_in_the_start_of_a_text_block_is_kept() -> None:
    body = start() + block(0, type="text", text="First") + delta(0, type="text_delta", text="!")
    body += stop(0) + end()
    assert run_all(body)[2:4] == [updates.TextDelta(delta="First"), updates.TextDelta(delta="!")]


# -- finish reasons and usage -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("wire", "raf"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("max_tokens", "length"),
        ("model_context_window_exceeded", "length"),
        ("tool_use", "tool_calls"),
        ("refusal", "content_filter"),
        ("pause_turn", "pause_turn"),
        ("brand_new_reason", "brand_new_reason"),
    ],
)
def test_stop_reasons(wire: str, raf: str) -> None:
    out = run_all(start() + end(wire))
    assert out[-1] == updates.Finish(finish_reason=raf, usage=u(25, 12))
    if wire in FINISH_REASONS:
        assert FINISH_REASONS[wire] == raf


def test_usage_with_cache_and_override_in_message_delta() -> None:
    body = start(
        usage={
            "input_tokens": 10,
            "cache_creation_input_tokens": 100,
            "cache_read_input_tokens": 1000,
            "output_tokens": 1,
        }
    ) + end(
        usage={
            "input_tokens": 12,
            "cache_read_input_tokens": None,
            "output_tokens": 77,
            "server_tool_use": {"web_search_requests": 1},
        }
    )
    out = run_all(body)
    assert out[1] == updates.Usage(usage=u(1110, 1, hit=1000))
    assert out[-1] == updates.Finish(finish_reason="stop", usage=u(1112, 77, hit=1000))


def test_usage_only_in_message_delta_as_some_proxies_send_it() -> None:
    body = start(usage={}) + end(usage={"input_tokens": 30, "output_tokens": 5})
    out = run_all(body)
    assert out == [RM, updates.Finish(finish_reason="stop", usage=u(30, 5, hit=None))]


def test_finish_without_any_usage_has_none() -> None:
    body = start(usage={}) + event("message_delta", delta={"stop_reason": "end_turn"})
    assert run_all(body)[-1] == updates.Finish(finish_reason="stop", usage=None)


def test_message_delta_without_stop_reason_is_a_usage_update() -> None:
    body = (
        start()
        + event("message_delta", delta={"stop_reason": None}, usage={"output_tokens": 4})
        + end()
    )
    out = run_all(body)
    assert out[2] == updates.Usage(usage=u(25, 4))


def test_usage_table_reads_the_anthropic_counts() -> None:
    assert USAGE.parse({"input_tokens": 3, "cache_read_input_tokens": 4, "output_tokens": 5}) == (
        Usage(
            prompt_tokens=7,
            completion_tokens=5,
            total_tokens=12,
            prompt_cache_hit_tokens=4,
            prompt_cache_miss_tokens=3,
        )
    )


def test_malformed_usage_count_is_named_and_skipped() -> None:
    body = start() + end(usage={"output_tokens": "12"})
    out = run_all(body)
    assert codes(out) == ["invalid_chunk"]
    assert updates.Finish(finish_reason="stop", usage=u(25, 1)) in out


# -- errors and the end of the stream ---------------------------------------------------------------


OVERLOADED = {"type": "overloaded_error", "message": "Overloaded"}


def test_event_error_after_200_then_close__sdk688() -> None:
    body = start() + block(0, type="text", text="") + delta(0, type="text_delta", text="Par")
    body += event("error", error=OVERLOADED, request_id="req_011")
    out = run_all(body)
    assert out[2] == updates.TextDelta(delta="Par")
    assert codes(out) == ["provider_error"]  # no stream_truncated
    assert "Overloaded (code overloaded_error)" in out[-1].message  # type: ignore[union-attr]


def test_error_object_without_the_event_name() -> None:
    body = start() + event("error", named=False, error=OVERLOADED)
    out = run_all(body)
    assert codes(out) == ["provider_error"]


def test_stream_cut_before_message_stop_is_truncated() -> None:
    body = start() + block(0, type="text", text="") + delta(0, type="text_delta", text="Hal")
    out = run_all(body)
    assert out[-2:] == [updates.TextDelta(delta="Hal"), out[-1]]
    assert codes(out) == ["stream_truncated"]
    assert "message_stop" in out[-1].message  # type: ignore[union-attr]


def test_stop_reason_without_message_stop_is_a_clean_end() -> None:
    body = start() + event("message_delta", delta={"stop_reason": "end_turn"}, usage={})
    assert codes(run_all(body)) == []


def test_unfinished_last_event_is_truncated_even_after_the_finish() -> None:
    body = start() + end() + 'event: ping\ndata: {"type":"pi'
    assert codes(run_all(body)) == ["stream_truncated"]


def test_done_marker_ends_the_stream() -> None:
    body = start() + text_block(0, "a") + end() + "data: [DONE]\n\n" + text_block(1, "ignored")
    out = run_all(body)
    assert codes(out) == []
    assert updates.TextDelta(delta="ignored") not in out


def test_open_tool_block_with_start_input_is_flushed_at_close() -> None:
    body = start() + block(0, type="tool_use", id="toolu_x", name="f", input={"a": 1})
    out = run_all(body)
    assert out[2:] == [
        updates.ToolCallStart(id="toolu_x", name="f"),
        updates.ToolCallArgs(id="toolu_x", args_delta='{"a":1}'),
        out[-1],
    ]
    assert codes(out) == ["stream_truncated"]


def test_not_json_and_wrong_types() -> None:
    body = (
        start()
        + "event: content_block_delta\ndata: {not json\n\n"
        + block(0, type="text", text=5)
        + delta(0, type="text_delta", text=["x"])
        + event("content_block_delta", index="0", delta={"type": "text_delta", "text": "y"})
        + "data: [1, 2]\n\n"
        + end()
    )
    out = run_all(body)
    assert codes(out) == [
        "sse_parse_error",
        "invalid_chunk",
        "invalid_chunk",
        "invalid_chunk",
        "invalid_chunk",
    ]
    # the delta with a string index went to the most recent block: its text is kept
    assert updates.TextDelta(delta="y") in out


def test_deeply_nested_payload_is_json_too_deep() -> None:
    body = start() + "data: " + "[" * 300 + "]" * 300 + "\n\n" + end()
    assert codes(run_all(body)) == ["json_too_deep"]


# -- protocol violations ------------------------------------------------------------------------------


def test_second_message_start_is_a_violation_and_both_messages_count() -> None:
    second = start(id="msg_02")
    body = start() + text_block(0, "One.") + end() + second + text_block(0, " Two.") + end()
    out = run_all(body)
    assert codes(out) == [PV]
    response = respond([body.encode()], NAME)
    assert response.text == "One. Two."
    assert response.id == "msg_02"


def test_second_message_cut_off_is_truncated() -> None:
    body = start() + text_block(0, "One.") + end() + start(id="msg_02")
    assert codes(run_all(body)) == [PV, "stream_truncated"]


def test_delta_for_a_block_never_started_keeps_the_text() -> None:
    body = (
        start()
        + delta(3, type="text_delta", text="orphan")
        + delta(3, type="text_delta", text=" text")
        + stop(3)
        + end()
    )
    out = run_all(body)
    assert codes(out) == [PV]
    assert [x.delta for x in out if isinstance(x, updates.TextDelta)] == ["orphan", " text"]


def test_input_json_delta_for_a_block_never_started_is_kept_in_legacy_form() -> None:
    body = start() + delta(1, type="input_json_delta", partial_json='{"a":1}') + end()
    out = run_all(body)
    assert codes(out) == [PV]
    assert updates.ToolCallDelta(index=1, arguments_delta='{"a":1}') in out
    # no name: the converter keeps the text in an invalid_tool_call error
    response = respond([body.encode()], NAME)
    assert [e.error_code for e in response.errors] == [PV, "invalid_tool_call"]


def test_stop_for_unknown_or_stopped_block_and_double_start() -> None:
    body = (
        start()
        + stop(4)
        + text_block(0, "a")
        + stop(0)
        + block(0, type="text", text="")
        + delta(0, type="text_delta", text="b")
        + stop(0)
        + end()
    )
    out = run_all(body)
    assert codes(out) == [PV, PV, PV]
    assert [x.delta for x in out if isinstance(x, updates.TextDelta)] == ["a", "b"]


def test_delta_after_stop_is_reported_once_and_kept() -> None:
    body = (
        start()
        + tool(0, "toolu_y", "f", '{"a":')
        + delta(0, type="input_json_delta", partial_json="1")
        + delta(0, type="input_json_delta", partial_json="}")
        + end()
    )
    out = run_all(body)
    assert codes(out) == [PV]
    assert respond([body.encode()], NAME).tool_calls[0].arguments == {"a": 1}


def test_stream_without_message_start_is_read() -> None:
    body = text_block(0, "hi") + end()
    out = run_all(body)
    assert codes(out) == []
    assert out[0] == updates.TextDelta(delta="hi")


def test_bedrock_invocation_metrics_are_ignored() -> None:
    body = (
        start(id="msg_bdrk_01")
        + text_block(0, "hi")
        + event("message_delta", delta={"stop_reason": "end_turn"}, usage={"output_tokens": 3})
        + event(
            "message_stop",
            named=True,
            **{"amazon-bedrock-invocationMetrics": {"inputTokenCount": 25, "outputTokenCount": 3}},
        )
    )
    out = run_all(body)
    assert codes(out) == []
    assert out[-1] == updates.Finish(finish_reason="stop", usage=u(25, 3))


def test_feed_takes_server_sent_events() -> None:
    dialect = AnthropicMessagesDialect()
    out = dialect.feed(ServerSentEvent(event="ping", data='{"type":"ping"}'))
    assert out == []
    assert dialect.close() == [
        updates.Error(error_code="stream_truncated", message="stream ended before message_stop")
    ]


# -- properties -----------------------------------------------------------------------------------------

PIECES = [
    start(),
    start(usage={"input_tokens": 3, "output_tokens": 1}),
    event("ping"),
    block(0, type="text", text=""),
    block(1, type="tool_use", id="toolu_p", name="f", input={}),
    block(1, type="tool_use", id="toolu_p", name="f", input={"k": "é"}),
    block(2, type="thinking", thinking="", signature=""),
    block(3, type="server_tool_use", id="srv", name="web_search", input={}),
    block(4, type="redacted_thinking", data="xyz"),
    delta(0, type="text_delta", text="héllo 👋"),
    delta(1, type="input_json_delta", partial_json=""),
    delta(1, type="input_json_delta", partial_json='{"k": "v'),
    delta(1, type="input_json_delta", partial_json='"}'),
    delta(2, type="thinking_delta", thinking="think"),
    delta(2, type="signature_delta", signature="sig"),
    delta(3, type="input_json_delta", partial_json="{}"),
    delta(7, type="text_delta", text="orphan"),
    delta(None, type="text_delta", text="noindex"),
    stop(0),
    stop(1),
    stop(2),
    stop(3),
    stop(9),
    event("message_delta", delta={"stop_reason": "tool_use"}, usage={"output_tokens": 9}),
    event("message_delta", delta={}, usage={"input_tokens": 4}),
    event("message_stop"),
    event("error", error=OVERLOADED),
    event("error", named=False, error=OVERLOADED),
    "data: {broken\n\n",
    ": comment\n\n",
    "data: [DONE]\n\n",
]


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.sampled_from(PIECES), max_size=25),
    st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=30),
    st.booleans(),
)
def test_any_chunking_gives_the_updates_of_the_whole_body(
    pieces: list[str], sizes: list[int], crlf: bool
) -> None:
    text = "".join(pieces)
    data = (text.replace("\n", "\r\n") if crlf else text).encode()
    whole = run(data)
    chunks, pos, i = [], 0, 0
    while pos < len(data):
        size = sizes[i % len(sizes)]
        chunks.append(data[pos : pos + size])
        pos += size
        i += 1
    decoder = UpdateDecoder(NAME)
    assert feed_all(decoder.feed, decoder.close, chunks) == whole
    assert run(data, "bytewise") == whole
    respond([data], NAME)  # never raises


@settings(deadline=None)
@given(st.binary(max_size=400))
def test_arbitrary_bytes_never_raise(data: bytes) -> None:
    run(b"event: message_start\ndata: " + data)
    run(data)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=12,
)
TYPES = st.sampled_from(
    [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "error",
        "ping",
    ]
)
KEYS = st.sampled_from(["message", "index", "content_block", "delta", "usage", "error", "x"])
SUB = st.sampled_from(
    ["text", "tool_use", "thinking", "redacted_thinking", "text_delta", "input_json_delta"]
)


@settings(deadline=None)
@given(
    st.lists(
        st.tuples(
            TYPES,
            st.dictionaries(
                KEYS,
                JSON
                | st.integers(min_value=0, max_value=3)
                | st.fixed_dictionaries(
                    {"type": SUB},
                    optional={
                        "id": JSON,
                        "name": JSON,
                        "text": JSON,
                        "partial_json": JSON,
                        "input": JSON,
                        "stop_reason": JSON,
                    },
                ),
                max_size=4,
            ),
        ),
        max_size=12,
    )
)
def test_arbitrary_events_never_raise_nor_fail_internally(
    events: list[tuple[str, dict[str, Any]]],
) -> None:
    body = "".join(event(kind, **fields) for kind, fields in events)
    out = run(body)
    assert "internal_error" not in codes(out)
    response = respond([body.encode()], NAME)
    assert all(e.error_code != "internal_error" for e in response.errors)


# -- the fast path of the usual event -------------------------------------------------------


_TOOL_START = block(1, type="tool_use", id="toolu_1", name="get", input={})
_LEGACY_START = block(2, type="tool_use", input={})
USUAL_VARIANTS = [
    delta(0, type="text_delta", text="plain"),
    delta(0, type="text_delta", text=""),
    delta(0, type="text_delta", text=None),
    delta(0, type="text_delta"),
    delta(0, type="text_delta", text=7),
    delta(0, type="thinking_delta", thinking="hmm"),
    delta(0, type="signature_delta", signature="sig"),
    delta(0, type="citations_delta", citation={"cited_text": "x"}),
    delta(0, type="mystery_delta", text="?"),
    delta(1, type="input_json_delta", partial_json='{"a":'),
    delta(2, type="input_json_delta", partial_json="[1"),
    delta(1, type="text_delta", text="text in a tool block"),
    delta(5, type="text_delta", text="never started"),
    delta(None, type="text_delta", text="no index"),
    event("content_block_delta", index=True, delta={"type": "text_delta", "text": "bool"}),
    event("content_block_delta", index=0.0, delta={"type": "text_delta", "text": "float"}),
    event("content_block_delta", index=10**30, delta={"type": "text_delta", "text": "big"}),
    event("content_block_delta", index=0, delta="not an object"),
    event("content_block_delta", index=0),
    event("content_block_delta", index=0, delta={"type": "text_delta", "text": "x"}, extra=1),
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
    '"delta":{"type":"text_delta","text":"huge number"},"x":1e400}\n\n',
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
    '"delta":{"type":"text_delta","text":"lone \\ud800 surrogate"}}\n\n',
    'event: error\ndata: {"type":"content_block_delta","index":0,'
    '"delta":{"type":"text_delta","text":"an error event"}}\n\n',
    'event: ping\ndata: {"type":"content_block_delta","index":0,'
    '"delta":{"type":"text_delta","text":"another name"}}\n\n',
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"index":3,'
    '"delta":{"type":"text_delta","text":"a","text":"b"}}\n\n',
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
    '"delta":{"type":"text_delta","text":"deep","x":' + "[" * 300 + "]" * 300 + "}}\n\n",
]


@pytest.mark.parametrize("variant", USUAL_VARIANTS)
def test_the_usual_event_fast_path_reads_as_the_shared_path(variant: str) -> None:
    # Before the blocks start, while they are open, and after their stop.
    body = (
        start() + variant + block(0, type="text", text="") + _TOOL_START + _LEGACY_START
        + variant + variant + stop(0) + stop(1) + stop(2) + variant + end()
    )  # fmt: skip
    fast, shared = read_with_and_without_usual(NAME, body.encode())
    assert fast == shared


def test_the_fast_path_takes_the_usual_events() -> None:
    body = start() + text_block(0, "a", "b") + tool(1, "toolu_1", "get", '{"x":', "1}") + end()
    # In runs (``feed_run``: a template or typed), and one event at a time (``usual``).
    for chunks in ([body.encode()], split(body.encode(), "bytewise")):
        decoder = UpdateDecoder(NAME)
        feed_all(decoder.feed, decoder.close, chunks)
        counts = decoder.dialect.fast_path_counts()  # type: ignore[union-attr]
        assert counts.get("typed", 0) + counts.get("template", 0) == 4, counts
        assert counts.get("full", 0) == body.count("data: ") - 4, counts
