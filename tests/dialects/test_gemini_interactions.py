"""The ``gemini_interactions`` dialect (Google's Interactions API, steps schema): what a client
relies on, rule by rule (docs/dialects.md, section ``gemini_interactions``), and each bug
reported in clients of the format as a test."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from raf import dialects, formats
from raf.cassettes import load
from raf.collect import collect_agent_response
from raf.dialects.sniff import sniff
from raf.formats.gemini_interactions import request_strategies, rules, strategies
from raf.formats.request_rules import Prior
from raf.framing.sse import ServerSentEvent
from raf.model import updates
from raf.model.canonical import to_canonical
from raf.model.messages import ChatMessage, MessageRole
from raf.model.request import Conversation
from raf.model.updates import AgentResponseUpdate
from raf.pipeline import UpdateDecoder, respond
from raf.serve import ReplayServer
from raf.transport import iter_response
from tests.conformance.reader_gemini_interactions import read_updates
from tests.conformance.test_golden_review import without_messages
from tests.dialects.unread_bodies import INTERACTIONS_OUTPUTS
from tests.properties.support import summary

NAME = "gemini_interactions"
ROOT = Path(__file__).resolve().parents[2]
CASSETTES = ROOT / "cassettes" / NAME


def frame(payload: Any, event: bool = True) -> bytes:
    data = payload if isinstance(payload, str) else json.dumps(payload)
    name = payload.get("event_type") if isinstance(payload, dict) and event else None
    return (f"event: {name}\n" if name else "").encode() + f"data: {data}\n\n".encode()


def created(interaction_id: str = "v1_abc", model: str = "gemini-2.5-flash") -> dict[str, Any]:
    return {
        "interaction": {"id": interaction_id, "status": "in_progress", "model": model},
        "event_type": "interaction.created",
    }


def start(index: int, **step: Any) -> dict[str, Any]:
    return {"index": index, "step": step, "event_type": "step.start"}


def delta(index: int, **fields: Any) -> dict[str, Any]:
    return {"index": index, "delta": fields, "event_type": "step.delta"}


def stop(index: int) -> dict[str, Any]:
    return {"index": index, "event_type": "step.stop"}


def completed(
    status: str = "completed", usage: Any = None, interaction_id: str = "v1_abc", **more: Any
) -> dict[str, Any]:
    interaction: dict[str, Any] = {"id": interaction_id, "status": status, **more}
    if usage is not None:
        interaction["usage"] = usage
    return {"interaction": interaction, "event_type": "interaction.completed"}


def body(*payloads: Any, done: bool = True, event: bool = True) -> list[bytes]:
    tail = [b"event: done\ndata: [DONE]\n\n"] if done else []
    return [frame(p, event) for p in payloads] + tail


def feed(*payloads: Any, done: bool = True) -> list[AgentResponseUpdate]:
    dialect = dialects.create(NAME)
    out: list[AgentResponseUpdate] = []
    for payload in payloads:
        data = payload if isinstance(payload, str) else json.dumps(payload)
        out += dialect.feed(ServerSentEvent(event="message", data=data))
    if done:
        out += dialect.feed(ServerSentEvent(event="done", data="[DONE]"))
    return out + dialect.close()


def codes(out: list[AgentResponseUpdate]) -> list[str]:
    return [u.error_code for u in out if isinstance(u, updates.Error)]


def answer(*texts: str, index: int = 0) -> list[dict[str, Any]]:
    return [
        start(index, type="model_output"),
        *(delta(index, type="text", text=t) for t in texts),
        stop(index),
    ]


USAGE = {
    "total_tokens": 1983,
    "total_input_tokens": 22,
    "total_cached_tokens": 0,
    "total_output_tokens": 590,
    "total_tool_use_tokens": 198,
    "total_thought_tokens": 1173,
}


def test_text_reads_with_the_id_model_and_usage_counting_tool_use_as_prompt() -> None:
    response = respond(body(created(), *answer("Hi", " there"), completed(usage=USAGE)), NAME)
    assert (response.id, response.model, response.text) == (
        "v1_abc",
        "gemini-2.5-flash",
        "Hi there",
    )
    assert response.finish_reason == "stop"
    assert response.usage is not None
    assert (
        response.usage.prompt_tokens,
        response.usage.completion_tokens,
        response.usage.total_tokens,
        response.usage.reasoning_tokens,
    ) == (220, 1763, 1983, 1173)
    assert response.errors == ()


def test_a_stateless_interaction_has_no_id_and_an_empty_usage_is_no_usage() -> None:
    response = respond(
        body(created(""), *answer("a"), completed(usage={}, interaction_id="")), NAME
    )
    assert (response.id, response.model, response.usage) == (None, "gemini-2.5-flash", None)


def test_statuses_follow_the_table_and_unknown_ones_are_kept_verbatim() -> None:
    for status, ours in [
        ("completed", "stop"),
        ("requires_action", "tool_calls"),
        ("incomplete", "length"),
        ("cancelled", "cancelled"),
        ("budget_exceeded", "budget_exceeded"),
        ("", "stop"),
    ]:
        response = respond(body(created(), *answer("a"), completed(status)), NAME)
        assert response.finish_reason == ours, status
        assert response.errors == ()


def test_completed_after_a_function_call_is_tool_calls() -> None:
    """vercel/ai: "completed + hasFunctionCall also occurs in practice"."""
    call = start(0, type="function_call", id="c1", name="f", arguments={})
    response = respond(
        body(
            created(), call, delta(0, type="arguments_delta", arguments="{}"), stop(0), completed()
        ),
        NAME,
    )
    assert response.finish_reason == "tool_calls"
    assert [(c.id, c.name, c.arguments) for c in response.tool_calls] == [("c1", "f", {})]


def test_failed_is_a_provider_error_with_no_finish_and_the_text_kept() -> None:
    failed = completed("failed", error={"message": "quota", "code": "resource_exhausted"})
    response = respond(body(created(), *answer("partial"), failed), NAME)
    assert [e.error_code for e in response.errors] == ["provider_error"]
    assert "quota" in response.errors[0].message
    assert (response.text, response.finish_reason) == ("partial", None)


def test_an_error_event_is_a_provider_error_and_not_a_truncation() -> None:
    error = {
        "error": {"message": "Deadline expired", "code": "gateway_timeout"},
        "event_type": "error",
    }
    for event in (True, False):  # an event: error frame, and a data-only one
        response = respond(body(created(), *answer("Hi")[:2], error, done=False, event=event), NAME)
        assert [e.error_code for e in response.errors] == ["provider_error"], event
        assert "Deadline expired" in response.errors[0].message
        assert response.text == "Hi"


def test_step_stop_without_interaction_completed_is_a_truncation() -> None:
    """BerriAI/litellm PR #28153 review: step.stop is not the end of the interaction."""
    for done in (True, False):
        response = respond(body(created(), *answer("Hi"), done=done), NAME)
        assert [e.error_code for e in response.errors] == ["stream_truncated"], done
        assert response.text == "Hi"


def test_the_type_is_read_from_event_type_and_a_thought_summary_is_never_text() -> None:
    """DEEIX-AI/DEEIX-Chat PR #607: event_type not read, thought_summary shown as text. Data-only
    frames (no event: line) read the same."""
    summary = delta(0, type="thought_summary", content={"type": "text", "text": "Thinking."})
    payloads = [
        created(),
        start(0, type="thought", summary=[{"type": "text", "text": "First. "}]),
        summary,
        stop(0),
        *answer("Answer", index=1),
        completed(),
    ]
    for event in (True, False):
        response = respond(body(*payloads, event=event), NAME)
        assert (response.reasoning_text, response.text) == ("First. Thinking.", "Answer"), event
        assert response.errors == ()


def test_the_call_signature_on_the_preceding_thought_step_is_kept() -> None:
    """obsidian-gemini PR #1269: the function_call step carries no signature; it streams as a
    thought_signature delta on the thought step before it, and must go back with the call."""
    cassette = load(CASSETTES / "function_call_requires_action.yaml")
    out = UpdateDecoder(NAME).feed(cassette.interactions[0].response.body)
    kinds = [type(u).__name__ for u in out if not isinstance(u, updates.ResponseMetadata)]
    assert kinds[:2] == ["ReasoningSignature", "ToolCallStart"]
    (signature,) = [u for u in out if isinstance(u, updates.ReasoningSignature)]
    assert signature.signature.startswith("CiQBDDnWx+Xp0gYV")
    assert not [u for u in out if isinstance(u, updates.PartSignature)]  # "signature": "" is none


def test_interleaved_call_fragments_are_routed_by_step_index() -> None:
    """google/adk-python#6832: fragments appended to the last-started call glued two calls'
    arguments into invalid JSON."""
    cassette = load(CASSETTES / "interleaved_function_calls_by_index.yaml")
    response = respond([cassette.interactions[0].response.body], NAME)
    assert [(c.name, c.arguments) for c in response.tool_calls] == [
        ("getWeather", {"location": "San Francisco"}),
        ("getTime", {"location": "Tokyo"}),
    ]
    assert response.errors == ()


def test_fragments_are_json_text_to_concatenate_with_no_error_on_a_partial_one() -> None:
    """TanStack/ai PR #781: parsing each arguments_delta alone gives partial-JSON noise."""
    pieces = ['{"loc', 'ation": "Par', 'is"}']
    call = start(0, type="function_call", id="c1", name="f", arguments={})
    out = feed(
        created(),
        call,
        *(delta(0, type="arguments_delta", arguments=p) for p in pieces),
        stop(0),
        completed("requires_action"),
    )
    assert [u.args_delta for u in out if isinstance(u, updates.ToolCallArgs)] == pieces
    assert codes(out) == []


def test_the_start_arguments_are_used_only_when_no_fragment_came() -> None:
    call = start(0, type="function_call", id="c1", name="f", arguments={"city": "Oslo"})
    response = respond(body(created(), call, stop(0), completed("requires_action")), NAME)
    assert [c.arguments for c in response.tool_calls] == [{"city": "Oslo"}]
    fragment = delta(0, type="arguments_delta", arguments='{"city":"Rome"}')
    response = respond(body(created(), call, fragment, stop(0), completed("requires_action")), NAME)
    assert [c.arguments for c in response.tool_calls] == [{"city": "Rome"}]
    empty = start(0, type="function_call", id="c1", name="f", arguments={})
    response = respond(body(created(), empty, stop(0), completed("requires_action")), NAME)
    assert [c.arguments for c in response.tool_calls] == [{}]
    assert response.errors == ()


def test_a_call_without_an_id_gets_one_made_from_its_index() -> None:
    call = start(3, type="function_call", name="f", arguments={})
    response = respond(body(created(), call, stop(3), completed("requires_action")), NAME)
    assert [c.id for c in response.tool_calls] == ["call_3"]


def test_annotations_are_kept_whole_one_raw_item_each() -> None:
    annotation = {
        "type": "url_citation",
        "url": "https://a.example",
        "title": "a",
        "start_index": 0,
        "end_index": 2,
    }
    out = feed(
        created(),
        start(0, type="model_output"),
        delta(0, type="text", text="Hi"),
        delta(
            0, type="text_annotation_delta", annotations=[annotation, {**annotation, "title": "b"}]
        ),
        stop(0),
        completed(),
    )
    assert [u.item for u in out if isinstance(u, updates.RawItem)] == [
        annotation,
        {**annotation, "title": "b"},
    ]


def test_server_tool_steps_are_hosted_calls_and_results_never_client_calls() -> None:
    cassette = load(CASSETTES / "google_search_annotations_and_server_tool_steps.yaml")
    response = respond([cassette.interactions[0].response.body], NAME)
    assert response.tool_calls == ()
    (hosted,) = response.hosted_tool_calls
    assert (hosted.id, hosted.name, hosted.error) == ("7xveqyd2", "google_search", None)
    assert hosted.arguments["queries"][0] == "notable AI developments last week May 8-15 2026"
    assert len(hosted.output) == 4
    assert response.finish_reason == "stop"


def test_a_hosted_result_with_is_error_is_an_error_and_an_open_hosted_step_is_kept_at_the_end() -> (
    None
):
    out = feed(
        created(),
        start(0, type="code_execution_call", id="x1"),
        delta(0, type="code_execution_call", arguments={"code": "1/0"}),
        stop(0),
        start(1, type="code_execution_result", call_id="x1"),
        delta(1, type="code_execution_result", result="ZeroDivisionError", is_error=True),
        done=False,
    )
    call, result = [
        u for u in out if isinstance(u, (updates.HostedToolCall, updates.HostedToolResult))
    ]
    assert isinstance(call, updates.HostedToolCall)
    assert (call.call_id, call.name, call.arguments) == ("x1", "code_execution", {"code": "1/0"})
    assert isinstance(result, updates.HostedToolResult)
    assert (result.call_id, result.output, result.error) == (
        "x1",
        "ZeroDivisionError",
        "the tool reported an error",
    )
    assert codes(out) == ["stream_truncated"]


def test_steps_that_do_not_fit_are_protocol_violations_and_what_came_is_kept() -> None:
    out = feed(
        created(),
        delta(5, type="text", text="orphan"),  # never started: read all the same
        start(0, type="model_output"),
        start(0, type="model_output"),  # twice
        delta(0, type="arguments_delta", arguments="{}"),  # not a call
        stop(0),
        stop(0),  # twice
        completed(),
    )
    assert codes(out) == ["protocol_violation"] * 4
    assert [u.delta for u in out if isinstance(u, updates.TextDelta)] == ["orphan"]
    assert [u for u in out if isinstance(u, updates.Finish)]


def test_a_field_of_a_wrong_type_is_named_and_the_rest_of_the_frame_counts() -> None:
    out = feed(
        created(),
        start(0, type="model_output"),
        delta(0, type="text", text=5),
        {
            "index": 0,
            "delta": {"type": "text", "text": "ok"},
            "event_type": "step.delta",
            "step": 1,
        },
        stop(0),
        completed(),
    )
    assert codes(out) == ["invalid_chunk"]
    assert [u.delta for u in out if isinstance(u, updates.TextDelta)] == ["ok"]


def test_unknown_event_and_step_types_are_one_notice_and_images_are_not_read() -> None:
    out = feed(
        created(),
        start(0, type="model_output"),
        delta(0, type="image", mime_type="image/png", data="AAAA"),
        delta(0, type="sparkle"),
        {"event_type": "interaction.sparkled"},
        stop(0),
        start(1, type="user_input"),
        completed(),
    )
    assert codes(out) == ["unrecognised_chunks"]
    assert "3 chunk(s)" in out[-1].message  # type: ignore[union-attr]


def test_the_removed_outputs_schema_is_named_and_not_read() -> None:
    for dialect in (NAME, "auto"):
        response = respond([INTERACTIONS_OUTPUTS], dialect)
        assert [e.error_code for e in response.errors] == ["unrecognised_format"], dialect
        assert "interactions_outputs" in response.errors[0].message
        assert response.text == ""


def test_auto_recognises_both_framings_and_no_other_dialect_claims_them() -> None:
    for path in sorted(CASSETTES.glob("*.yaml")):
        raw = load(path).interactions[0].response.body
        assert sniff(raw) == NAME, path.name
        lines = [line for line in raw.split(b"\n") if not line.startswith(b"event:")]
        assert sniff(b"\n".join(lines)) == NAME, path.name


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-2, max_value=3) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "type",
                    "index",
                    "id",
                    "call_id",
                    "name",
                    "arguments",
                    "result",
                    "is_error",
                    "signature",
                    "summary",
                    "content",
                    "text",
                    "annotations",
                    "status",
                    "usage",
                    "model",
                    "total_input_tokens",
                    "error",
                ]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)
_STEP_TYPES = st.sampled_from(
    [
        "thought",
        "model_output",
        "function_call",
        "google_search_call",
        "google_search_result",
        "function_result",
        "x",
    ]
)
_DELTA_TYPES = st.sampled_from(
    [
        "text",
        "thought_summary",
        "thought_signature",
        "text_annotation_delta",
        "arguments_delta",
        "image",
        "google_search_call",
        "google_search_result",
        "x",
    ]
)
_INDEX = st.integers(min_value=0, max_value=2) | st.none() | st.just("0")


@st.composite
def events(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(
        st.sampled_from(
            [
                "interaction.created",
                "interaction.status_update",
                "step.start",
                "step.delta",
                "step.stop",
                "interaction.completed",
                "error",
                "other",
            ]
        )
    )
    payload: dict[str, Any] = {"event_type": kind}
    index = draw(_INDEX)
    if index is not None:
        payload["index"] = index
    if kind == "step.start":
        payload["step"] = {
            **draw(
                st.dictionaries(
                    st.sampled_from(
                        ["id", "name", "arguments", "signature", "summary", "content", "call_id"]
                    ),
                    _JSON,
                    max_size=3,
                )
            ),
            "type": draw(_STEP_TYPES),
        }
    elif kind == "step.delta":
        payload["delta"] = {
            **draw(
                st.dictionaries(
                    st.sampled_from(
                        [
                            "text",
                            "signature",
                            "content",
                            "arguments",
                            "annotations",
                            "result",
                            "is_error",
                        ]
                    ),
                    _JSON,
                    max_size=3,
                )
            ),
            "type": draw(_DELTA_TYPES),
        }
    elif kind in ("interaction.created", "interaction.completed"):
        payload["interaction"] = draw(_JSON)
    elif kind == "error":
        payload["error"] = draw(_JSON)
    return payload


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(events(), max_size=10))
def test_the_dialect_never_raises_nor_reports_an_internal_error(payloads: list[Any]) -> None:
    assert "internal_error" not in codes(feed(*payloads))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(events(), max_size=10), st.booleans(), st.booleans())
def test_the_documented_reader_agrees_with_the_dialect_on_any_events(
    payloads: list[Any], done: bool, named: bool
) -> None:
    """The reader written from docs/dialects.md alone gives the dialect's updates (messages
    aside) on event sequences of every kind, well-formed or not."""
    stream = b"".join(body(*payloads, done=done, event=named))
    decoder = UpdateDecoder(NAME)
    ours = [
        {**u, "message": ""} if u.get("type") == "error" else u
        for u in to_canonical(decoder.feed(stream) + decoder.close())
    ]
    assert ours == [
        {**u, "message": ""} if u.get("type") == "error" else u
        for u in read_updates(200, "OK", stream)
    ]


@pytest.mark.parametrize("profile", sorted(strategies.PROFILES))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_drawn_streams_of_each_profile_aggregate_to_the_ground_truth(
    profile: str, data: st.DataObject
) -> None:
    stream = data.draw(strategies.streams(profile))
    assert summary(respond(list(stream.chunks), NAME)) == summary(stream.response)
    assert summary(respond(list(stream.chunks), "auto")) == summary(stream.response)
    got = respond(list(stream.chunks), NAME)
    assert (got.id, got.model, got.usage) == (
        stream.response.id,
        stream.response.model,
        stream.response.usage,
    )
    decoder = UpdateDecoder(NAME)
    ours = to_canonical(
        [u for chunk in stream.chunks for u in decoder.feed(chunk)] + decoder.close()
    )
    assert without_messages(read_updates(200, "OK", stream.body)) == without_messages(ours)


def test_the_follow_up_resends_the_thought_with_the_call_signature_and_names_the_result() -> None:
    """The stateless follow-up built from a recorded turn is the recorded follow-up: the
    thought step unchanged (its signature signs the call), the call, and a function_result
    naming the call's function; store false, no previous_interaction_id."""
    fmt = formats.get(NAME)
    assert fmt.build_request is not None
    assert fmt.read_request is not None
    first = load(CASSETTES / "function_call_requires_action.yaml").interactions[0]
    follow_up = load(CASSETTES / "function_result_follow_up.yaml").interactions[0]
    asked = fmt.read_request(json.loads(first.request.body or "{}"))
    turn = respond([first.response.body], NAME).turn_transcript
    result = ChatMessage(
        role=MessageRole.TOOL,
        content='{"temperature":16,"condition":"sunny"}',
        tool_call_id="61nzpsv4",
    )
    body = fmt.build_request(
        Conversation(
            messages=(*asked.messages, *turn, result), tools=asked.tools, options=asked.options
        )
    )
    recorded = json.loads(follow_up.request.body or "{}")
    assert body == recorded
    assert body["store"] is False
    assert "previous_interaction_id" not in body


def test_raf_serve_answers_both_api_versions_and_errors_as_google_does() -> None:
    """google-genai 2.x POSTs /v1beta/interactions, 3.x /v1/interactions: both are the
    format's endpoints, and an HTTP error is Google's error document."""
    fmt = formats.get(NAME)
    with ReplayServer() as server:
        for path in ("/v1beta/interactions", "/v1/interactions"):
            url = server.case_url(NAME, "thought_signature_then_text", chunking="random") + path
            with httpx.stream("POST", url, content=b"{}") as response:
                assert response.status_code == 200, path
                text = collect_agent_response(list(iter_response(response, NAME))).text
            assert text.startswith("I'm doing great"), path
    assert fmt.error_document(429, "slow down") == {
        "error": {"code": 429, "message": "slow down", "status": "RESOURCE_EXHAUSTED"}
    }


SIGNED_TURN = (
    {"type": "thought", "signature": "CiQBsig"},
    {"type": "function_call", "id": "c1", "name": "getWeather", "arguments": {"city": "Paris"}},
)
QUESTION = {"type": "user_input", "content": [{"type": "text", "text": "Weather in Paris?"}]}
RESULT = {"type": "function_result", "call_id": "c1", "name": "getWeather", "result": "18°C"}


def test_the_thought_signature_rule_fires_where_the_call_goes_back_without_its_thought() -> None:
    prior = [Prior(turn=SIGNED_TURN)]
    check = rules.CHECKS["interactions.thought_signature_kept"]
    keeps = {"input": [QUESTION, *SIGNED_TURN, RESULT]}
    assert list(check(keeps, prior)) == []
    breaks = {"input": [QUESTION, SIGNED_TURN[1], RESULT]}  # the thought left out
    assert [where for where, _ in check(breaks, prior)] == ["input[1]"]
    changed = {"input": [QUESTION, {"type": "thought", "signature": "other"}, *SIGNED_TURN[1:]]}
    assert [where for where, _ in check(changed, prior)] == ["input[2]"]


def test_the_function_result_rule_fires_on_a_missing_a_stray_and_a_repeated_result() -> None:
    check = rules.CHECKS["interactions.function_result_per_call"]
    assert list(check({"input": [QUESTION, *SIGNED_TURN, RESULT]}, [])) == []
    assert [w for w, _ in check({"input": [QUESTION, *SIGNED_TURN]}, [])] == ["input[2]"]
    stray = {**RESULT, "call_id": "c9"}
    assert [w for w, _ in check({"input": [QUESTION, stray]}, [])] == ["input[1].call_id"]
    twice = {"input": [QUESTION, *SIGNED_TURN, RESULT, RESULT]}
    assert [w for w, _ in check(twice, [])] == ["input[4].call_id"]
    for junk in ({}, {"input": "hi"}, {"input": [None, 3, {"type": 5}]}):
        assert list(check(junk, [])) == []
        assert list(rules.CHECKS["interactions.thought_signature_kept"](junk, [Prior()])) == []


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_a_follow_up_raf_builds_keeps_the_rules(data: st.DataObject) -> None:
    fmt = formats.get(NAME)
    assert fmt.build_request is not None
    conversation = data.draw(request_strategies.requests())
    body = fmt.build_request(conversation)
    prior = []
    for chat in conversation.messages:
        if chat.role is MessageRole.ASSISTANT:
            turn = fmt.build_request(Conversation(messages=(chat,)))["input"]
            prior.append(Prior(turn=tuple(turn) if isinstance(turn, list) else ()))
    for check in rules.CHECKS.values():
        assert list(check(body, prior)) == []
