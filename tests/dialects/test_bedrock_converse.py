"""The ``bedrock_converse`` dialect (Amazon Bedrock ConverseStream over the AWS event stream):
what a client relies on, rule by rule (docs/dialects.md, section ``bedrock_converse``), each
bug other clients shipped as a test."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from raf import formats
from raf.agent.http_client import HttpChatClient
from raf.agent.options import ChatOptions
from raf.cassettes import load
from raf.dialects.sniff import sniff
from raf.formats.bedrock_converse import http, strategies
from raf.formats.request_rules import check_rules
from raf.framing import aws_eventstream_encode as encode
from raf.model import updates
from raf.model.canonical import to_canonical
from raf.model.messages import ChatMessage, MessageRole
from raf.model.request import Conversation
from raf.model.updates import AgentResponseUpdate
from raf.pipeline import UpdateDecoder, respond
from tests.conformance.reader_bedrock_converse import read_updates
from tests.conformance.test_golden_review import without_messages
from tests.properties.support import summary

NAME = "bedrock_converse"
ROOT = Path(__file__).resolve().parents[2]


def ev(name: str, payload: Any) -> bytes:
    data = payload if isinstance(payload, str) else json.dumps(payload)
    return encode.event(name, data.encode())


START = ev("messageStart", {"role": "assistant", "p": "abcdef"})


def text(index: int, value: str) -> bytes:
    return ev("contentBlockDelta", {"contentBlockIndex": index, "delta": {"text": value}})


def reasoning(index: int, **fields: str) -> bytes:
    return ev(
        "contentBlockDelta", {"contentBlockIndex": index, "delta": {"reasoningContent": fields}}
    )


def tool_start(index: int, call_id: str, name: str, **more: str) -> bytes:
    tool = {"toolUseId": call_id, "name": name, **more}
    return ev("contentBlockStart", {"contentBlockIndex": index, "start": {"toolUse": tool}})


def tool_input(index: int, fragment: str) -> bytes:
    return ev(
        "contentBlockDelta", {"contentBlockIndex": index, "delta": {"toolUse": {"input": fragment}}}
    )


def stop(index: int) -> bytes:
    return ev("contentBlockStop", {"contentBlockIndex": index})


def message_stop(reason: str = "end_turn") -> bytes:
    return ev("messageStop", {"stopReason": reason, "p": "abc"})


def metadata(**usage: int) -> bytes:
    return ev("metadata", {"usage": usage, "metrics": {"latencyMs": 12}})


def feed(*messages: bytes, chunk: int | None = None) -> list[AgentResponseUpdate]:
    """The updates of a body, fed whole or in pieces of ``chunk`` bytes."""
    body = b"".join(messages)
    decoder = UpdateDecoder(NAME)
    step = chunk or max(len(body), 1)
    out: list[AgentResponseUpdate] = []
    for start in range(0, len(body), step):
        out += decoder.feed(body[start : start + step])
    return out + decoder.close()


def codes(out: list[AgentResponseUpdate]) -> list[str]:
    return [u.error_code for u in out if isinstance(u, updates.Error)]


def test_a_text_stream_without_block_start_reads_as_text_with_its_usage() -> None:
    usage = metadata(inputTokens=13, outputTokens=82, totalTokens=95)
    out = feed(START, text(0, "The"), text(0, " capital"), stop(0), message_stop(), usage)
    response = respond([b"".join([START, text(0, "Hi"), stop(0), message_stop()])], NAME)
    assert response.text == "Hi"
    assert response.finish_reason == "stop"
    assert response.usage is None  # no metadata: a finish without usage, and no error
    assert response.errors == ()
    assert [type(u).__name__ for u in out] == [
        "TextDelta",
        "TextDelta",
        "Finish",
        "Usage",
    ]
    last = out[-1]
    assert isinstance(last, updates.Usage)
    assert (last.usage.prompt_tokens, last.usage.completion_tokens) == (13, 82)


def test_the_signature_is_given_at_once_not_held_until_the_block_stops() -> None:
    """opencode PR #38712, langchainjs #11341, rig #1684: the signature delta was withheld
    (or dropped at contentBlockStop). A stream cut right after it still has it."""
    out = feed(START, reasoning(0, text="Let me think."), reasoning(0, signature="EqQBCkgI"))
    assert out[:2] == [
        updates.ReasoningDelta(delta="Let me think."),
        updates.ReasoningSignature(signature="EqQBCkgI"),
    ]
    assert codes(out) == ["stream_truncated"]
    body = b"".join(
        [START, reasoning(0, text="Hmm."), reasoning(0, signature="S1"), stop(0), text(1, "Hi")]
    )
    response = respond([body + message_stop()], NAME)
    assert response.reasoning_text == "Hmm."
    assert response.text == "Hi"


def test_redacted_reasoning_is_kept_as_sent() -> None:
    out = feed(START, reasoning(0, redactedContent="RXRrRUNr"), stop(0), message_stop())
    assert updates.RedactedReasoning(data="RXRrRUNr") in out
    assert codes(out) == []


def test_a_metrics_only_metadata_never_erases_the_usage() -> None:
    """opencode PR #38712: "a later metrics-only metadata event erased previously captured
    usage"."""
    body = [
        START,
        text(0, "21"),
        stop(0),
        message_stop(),
        metadata(inputTokens=2, cacheReadInputTokens=1322, outputTokens=5, totalTokens=1329),
        ev("metadata", {"metrics": {"latencyMs": 1990}}),
        ev("metadata", {"usage": {"outputTokens": 6, "inputTokens": None}}),
    ]
    response = respond([b"".join(body)], NAME)
    assert response.usage is not None
    # inputTokens excludes the cache: the prompt is 2 + 1322; the last metadata changed only
    # the output count.
    assert response.usage.prompt_tokens == 1324
    assert response.usage.completion_tokens == 6
    assert response.usage.prompt_cache_hit_tokens == 1322
    assert response.errors == ()


def test_cache_writes_count_in_the_prompt_and_a_total_that_does_not_add_up_is_a_notice() -> None:
    out = feed(
        START,
        text(0, "x"),
        message_stop(),
        metadata(inputTokens=2, cacheWriteInputTokens=1322, outputTokens=5, totalTokens=1329),
    )
    usage = out[-1]
    assert isinstance(usage, updates.Usage)
    assert usage.usage.prompt_tokens == 1324
    assert usage.usage.prompt_cache_hit_tokens is None
    assert codes(out) == []
    # bifrost #6942: a model that counts the cache write in inputTokens too.
    out = feed(
        START,
        message_stop(),
        metadata(inputTokens=4995, cacheWriteInputTokens=4993, outputTokens=5, totalTokens=5000),
    )
    assert codes(out) == ["protocol_notice"]
    assert isinstance(out[-1], updates.Usage)


def test_metadata_before_message_stop_is_carried_by_the_finish() -> None:
    out = feed(
        START, text(0, "Hi"), stop(0), metadata(inputTokens=3, outputTokens=4), message_stop()
    )
    finish = out[-1]
    assert isinstance(finish, updates.Finish)
    assert finish.usage is not None
    assert finish.usage.total_tokens == 7
    assert codes(out) == []


@pytest.mark.parametrize(
    ("exception", "payload"),
    [
        ("throttlingException", {"message": "Too many tokens"}),
        (
            "modelStreamErrorException",
            {"message": "Model Stream Error", "originalStatusCode": 500, "originalMessage": "x"},
        ),
    ],
)
def test_exception_messages_are_provider_errors_after_everything_before_them(
    exception: str, payload: dict[str, Any]
) -> None:
    """vercel/ai #19034, opencode PR #38712, goose PR #9579: exception messages were dropped
    by readers that admit only ``:message-type: event``, so a throttled stream looked cut or
    finished."""
    data = json.dumps(payload)
    out = feed(START, text(0, "Hello"), encode.exception(exception, data.encode()))
    assert out[0] == updates.TextDelta(delta="Hello")
    (error,) = [u for u in out if isinstance(u, updates.Error)]
    assert error.error_code == "provider_error"
    assert exception in error.message
    assert payload["message"] in error.message
    assert error.raw == data
    if "originalMessage" in payload:
        assert "500" in error.message


def test_an_unmodelled_error_message_is_a_provider_error_quoting_its_headers() -> None:
    out = feed(START, text(0, "a"), encode.error("InternalFailure", "try again later"))
    (error,) = [u for u in out if isinstance(u, updates.Error)]
    assert error.error_code == "provider_error"
    assert "InternalFailure" in error.message
    assert "try again later" in error.message


def test_messages_of_unknown_or_no_message_type_are_notices() -> None:
    odd = encode.encode_message(
        [(":event-type", "contentBlockDelta"), (":message-type", "surprise")],
        b'{"contentBlockIndex":0,"delta":{"text":"lost"}}',
    )
    untyped = encode.encode_message(
        [(":event-type", "contentBlockDelta")], b'{"contentBlockIndex":0,"delta":{"text":"kept"}}'
    )
    out = feed(START, odd, untyped, untyped, message_stop())
    assert [u.delta for u in out if isinstance(u, updates.TextDelta)] == ["kept", "kept"]
    assert codes(out) == ["protocol_notice", "protocol_notice"]


def test_tool_input_fragments_are_accumulated_into_the_arguments() -> None:
    """crewAI #6149, goai PR #2: tool input deltas were not accumulated and the tool got
    ``{}``. Claude streams the input in fragments, Nova in one."""
    body = [
        START,
        tool_start(0, "tooluse_1", "get_weather"),
        tool_input(0, '{"loc'),
        tool_input(0, 'ation": "Pa'),
        tool_input(0, 'ris", "unit": "C"}'),
        stop(0),
        tool_start(1, "tooluse_2", "get_time", type="tool_use"),
        tool_input(1, '{"tz": "CET"}'),
        stop(1),
        message_stop("tool_use"),
    ]
    whole = b"".join(body)
    for size in (len(whole), 1, 7):
        response = respond([whole[i : i + size] for i in range(0, len(whole), size)], NAME)
        assert [(c.id, c.name, c.arguments) for c in response.tool_calls] == [
            ("tooluse_1", "get_weather", {"location": "Paris", "unit": "C"}),
            ("tooluse_2", "get_time", {"tz": "CET"}),
        ]
        assert response.finish_reason == "tool_calls"


def test_tool_input_for_a_block_that_never_started_is_a_violation_and_dropped() -> None:
    out = feed(START, tool_input(0, '{"a": 1}'), text(0, "hi"), message_stop())
    assert codes(out) == ["protocol_violation"]
    assert not any(isinstance(u, updates.ToolCallArgs) for u in out)
    assert updates.TextDelta(delta="hi") in out


def test_tool_blocks_left_open_at_message_stop_are_closed_with_a_violation() -> None:
    out = feed(START, tool_start(0, "t1", "f"), tool_input(0, "{}"), message_stop("tool_use"))
    assert codes(out) == ["protocol_violation"]
    assert out.index(updates.ToolCallEnd(id="t1")) < len(out) - 1
    assert isinstance(out[-1], updates.Finish)


def test_a_server_tool_and_its_result_are_hosted_not_client_calls() -> None:
    hosted_start = tool_start(0, "tooluse_A", "nova_code_interpreter", type="server_tool_use")
    result_start = ev(
        "contentBlockStart",
        {
            "contentBlockIndex": 1,
            "start": {
                "toolResult": {"toolUseId": "tooluse_A", "type": "nova_code_interpreter_result"}
                | {"status": "error"}
            },
        },
    )
    result_delta = ev(
        "contentBlockDelta",
        {"contentBlockIndex": 1, "delta": {"toolResult": [{"text": "division by zero"}]}},
    )
    out = feed(
        START,
        hosted_start,
        tool_input(0, '{"snippet":'),
        tool_input(0, '"1/0"}'),
        stop(0),
        result_start,
        result_delta,
        stop(1),
        message_stop(),
    )
    assert not any(isinstance(u, updates.ToolCallStart) for u in out)
    call = next(u for u in out if isinstance(u, updates.HostedToolCall))
    assert (call.call_id, call.name, call.arguments) == (
        "tooluse_A",
        "nova_code_interpreter",
        {"snippet": "1/0"},
    )
    result = next(u for u in out if isinstance(u, updates.HostedToolResult))
    assert result.call_id == "tooluse_A"
    assert result.output == [{"text": "division by zero"}]
    assert result.error == "division by zero"
    assert codes(out) == []


def test_a_start_with_an_empty_or_unknown_start_is_accepted() -> None:
    """Emulators (aimock) send ``contentBlockStart`` with ``start: {}`` or a member the
    service model does not have; the first delta decides the block's kind."""
    out = feed(
        START,
        ev("contentBlockStart", {"contentBlockIndex": 0, "start": {"reasoningContent": {}}}),
        reasoning(0, text="hm"),
        stop(0),
        ev("contentBlockStart", {"contentBlockIndex": 1, "start": {}}),
        text(1, "ok"),
        stop(1),
        message_stop(),
    )
    assert codes(out) == []
    assert updates.ReasoningDelta(delta="hm") in out
    assert updates.TextDelta(delta="ok") in out


def test_the_end_without_message_stop_is_a_truncation_also_inside_a_message() -> None:
    assert codes(feed(START, text(0, "a"), stop(0))) == ["stream_truncated"]
    whole = text(0, "b")
    out = feed(START, text(0, "a"), whole[:20])
    assert codes(out) == ["stream_truncated"]
    assert [u.delta for u in out if isinstance(u, updates.TextDelta)] == ["a"]
    # metadata after messageStop is read; nothing is missing without it.
    assert codes(feed(START, text(0, "a"), message_stop())) == []


def test_a_corrupt_message_ends_the_stream_keeping_what_came_before() -> None:
    bad = bytearray(text(0, " world"))
    bad[-8] ^= 0xFF
    out = feed(START, text(0, "Hello"), bytes(bad), text(0, "!"), message_stop(), chunk=5)
    assert [u.delta for u in out if isinstance(u, updates.TextDelta)] == ["Hello"]
    assert codes(out) == ["stream_corrupt"]


@pytest.mark.parametrize(
    ("wire", "ours"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("max_tokens", "length"),
        ("model_context_window_exceeded", "length"),
        ("tool_use", "tool_calls"),
        ("guardrail_intervened", "content_filter"),
        ("content_filtered", "content_filter"),
        ("malformed_tool_use", "malformed_tool_use"),
    ],
)
def test_stop_reasons_follow_the_table_and_others_are_kept_verbatim(wire: str, ours: str) -> None:
    assert respond([START + message_stop(wire)], NAME).finish_reason == ours


def test_auto_sniffs_the_format() -> None:
    body = START + text(0, "Hi") + stop(0) + message_stop()
    assert sniff(body) == NAME
    assert respond([body], "auto").text == "Hi"
    throttled = encode.exception("throttlingException", b'{"message":"slow"}')
    assert sniff(throttled) == NAME


def test_every_cassette_reads_as_its_expectation_says() -> None:
    """The bundled recordings (the goldens check them in full): one assertion per bug they
    stand for."""
    folder = ROOT / "cassettes" / NAME

    def read(scenario: str) -> Any:
        cassette = load(folder / f"{scenario}.yaml")
        return respond([cassette.interactions[0].response.body], NAME)

    signed = load(folder / "claude_reasoning_with_signature.yaml").interactions[0].response.body
    signatures = [u for u in feed(signed) if isinstance(u, updates.ReasoningSignature)]
    assert len(signatures) == 1
    assert signatures[0].signature.startswith("Eu0CCkgI")
    assert read("usage_with_cache_read").usage.prompt_tokens == 1324
    assert read("throttling_exception_mid_reasoning").errors[0].error_code == "provider_error"
    assert read("tool_call_whole_input_in_one_delta").tool_calls[0].arguments == {"city": "Paris"}


# -- properties --------------------------------------------------------------------------------

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2, 3) | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "contentBlockIndex",
                    "delta",
                    "start",
                    "text",
                    "reasoningContent",
                    "signature",
                    "redactedContent",
                    "toolUse",
                    "toolUseId",
                    "name",
                    "type",
                    "input",
                    "toolResult",
                    "status",
                    "stopReason",
                    "usage",
                    "inputTokens",
                    "outputTokens",
                    "totalTokens",
                    "message",
                ]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)
_NAMES = st.sampled_from(
    [
        "messageStart",
        "contentBlockStart",
        "contentBlockDelta",
        "contentBlockStop",
        "messageStop",
        "metadata",
        "somethingNew",
        "error",
    ]
)
_MESSAGE_TYPES = st.sampled_from(["event", "event", "event", "exception", "error", None, "odd"])


@st.composite
def _messages(draw: st.DrawFn) -> bytes:
    out = []
    for _ in range(draw(st.integers(0, 8))):
        name = draw(_NAMES)
        payload = draw(
            st.one_of(
                st.dictionaries(
                    st.sampled_from(["contentBlockIndex", "delta", "start", "stopReason", "usage"]),
                    _JSON,
                ),
                _JSON,
            )
        )
        data = json.dumps(payload).encode() if draw(st.booleans()) or payload else b""
        message_type = draw(_MESSAGE_TYPES)
        headers: list[tuple[str, Any]] = [
            (":exception-type" if message_type == "exception" else ":event-type", name)
        ]
        if message_type == "error":
            headers = [(":error-code", name), (":error-message", "failed")]
        if message_type is not None:
            headers.append((":message-type", message_type))
        out.append(encode.encode_message(headers, data))
    body = b"".join(out)
    cut = draw(st.integers(0, 30))
    return body[: len(body) - cut] if draw(st.booleans()) else body


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_messages())
def test_the_dialect_never_raises_and_the_documented_reader_agrees(body: bytes) -> None:
    """The reader written from docs/dialects.md alone gives the dialect's updates (messages
    aside) on message sequences of every kind, well-formed or not, cut or not."""
    decoder = UpdateDecoder(NAME)
    ours = to_canonical(decoder.feed(body) + decoder.close())
    assert "internal_error" not in [u.get("error_code") for u in ours]
    assert without_messages(read_updates(200, "OK", body)) == without_messages(ours)


@pytest.mark.parametrize("profile", sorted(strategies.PROFILES))
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_drawn_streams_of_each_profile_aggregate_to_the_ground_truth(
    profile: str, data: st.DataObject
) -> None:
    stream = data.draw(strategies.streams(profile))
    assert summary(respond(list(stream.chunks), NAME)) == summary(stream.response)
    assert summary(respond(list(stream.chunks), "auto")) == summary(stream.response)
    decoder = UpdateDecoder(NAME)
    ours = to_canonical(
        [u for chunk in stream.chunks for u in decoder.feed(chunk)] + decoder.close()
    )
    assert without_messages(read_updates(200, "OK", stream.body)) == without_messages(ours)


def test_the_format_is_registered_with_its_endpoint_and_error_document() -> None:
    fmt = formats.get(NAME)
    assert fmt.framing == "aws_eventstream"
    assert fmt.endpoints[0].matches("POST", "/model/us.amazon.nova-micro-v1%3A0/converse-stream")
    assert not fmt.endpoints[0].matches("POST", "/model/a/converse")
    assert fmt.error_document(400, "bad model") == {"message": "bad model"}
    assert fmt.http is not None
    assert fmt.http.path == "/model/{model}/converse-stream"


def test_raf_s_chat_client_posts_to_the_region_with_the_model_in_the_path() -> None:
    with HttpChatClient(NAME, http.base_url("eu-west-1"), api_key="k") as client:
        url = client.url("us.anthropic.claude-sonnet-4-20250514-v1:0")
        assert url == (
            "https://bedrock-runtime.eu-west-1.amazonaws.com"
            "/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/converse-stream"
        )
        assert client.headers()["authorization"] == "Bearer k"
        options = ChatOptions(temperature=0.2, top_p=0.9, stop=("END",), max_tokens=64)
        conversation = client.conversation((ChatMessage.user("Hi"),), options)
    fmt = formats.get(NAME)
    assert fmt.build_request is not None
    body = fmt.build_request(conversation)
    assert body["inferenceConfig"] == {
        "temperature": 0.2,
        "topP": 0.9,
        "stopSequences": ["END"],
        "maxTokens": 64,
    }
    assert body["messages"] == [{"role": "user", "content": [{"text": "Hi"}]}]
    assert "model" not in body


def test_the_follow_up_sends_back_the_hosted_tool_and_the_call_as_bedrock_takes_them() -> None:
    """The turn of ``nova_code_interpreter_hosted_then_client_tool`` sent back: the server
    tool's toolUse (with its type) and toolResult in the assistant message, before the
    client's call, in the shape of pydantic-ai's recorded follow-up
    (tests/models/cassettes/test_bedrock/test_bedrock_model_with_code_execution_tool.yaml)."""
    fmt = formats.get(NAME)
    assert fmt.build_request is not None
    assert fmt.read_request is not None
    first = load(
        ROOT / "cassettes" / NAME / "nova_code_interpreter_hosted_then_client_tool.yaml"
    ).interactions[0]
    asked = fmt.read_request(json.loads(first.request.body or "{}"))
    response = respond([first.response.body], NAME)
    (call,) = response.tool_calls
    result = ChatMessage(
        role=MessageRole.TOOL, content="Final result processed.", tool_call_id=call.id
    )
    body = fmt.build_request(
        Conversation(
            messages=(*asked.messages, *response.turn_transcript, result),
            tools=asked.tools,
            options=asked.options,
        )
    )
    assistant, results = body["messages"][-2:]
    assert assistant["role"] == "assistant"
    assert assistant["content"] == [
        {
            "toolUse": {
                "name": "nova_code_interpreter",
                "toolUseId": "tooluse_VQNZJRUFMoqZzszVsRd4og",
                "type": "server_tool_use",
                "input": {"snippet": "1234 * 5678"},
            }
        },
        {
            "toolResult": {
                "status": "success",
                "toolUseId": "tooluse_VQNZJRUFMoqZzszVsRd4og",
                "type": "nova_code_interpreter_result",
                "content": [
                    {"json": {"stdOut": "7006652", "stdErr": "", "exitCode": 0, "isError": False}}
                ],
            }
        },
        {
            "toolUse": {
                "toolUseId": "tooluse_ptgCcZ0uQu-UUMz0abqoWw",
                "name": "final_result",
                "input": {"result": 7006652.0},
            }
        },
    ]
    assert results == {
        "role": "user",
        "content": [
            {
                "toolResult": {
                    "toolUseId": "tooluse_ptgCcZ0uQu-UUMz0abqoWw",
                    "content": [{"text": "Final result processed."}],
                    "status": "success",
                }
            }
        ],
    }
    assert check_rules(NAME, body) == []  # the hosted call is answered in its own message
