"""The ``ollama_chat`` format: its dialect's rules (docs/dialects.md, section ``ollama_chat``),
its strategies' streams aggregate to their ground truth, and examples of its request half (the
properties every format's request half has are in tests/test_requests.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from raf.cassettes import load
from raf.cassettes.importers import import_file
from raf.dialects import sniff
from raf.formats._strategies.common import GeneratedStream
from raf.formats.conversation import message, raw_message
from raf.formats.ollama_chat import FORMAT, strategies
from raf.formats.ollama_chat.request import build_request, read_request
from raf.model import AgentResponse, blocks
from raf.model.canonical import to_canonical
from raf.model.messages import ChatMessage, MessageRole, ToolCall
from raf.model.request import Conversation
from raf.pipeline import UpdateDecoder, respond
from raf.serve.request_check import check_request
from tests.conformance import reader_ollama_chat

ROOT = Path(__file__).resolve().parents[2]


def lines(*objects: Any, end: str = "\n") -> bytes:
    return "".join(json.dumps(o) + end for o in objects).encode()


def chunk(**message: Any) -> dict[str, Any]:
    return {
        "model": "qwen3:8b",
        "created_at": "2025-11-04T09:12:30.418Z",
        "message": {"role": "assistant", "content": "", **message},
        "done": False,
    }


def done(reason: str | None = "stop", **counts: int) -> dict[str, Any]:
    last = {**chunk(), "done": True, **counts}
    if reason is not None:
        last["done_reason"] = reason
    return last


def summary(response: AgentResponse) -> dict[str, object]:
    return {
        "text": response.text,
        "reasoning": response.reasoning_text,
        "calls": [(c.id, c.name, c.arguments) for c in response.tool_calls],
        "finish": response.finish_reason,
        "usage": response.usage,
        "errors": [e.error_code for e in response.errors],
    }


def test_thinking_text_and_the_done_line_with_its_counts() -> None:
    body = lines(
        chunk(thinking="Hm"),
        chunk(content="Hi"),
        done(prompt_eval_count=5, eval_count=2, eval_duration=9),
    )
    response = respond([body], "ollama_chat")
    assert (response.reasoning_text, response.text, response.finish_reason) == ("Hm", "Hi", "stop")
    assert response.model == "qwen3:8b"
    assert response.usage is not None
    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (5, 2)
    assert response.errors == ()


def test_calls_are_whole_and_never_merge_whatever_their_index_says() -> None:
    call = {"function": {"index": 0, "name": "f", "arguments": {"a": 1}}}
    body = lines(chunk(tool_calls=[call, call]), chunk(tool_calls=[{"id": "c9", **call}]), done())
    response = respond([body], "ollama_chat")
    assert [(c.id, c.name, c.arguments) for c in response.tool_calls] == [
        ("__tc_0", "f", {"a": 1}),
        ("__tc_1", "f", {"a": 1}),
        ("c9", "f", {"a": 1}),
    ]
    assert response.finish_reason == "tool_calls"  # done_reason stop after calls


@pytest.mark.parametrize(
    ("reason", "finish"), [("length", "length"), ("load", "load"), (None, "stop")]
)
def test_done_reason_is_raf_s_or_kept_verbatim(reason: str | None, finish: str) -> None:
    assert respond([lines(done(reason))], "ollama_chat").finish_reason == finish


def test_an_error_line_after_a_200_is_a_provider_error_that_explains_the_end() -> None:
    body = lines(chunk(content="Hi"), {"error": "model runner crashed"})
    response = respond([body], "ollama_chat")
    assert response.text == "Hi"
    assert [e.error_code for e in response.errors] == ["provider_error"]
    assert "model runner crashed" in response.errors[0].message


def test_a_stream_without_its_done_line_is_truncated() -> None:
    cut = lines(chunk(content="Hi"))
    for body in (cut, cut + b'{"model":"qwen3'):
        response = respond([body], "ollama_chat")
        assert [e.error_code for e in response.errors] == ["stream_truncated"]
        assert response.text == "Hi"


def test_fields_of_a_wrong_type_are_named_and_the_rest_counts() -> None:
    body = lines(chunk(content=5, thinking="t", tool_calls=[3]), done(eval_count=1))
    response = respond([body], "ollama_chat")
    assert response.reasoning_text == "t"
    assert [e.error_code for e in response.errors] == ["invalid_chunk"]
    assert "message.content is int" in response.errors[0].message
    assert "message.tool_calls[0] is int" in response.errors[0].message


def test_api_generate_lines_are_not_read_as_chat() -> None:
    body = lines(
        {"model": "m", "created_at": "t", "response": "Hi", "done": False},
        {"model": "m", "created_at": "t", "response": "", "done": True, "done_reason": "stop"},
    )
    response = respond([body], "ollama_chat")
    assert response.finish_reason is None
    assert [e.error_code for e in response.errors] == ["unrecognised_format"]


def test_auto_recognises_the_format_by_its_lines() -> None:
    assert sniff.sniff(lines(chunk(content="Hi"))) == "ollama_chat"
    assert respond([lines(chunk(content="Hi"), done())], "auto").text == "Hi"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strategies.streams())
def test_drawn_streams_aggregate_to_the_ground_truth(stream: GeneratedStream) -> None:
    assert summary(respond(list(stream.chunks), "ollama_chat")) == summary(stream.response)


@pytest.mark.parametrize("profile", sorted(strategies.PROFILES))
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_each_profile_round_trips(profile: str, data: st.DataObject) -> None:
    stream = data.draw(strategies.streams(profile))
    assert stream.profile.name == profile
    assert summary(respond(list(stream.chunks), "ollama_chat")) == summary(stream.response)


FOLLOW_UP: dict[str, Any] = {
    "model": "qwen3:8b",
    "messages": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Paris?", "images": ["aGk="]},
        {
            "role": "assistant",
            "content": "",
            "thinking": "The user wants the weather.",
            "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}],
        },
        {"role": "tool", "content": "18 °C", "tool_name": "get_weather"},
        {
            "role": "assistant",
            "content": "x",
            "tool_calls": [{"id": "c1", "function": {"name": "f", "arguments": {}}}],
        },
        {"role": "tool", "content": "{}", "tool_name": "f", "tool_call_id": "c1", "x-note": 1},
        "not a message",
        {"role": "developer", "content": "?"},
    ],
    "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}],
    "stream": True,
    "think": True,
    "keep_alive": "5m",
    "options": {"num_predict": 128, "temperature": 0.2},
}


def test_reading_then_building_gives_the_request_back() -> None:
    conversation = read_request(FOLLOW_UP)
    assert conversation.options.max_tokens == 128
    assert conversation.options.extra["options"] == {"temperature": 0.2}
    system, user, asked, answer, called, answered, odd, developer = conversation.messages
    assert system == message(MessageRole.SYSTEM, [blocks.Text(text="Be brief.")])
    assert user == message(
        MessageRole.USER, [blocks.Text(text="Weather in Paris?"), blocks.Image(data="aGk=")]
    )
    assert asked == message(
        MessageRole.ASSISTANT,
        [
            blocks.Reasoning(text="The user wants the weather."),
            blocks.ToolCall(id="", name="get_weather", arguments={"city": "Paris"}),
        ],
    )
    # The result names the tool it answers; its call had no id, nor has the result.
    assert answer == message(
        MessageRole.TOOL, [blocks.ToolResult(call_id="", content="18 °C", name="get_weather")]
    )
    assert (answer.name, answer.tool_call_id) == (None, "")
    assert called.tool_calls == (ToolCall(id="c1", name="f", arguments={}),)
    # A message with a member raf does not model, one that is not an object and one of an
    # unknown role are kept whole, in place.
    assert answered == raw_message(FOLLOW_UP["messages"][5], MessageRole.TOOL)
    assert odd == raw_message("not a message")
    assert developer == raw_message({"role": "developer", "content": "?"})
    assert build_request(conversation) == {
        **FOLLOW_UP,
        "options": {"temperature": 0.2, "num_predict": 128},
    }
    assert read_request(build_request(conversation)) == conversation
    assert FORMAT.read_request is read_request
    assert FORMAT.build_request is build_request


@given(
    st.dictionaries(
        st.sampled_from(["model", "messages", "tools", "stream", "options", "think", "x"]),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=5),
            lambda inner: (
                st.lists(inner, max_size=3)
                | st.dictionaries(
                    st.sampled_from(
                        ["role", "content", "tool_calls", "function", "name", "num_predict"]
                    ),
                    inner,
                    max_size=3,
                )
            ),
            max_leaves=12,
        ),
    )
)
def test_reading_any_json_object_never_raises(body: dict[str, Any]) -> None:
    conversation = read_request(body)
    assert isinstance(conversation, Conversation)
    assert read_request(build_request(conversation)) == conversation


def raf_updates(body: bytes) -> list[Any]:
    decoder = UpdateDecoder("ollama_chat")
    out = [*decoder.feed(body), *decoder.close()]
    return [
        {**u, "message": ""} if u["type"] == "error" else u
        for u in (to_canonical(update) for update in out)
    ]


def reader_updates(body: bytes) -> list[Any]:
    return [
        {**u, "message": ""} if u["type"] == "error" else u
        for u in reader_ollama_chat.read_updates(200, "OK", body)
    ]


HOSTILE = [
    lines(chunk(content=5, thinking="t", tool_calls=[3, {"function": 3}, {"id": 7}])),
    lines(done("length", prompt_eval_count=-1, eval_count=2), {"x": 1}, done(1)),  # type: ignore[arg-type]
    lines({"model": "m", "created_at": "t", "response": "Hi", "done": True}),
    b'{"message": {"content": "a"}, "done": "true"}\n[1]\nnot json\n\n{"error": {"message": "e"}}\n',
    b'{"message": {"content": "\\ud83d", "tool_calls": [{"function": {"arguments": "{\\"a\\""}}]}, "eval_count": 1e400, "done": true}\r\n{"mess',
]


@pytest.mark.parametrize("body", HOSTILE)
def test_the_independent_reader_agrees_with_raf_on_hostile_lines(body: bytes) -> None:
    assert reader_updates(body) == raf_updates(body)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(strategies.streams())
def test_the_independent_reader_agrees_with_raf_on_drawn_streams(
    stream: GeneratedStream,
) -> None:
    assert reader_updates(stream.body) == raf_updates(stream.body)


@pytest.mark.parametrize("suffix", [".ndjson", ".jsonl", ".txt"])
def test_an_imported_raw_body_keeps_its_json_lines(tmp_path: Path, suffix: str) -> None:
    body = lines(chunk(content="Hi"), done(eval_count=1))
    path = tmp_path / f"ollama{suffix}"
    path.write_bytes(body)
    cassette = import_file(path)
    assert cassette.info is not None
    assert cassette.info.dialect == "ollama_chat"
    (interaction,) = cassette.interactions
    assert interaction.response.body == body
    assert interaction.response.header("content-type") == "application/x-ndjson"
    assert interaction.request.uri == FORMAT.placeholder_uri


def test_the_follow_up_built_from_the_streamed_turn_is_the_recorded_one() -> None:
    cassette = load(ROOT / "cassettes" / "ollama_chat" / "follow_up_carries_thinking_and_call.yaml")
    first, second = cassette.interactions
    assert isinstance(first.request.body, str)
    assert isinstance(second.request.body, str)
    asked = read_request(json.loads(first.request.body))
    turn = respond([first.response.body], "ollama_chat")
    assert turn.finish_reason == "tool_calls"
    (call,) = turn.tool_calls
    (assistant,) = turn.turn_transcript  # the turn's message, as raf collects it
    assert isinstance(assistant.blocks[0], blocks.Reasoning)
    assert assistant.blocks[0].text == turn.reasoning_text
    result = '{"city": "Lyon", "condition": "light rain", "celsius": 11}'
    # RAF's tool message, without blocks: the builder names the tool of the call it answers
    # and leaves out the id raf made up for the call Ollama sent without one.
    assert call.id == "__tc_0"
    tool = ChatMessage.tool(result, call.id)
    follow_up = msgspec.structs.replace(asked, messages=(*asked.messages, assistant, tool))
    built = json.dumps(build_request(follow_up)).encode()
    check = check_request("ollama_chat", second.request.body, built)
    assert check.ok, check.mismatches
    assert check.compared == ("model", "messages", "tools", "think")  # what was recorded
    lost = build_request(follow_up)
    del lost["messages"][-1]  # the tool's result
    assert not check_request("ollama_chat", second.request.body, json.dumps(lost).encode()).ok
