"""The three levels of comparison: each rule of docs/conformance.md, and that a mismatch
names the field it is about."""

from __future__ import annotations

import copy
from typing import Any

import msgspec
import pytest

from raf.conformance.bundled import bundled
from raf.conformance.goldens import load as load_golden
from raf.conformance.levels import (
    check_lifecycle,
    compare_response,
    compare_updates,
    normalise,
)
from raf.conformance.protocol import Result, decode_from_implementation
from raf.shared.client_response import ClientResponse

GOLDENS = bundled().goldens

ALL = ["usage", "error_codes"]


def golden(scenario: str, interaction: int = -1) -> Any:
    loaded = load_golden(GOLDENS / "openai_chat" / f"{scenario}.json")
    assert loaded is not None
    return loaded.interactions[interaction]


def client(response: dict[str, Any]) -> ClientResponse:
    return msgspec.convert(response, ClientResponse)


def where(mismatches: list[Any]) -> list[str]:
    return [m.where for m in mismatches]


# -- response -----------------------------------------------------------------------------


def test_the_golden_response_itself_passes() -> None:
    for scenario in ("parallel_tool_calls", "missing_id", "deepseek_reasoning_then_content"):
        output = golden(scenario)
        assert compare_response(output.response, client(output.response), capabilities=ALL) == []


def test_text_and_reasoning_differences_name_the_field_with_a_diff() -> None:
    output = golden("deepseek_reasoning_then_content")
    response = copy.deepcopy(output.response)
    response["text"] = response["text"][:-1] + "?"
    response["reasoning_text"] = None
    mismatches = compare_response(output.response, client(response))
    assert where(mismatches) == ["text", "reasoning_text"]
    # a text of several lines gets a line diff; one line gets the place of the difference
    assert "\n-You can check it quickly" in mismatches[0].diff
    assert "\n+You can check it quickly" in mismatches[0].diff
    assert mismatches[1].diff.startswith("--- expected reasoning\n+++ actual reasoning")


def test_reasoning_none_and_empty_are_alike() -> None:
    output = golden("plain_text")
    response = {**output.response, "reasoning_text": ""}
    assert compare_response(output.response, client(response)) == []


def test_concatenated_names_and_merged_calls_are_named() -> None:
    output = golden("index_always_zero_distinct_ids")
    calls = output.response["tool_calls"]
    merged = {**output.response, "tool_calls": [{**calls[0], "name": calls[0]["name"] * 2}]}
    mismatches = compare_response(output.response, client(merged))
    assert where(mismatches) == ["tool_calls", "tool_calls[0].name"]
    assert mismatches[0].expected.startswith(f"{len(calls)} call(s)")


def test_a_provider_id_is_compared_a_synthetic_one_only_present_and_unique() -> None:
    with_ids = golden("parallel_tool_calls")
    other = copy.deepcopy(with_ids.response)
    other["tool_calls"][0]["id"] = "call_elsewhere"
    assert where(compare_response(with_ids.response, client(other))) == ["tool_calls[0].id"]

    without = golden("missing_id")  # raf names them __tc_0, __tc_1
    mine = copy.deepcopy(without.response)
    mine["tool_calls"][0]["id"], mine["tool_calls"][1]["id"] = "a", "b"
    # Ids the client made up for calls the stream gave none: a detail, never an error.
    assert {m.kind for m in compare_response(without.response, client(mine))} == {"detail"}
    mine["tool_calls"][1]["id"] = "a"
    assert [
        (m.summary(), m.kind)
        for m in compare_response(without.response, client(mine))
        if m.kind != "detail"
    ] == [("tool_calls[1].id: expected an id unique in the response, got 'a' again", "wrong")]
    mine["tool_calls"][1]["id"] = None
    assert [
        (m.where, m.kind)
        for m in compare_response(without.response, client(mine))
        if m.kind != "detail"
    ] == [("tool_calls[1].id", "lost")]


def test_usage_is_compared_only_with_the_capability_and_details_only_when_reported() -> None:
    output = golden("text_with_usage_chunk")
    response = copy.deepcopy(output.response)
    response["usage"] = {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}
    assert compare_response(output.response, client(response)) == []
    assert where(compare_response(output.response, client(response), capabilities=["usage"])) == [
        "usage.prompt_tokens",
        "usage.completion_tokens",
        "usage.total_tokens",
    ]
    fine = {
        k: output.response["usage"][k]
        for k in ("prompt_tokens", "completion_tokens", "total_tokens")
    }
    response["usage"] = fine  # richer fields left out: not compared
    assert compare_response(output.response, client(response), capabilities=["usage"]) == []
    response["usage"] = {**fine, "reasoning_tokens": 999}
    assert where(compare_response(output.response, client(response), capabilities=["usage"])) == [
        "usage.reasoning_tokens"
    ]


def test_errors_presence_always_codes_only_with_the_capability() -> None:
    output = golden("in_band_error_chunk")
    assert output.response["errors"]
    response = {**output.response, "errors": []}
    assert where(compare_response(output.response, client(response))) == ["errors"]
    # raising counts as reporting an error
    assert compare_response(output.response, client(response), raised="HTTPError: boom") == []
    wrong_code = {**output.response, "errors": [{"error_code": "nope", "message": "x"}]}
    assert compare_response(output.response, client(wrong_code)) == []
    assert where(
        compare_response(output.response, client(wrong_code), capabilities=["error_codes"])
    ) == ["errors[].error_code"]
    clean = golden("plain_text")
    noisy = {**clean.response, "errors": [{"message": "something"}]}
    assert where(compare_response(clean.response, client(noisy))) == ["errors"]
    assert where(compare_response(clean.response, client(clean.response), raised="X: y")) == [
        "errors"
    ]


def test_messages_are_never_compared() -> None:
    output = golden("in_band_error_chunk")
    response = copy.deepcopy(output.response)
    for error in response["errors"]:
        error["message"] = "something else entirely"
    assert compare_response(output.response, client(response), capabilities=ALL) == []


def test_a_client_that_raised_without_a_response_is_compared_as_empty() -> None:
    output = golden("plain_text")
    mismatches = compare_response(output.response, None, raised="KeyError: 'choices'")
    assert where(mismatches) == ["text", "finish_reason", "errors"]


# -- lifecycle --------------------------------------------------------------------------------


def test_every_golden_follows_the_lifecycle_rules() -> None:
    for path in sorted((GOLDENS / "openai_chat").glob("*.json")):
        loaded = load_golden(path)
        assert loaded is not None
        for output in loaded.interactions:
            assert check_lifecycle(output.results, output.response) == [], path.stem


def contents_of(output: Any) -> list[dict[str, Any]]:
    return [c for r in output.results for c in r["contents"]]


def test_lifecycle_catches_a_call_out_of_order_and_arguments_that_do_not_add_up() -> None:
    output = golden("parallel_tool_calls")
    results = copy.deepcopy(output.results)
    # drop the second argument fragment of the first call
    fragments = [(r, c) for r in results for c in r["contents"] if c["type"] == "tool_call_args"]
    result, fragment = fragments[1]
    result["contents"].remove(fragment)
    mismatches = check_lifecycle(results, output.response)
    assert [m.where for m in mismatches if m.where.endswith(" arguments")] == [
        f"call {fragment['call_id']} arguments"
    ]

    results = copy.deepcopy(output.results)
    final = results[-1]["contents"]
    ends = [c for c in final if c["type"] == "tool_call_end"]
    final.remove(ends[0])  # the first call never ends
    assert any(
        "start, args..., end, calling" in m.expected
        for m in check_lifecycle(results, output.response)
    )


def test_lifecycle_catches_text_that_does_not_add_up_and_results_after_the_end() -> None:
    output = golden("plain_text")
    results = copy.deepcopy(output.results)
    results.insert(
        1, {"type": "agent_response_result", "contents": [{"type": "text", "delta": "x"}]}
    )
    assert where(check_lifecycle(results, output.response)) == ["lifecycle text"]
    results = [*copy.deepcopy(output.results), {"type": "agent_response_result", "contents": []}]
    assert where(check_lifecycle(results, output.response)) == ["lifecycle end"]


def test_lifecycle_requires_the_calls_in_first_seen_order() -> None:
    output = golden("parallel_tool_calls")
    response = copy.deepcopy(output.response)
    response["tool_calls"].reverse()
    assert "lifecycle call order" in where(check_lifecycle(output.results, response))


# -- updates ---------------------------------------------------------------------------------


def test_updates_ignore_messages_and_synthetic_ids_but_not_provider_ids() -> None:
    output = golden("missing_id")
    renamed = normalise(output.results, set())
    assert "__tc_0" not in str(renamed)
    port = copy.deepcopy(output.results)
    text = (
        msgspec.json.encode(port).decode().replace("__tc_0", "call-A").replace("__tc_1", "call-B")
    )
    port = msgspec.json.decode(text)
    assert compare_updates(output.updates, output.results, output.updates, port) == []

    errors = golden("in_band_error_chunk")
    worded = copy.deepcopy(errors.updates)
    for update in worded:
        if update["type"] == "error":
            update["message"] = "in my own words"
    assert compare_updates(errors.updates, errors.results, worded, errors.results) == []

    with_ids = golden("parallel_tool_calls")
    port = msgspec.json.decode(
        msgspec.json.encode(with_ids.results).decode().replace("call_", "mine_")
    )
    mismatches = compare_updates(with_ids.updates, with_ids.results, with_ids.updates, port)
    assert where(mismatches)[0].startswith("results[")
    assert mismatches[0].diff.startswith("--- expected results")


def test_updates_that_were_not_sent_are_a_mismatch() -> None:
    output = golden("plain_text")
    assert where(compare_updates(output.updates, output.results, None, None)) == [
        "updates",
        "results",
    ]


@pytest.mark.parametrize("scenario", ["plain_text", "parallel_tool_calls_interleaved"])
def test_a_dropped_update_is_pinpointed(scenario: str) -> None:
    output = golden(scenario)
    updates = output.updates[:3] + output.updates[4:]
    (mismatch,) = compare_updates(output.updates, output.results, updates, output.results)
    assert mismatch.where == "updates[3]"


def test_results_are_decoded_leniently_where_encoders_differ() -> None:
    # a lone surrogate escape (json.dumps and JSON.stringify write them) reads as U+FFFD
    result = decode_from_implementation(
        b'{"type":"result","id":"x","response":{"text":"a\\ud83db"}}'
    )
    assert isinstance(result, Result)
    assert result.response is not None
    assert result.response.text == "a\ufffdb"
    # an integer written as a float (JavaScript writes 1e21 as 1e+21) is the integer
    result = decode_from_implementation(
        b'{"type":"result","id":"x","response":{"usage":{"prompt_tokens":1e+21,'
        b'"completion_tokens":2.0,"total_tokens":3}}}'
    )
    assert isinstance(result, Result)
    expected = {"usage": {"prompt_tokens": 10**21, "completion_tokens": 2, "total_tokens": 3}}
    assert compare_response(expected, result.response, capabilities=["usage"]) == []


def responses_golden(scenario: str) -> Any:
    loaded = load_golden(GOLDENS / "openai_responses" / f"{scenario}.json")
    assert loaded is not None
    return loaded.interactions[-1].response


def test_item_11_a_hosted_call_reported_as_a_client_call_fails_at_the_response_level() -> None:
    expected = responses_golden("hosted_shell_call_with_output")
    (hosted,) = expected["hosted_tool_calls"]
    as_client_call = {
        **expected,
        "tool_calls": [{"id": hosted["id"], "name": "shell", "arguments": hosted["arguments"]}],
        "hosted_tool_calls": [],
        "finish_reason": "tool_calls",
    }
    mismatches = compare_response(expected, client(as_client_call), capabilities=["hosted_tools"])
    assert where(mismatches) == ["tool_calls", "finish_reason", "hosted_tool_calls"]
    assert compare_response(expected, client(expected), capabilities=["hosted_tools"]) == []
    # Without the capability only the client call and the finish reason are wrong.
    assert where(compare_response(expected, client(as_client_call))) == [
        "tool_calls",
        "finish_reason",
    ]


def test_item_12_an_approval_request_written_as_text_fails_at_the_response_level() -> None:
    expected = responses_golden("mcp_approval_request")
    (request,) = expected["approval_requests"]
    as_text = {
        **expected,
        "text": f"\n[Approval required: {request['name']}({request['arguments']})]\n",
        "approval_requests": [],
    }
    mismatches = compare_response(expected, client(as_text), capabilities=["hosted_tools"])
    assert where(mismatches) == ["text", "approval_requests"]
    assert [m.kind for m in mismatches] == ["invented", "lost"]
    wrong_id = {**expected, "approval_requests": [{**request, "call_id": "other"}]}
    assert where(compare_response(expected, client(wrong_id), capabilities=["hosted_tools"])) == [
        "approval_requests[0].call_id"
    ]


@pytest.mark.parametrize(
    ("got", "kind"),
    [
        # what JSON.parse reads: the nearest double, written back with its own digits
        ({"id": 9007199254740992, "big": 9.223372036854776e18, "n": 1}, "detail"),
        ({"id": 9007199254740992, "big": 9.223372036854776e18, "n": 2}, "wrong"),
        ({"id": 9007199254740994, "big": 9.223372036854776e18, "n": 1}, "wrong"),
    ],
)
def test_arguments_equal_only_as_doubles_are_a_detail_not_a_wrong_value(
    got: dict[str, Any], kind: str
) -> None:
    want = {"id": 9007199254740993, "big": 2**63 - 1, "n": 1}
    expected = {"tool_calls": [{"id": "call_1", "name": "f", "arguments": want}]}
    response = client({"tool_calls": [{"id": "call_1", "name": "f", "arguments": got}]})
    (mismatch,) = [
        m for m in compare_response(expected, response) if m.key.startswith("tool_calls")
    ]
    assert mismatch.kind == kind


def test_an_integer_past_the_largest_double_is_judged_without_raising() -> None:
    expected = {"tool_calls": [{"id": "call_1", "name": "f", "arguments": {"n": 10**400}}]}
    response = client({"tool_calls": [{"id": "call_1", "name": "f", "arguments": {"n": 1}}]})
    assert [m.kind for m in compare_response(expected, response)] == ["wrong"]
