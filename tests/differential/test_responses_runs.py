"""The Responses dialect reads runs of events straight from bytes, by a typed decoder of its
usual delta events (docs/dialects.md, "Runs and batches"). On generated Responses streams,
compact and spaced, named (``event:`` lines) or data-only, with events damaged the ways that
must send them to the shared path (a sequence number that does not increase, an item never
added, a field of the wrong type or unknown, an event name that is not the type, invalid
UTF-8...), under any chunking: the updates of the runs must be exactly those of the events
fed one by one through the shared path, batches must stand for them, and respond() must give
what collecting run() gives."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from raf.collect import collect_agent_response
from raf.formats.openai_responses.dialect import OpenAIResponsesDialect
from raf.formats.openai_responses.strategies import streams
from raf.framing.sse import DataRun, SSEDecoder
from raf.model.updates import DeltaBatch
from raf.pipeline import respond, run
from tests.helpers import in_batch_order

T0 = datetime(2026, 1, 1, tzinfo=UTC)
COMPACT = (",", ":")
SPACED = (", ", ": ")


def _clock() -> datetime:
    return T0


class _SharedOnly(OpenAIResponsesDialect):
    """The dialect with its ``usual`` fast path switched off (in a subclass: a compiled
    dialect's attributes cannot be set from outside)."""

    usual = None  # type: ignore[assignment]


def _one_by_one(chunks: list[bytes]) -> list[Any]:
    """Every event fed alone, through the shared path only (no fast path at all)."""
    decoder, dialect = SSEDecoder(), _SharedOnly()
    out: list[Any] = []
    for chunk in chunks:
        out.extend(dialect.feed_events(decoder.feed(chunk)))
    return out + dialect.close()


def _by_runs(chunks: list[bytes], batch: bool) -> tuple[list[Any], OpenAIResponsesDialect]:
    decoder, dialect = SSEDecoder(), OpenAIResponsesDialect()
    out: list[Any] = []
    for chunk in chunks:
        out.extend(dialect.feed_frames(decoder.feed_runs(chunk), batch=batch))
    return out + dialect.close(), dialect


def _expanded(out: list[Any]) -> list[Any]:
    return [u for x in out for u in (x.updates() if isinstance(x, DeltaBatch) else [x])]


def _damaged(event: dict[str, Any], how: int) -> tuple[str, dict[str, Any] | bytes]:
    """``event`` changed in a way the shared path reports or reads differently (its name, and
    the event or its raw data)."""
    kind = event.get("type", "")
    if how == 0:
        return kind, {**event, "sequence_number": 0}  # does not increase
    if how == 1:
        return kind, {**event, "item_id": "item_never_added"}
    if how == 2:
        return kind, {**event, "delta": 7}
    if how == 3:
        return kind, {**event, "extra": [1]}  # a field no fast path knows
    if how == 4:
        return kind, {**event, "output_index": "one"}
    if how == 5:
        return "error", event  # an error event whose data is a delta
    if how == 6:
        return "response.output_item.done", event  # named otherwise than its type
    if how == 7:
        return kind, {**event, "logprobs": [[[[1]]]]}
    if how == 8:
        return kind, {**event, "type": "response.custom_tool_call_input.delta"}
    if how == 9:
        return kind, {**event, "item_id": ""}
    if how == 10:
        data = json.dumps(event, separators=COMPACT).encode()
        return kind, data.replace(b'"delta":"', b'"delta":"\xff', 1)  # invalid UTF-8
    return kind, {**event, "sequence_number": True}


@st.composite
def bodies(draw: st.DrawFn) -> list[bytes]:
    """A generated Responses stream, re-serialised (compact or spaced; named or data-only),
    a few of its events damaged, cut into reads of one drawn size."""
    stream = draw(streams(max_tool_calls=3))
    separators = draw(st.sampled_from([COMPACT, SPACED]))
    named = draw(st.booleans())
    ascii_only = draw(st.booleans())
    blocks: list[bytes] = []
    for payload in stream.payloads:
        if payload == "[DONE]":
            blocks.append(b"data: [DONE]\n\n")
            continue
        event = json.loads(payload)
        name, data = event.get("type", "message"), event
        if event.get("type", "").endswith(".delta") and draw(st.integers(0, 9)) == 0:
            name, data = _damaged(event, draw(st.integers(0, 11)))
        if isinstance(data, dict):
            data = json.dumps(data, separators=separators, ensure_ascii=ascii_only).encode()
        head = b"event: " + name.encode() + b"\n" if named or name == "error" else b""
        blocks.append(head + b"data: " + data + b"\n\n")
    body = b"".join(blocks)
    size = draw(st.sampled_from([1, 7, 64, 300, 4096, len(body) or 1]))
    return [body[i : i + size] for i in range(0, len(body), size)]


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bodies())
def test_runs_map_to_what_the_events_map_to_one_by_one(chunks: list[bytes]) -> None:
    shared = _one_by_one(chunks)
    assert _by_runs(chunks, batch=False)[0] == shared
    # Batches stand for the updates of their events, in their order: every update but the
    # argument fragments in the order they came (texts and reasoning included), and the
    # fragments in the order they came; only where the fragments stand among the texts inside
    # one batch may differ (the aggregate is the same).
    in_batch_order(_expanded(_by_runs(chunks, batch=True)[0]), shared)
    assert respond(chunks, "openai_responses", clock=_clock) == collect_agent_response(
        run(chunks, "openai_responses", clock=_clock)
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams(max_tool_calls=3))
def test_generated_streams_as_framed_read_the_same_by_runs(stream: Any) -> None:
    """The strategies' own framing (comments, id lines, multi-line data, CR line ends)."""
    chunks = list(stream.chunks)
    assert _by_runs(chunks, batch=False)[0] == _one_by_one(chunks)
    assert respond(chunks, "openai_responses", clock=_clock) == collect_agent_response(
        run(chunks, "openai_responses", clock=_clock)
    )


def _usual_stream(separators: tuple[str, str]) -> bytes:
    """Reasoning, text, then two calls whose argument fragments interleave, as OpenAI sends
    them (``obfuscation`` padding, ``sequence_number`` on every event), serialised with
    ``separators``."""
    seq = iter(range(10**6))
    events: list[dict[str, Any]] = []

    def ev(kind: str, **fields: Any) -> None:
        events.append({"type": kind, "sequence_number": next(seq), **fields})

    response = {"id": "resp_1", "object": "response", "model": "gpt-5", "status": "in_progress"}
    ev("response.created", response=response)
    ev("response.output_item.added", output_index=0, item={"type": "reasoning", "id": "rs_1"})
    for n in range(50):
        ev("response.reasoning_summary_text.delta", item_id="rs_1", output_index=0,
           summary_index=0, delta=f"think {n} ", obfuscation="Zk3q")  # fmt: skip
    ev("response.output_item.done", output_index=0, item={"type": "reasoning", "id": "rs_1"})
    message = {"type": "message", "id": "msg_1", "role": "assistant", "content": []}
    ev("response.output_item.added", output_index=1, item=message)
    for n in range(200):
        ev("response.output_text.delta", item_id="msg_1", output_index=1, content_index=0,
           delta=f"word {n}, ", logprobs=[], obfuscation="a1B2c3")  # fmt: skip
    ev("response.output_item.done", output_index=1, item=message)
    text = json.dumps({"path": "/tmp/a b", "body": 'say "hi"\n' * 20})
    pieces = [text[i : i + 5] for i in range(0, len(text), 5)]
    for n in (2, 3):
        item = {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}", "name": "f",
                "arguments": ""}  # fmt: skip
        ev("response.output_item.added", output_index=n, item=item)
    for piece in pieces:
        for n in (2, 3):
            ev("response.function_call_arguments.delta", item_id=f"fc_{n}", output_index=n,
               delta=piece, obfuscation="q")  # fmt: skip
    for n in (2, 3):
        ev("response.function_call_arguments.done", item_id=f"fc_{n}", output_index=n,
           arguments=text)  # fmt: skip
        item = {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}", "name": "f",
                "arguments": text, "status": "completed"}  # fmt: skip
        ev("response.output_item.done", output_index=n, item=item)
    ev("response.completed", response={**response, "status": "completed"})
    return "".join(
        f"event: {e['type']}\ndata: {json.dumps(e, separators=separators)}\n\n" for e in events
    ).encode()


def test_a_usual_stream_reads_its_deltas_by_the_fast_path_compact_and_spaced() -> None:
    responses = {}
    for name, separators in (("compact", COMPACT), ("spaced", SPACED)):
        body = _usual_stream(separators)
        reads = [body[i : i + 4096] for i in range(0, len(body), 4096)]
        assert any(isinstance(f, DataRun) for f in SSEDecoder().feed_runs(reads[0]))
        deltas = body.count(b".delta\n")
        events = body.count(b"\ndata: ")
        for batch in (False, True):
            out, dialect = _by_runs(reads, batch)
            counts = dialect.fast_path_counts()
            # Every delta but none of the other events, whatever the reads.
            assert counts["typed"] == deltas, (name, batch, counts)
            assert counts["full"] == events - deltas, (name, batch, counts)
            if batch:
                # (An event cut by a read comes alone, outside a run, and is not batched.)
                assert counts["batched"] >= deltas - len(reads), (name, counts)
                assert sum(isinstance(u, DeltaBatch) for u in out) < 20
        dialect = OpenAIResponsesDialect()
        responses[name] = respond(reads, dialect, clock=_clock)
        assert dialect.fast_path_counts()["typed"] == deltas
        assert respond(reads, "openai_responses", clock=_clock) == collect_agent_response(
            run(reads, "openai_responses", clock=_clock)
        )
    assert responses["compact"] == responses["spaced"]
    response = responses["compact"]
    assert response.text == "".join(f"word {n}, " for n in range(200))
    assert response.reasoning_text == "".join(f"think {n} " for n in range(50))
    assert [c.id for c in response.tool_calls] == ["call_2", "call_3"]
    assert all(c.arguments["body"] == 'say "hi"\n' * 20 for c in response.tool_calls)
    assert not response.errors
