"""gemini dialect: GenerateContentResponse frames -> updates (docs/dialects.md, ``gemini``).

Expected updates are written by hand from the spec; every stream is checked under whole,
1-byte and random chunking, as SSE and as a JSON array.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from raf import dialects
from raf.chunking import chunk
from raf.dialects.sniff import sniff
from raf.formats.gemini.dialect import USAGE, GeminiDialect, parse_json_path
from raf.framing.sse import ServerSentEvent
from raf.model import Usage, updates
from raf.model.updates import AgentResponseUpdate
from raf.pipeline import UpdateDecoder, respond
from tests.helpers import CHUNKINGS, feed_all, split

if "gemini" not in dialects.names():
    # raf/dialects/__init__.py registers gemini lazily; keep these tests independent of it.
    dialects.register("gemini", GeminiDialect)

RID = "QUVVadTSNJ6_qtsPvN7J8Q0"
MODEL = "gemini-2.5-flash"
RM = updates.ResponseMetadata(id=RID, model=MODEL)
U = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}
USAGE_10_5 = Usage(prompt_tokens=10, completion_tokens=5, total_tokens=15)


def resp(
    *parts: dict[str, Any],
    finish: str | None = None,
    usage: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A GenerateContentResponse as the Gemini API streams it."""
    candidate: dict[str, Any] = {"content": {"parts": list(parts), "role": "model"}, "index": 0}
    if finish is not None:
        candidate["finishReason"] = finish
    body: dict[str, Any] = {"candidates": [candidate]}
    if usage is not None:
        body["usageMetadata"] = usage
    body.update(modelVersion=MODEL, responseId=RID)
    body.update(extra)
    return body


def sse(*objects: Any) -> bytes:
    return b"".join(
        f"data: {o if isinstance(o, str) else json.dumps(o)}\r\n\r\n".encode() for o in objects
    )


def array(*objects: Any) -> bytes:
    items = [o if isinstance(o, str) else json.dumps(o) for o in objects]
    return ("[" + "\r\n,".join(items) + "]").encode()


def run(body: bytes) -> list[AgentResponseUpdate]:
    """The updates of ``body``, the same under every chunking."""
    results = []
    for how in CHUNKINGS:
        decoder = UpdateDecoder("gemini")
        results.append(feed_all(decoder.feed, decoder.close, split(body, how)))
    assert all(r == results[0] for r in results)
    return results[0]


def both(*objects: Any) -> list[AgentResponseUpdate]:
    """The updates of the objects as SSE and as a JSON array, which must agree."""
    out = run(sse(*objects))
    assert run(array(*objects)) == out
    return out


def codes(out: list[AgentResponseUpdate]) -> list[str]:
    return [u.error_code for u in out if isinstance(u, updates.Error)]


# -- parts ---------------------------------------------------------------------------------


def test_text_then_stop_with_usage() -> None:
    out = both(resp({"text": "Hel"}, usage=U), resp({"text": "lo"}, finish="STOP", usage=U))
    assert out == [
        RM,
        updates.TextDelta(delta="Hel"),
        updates.TextDelta(delta="lo"),
        updates.Finish(finish_reason="stop", usage=USAGE_10_5),
    ]


def test_thought_parts_are_reasoning_and_empty_text_is_nothing() -> None:
    out = both(
        resp({"text": "think", "thought": True}),
        resp({"text": ""}, {"text": "answer"}, finish="STOP"),
    )
    assert out == [
        RM,
        updates.ReasoningDelta(delta="think"),
        updates.TextDelta(delta="answer"),
        updates.Finish(finish_reason="stop"),
    ]


@pytest.mark.parametrize(
    ("part", "signature"),
    [
        (
            {"text": "signed", "thoughtSignature": "sig"},
            updates.PartSignature(signature="sig", part="text"),
        ),
        (
            {"text": "t", "thought": True, "thoughtSignature": "sig"},
            updates.ReasoningSignature(signature="sig"),
        ),
        (
            {"functionCall": {"name": "f", "args": {}}, "thoughtSignature": "sig"},
            updates.PartSignature(signature="sig", part="tool_call"),
        ),
        (
            {"text": "", "thoughtSignature": "sig"},
            updates.PartSignature(signature="sig", part="empty"),
        ),
        ({"thoughtSignature": "sig"}, updates.PartSignature(signature="sig", part="empty")),
        (
            {"executableCode": {"language": "PYTHON", "code": "1"}, "thoughtSignature": "sig"},
            updates.PartSignature(signature="sig", part="hosted"),
        ),
    ],
)
def test_thought_signature_follows_its_part_and_names_it(
    part: dict[str, Any], signature: updates.AgentResponseUpdate
) -> None:
    out = both(resp(part, finish="STOP"))
    at = out.index(signature)
    assert at == len(out) - 2  # right after the part's own update(s), before Finish
    assert all(not isinstance(u, updates.TextDelta) or u.delta != "" for u in out)
    assert codes(out) == []


def test_signature_only_part_before_text_is_not_merged_into_text() -> None:
    out = both(resp({"thoughtSignature": "A"}), resp({"text": "x"}, finish="STOP"))
    assert out[1:3] == [
        updates.PartSignature(signature="A", part="empty"),
        updates.TextDelta(delta="x"),
    ]


def test_item_11_gemini_code_execution_is_a_hosted_call() -> None:
    # Gemini 2.5 sends no ids: each result answers the code before it; an output-less result
    # (protocol-buffer JSON leaves an empty output out) was answered all the same.
    out = both(
        resp({"executableCode": {"language": "PYTHON", "code": "print(1/0)"}}),
        resp({"codeExecutionResult": {"outcome": "OUTCOME_FAILED", "output": "ZeroDivisionError"}}),
        resp({"executableCode": {"language": "PYTHON", "code": "x = 1"}, "thoughtSignature": "s"}),
        resp({"codeExecutionResult": {"outcome": "OUTCOME_OK"}}),
        resp({"text": "one"}, finish="STOP"),
    )
    code: dict[str, dict[str, Any]] = {"executableCode": {}}
    assert out == [
        RM,
        updates.HostedToolCall(
            call_id="code_execution_0",
            name="code_execution",
            arguments={"language": "PYTHON", "code": "print(1/0)"},
            item=code,
        ),
        updates.HostedToolResult(
            call_id="code_execution_0",
            name="code_execution_result",
            output="ZeroDivisionError",
            error="OUTCOME_FAILED",
            item={"codeExecutionResult": {"outcome": "OUTCOME_FAILED"}},
        ),
        updates.HostedToolCall(
            call_id="code_execution_1",
            name="code_execution",
            arguments={"language": "PYTHON", "code": "x = 1"},
            item=code,
        ),
        updates.PartSignature(signature="s", part="hosted"),
        updates.HostedToolResult(
            call_id="code_execution_1",
            name="code_execution_result",
            output="",
            item={"codeExecutionResult": {"outcome": "OUTCOME_OK"}},
        ),
        updates.TextDelta(delta="one"),
        updates.Finish(finish_reason="stop"),  # never tool_calls: the client runs nothing
    ]
    response = respond([sse(*[resp(p) for p in _CODE_PARTS], resp(finish="STOP"))], "gemini")
    assert response.tool_calls == ()
    assert response.finish_reason == "stop"
    assert [(h.id, h.name, h.output, h.error) for h in response.hosted_tool_calls] == [
        ("c1", "code_execution", "1\n", None),
        ("code_execution_0", "code_execution", None, None),  # never answered: kept
        ("r9", "code_execution_result", "2\n", None),  # its id names no call: kept
    ]


_CODE_PARTS = [
    {"executableCode": {"language": "PYTHON", "code": "print(1)", "id": "c1"}},
    {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1\n", "id": "c1"}},
    {"executableCode": {"language": "PYTHON", "code": "print(file_search.query(query='x'))"}},
    {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "2\n", "id": "r9"}},
]


def test_a_result_with_an_id_answers_that_call_and_without_one_the_latest_unanswered() -> None:
    out = both(
        resp({"executableCode": {"code": "a", "id": "A"}}, {"executableCode": {"code": "b"}}),
        resp({"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "a", "id": "A"}}),
        resp({"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "b"}}),
        resp({"codeExecutionResult": {"outcome": "OUTCOME_DEADLINE_EXCEEDED"}}, finish="STOP"),
    )
    results = [(r.call_id, r.error) for r in out if isinstance(r, updates.HostedToolResult)]
    assert results == [
        ("A", None),
        ("code_execution_0", None),
        ("code_execution_result_1", "OUTCOME_DEADLINE_EXCEEDED"),
    ]


def test_server_side_tool_invocations_are_hosted_calls() -> None:
    # Gemini 3 with toolConfig.includeServerSideToolInvocations: toolCall / toolResponse
    # parts (Google Search with its queries and suggestions; file search with neither).
    out = both(
        resp(
            {
                "toolCall": {
                    "toolType": "GOOGLE_SEARCH_WEB",
                    "args": {"queries": ["q"]},
                    "id": "t1",
                },
                "thoughtSignature": "s",
            }
        ),
        resp({"toolResponse": {"toolType": "GOOGLE_SEARCH_WEB", "response": {"x": 1}, "id": "t1"}}),
        resp({"toolCall": {"toolType": "FILE_SEARCH", "id": "t2"}}),
        resp({"toolResponse": {"toolType": "FILE_SEARCH", "id": "t2"}}),
        resp({"text": "Paris"}, finish="STOP", groundingMetadata={"webSearchQueries": ["q"]}),
    )
    assert out == [
        RM,
        updates.HostedToolCall(
            call_id="t1",
            name="google_search_web",
            arguments={"queries": ["q"]},
            item={"toolCall": {"toolType": "GOOGLE_SEARCH_WEB", "id": "t1"}},
        ),
        updates.PartSignature(signature="s", part="hosted"),
        updates.HostedToolResult(
            call_id="t1",
            name="tool_response",
            output={"x": 1},
            item={"toolResponse": {"toolType": "GOOGLE_SEARCH_WEB", "id": "t1"}},
        ),
        updates.HostedToolCall(
            call_id="t2",
            name="file_search",
            item={"toolCall": {"toolType": "FILE_SEARCH", "id": "t2"}},
        ),
        updates.HostedToolResult(
            call_id="t2",
            name="tool_response",
            output={},
            item={"toolResponse": {"toolType": "FILE_SEARCH", "id": "t2"}},
        ),
        updates.TextDelta(delta="Paris"),
        updates.Finish(finish_reason="stop"),
    ]


def test_hosted_parts_of_a_wrong_type_are_named_and_skipped() -> None:
    out = both(
        resp({"executableCode": "print(1)"}, {"codeExecutionResult": [1]}),
        resp({"toolCall": {"toolType": 5, "id": 7}}, finish="STOP"),
    )
    calls = [(c.call_id, c.name, c.item) for c in out if isinstance(c, updates.HostedToolCall)]
    assert calls == [("tool_call_0", "tool_call", {"toolCall": {"toolType": 5, "id": 7}})]
    assert codes(out) == ["invalid_chunk", "invalid_chunk"]
    assert not any(isinstance(u, updates.HostedToolResult) for u in out)


def test_inline_data_and_grounding_are_skipped_silently() -> None:
    out = both(
        resp({"inlineData": {"mimeType": "image/png", "data": "iVBO"}}),
        resp({"text": "one"}, finish="STOP", groundingMetadata={"webSearchQueries": ["q"]}),
    )
    assert out == [RM, updates.TextDelta(delta="one"), updates.Finish(finish_reason="stop")]


def test_other_candidates_are_ignored() -> None:
    body = {
        "candidates": [
            {"content": {"parts": [{"text": "B"}]}, "index": 1, "finishReason": "STOP"},
            {"content": {"parts": [{"text": "A"}]}, "index": 0},
        ]
    }
    out = both(body, resp(finish="STOP"))
    assert [u for u in out if isinstance(u, updates.TextDelta)] == [updates.TextDelta(delta="A")]
    assert out[-1] == updates.Finish(finish_reason="stop")


def test_candidate_without_index_is_candidate_zero() -> None:
    out = both({"candidates": [{"content": {"parts": [{"text": "v"}]}, "finishReason": "STOP"}]})
    assert out == [updates.TextDelta(delta="v"), updates.Finish(finish_reason="stop")]


def test_metadata_emitted_once_and_on_change() -> None:
    out = both(
        resp({"text": "a"}),
        resp({"text": "b"}),
        resp({"text": "c"}, finish="STOP", responseId="other"),
    )
    metas = [u for u in out if isinstance(u, updates.ResponseMetadata)]
    assert metas == [RM, updates.ResponseMetadata(id="other", model=MODEL)]


# -- tool calls ----------------------------------------------------------------------------


def test_two_calls_of_one_function_get_distinct_indexes() -> None:
    call = {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}
    call2 = {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}}}
    out = both(resp(call, call2), resp({"text": ""}, finish="STOP"))
    assert out == [
        RM,
        updates.ToolCallDelta(index=0, name="get_weather", arguments_delta='{"city":"Paris"}'),
        updates.ToolCallDelta(index=1, name="get_weather", arguments_delta='{"city":"Rome"}'),
        updates.Finish(finish_reason="tool_calls"),
    ]
    response = respond([sse(resp(call, call2), resp(finish="STOP"))], "gemini")
    assert [(c.name, c.arguments) for c in response.tool_calls] == [
        ("get_weather", {"city": "Paris"}),
        ("get_weather", {"city": "Rome"}),
    ]


def test_call_id_is_passed_on_and_missing_args_are_empty() -> None:
    out = both(resp({"functionCall": {"name": "now", "id": "fc_1"}}, finish="STOP"))
    assert out[1] == updates.ToolCallDelta(index=0, id="fc_1", name="now", arguments_delta="")
    response = respond(
        [sse(resp({"functionCall": {"name": "now", "id": "fc_1"}}, finish="STOP"))], "gemini"
    )
    assert response.tool_calls[0].arguments == {}
    assert response.tool_calls[0].id == "fc_1"


def test_string_args_are_kept_as_text() -> None:
    out = both(resp({"functionCall": {"name": "f", "args": '{"a": 1}'}}, finish="STOP"))
    assert out[1] == updates.ToolCallDelta(index=0, name="f", arguments_delta='{"a": 1}')


def test_stop_without_calls_is_stop_and_max_tokens_is_length() -> None:
    assert both(resp({"text": "x"}, finish="MAX_TOKENS"))[-1].finish_reason == "length"  # type: ignore[union-attr]


# -- Vertex partialArgs --------------------------------------------------------------------


def vertex_call(**call: Any) -> dict[str, Any]:
    return resp({"functionCall": call})


def test_partial_args_are_assembled() -> None:
    out = both(
        vertex_call(name="get_weather", willContinue=True, id="v1"),
        vertex_call(
            partialArgs=[{"jsonPath": "$.location", "stringValue": "Bos", "willContinue": True}],
            willContinue=True,
        ),
        vertex_call(
            partialArgs=[
                {"jsonPath": "$.location", "stringValue": "ton"},
                {"jsonPath": "$.days", "numberValue": 3},
                {"jsonPath": "$.opts.metric", "boolValue": True},
                {"jsonPath": "$.tags[1]", "stringValue": "b"},
                {"jsonPath": "$['odd key']", "nullValue": "NULL_VALUE"},
            ],
            willContinue=True,
        ),
        vertex_call(),
        resp({"text": ""}, finish="STOP", usage=U),
    )
    assert out == [
        RM,
        updates.ToolCallDelta(index=0, id="v1", name="get_weather", arguments_delta=""),
        updates.ToolCallDelta(
            index=0,
            arguments_delta='{"location":"Boston","days":3,"opts":{"metric":true},'
            '"tags":[null,"b"],"odd key":null}',
        ),
        updates.Finish(finish_reason="tool_calls", usage=USAGE_10_5),
    ]


def test_partial_string_without_will_continue_replaces() -> None:
    out = both(
        vertex_call(name="f", willContinue=True),
        vertex_call(partialArgs=[{"jsonPath": "$.a", "stringValue": "x"}], willContinue=True),
        vertex_call(partialArgs=[{"jsonPath": "$.a", "stringValue": "y"}]),
        resp(finish="STOP"),
    )
    assert out[2] == updates.ToolCallDelta(index=0, arguments_delta='{"a":"y"}')


def test_streamed_call_ended_by_finish_reason_without_empty_function_call() -> None:
    """vercel/ai#14358: the terminal chunk has partialArgs and no willContinue, or none."""
    out = both(
        vertex_call(name="f", willContinue=True),
        vertex_call(partialArgs=[{"jsonPath": "$.q[0]", "stringValue": "a"}], willContinue=True),
        resp(finish="STOP"),
    )
    assert out[2:] == [
        updates.ToolCallDelta(index=0, arguments_delta='{"q":["a"]}'),
        updates.Finish(finish_reason="tool_calls"),
    ]


def test_streamed_call_cut_by_end_of_stream_is_incomplete() -> None:
    body = sse(
        vertex_call(name="f", willContinue=True),
        vertex_call(partialArgs=[{"jsonPath": "$.q", "stringValue": "a"}], willContinue=True),
    )
    out = run(body)
    assert out[2:] == [
        updates.ToolCallDelta(index=0, arguments_delta='{"q":"a"'),
        updates.Error(error_code="stream_truncated", message="stream ended without a finishReason"),
    ]
    response = respond([body], "gemini")
    assert [e.error_code for e in response.errors] == ["stream_truncated", "tool_call_incomplete"]


def test_new_named_call_ends_the_open_streamed_call() -> None:
    out = both(
        vertex_call(name="f", willContinue=True),
        vertex_call(partialArgs=[{"jsonPath": "$.a", "numberValue": 1}], willContinue=True),
        vertex_call(name="g", args={"b": 2}),
        resp(finish="STOP"),
    )
    assert out[1:5] == [
        updates.ToolCallDelta(index=0, name="f", arguments_delta=""),
        updates.ToolCallDelta(index=0, arguments_delta='{"a":1}'),
        updates.ToolCallDelta(index=1, name="g", arguments_delta='{"b":2}'),
        updates.Finish(finish_reason="tool_calls"),
    ]


def test_nameless_continuation_without_open_call_is_a_protocol_violation() -> None:
    out = both(
        vertex_call(partialArgs=[{"jsonPath": "$.a", "numberValue": 1}]),
        vertex_call(),
        resp(finish="STOP"),
    )
    assert codes(out) == ["protocol_violation", "protocol_violation"]
    deltas = [u for u in out if isinstance(u, updates.ToolCallDelta)]
    assert deltas == [
        updates.ToolCallDelta(index=0, arguments_delta=""),
        updates.ToolCallDelta(index=0, arguments_delta='{"a":1}'),
    ]


def test_bad_partial_args_are_named_and_the_rest_counts() -> None:
    out = both(
        vertex_call(name="f", willContinue=True),
        vertex_call(
            partialArgs=[
                {"jsonPath": "$..", "stringValue": "x"},
                {"jsonPath": "$.a", "numberValue": 1},
                {"jsonPath": "$.a.b", "numberValue": 2},
                {"jsonPath": "$.c"},
                5,
            ],
        ),
        resp(finish="STOP"),
    )
    assert out[2] == updates.ToolCallDelta(index=0, arguments_delta='{"a":1}')
    assert codes(out) == ["invalid_chunk"]


def test_parse_json_path() -> None:
    assert parse_json_path("$.a['b c'][2][\"d\"]") == ["a", "b c", 2, "d"]
    assert parse_json_path("location") == ["location"]
    assert parse_json_path("$.a[") is None
    assert parse_json_path("$") == []


# -- finish reasons, blocked prompts, errors -----------------------------------------------


@pytest.mark.parametrize(
    ("wire", "raf"),
    [
        ("STOP", "stop"),
        ("MAX_TOKENS", "length"),
        ("SAFETY", "content_filter"),
        ("RECITATION", "content_filter"),
        ("BLOCKLIST", "content_filter"),
        ("PROHIBITED_CONTENT", "content_filter"),
        ("SPII", "content_filter"),
        ("IMAGE_SAFETY", "content_filter"),
        ("MALFORMED_FUNCTION_CALL", "MALFORMED_FUNCTION_CALL"),
        ("OTHER", "OTHER"),
        ("FINISH_REASON_UNSPECIFIED", "FINISH_REASON_UNSPECIFIED"),
        ("LANGUAGE", "LANGUAGE"),
    ],
)
def test_finish_reason_table(wire: str, raf: str) -> None:
    out = both(resp(finish=wire))
    assert out[-1] == updates.Finish(finish_reason=raf)
    assert codes(out) == []


def test_blocked_prompt_is_provider_error_and_content_filter() -> None:
    body = {
        "promptFeedback": {"blockReason": "PROHIBITED_CONTENT"},
        "usageMetadata": {"promptTokenCount": 7, "totalTokenCount": 7},
        "modelVersion": MODEL,
        "responseId": RID,
    }
    out = both(body)
    assert out[0] == RM
    assert out[1].error_code == "provider_error"  # type: ignore[union-attr]
    assert "prompt blocked: PROHIBITED_CONTENT" in out[1].message  # type: ignore[union-attr]
    assert out[2] == updates.Finish(
        finish_reason="content_filter",
        usage=Usage(prompt_tokens=7, completion_tokens=0, total_tokens=7),
    )
    assert len(out) == 3


def test_in_band_error_object_is_provider_error_without_truncation() -> None:
    error = {"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}
    out = both(resp({"text": "partial"}), error)
    assert codes(out) == ["provider_error"]
    assert "The model is overloaded. (code 503)" in out[-1].message  # type: ignore[union-attr]


def test_sse_event_named_error_is_provider_error() -> None:
    out = run(b'event: error\ndata: {"error": {"message": "boom"}}\n\n')
    assert codes(out) == ["provider_error"]


def test_done_marker_is_not_json() -> None:
    out = run(sse(resp({"text": "a"}, finish="STOP"), "[DONE]"))
    assert codes(out) == ["sse_parse_error"]


@pytest.mark.parametrize(
    "bad",
    [
        {"candidates": "x"},
        {"candidates": [5]},
        {"candidates": [{"content": {"parts": {}}}]},
        {"candidates": [{"content": {"parts": [{"text": 5}]}}]},
        {"candidates": [{"finishReason": 3}]},
        {"usageMetadata": []},
        {"responseId": 5},
    ],
)
def test_wrong_types_are_invalid_chunk_not_a_crash(bad: dict[str, Any]) -> None:
    out = both(bad, resp(finish="STOP"))
    assert codes(out) == ["invalid_chunk"]


def test_non_object_element_is_invalid_chunk() -> None:
    out = run(array("5", json.dumps(resp(finish="STOP"))))
    assert codes(out) == ["invalid_chunk"]


def test_not_json_is_sse_parse_error() -> None:
    assert codes(run(b"data: {oops\n\n")) == ["sse_parse_error", "stream_truncated"]


# -- usage ---------------------------------------------------------------------------------


def test_usage_table() -> None:
    raw = {
        "promptTokenCount": 100,
        "cachedContentTokenCount": 60,
        "candidatesTokenCount": 20,
        "thoughtsTokenCount": 30,
        "toolUsePromptTokenCount": 5,
        "totalTokenCount": 155,
    }
    assert USAGE.parse(raw) == Usage(
        prompt_tokens=105,
        completion_tokens=50,
        total_tokens=155,
        prompt_cache_hit_tokens=60,
        prompt_cache_miss_tokens=45,
        reasoning_tokens=30,
    )
    assert not USAGE.has_any({})


def test_last_usage_wins_and_usage_after_finish_is_a_usage_update() -> None:
    later = {"promptTokenCount": 10, "candidatesTokenCount": 7, "totalTokenCount": 17}
    out = both(
        resp({"text": "a"}, usage={"promptTokenCount": 10, "totalTokenCount": 10}),
        resp({"text": "b"}, finish="STOP", usage=U),
        {"usageMetadata": later},
        {"usageMetadata": later},
        {"usageMetadata": {}},
    )
    assert out[-2:] == [
        updates.Finish(finish_reason="stop", usage=USAGE_10_5),
        updates.Usage(usage=Usage(prompt_tokens=10, completion_tokens=7, total_tokens=17)),
    ]


def test_usage_of_an_unfinished_stream_is_emitted_at_close() -> None:
    out = run(sse(resp({"text": "a"}, usage=U)))
    assert out[-2:] == [
        updates.Usage(usage=USAGE_10_5),
        updates.Error(error_code="stream_truncated", message="stream ended without a finishReason"),
    ]


# -- end of stream and framing -------------------------------------------------------------


def test_json_array_cut_mid_element_is_truncated() -> None:
    body = array(resp({"text": "a"}), resp({"text": "b"}, finish="STOP"))[:-20]
    out = run(body)
    assert codes(out) == ["stream_truncated"]
    assert "unfinished frame" in out[-1].message  # type: ignore[union-attr]


def test_json_array_without_closing_bracket_after_finish_is_truncated() -> None:
    body = array(resp({"text": "a"}, finish="STOP"))[:-1]
    assert codes(run(body)) == ["stream_truncated"]


def test_sse_cut_inside_an_event_after_finish_is_truncated() -> None:
    body = sse(resp({"text": "a"}, finish="STOP")) + b'data: {"candidates"'
    assert codes(run(body)) == ["stream_truncated"]


def test_json_lines_framing() -> None:
    body = (
        json.dumps(resp({"text": "a"})) + "\n" + json.dumps(resp(finish="STOP")) + "\n"
    ).encode()
    out = run(body)
    assert out == [RM, updates.TextDelta(delta="a"), updates.Finish(finish_reason="stop")]


def test_empty_body_is_truncated() -> None:
    assert codes(run(b"")) == ["stream_truncated"]


def test_objects_after_finish_are_read_as_the_same_turn() -> None:
    out = both(resp({"text": "a"}, finish="STOP"), resp({"text": "b"}, finish="MAX_TOKENS"))
    assert out == [
        RM,
        updates.TextDelta(delta="a"),
        updates.Finish(finish_reason="stop"),
        updates.TextDelta(delta="b"),
        updates.Finish(finish_reason="length"),
    ]


def test_sniff_patterns_match_gemini_bodies() -> None:
    assert sniff(sse(resp({"text": "a"}))) == "gemini"
    assert sniff(array(resp({"text": "a"}))) == "gemini"


# -- properties ----------------------------------------------------------------------------

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=10,
)
_part = st.fixed_dictionaries(
    {},
    optional={
        "text": st.text(max_size=5) | st.integers(),
        "thought": st.booleans() | st.text(max_size=2),
        "thoughtSignature": st.text(max_size=4) | st.integers(),
        "functionCall": st.fixed_dictionaries(
            {},
            optional={
                "name": st.sampled_from(["f", "g", ""]) | st.integers(),
                "id": st.text(max_size=3),
                "args": _json,
                "willContinue": st.booleans() | st.integers(),
                "partialArgs": st.lists(
                    st.fixed_dictionaries(
                        {},
                        optional={
                            "jsonPath": st.sampled_from(
                                ["$.a", "$.a.b", "$.l[2]", "$[0]", "x", "$"]
                            )
                            | st.text(max_size=6),
                            "stringValue": st.text(max_size=3),
                            "numberValue": st.integers() | st.floats(allow_nan=False),
                            "boolValue": st.booleans(),
                            "nullValue": st.just("NULL_VALUE"),
                            "structValue": _json,
                            "willContinue": st.booleans(),
                        },
                    )
                    | _json,
                    max_size=3,
                )
                | _json,
            },
        )
        | _json,
    },
)
_object = st.fixed_dictionaries(
    {},
    optional={
        "candidates": st.lists(
            st.fixed_dictionaries(
                {},
                optional={
                    "content": st.fixed_dictionaries(
                        {}, optional={"parts": st.lists(_part, max_size=3)}
                    )
                    | _json,
                    "finishReason": st.sampled_from(["STOP", "MAX_TOKENS", "SAFETY", ""]) | _json,
                    "index": st.integers(0, 2) | _json,
                },
            )
            | _json,
            max_size=2,
        )
        | _json,
        "usageMetadata": st.dictionaries(
            st.sampled_from(["promptTokenCount", "candidatesTokenCount", "totalTokenCount"]),
            st.integers(-1, 50) | _json,
        )
        | _json,
        "promptFeedback": st.fixed_dictionaries(
            {}, optional={"blockReason": st.text(max_size=4) | _json}
        ),
        "error": _json,
        "responseId": st.text(max_size=3) | _json,
    },
)


@settings(deadline=None)
@given(
    objects=st.lists(_object | _json, max_size=5),
    seed=st.integers(0, 2**16),
    as_array=st.booleans(),
)
def test_any_objects_never_raise_and_chunking_does_not_matter(
    objects: list[Any], seed: int, as_array: bool
) -> None:
    body = (
        array(*[json.dumps(o) for o in objects])
        if as_array
        else sse(*[json.dumps(o) for o in objects])
    )
    decoder = UpdateDecoder("gemini")
    whole = feed_all(decoder.feed, decoder.close, [body])
    for how in ("bytes", f"random-{seed}"):
        decoder = UpdateDecoder("gemini")
        assert feed_all(decoder.feed, decoder.close, chunk(body, how)) == whole
    assert not [
        u for u in whole if isinstance(u, updates.Error) and u.error_code == "internal_error"
    ]
    respond([body], "gemini")


@settings(deadline=None)
@given(st.binary(max_size=300))
def test_arbitrary_bytes_never_raise(body: bytes) -> None:
    decoder = UpdateDecoder("gemini")
    out = feed_all(decoder.feed, decoder.close, [body])
    assert not [u for u in out if isinstance(u, updates.Error) and u.error_code == "internal_error"]


def test_dialect_feed_direct() -> None:
    dialect = GeminiDialect()
    assert dialect.framing == "auto"
    assert dialect.feed(ServerSentEvent(data=json.dumps(resp({"text": "x"})))) == [
        RM,
        updates.TextDelta(delta="x"),
    ]
