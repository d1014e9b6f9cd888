"""The assistant message of a streamed turn (``AgentResponse.turn_transcript``) keeps everything
a client must send back.

Every bundled cassette (and every recorded stream of ``../shared/corpus`` when it is there) is
streamed under every chunking raf has, through ``collect_agent_response(run(...))`` and
through ``respond`` (the aggregate-only path); the message must carry every signature,
encrypted reasoning, redacted reasoning, reasoning item id and tool call id the stream had.
What "the stream had" is found by :func:`wire_values`, a plain scan of the response body's
JSON payloads that knows the field names of the four formats and nothing of raf's dialects.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from raf.cassettes import load
from raf.cassettes.lint import cassette_files
from raf.chunking import STANDARD_CHUNKINGS, chunk
from raf.collect import collect_agent_response
from raf.model import blocks
from raf.model.canonical import to_canonical
from raf.model.messages import ChatMessage
from raf.pipeline import respond, run
from tests import corpus
from tests.corpus import recorded_streams

ROOT = Path(__file__).resolve().parents[1]
CASSETTES = cassette_files([ROOT / "cassettes"])


# -- the plain scan ----------------------------------------------------------------------------


@dataclass
class WireValues:
    """What a client must send back, as the body's payloads carried it."""

    signatures: set[str] = field(default_factory=set)
    encrypted: set[str] = field(default_factory=set)
    redacted: set[str] = field(default_factory=set)
    reasoning_ids: set[str] = field(default_factory=set)
    call_ids: set[str] = field(default_factory=set)

    def empty(self) -> bool:
        return not (
            self.signatures
            or self.encrypted
            or self.redacted
            or self.reasoning_ids
            or self.call_ids
        )


def payloads(body: bytes) -> Iterator[Any]:
    """The JSON values of a body: each SSE ``data:`` line, each JSON line, or each element of
    a JSON array (as far as it is whole). Whatever does not parse is skipped."""
    text = body.decode("utf-8", "replace").lstrip("\ufeff")
    if text.lstrip().startswith("["):
        decoder = json.JSONDecoder()
        at = text.index("[") + 1
        while True:
            while at < len(text) and text[at] in " \t\r\n,":
                at += 1
            try:
                value, at = decoder.raw_decode(text, at)
            except ValueError:
                return
            yield value
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        data = line.strip()
        if data.startswith("data:"):
            data = data[5:].strip()
        if not data.startswith(("{", "[")):
            continue
        try:
            yield json.loads(data)
        except ValueError:
            continue


def _first_choice_only(node: dict[str, Any]) -> None:
    """Chat Completions ``choices`` and Gemini ``candidates`` other than the first (index 0)
    belong to other answers, which a client reading one answer never sees: dropped here."""
    for key in ("choices", "candidates"):
        options = node.get(key)
        if isinstance(options, list):
            node[key] = [
                o for o in options if not isinstance(o, dict) or o.get("index", 0) in (0, None)
            ]


def _streamed(values: list[Any]) -> list[Any]:
    """The payloads as the items were streamed: the Responses lifecycle events' ``response``
    snapshot (``response.completed`` repeats the output, OpenRouter with other ids) is left
    out, and so is an item at ``output_item.added`` when the body has its
    ``output_item.done``, which supersedes it (the encrypted reasoning grows in between)."""
    done = {
        v["item"].get("id")
        for v in values
        if isinstance(v, dict)
        and v.get("type") == "response.output_item.done"
        and isinstance(v.get("item"), dict)
    }
    out = []
    for value in values:
        if isinstance(value, dict) and str(value.get("type", "")).startswith("response."):
            item = value.get("item")
            if (
                value.get("type") == "response.output_item.added"
                and isinstance(item, dict)
                and item.get("id") in done
            ):
                continue
            out.append({k: v for k, v in value.items() if k != "response"})
        else:
            out.append(value)
    return out


def wire_values(body: bytes) -> WireValues:
    """Every value a client must send back that the body's payloads carry, by field name."""
    found = WireValues()
    stack: list[Any] = _streamed(list(payloads(body)))
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, dict):
            continue
        _first_choice_only(node)
        kind = node.get("type")
        for key, where in (
            ("signature", found.signatures),  # Anthropic thinking (start or signature_delta)
            ("thoughtSignature", found.signatures),  # Gemini, on any part
            ("encrypted_content", found.encrypted),  # Responses reasoning items
        ):
            value = node.get(key)
            if isinstance(value, str) and value:
                where.add(value)
        if (
            kind in ("redacted_thinking", "reasoning.encrypted")  # Anthropic, OpenRouter
            and isinstance(node.get("data"), str)
            and node["data"]
        ):
            found.redacted.add(node["data"])
        if kind == "reasoning" and isinstance(node.get("id"), str) and node["id"]:
            found.reasoning_ids.add(node["id"])  # a Responses reasoning item
        if kind == "tool_use" and isinstance(node.get("id"), str) and node["id"]:
            found.call_ids.add(node["id"])  # an Anthropic client tool call
        if kind in ("function_call", "custom_tool_call"):
            call_id = node.get("call_id") or node.get("id")
            if isinstance(call_id, str) and call_id:
                found.call_ids.add(call_id)  # a Responses client call
        calls = node.get("tool_calls")  # Chat Completions deltas
        if isinstance(calls, list):
            for call in calls:
                if isinstance(call, dict) and isinstance(call.get("id"), str) and call["id"]:
                    found.call_ids.add(call["id"])
        function_call = node.get("functionCall")  # Gemini
        if isinstance(function_call, dict):
            call_id = function_call.get("id")
            if isinstance(call_id, str) and call_id:
                found.call_ids.add(call_id)
        stack.extend(node.values())
    return found


def message_values(message: ChatMessage) -> WireValues:
    """The same values, as the turn's message holds them."""
    found = WireValues()
    for block in message.blocks:
        signature = getattr(block, "signature", None)
        if signature:
            found.signatures.add(signature)
        if isinstance(block, blocks.Reasoning):
            if block.encrypted_content:
                found.encrypted.add(block.encrypted_content)
            if block.redacted:
                found.redacted.add(block.redacted)
            if block.item_id:
                found.reasoning_ids.add(block.item_id)
        elif isinstance(block, blocks.ToolCall):
            found.call_ids.add(block.id)
        elif isinstance(block, blocks.HostedTool | blocks.Raw):
            # The provider's blocks or items as received: whatever they carry is kept
            # (Anthropic's web search results each carry an encrypted_content, a Responses
            # compaction item its encrypted conversation).
            held = (
                [block.arguments, block.output, block.item]
                if isinstance(block, blocks.HostedTool)
                else block.value
            )
            kept = wire_values(json.dumps(held).encode())
            for name in ("signatures", "encrypted", "redacted", "reasoning_ids", "call_ids"):
                getattr(found, name).update(getattr(kept, name))
    return found


def missing(wire: WireValues, message: WireValues) -> dict[str, list[str]]:
    """What the wire had that the message lacks (a signature may be held as pieces of a
    longer one: Anthropic's split ``signature_delta``)."""
    out: dict[str, list[str]] = {}
    for name in ("signatures", "encrypted", "redacted", "reasoning_ids", "call_ids"):
        want: set[str] = getattr(wire, name)
        have: set[str] = getattr(message, name)
        if name == "signatures":
            lost = [w for w in want if not any(w in h for h in have)]
        else:
            lost = sorted(want - have)
        if lost:
            out[name] = sorted(v if len(v) < 40 else v[:37] + "..." for v in lost)
    return out


# -- the check ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Stream:
    name: str
    dialect: str
    body: bytes


def bundled_streams() -> list[Stream]:
    out = []
    for path in CASSETTES:
        cassette = load(path)
        assert cassette.info is not None
        for n, interaction in enumerate(cassette.interactions):
            response = interaction.response
            if 200 <= response.status < 300:
                name = f"{path.parent.name}/{path.stem}#{n}"
                out.append(Stream(name, cassette.info.dialect, response.content()))
    return out


def corpus_streams() -> list[Stream]:
    return [Stream(s.name, s.dialect, s.body) for s in recorded_streams() if s.dialect is not None]


BUNDLED = bundled_streams()
CORPUS = corpus_streams()


def the_message(stream: Stream, chunking: str, *, aggregate_only: bool) -> ChatMessage | None:
    chunks = chunk(stream.body, chunking)
    if aggregate_only:
        response = respond(chunks, stream.dialect)
    else:
        response = collect_agent_response(run(chunks, stream.dialect))
    assert len(response.turn_transcript) <= 1
    return response.turn_transcript[0] if response.turn_transcript else None


def check(stream: Stream) -> None:
    wire = wire_values(stream.body)
    messages = []
    for chunking in STANDARD_CHUNKINGS:
        for aggregate_only in (False, True):
            message = the_message(stream, chunking, aggregate_only=aggregate_only)
            if message is None:
                assert wire.empty(), f"{chunking}: no message, the stream had {wire}"
                continue
            lost = missing(wire, message_values(message))
            assert lost == {}, f"{chunking}, aggregate_only={aggregate_only}: lost {lost}"
            messages.append(to_canonical(message))
    assert all(m == messages[0] for m in messages), "the message depends on the chunking or path"


@pytest.mark.parametrize("stream", BUNDLED, ids=lambda s: s.name)
def test_the_turn_message_keeps_what_the_bundled_stream_had_under_every_chunking(
    stream: Stream,
) -> None:
    check(stream)


@pytest.mark.parametrize("stream", corpus.params(CORPUS), ids=lambda s: s.name)
def test_the_turn_message_keeps_what_the_recorded_stream_had_under_every_chunking(
    stream: Stream,
) -> None:
    check(stream)


def test_the_scan_finds_values_in_the_bundled_cassettes() -> None:
    # The check above cannot pass by finding nothing: the bundled streams carry each kind.
    every = WireValues()
    for stream in BUNDLED:
        found = wire_values(stream.body)
        for name in ("signatures", "encrypted", "redacted", "reasoning_ids", "call_ids"):
            getattr(every, name).update(getattr(found, name))
    assert len(every.signatures) >= 5
    assert every.encrypted
    assert every.redacted
    assert len(every.reasoning_ids) >= 3
    assert len(every.call_ids) >= 30


# -- the rules, one stream each ------------------------------------------------------------------


def sse(*events: dict[str, Any]) -> bytes:
    return b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events)


def message_of(body: bytes, dialect: str) -> ChatMessage:
    """The turn's message, the same through both paths and under every chunking."""
    stream = Stream("test", dialect, body)
    messages = {
        json.dumps(to_canonical(the_message(stream, chunking, aggregate_only=aggregate_only)))
        for chunking in STANDARD_CHUNKINGS
        for aggregate_only in (False, True)
    }
    assert len(messages) == 1, messages
    message = the_message(stream, "whole", aggregate_only=False)
    assert message is not None
    return message


def anthropic(*blocks_: list[dict[str, Any]], stop: str = "end_turn") -> bytes:
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {"id": "msg_1", "model": "claude", "usage": {}}}
    ]
    for index, (start, *deltas) in enumerate(blocks_):
        events.append({"type": "content_block_start", "index": index, "content_block": start})
        events.extend({"type": "content_block_delta", "index": index, "delta": d} for d in deltas)
        events.append({"type": "content_block_stop", "index": index})
    events.append({"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {}})
    events.append({"type": "message_stop"})
    return sse(*events)


def thinking(text: str, signature: str) -> list[dict[str, Any]]:
    block: list[dict[str, Any]] = [{"type": "thinking", "thinking": "", "signature": ""}]
    if text:
        block.append({"type": "thinking_delta", "thinking": text})
    block.append({"type": "signature_delta", "signature": signature})
    return block


def text(value: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": ""}, {"type": "text_delta", "text": value}]


def tool_use(call_id: str, name: str, arguments: str) -> list[dict[str, Any]]:
    return [
        {"type": "tool_use", "id": call_id, "name": name, "input": {}},
        {"type": "input_json_delta", "partial_json": arguments},
    ]


def test_anthropic_blocks_keep_their_order_signatures_and_redacted_data() -> None:
    body = anthropic(
        thinking("Let me think.", "SIG1"),
        [{"type": "redacted_thinking", "data": "REDACTED"}],
        text("Checking."),
        thinking("", "SIG2"),  # display: "omitted": a signed block without text
        tool_use("toolu_1", "get_weather", '{"city": "Paris"}'),
        stop="tool_use",
    )
    message = message_of(body, "anthropic_messages")
    assert message.blocks == (
        blocks.Reasoning(text="Let me think.", signature="SIG1"),
        blocks.Reasoning(redacted="REDACTED"),
        blocks.Text(text="Checking."),
        blocks.Reasoning(signature="SIG2"),
        blocks.ToolCall(id="toolu_1", name="get_weather", arguments={"city": "Paris"}),
    )
    assert message.content == "Checking."
    assert message.role == "assistant"
    assert [call.id for call in message.tool_calls or ()] == ["toolu_1"]


def test_two_signed_thinking_blocks_in_a_row_stay_two_blocks() -> None:
    body = anthropic(thinking("", "A"), thinking("", "B"), text("ok"))
    assert message_of(body, "anthropic_messages").blocks[:2] == (
        blocks.Reasoning(signature="A"),
        blocks.Reasoning(signature="B"),
    )


def test_a_server_tool_and_its_result_are_one_hosted_block_with_the_provider_blocks() -> None:
    body = anthropic(
        [
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}},
            {"type": "input_json_delta", "partial_json": '{"query": "q"}'},
        ],
        [
            {
                "type": "web_search_tool_result",
                "tool_use_id": "srvtoolu_1",
                "content": [{"type": "web_search_result", "url": "u", "encrypted_content": "E"}],
            }
        ],
        text("Found."),
    )
    hosted, answer = message_of(body, "anthropic_messages").blocks
    assert hosted == blocks.HostedTool(
        id="srvtoolu_1",
        name="web_search",
        arguments={"query": "q"},
        output=[{"type": "web_search_result", "url": "u", "encrypted_content": "E"}],
        item=[
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search"},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1"},
        ],
    )
    assert answer == blocks.Text(text="Found.")


def gemini(*chunks: list[dict[str, Any]]) -> bytes:
    return sse(
        *({"candidates": [{"content": {"role": "model", "parts": parts}}]} for parts in chunks),
        {"candidates": [{"content": {"parts": []}, "finishReason": "STOP"}]},
    )


def test_gemini_signatures_stay_on_the_part_they_came_with() -> None:
    body = gemini(
        [{"text": "Thinking", "thought": True}],
        [{"text": " more.", "thought": True, "thoughtSignature": "T"}],
        [
            {"functionCall": {"name": "f", "args": {"a": 1}}, "thoughtSignature": "C1"},
            {"functionCall": {"name": "f", "args": {"a": 2}}},
            {"functionCall": {"name": "g", "args": {}}, "thoughtSignature": "C3"},
        ],
    )
    message = message_of(body, "gemini")
    reasoning, *calls = message.blocks
    assert reasoning == blocks.Reasoning(text="Thinking more.", signature="T")
    assert [(c.name, c.arguments, c.signature) for c in calls] == [  # type: ignore[union-attr]
        ("f", {"a": 1}, "C1"),
        ("f", {"a": 2}, None),
        ("g", {}, "C3"),
    ]


def test_a_signed_gemini_text_part_ends_its_text_block_and_an_empty_one_is_its_own() -> None:
    body = gemini(
        [{"text": "Paris", "thoughtSignature": "S1"}],
        [{"text": " is the capital."}],
        [{"text": "", "thoughtSignature": "S2"}],
    )
    assert message_of(body, "gemini").blocks == (
        blocks.Text(text="Paris", signature="S1"),
        blocks.Text(text=" is the capital."),
        blocks.Text(text="", signature="S2"),
    )


def responses(*events: dict[str, Any]) -> bytes:
    created = {"type": "response.created", "response": {"id": "resp_1", "model": "gpt-5"}}
    completed = {"type": "response.completed", "response": {"id": "resp_1", "status": "completed"}}
    return sse(created, *events, completed)


def test_responses_reasoning_items_come_before_the_call_they_precede_with_their_ids() -> None:
    reasoning = {"type": "reasoning", "id": "rs_1", "summary": []}
    call = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "f",
        "arguments": "",
    }
    body = responses(
        {"type": "response.output_item.added", "output_index": 0, "item": reasoning},
        {
            "type": "response.reasoning_summary_text.delta",
            "item_id": "rs_1",
            "output_index": 0,
            "summary_index": 0,
            "delta": "Plan.",
        },
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {
                **reasoning,
                "summary": [{"type": "summary_text", "text": "Plan."}],
                "encrypted_content": "ENC",
            },
        },
        {"type": "response.output_item.added", "output_index": 1, "item": call},
        {
            "type": "response.function_call_arguments.delta",
            "item_id": "fc_1",
            "output_index": 1,
            "delta": "{}",
        },
        {
            "type": "response.output_item.done",
            "output_index": 1,
            "item": {**call, "arguments": "{}"},
        },
    )
    assert message_of(body, "openai_responses").blocks == (
        blocks.Reasoning(text="Plan.", encrypted_content="ENC", item_id="rs_1", summary=("Plan.",)),
        blocks.ToolCall(id="call_1", name="f", arguments={}, item_id="fc_1"),
    )


def chat(*deltas: dict[str, Any]) -> bytes:
    chunks = [
        {"id": "c1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": d}]}
        for d in deltas
    ]
    return sse(*chunks) + b"data: [DONE]\n\n"


def test_chat_reasoning_content_text_and_calls_in_order() -> None:
    body = chat(
        {"reasoning_content": "Hmm."},
        {"reasoning_content": " Ok."},
        {"content": "Let me look."},
        {"tool_calls": [{"index": 0, "id": "call_1", "function": {"name": "f", "arguments": ""}}]},
        {"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]},
        {},
    )
    assert message_of(body, "openai_chat").blocks == (
        blocks.Reasoning(text="Hmm. Ok."),
        blocks.Text(text="Let me look."),
        blocks.ToolCall(id="call_1", name="f", arguments={}),
    )


def test_reasoning_after_text_in_one_batch_of_chat_deltas_keeps_its_place() -> None:
    body = chat({"content": "A"}, {"reasoning_content": "B"}, {"content": "C"})
    assert message_of(body, "openai_chat").blocks == (
        blocks.Text(text="A"),
        blocks.Reasoning(text="B"),
        blocks.Text(text="C"),
    )


def test_a_stream_cut_mid_arguments_keeps_what_arrived_and_never_raises() -> None:
    body = chat(
        {"content": "Calling."},
        {"tool_calls": [{"index": 0, "id": "call_1", "function": {"name": "f", "arguments": "{"}}]},
        {"tool_calls": [{"index": 0, "function": {"arguments": '"a": '}}]},
    )
    message = message_of(body[: body.rindex(b"data: [DONE]")], "openai_chat")
    assert message.blocks == (
        blocks.Text(text="Calling."),
        blocks.ToolCall(id="call_1", name="f", arguments='{"a": '),
    )


def test_a_stream_with_nothing_in_it_has_no_message() -> None:
    response = respond([b""], "openai_chat")
    assert response.turn_transcript == ()
