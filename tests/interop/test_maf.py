"""raf -> Microsoft Agent Framework, checked by agent-framework-core itself: every item loads as
a ``ChatResponseUpdate`` and dumps back unchanged, the ``ChatResponse`` raf writes for its
response loads and dumps back unchanged and is the framework's own fold of the items
(``ChatResponse.from_updates``), and reading that ``ChatResponse`` back gives raf's
response."""

from __future__ import annotations

import json
from typing import Any

import pytest

from raf.collect import collect_agent_response
from raf.interop import decode_all, encode_all, get, native_items
from raf.interop.maf import Decoder, aggregate, from_chat_response, objects, updates_of
from raf.model import contents
from raf.model.canonical import to_canonical
from raf.model.response import AgentResponse, AgentResponseResult
from raf.model.usage import Usage
from tests.interop.support import (
    Stream,
    agent_runs,
    bundled_streams,
    distinct_results,
    library,
    results_of,
    stream_id,
)

MAF = get("maf")


def _arguments(value: Any) -> Any:
    """Arguments compared as JSON: text parsed (kept as text when it is not JSON)."""
    if isinstance(value, str):
        try:
            return json.loads(value) if value.strip() else {}
        except ValueError:
            return value
    return value


def _view(chat_response: dict[str, Any]) -> dict[str, Any]:
    """What a user reads of a ``ChatResponse.to_dict()``: per message its role, text,
    reasoning and signatures, calls (id, name, parsed arguments, hosted or not) and results;
    the approval requests and errors in order; the usage, finish reason, id and model."""
    messages = []
    approvals: list[tuple[Any, ...]] = []
    errors: list[tuple[Any, ...]] = []
    for message in chat_response.get("messages", []):
        items = message["contents"]
        approvals.extend(
            (c["id"], c["function_call"]["name"], _arguments(c["function_call"]["arguments"]))
            for c in items
            if c["type"] == "function_approval_request"
        )
        errors.extend(
            (c.get("error_code"), c.get("message")) for c in items if c["type"] == "error"
        )
        kept = [c for c in items if c["type"] not in ("function_approval_request", "error")]
        if not kept:
            continue
        messages.append(
            {
                "role": message["role"],
                "text": "".join(c["text"] for c in kept if c["type"] == "text"),
                "reasoning": "".join(
                    c.get("text") or "" for c in kept if c["type"] == "text_reasoning"
                ),
                "signatures": [
                    c["protected_data"]
                    for c in kept
                    if c["type"] == "text_reasoning" and "protected_data" in c
                ],
                "calls": [
                    (c["call_id"], c.get("name"), _arguments(c.get("arguments")), c["hosted"])
                    for c in kept
                    if c["type"] == "function_call"
                ],
                "results": [
                    (c["call_id"], c["result"], "exception" in c)
                    for c in kept
                    if c["type"] == "function_result"
                ],
                "hosted": [
                    (c["type"], c["call_id"], c.get("tool_name"), c.get("result"))
                    for c in kept
                    if c["type"] in ("search_tool_call", "search_tool_result")
                    or c["type"].startswith("code_interpreter")
                ],
            }
        )
    return {
        "messages": messages,
        "approvals": approvals,
        "errors": errors,
        "usage_details": chat_response.get("usage_details"),
        "finish_reason": chat_response.get("finish_reason"),
        "response_id": chat_response.get("response_id"),
        "model": chat_response.get("model"),
    }


_BACK = (
    "id",
    "model",
    "text",
    "reasoning_text",
    "tool_calls",
    "approval_requests",
    "finish_reason",
    "usage",
    "errors",
    "notices",
)
"""What reading the whole ``ChatResponse`` back gives as raf had it (the ``ChatResponse``
joins a round's reasoning blocks and keeps no rounds, nor what raf keeps only on updates)."""


def _back(response: AgentResponse) -> dict[str, Any]:
    canonical = to_canonical(response)
    out = {key: canonical[key] for key in _BACK}
    return out


def _check(results: tuple[AgentResponseResult, ...]) -> None:
    framework = library("agent_framework")
    items = list(encode_all(MAF, results))
    json.dumps(items)  # plain JSON
    updates = objects(items)
    for item, update in zip(items, updates, strict=True):
        assert update.to_dict() == item
    response = collect_agent_response(results)
    folded = framework.ChatResponse.from_updates(updates)
    written = aggregate(response)
    assert framework.ChatResponse.from_dict(written).to_dict() == written
    assert _view(folded.to_dict()) == _view(written)
    assert _back(from_chat_response(folded)) == _back(response)
    assert _back(from_chat_response(folded.to_dict())) == _back(response)


@pytest.mark.parametrize("stream", bundled_streams(), ids=stream_id)
def test_a_bundled_stream_under_every_chunking_is_what_agent_framework_reads_and_folds(
    stream: Stream,
) -> None:
    for results in distinct_results(stream):
        _check(results)


def test_every_agent_run_is_what_agent_framework_reads_and_folds() -> None:
    for _, results in agent_runs():
        _check(results)


def _result(*items: contents.Content, **fields: Any) -> AgentResponseResult:
    return AgentResponseResult(contents=items, **fields)


def test_interleaved_parallel_calls_stay_apart() -> None:
    framework = library("agent_framework")
    results = (
        _result(contents.ToolCallStart(call_id="call_0", name="get_weather")),
        _result(contents.ToolCallStart(call_id="call_1", name="get_time")),
        _result(contents.ToolCallArgs(call_id="call_0", args_delta='{"city":')),
        _result(contents.ToolCallArgs(call_id="call_1", args_delta='{"tz":')),
        _result(contents.ToolCallArgs(call_id="call_0", args_delta='"Paris"}')),
        _result(contents.ToolCallArgs(call_id="call_1", args_delta='"CET"}')),
        _result(
            contents.ToolCallEnd(call_id="call_0"),
            contents.ToolCallEnd(call_id="call_1"),
            contents.ToolCalling(call_id="call_0", name="get_weather", arguments={"city": "Paris"}),
            contents.ToolCalling(call_id="call_1", name="get_time", arguments={"tz": "CET"}),
            finish_reason="tool_calls",
        ),
    )
    items = list(encode_all(MAF, results))
    calls = [c for item in items for c in item["contents"] if c["type"] == "function_call"]
    assert all(call["call_id"] for call in calls)
    folded = framework.ChatResponse.from_updates(objects(items))
    [message] = folded.messages
    assert [(c.call_id, c.name, c.parse_arguments()) for c in message.contents] == [
        ("call_0", "get_weather", {"city": "Paris"}),
        ("call_1", "get_time", {"tz": "CET"}),
    ]
    back = from_chat_response(folded)
    assert [(c.id, c.name, c.arguments) for c in back.tool_calls] == [
        ("call_0", "get_weather", {"city": "Paris"}),
        ("call_1", "get_time", {"tz": "CET"}),
    ]


def test_an_approval_request_carries_its_call() -> None:
    framework = library("agent_framework")
    request = contents.ToolApprovalRequest(
        call_id="call_9", name="delete_file", arguments={"path": "/tmp/x"}, description="Delete?"
    )
    items = list(encode_all(MAF, [_result(request, finish_reason="awaiting_approval")]))
    folded = framework.AgentResponse.from_updates(objects(items))
    [asked] = folded.user_input_requests
    assert asked.type == "function_approval_request"
    assert asked.id == "call_9"
    assert (asked.function_call.call_id, asked.function_call.name) == ("call_9", "delete_file")
    assert asked.function_call.parse_arguments() == {"path": "/tmp/x"}
    back = from_chat_response(folded)
    assert [(a.call_id, a.name, a.arguments, a.description) for a in back.approval_requests] == [
        ("call_9", "delete_file", {"path": "/tmp/x"}, "Delete?")
    ]


def test_a_failed_tool_result_is_an_exception_with_its_text() -> None:
    framework = library("agent_framework")
    items = list(
        encode_all(
            MAF,
            [
                _result(contents.ToolCalled(call_id="call_1", result="22C")),
                _result(contents.ToolCalled(call_id="call_2", error="boom")),
            ],
        )
    )
    [message] = framework.ChatResponse.from_updates(objects(items)).messages
    assert message.role == "tool"
    assert [(c.call_id, c.result, c.exception) for c in message.contents] == [
        ("call_1", "22C", None),
        ("call_2", "boom", "FunctionInvocationError"),
    ]


def test_usage_is_summed_over_rounds_as_the_framework_sums_it() -> None:
    first = Usage(prompt_tokens=10, completion_tokens=5, total_tokens=15, reasoning_tokens=2)
    second = Usage(prompt_tokens=20, completion_tokens=1, total_tokens=21)
    results = [
        _result(contents.Usage(usage=first)),
        _result(contents.RoundFinished(round=0, finish_reason="tool_calls")),
        _result(contents.Usage(usage=second), finish_reason="stop"),
    ]
    response = collect_agent_response(results)
    assert aggregate(response)["usage_details"] == {
        "input_token_count": 30,
        "output_token_count": 6,
        "total_token_count": 36,
        "reasoning_output_token_count": 2,
    }
    framework = library("agent_framework")
    folded = framework.ChatResponse.from_updates(objects(encode_all(MAF, results)))
    assert folded.usage_details == aggregate(response)["usage_details"]
    assert folded.finish_reason == "stop"


def test_a_framework_stream_without_call_ids_or_status_is_read() -> None:
    """The framework's own Chat Completions client: continuation fragments without a call id,
    no completed status, usage replaced."""
    decoder = Decoder()
    updates = [
        {
            "type": "chat_response_update",
            "role": "assistant",
            "contents": [
                {"type": "function_call", "call_id": "call_0", "name": "f", "arguments": ""}
            ],
        },
        {
            "type": "chat_response_update",
            "contents": [{"type": "function_call", "call_id": "", "name": "", "arguments": '{"a"'}],
        },
        {
            "type": "chat_response_update",
            "contents": [{"type": "function_call", "arguments": ":1}"}],
            "finish_reason": "tool_calls",
        },
        {
            "type": "chat_response_update",
            "contents": [
                {
                    "type": "usage",
                    "merge_mode": "replace",
                    "usage_details": {"input_token_count": 3, "output_token_count": 4},
                }
            ],
        },
    ]
    results = [r for update in updates for r in decoder.feed(update)] + decoder.close()
    response = collect_agent_response(results)
    assert [(c.id, c.name, c.arguments) for c in response.tool_calls] == [("call_0", "f", {"a": 1})]
    assert response.finish_reason == "tool_calls"
    assert response.usage == Usage(prompt_tokens=3, completion_tokens=4, total_tokens=7)


def test_what_the_decoder_cannot_read_is_an_error_and_nothing_else_is_lost() -> None:
    decoder = Decoder()
    results = [
        *decoder.feed(
            {"type": "chat_response_update", "contents": [{"type": "text", "text": "a"}]}
        ),
        *decoder.feed(["not", "an", "update"]),
        *decoder.feed({"type": "chat_response_update", "contents": [{"type": "nonsense"}]}),
        *decoder.feed(
            {"type": "chat_response_update", "contents": [{"type": "hosted_file", "file_id": "f"}]}
        ),
        *decoder.feed(
            {"type": "chat_response_update", "contents": [{"type": "text", "text": "b"}]}
        ),
        *decoder.close(),
    ]
    response = collect_agent_response(results)
    assert response.text == "ab"
    assert [e.error_code for e in response.errors] == ["invalid_chunk", "invalid_chunk"]
    assert "update 1" in response.errors[0].message
    assert "update 2" in response.errors[1].message
    assert [n.error_code for n in response.notices] == ["unrecognised_chunks"]


def test_updates_of_a_whole_response_fold_back_to_it() -> None:
    framework = library("agent_framework")
    response = framework.ChatResponse(
        messages=[
            framework.Message(
                "assistant",
                [
                    framework.Content.from_text("Checking."),
                    framework.Content.from_function_call(
                        "call_1", "get_weather", arguments={"city": "Paris"}
                    ),
                ],
            )
        ],
        response_id="r1",
        model="m",
        finish_reason="tool_calls",
        usage_details={"input_token_count": 1, "output_token_count": 2, "total_token_count": 3},
    )
    folded = framework.ChatResponse.from_updates(
        [framework.ChatResponseUpdate.from_dict(u) for u in updates_of(response)]
    )
    assert folded.to_dict() == response.to_dict()
    back = from_chat_response(response)
    assert back.text == "Checking."
    assert [(c.id, c.arguments) for c in back.tool_calls] == [("call_1", {"city": "Paris"})]
    assert (back.id, back.model, back.finish_reason) == ("r1", "m", "tool_calls")


def test_a_call_with_no_arguments_is_not_a_call_with_empty_arguments() -> None:
    """The framework hands a call whose arguments never came with ``arguments=None``
    (``parse_arguments()`` is ``None``); empty argument text is the empty object."""
    framework = library("agent_framework")
    response = framework.ChatResponse(
        messages=[
            framework.Message(
                "assistant",
                [
                    framework.Content.from_function_call("call_1", "now"),
                    framework.Content.from_function_call("call_2", "today", arguments=""),
                ],
            )
        ]
    )
    back = from_chat_response(response)
    assert [(c.id, c.arguments) for c in back.tool_calls] == [("call_1", None), ("call_2", {})]


def test_calls_of_a_whole_response_without_ids_stay_apart() -> None:
    framework = library("agent_framework")
    response = framework.ChatResponse(
        messages=[
            framework.Message(
                "assistant",
                [
                    framework.Content.from_function_call("", "a", arguments='{"x":1}'),
                    framework.Content.from_function_call("", "b", arguments='{"y":2}'),
                ],
            )
        ]
    )
    back = from_chat_response(response)
    assert [(c.id, c.name, c.arguments) for c in back.tool_calls] == [
        ("__tc_0", "a", {"x": 1}),
        ("__tc_1", "b", {"y": 2}),
    ]


def test_a_search_the_provider_ran_is_a_search_tool_call_and_its_result() -> None:
    framework = library("agent_framework")
    results = [
        _result(
            contents.HostedToolCall(call_id="srv_1", name="web_search", arguments={"query": "raf"}),
            contents.HostedToolResult(
                call_id="srv_1", name="web_search_tool_result", output=[{"url": "https://x"}]
            ),
            contents.HostedToolCall(
                call_id="srv_2", name="code_execution", arguments={"code": "print(1)"}
            ),
            contents.HostedToolResult(call_id="srv_2", name="code_execution_result", output="1\n"),
            contents.Text(delta="Found it."),
        )
    ]
    [message] = framework.ChatResponse.from_updates(objects(encode_all(MAF, results))).messages
    search, found, code, ran, text = message.contents
    assert (search.type, search.tool_name, search.parse_arguments()) == (
        "search_tool_call",
        "web_search",
        {"query": "raf"},
    )
    assert (found.type, found.call_id, found.result) == (
        "search_tool_result",
        "srv_1",
        [{"url": "https://x"}],
    )
    assert (code.type, [i.text for i in code.inputs]) == (
        "code_interpreter_tool_call",
        ["print(1)"],
    )
    assert (ran.type, [o.text for o in ran.outputs]) == ("code_interpreter_tool_result", ["1\n"])
    assert text.text == "Found it."
    back = collect_agent_response(decode_all(MAF, encode_all(MAF, results)))
    assert [(h.id, h.name, h.arguments, h.output) for h in back.hosted_tool_calls] == [
        ("srv_1", "web_search", {"query": "raf"}, [{"url": "https://x"}]),
        ("srv_2", "code_execution", {"code": "print(1)"}, "1\n"),
    ]


def _raf_keys(value: Any) -> list[Any]:
    """Every ``additional_properties`` in ``value`` that has raf's namespace."""
    if isinstance(value, list):
        return [found for each in value for found in _raf_keys(each)]
    if not isinstance(value, dict):
        return []
    found = [value] if "raf" in (value.get("additional_properties") or {}) else []
    return found + [f for each in value.values() for f in _raf_keys(each)]


def test_without_raf_s_data_the_framework_still_reads_the_run() -> None:
    """A consumer of the framework alone: the items without ``additional_properties["raf"]``
    load and fold in the framework, and give the text, calls, usage and finish reason; read
    back, the rounds of the tool loop come from the messages and tool results, and a call
    whose arguments are not JSON has one error, found by its ``error_details``."""
    framework = library("agent_framework")
    invalid = next(s for s in bundled_streams() if s.name.endswith("invalid_json#0"))
    runs = [*agent_runs(), (invalid.name, results_of(invalid, "whole"))]
    for name, results in runs:
        items = list(native_items(MAF, encode_all(MAF, results)))
        assert not _raf_keys(items), name
        response = collect_agent_response(results)
        folded = from_chat_response(framework.ChatResponse.from_updates(objects(items)))
        for key in ("text", "tool_calls", "usage", "finish_reason", "errors"):
            assert to_canonical(folded)[key] == to_canonical(response)[key], (name, key)
        back = collect_agent_response(list(decode_all(MAF, items)))
        assert back.rounds == response.rounds, name
        assert [(e.error_code, e.call_id) for e in back.errors] == [
            (e.error_code, e.call_id) for e in response.errors
        ], name


def test_a_round_is_read_from_the_framework_s_messages() -> None:
    """Without raf's round mark, a finish followed by a message of another ``message_id``
    ends a round; a finish with nothing after it is the stream's."""
    update = {"type": "chat_response_update", "role": "assistant"}
    items = [
        {**update, "message_id": "m0", "contents": [{"type": "text", "text": "a"}]},
        {**update, "message_id": "m0", "finish_reason": "tool_calls", "contents": []},
        {**update, "message_id": "m1", "contents": [{"type": "text", "text": "b"}]},
        {**update, "message_id": "m1", "finish_reason": "stop", "contents": []},
    ]
    back = collect_agent_response(list(decode_all(MAF, items)))
    assert [r.finish_reason for r in back.rounds] == ["tool_calls", "stop"]
    assert back.finish_reason == "stop"
    plain = collect_agent_response(list(decode_all(MAF, items[:2])))
    assert plain.rounds == ()
    assert plain.finish_reason == "tool_calls"
