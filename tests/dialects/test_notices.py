"""Notices and unrecognised formats (issue 21, items 13 and 14): harmless deviations of real
servers are notices that keep what arrived, not errors; a stream in a format raf does not
read ends with a typed error naming it, never as a clean empty answer (docs/dialects.md,
docs/deviations.md "Notices")."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from raf import formats
from raf.collect import collect_agent_response
from raf.conformance.levels import compare_response
from raf.dialects import sniff
from raf.dialects.unread import UNREAD_FORMATS, table
from raf.model import NOTICE_CODES, updates
from raf.model.canonical import to_canonical
from raf.model.codes import ErrorCode, is_notice
from raf.pipeline import UpdateDecoder, respond, run
from raf.shared.client_response import ClientError, ClientResponse
from tests.dialects.unread_bodies import BODIES, LEGACY_COMPLETIONS
from tests.helpers import feed_all, split

DOCS = Path(__file__).resolve().parents[2] / "docs"
EVENT_STREAM_BODY = yaml.safe_load(
    (DOCS.parent / "cassettes" / "bedrock_converse" / "plain_text.yaml").read_text(encoding="utf-8")
)["interactions"][0]["response"]["body"]["string"]


def sse(*events: dict[str, Any]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def updates_of(body: bytes, dialect: str) -> list[updates.AgentResponseUpdate]:
    """The updates, the same under every chunking."""
    runs = []
    for how in ("whole", "bytes", "random"):
        decoder = UpdateDecoder(dialect)
        runs.append(feed_all(decoder.feed, decoder.close, split(body, how)))
    assert runs[1] == runs[0]
    assert runs[2] == runs[0]
    return runs[0]


def codes(out: list[updates.AgentResponseUpdate]) -> list[str]:
    return [u.error_code for u in out if isinstance(u, updates.Error)]


# -- item 13: harmless deviations are notices ------------------------------------------------

CREATED = {"type": "response.created", "response": {"id": "resp_1", "model": "m"}}
COMPLETED = {
    "type": "response.completed",
    "response": {"id": "resp_1", "model": "m", "usage": {"input_tokens": 3, "output_tokens": 2}},
}


def rotating_text_stream() -> bytes:
    """A gateway that mints a new item id for every event of the message at output_index 0."""
    item = {"type": "message", "role": "assistant", "content": []}
    return sse(
        CREATED,
        {"type": "response.output_item.added", "output_index": 0, "item": {**item, "id": "m_a"}},
        {"type": "response.output_text.delta", "item_id": "m_b", "output_index": 0,
         "content_index": 0, "delta": "Hel"},
        {"type": "response.output_text.delta", "item_id": "m_c", "output_index": 0,
         "content_index": 0, "delta": "lo"},
        {"type": "response.output_text.done", "item_id": "m_d", "output_index": 0,
         "content_index": 0, "text": "Hello"},
        {"type": "response.output_item.done", "output_index": 0, "item": {**item, "id": "m_e"}},
        COMPLETED,
    )  # fmt: skip


def test_item_13_rotating_item_ids_are_one_notice_and_the_text_is_whole() -> None:
    out = updates_of(rotating_text_stream(), "openai_responses")
    assert codes(out) == ["protocol_notice"]  # once for the item, not per event
    response = respond([rotating_text_stream()], "openai_responses")
    assert response.text == "Hello"
    assert response.finish_reason == "stop"
    assert response.errors == ()
    assert [n.error_code for n in response.notices] == ["protocol_notice"]
    assert "output_index 0" in response.notices[0].message


def test_item_13_call_id_changed_at_done_is_a_notice_and_the_first_stands() -> None:
    call = {"type": "function_call", "id": "fc_1", "name": "f", "arguments": ""}
    body = sse(
        CREATED,
        {"type": "response.output_item.added", "output_index": 0,
         "item": {**call, "call_id": "call_a"}},
        {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 0,
         "delta": "{}"},
        {"type": "response.output_item.done", "output_index": 0,
         "item": {**call, "call_id": "call_b", "arguments": "{}"}},
        COMPLETED,
    )  # fmt: skip
    assert codes(updates_of(body, "openai_responses")) == ["protocol_notice"]
    response = respond([body], "openai_responses")
    assert [(c.id, c.name, c.arguments) for c in response.tool_calls] == [("call_a", "f", {})]
    assert response.errors == ()


def test_item_13_output_text_done_unlike_its_deltas_is_a_notice_and_the_deltas_win() -> None:
    item = {"type": "message", "id": "m_1", "role": "assistant", "content": []}
    body = sse(
        CREATED,
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.output_text.delta", "item_id": "m_1", "output_index": 0,
         "content_index": 0, "delta": "Hello"},
        {"type": "response.output_text.done", "item_id": "m_1", "output_index": 0,
         "content_index": 0, "text": "Hello world"},
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        COMPLETED,
    )  # fmt: skip
    response = respond([body], "openai_responses")
    assert response.text == "Hello"
    assert response.errors == ()
    assert [n.error_code for n in response.notices] == ["protocol_notice"]


def anthropic(*events: dict[str, Any]) -> bytes:
    return sse(*events)


START: dict[str, Any] = {
    "type": "message_start",
    "message": {"id": "msg_1", "model": "claude", "usage": {"input_tokens": 7, "output_tokens": 1}},
}


def test_item_13_message_start_repeated_with_the_same_id_is_a_repeat_not_a_new_message() -> None:
    # The repeat comes while a block is open: read as a new message, it would drop the block
    # and make the next delta one "for an index never started".
    body = anthropic(
        START,
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hel"}},
        START,
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "lo"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
         "usage": {"output_tokens": 2}},
        {"type": "message_stop"},
    )  # fmt: skip
    out = updates_of(body, "anthropic_messages")
    assert codes(out) == ["protocol_notice"]
    response = respond([body], "anthropic_messages")
    assert response.text == "Hello"
    assert response.finish_reason == "stop"
    assert response.usage is not None
    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (7, 2)
    assert response.errors == ()
    assert "same id 'msg_1'" in response.notices[0].message


def test_item_13_message_start_with_another_id_is_still_a_protocol_violation() -> None:
    other = {**START, "message": {**START["message"], "id": "msg_2"}}
    body = anthropic(START, other, {"type": "message_delta", "delta": {"stop_reason": "end_turn"}})
    assert codes(updates_of(body, "anthropic_messages")) == ["protocol_violation"]


def test_item_13_notices_are_kept_apart_from_errors_and_never_raise() -> None:
    response = collect_agent_response(
        run([rotating_text_stream()], "openai_responses"), raise_on_error=True
    )
    again = respond([rotating_text_stream()], "openai_responses", raise_on_error=True)
    assert to_canonical(again) == to_canonical(response)
    assert response.errors == ()
    assert len(response.notices) == 1
    canonical = to_canonical(response)
    assert canonical["errors"] == []
    assert [n["error_code"] for n in canonical["notices"]] == ["protocol_notice"]


def test_item_13_notice_codes_are_data_and_none_is_an_error() -> None:
    assert {"protocol_notice", "unrecognised_chunks"} == NOTICE_CODES
    assert all(is_notice(code) for code in NOTICE_CODES)
    assert not is_notice(ErrorCode.PROTOCOL_VIOLATION)
    assert not is_notice(ErrorCode.UNRECOGNISED_FORMAT)  # nothing was read: an error


def test_item_13_a_missing_or_extra_notice_is_a_detail_in_the_conformance_levels() -> None:
    expected = to_canonical(respond([rotating_text_stream()], "openai_responses"))
    silent = ClientResponse(text="Hello", finish_reason="stop")
    (missing,) = compare_response(expected, silent, capabilities={"error_codes"})
    assert (missing.where, missing.kind) == ("notices", "detail")
    told = ClientResponse(
        text="Hello",
        finish_reason="stop",
        errors=[ClientError(error_code="protocol_notice", message="ids rotate")],
    )
    assert compare_response(expected, told, capabilities={"error_codes"}) == []
    clean = {**expected, "notices": []}
    (extra,) = compare_response(clean, told, capabilities={"error_codes"})
    assert (extra.where, extra.kind) == ("notices", "detail")


def test_item_13_docs_deviations_lists_exactly_the_notice_codes() -> None:
    text = (DOCS / "deviations.md").read_text(encoding="utf-8")
    section = text[text.index("## Notices") :]
    section = section[: section.index("\n## ")]
    listed = set(re.findall(r"^\| `([a-z_]+)` \|", section, re.MULTILINE))
    assert listed == NOTICE_CODES


# -- item 14: formats raf does not read ------------------------------------------------------


@pytest.mark.parametrize("name", sorted(BODIES))
def test_item_14_a_stream_in_an_unread_format_ends_with_an_error_naming_it(name: str) -> None:
    body = BODIES[name]
    out = updates_of(body, "auto")
    assert codes(out) == ["unrecognised_format"], out
    (error,) = out
    assert f"({name})" in error.message  # type: ignore[union-attr]
    assert error.raw  # type: ignore[union-attr]  # the first chunk, quoted
    response = respond([body], "auto")
    assert (response.text, response.finish_reason, response.notices) == ("", None, ())
    # Named as any other dialect, nothing of it passes for an answer either.
    for dialect in formats.names():
        out = updates_of(body, dialect)
        assert out, dialect
        assert all(isinstance(u, updates.Error) for u in out), (dialect, out)
        framing = formats.get(dialect).framing
        if framing == "aws_eventstream":  # binary: a text body is no message at all
            assert codes(out) == ["stream_corrupt"], (dialect, out)
            assert "prelude CRC" in out[0].message  # type: ignore[union-attr]
        elif framing == "auto" or (b"data:" in body) == (framing == "sse"):  # frames it reads
            assert "unrecognised_format" in codes(out), (dialect, out)


def test_item_14_done_does_not_make_an_unread_stream_look_finished() -> None:
    # A legacy Completions stream has a finish_reason and [DONE]: read as Chat Completions
    # it used to be a clean, finished, empty answer.
    response = respond([LEGACY_COMPLETIONS], "openai_chat")
    assert response.finish_reason is None
    assert [e.error_code for e in response.errors] == ["unrecognised_format"]
    assert "choices[].{text" in response.errors[0].message


def test_item_14_a_stream_of_another_format_raf_reads_names_the_dialect_to_use() -> None:
    # Read with the wrong dialect, a legacy Completions stream says which one reads it, and
    # auto reads it with that one.
    (error,) = respond([LEGACY_COMPLETIONS], "openai_chat").errors
    assert "openai_completions, which raf reads: use --dialect openai_completions" in (
        error.message
    )
    assert sniff.sniff(LEGACY_COMPLETIONS) == "openai_completions"
    assert respond([LEGACY_COMPLETIONS], "auto").errors == ()


def test_item_14_unrecognised_chunks_inside_a_known_stream_are_counted_in_one_notice() -> None:
    chunk = {"id": "c1", "object": "chat.completion.chunk", "model": "m"}
    text = [{"index": 0, "delta": {"content": "Hi"}}]
    stop = [{"index": 0, "delta": {}, "finish_reason": "stop"}]
    foreign = {"type": "vendor.heartbeat", "seq": 1}
    body = (
        b"".join(
            b"data: " + json.dumps(p).encode() + b"\n\n"
            for p in (
                {**chunk, "choices": text},
                foreign,
                foreign,
                {**chunk, "choices": stop},
                foreign,
            )
        )
        + b"data: [DONE]\n\n"
    )
    out = updates_of(body, "openai_chat")
    assert codes(out) == ["unrecognised_chunks"]
    assert isinstance(out[-1], updates.Error)  # at the end
    assert out[-1].message.startswith("3 chunk(s)")
    assert out[-1].raw == json.dumps(foreign)
    response = respond([body], "openai_chat")
    assert (response.text, response.finish_reason, response.errors) == ("Hi", "stop", ())
    assert [n.error_code for n in response.notices] == ["unrecognised_chunks"]


def test_item_14_auto_names_the_formats_it_recognises_but_does_not_read() -> None:
    assert {f.name for f in UNREAD_FORMATS} == set(BODIES)
    for name, body in BODIES.items():
        found = sniff.unread(body)
        assert found is not None
        assert found.name == name
    assert sniff.unread(b'data: {"choices":[{"delta":{"content":"x"}}]}\n\n') is None


def test_item_14_docs_dialects_has_the_table_of_unread_formats() -> None:
    assert table() in (DOCS / "dialects.md").read_text(encoding="utf-8")


def test_item_14_bedrock_events_names_only_what_raf_does_not_read() -> None:
    # InvokeModelWithResponseStream's chunks (as text) are not read...
    invoke = b'{"chunk":{"bytes":"eyJ0eXBlIjoibWVzc2FnZV9zdGFydCJ9"}}\n'
    found = sniff.unread(invoke)
    assert found is not None
    assert found.name == "bedrock_events"
    # ...while ConverseStream's binary event stream is bedrock_converse's, read in full.
    body = EVENT_STREAM_BODY
    assert sniff.unread(body) is None
    assert sniff.sniff(body) == "bedrock_converse"
    response = respond([body], "auto")
    assert response.text.startswith("The capital of France is Paris.")
    assert (response.finish_reason, response.errors) == ("stop", ())
