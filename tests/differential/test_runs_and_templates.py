"""The Chat Completions dialect reads runs of chunks straight from bytes and through templates
(docs/dialects.md, "Runs and batches"). On streams made to trip that up (chunks that repeat an
earlier one but for a string, with the string's neighbours changed, its key escaped or spaced,
invalid UTF-8 or a raw control character in it, the id or model changed, a second call's
fragment, an end marker), the updates of a run must be exactly those of its events one by one
(which take no template), and respond() must give what collecting run() gives."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from raf.collect import collect_agent_response
from raf.formats.openai_chat.dialect import OpenAIChatDialect
from raf.framing.sse import DataRun, SSEDecoder
from raf.model import updates
from raf.pipeline import respond, run
from tests.helpers import in_batch_order

SEP = (",", ":")
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _clock() -> datetime:
    return T0


def _chunk(delta: dict[str, Any], **top: Any) -> bytes:
    body = {"id": "r1", "model": "m", **top, "choices": [{"index": 0, "delta": delta}]}
    return json.dumps(body, separators=SEP, ensure_ascii=False).encode()


strings = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=6)


@st.composite
def payloads(draw: st.DrawFn) -> bytes:
    """One chunk: mostly a text or argument fragment like the others, sometimes not."""
    kind = draw(st.integers(0, 12))
    text = draw(strings)
    index = draw(st.sampled_from([0, 0, 0, 1]))
    if kind <= 5:
        fragment = {"tool_calls": [{"index": index, "function": {"arguments": text}}]}
        return _chunk(fragment)
    if kind <= 8:
        return _chunk({"content": text})
    usual = _chunk({"content": "x"})
    mutations = [
        usual.replace(b'"content":"x"', b'"content" : "x"'),
        usual.replace(b'"content":"x"', b'"cont\\u0065nt":"x"'),
        usual.replace(b'"x"', b'"\xff"'),
        usual.replace(b'"x"', b'"a\tb"'),
        usual.replace(b'"x"', b'"x","content":"y"'),
        usual.replace(b'"x"', b"7"),
        usual.replace(b'"m"', b'"m2"'),
        usual.replace(b'"r1"', b'"r2"'),
        usual.replace(b'"x"}', b'"x","reasoning_content":"t"}'),
        usual.replace(b"}}]}", b'}, "finish_reason":"stop"}]}'),
        _chunk({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "f"}}]}),
        _chunk({"tool_calls": [{"index": 1, "id": "c2", "function": {"name": "g"}}]}),
        _chunk({"content": "x"}, usage={"prompt_tokens": 1}),
        b"[DONE]",
        b"",
        b"{",
    ]
    return draw(st.sampled_from(mutations))


@st.composite
def bodies(draw: st.DrawFn) -> tuple[list[bytes], list[bytes]]:
    items = draw(st.lists(payloads(), min_size=1, max_size=30))
    body = b"".join(b"data: " + p + b"\n\n" for p in items)
    size = draw(st.sampled_from([7, 64, 300, 4096, len(body)]))
    return items, [body[i : i + size] for i in range(0, len(body), size)]


def _by_events(chunks: list[bytes]) -> list[Any]:
    decoder, dialect = SSEDecoder(), OpenAIChatDialect()
    out: list[Any] = []
    for chunk in chunks:
        out.extend(dialect.feed_events(decoder.feed(chunk)))
    return out


def _by_runs(chunks: list[bytes], batch: bool) -> list[Any]:
    decoder, dialect = SSEDecoder(), OpenAIChatDialect()
    out: list[Any] = []
    for chunk in chunks:
        out.extend(dialect.feed_frames(decoder.feed_runs(chunk), batch=batch))
    out.extend(dialect.flush())  # a batch may be left open for the next run
    return out


@settings(max_examples=300, deadline=None)
@given(bodies())
def test_a_run_maps_to_what_its_events_map_to_one_by_one(body: Any) -> None:
    _, chunks = body
    assert _by_runs(chunks, batch=False) == _by_events(chunks)


@settings(max_examples=300, deadline=None)
@given(bodies())
def test_batches_stand_for_the_updates_of_their_events(body: Any) -> None:
    """Expanding every batch gives the updates of the events in their order: the texts in the
    order they came, and the fragments in the order they came; only where the fragments stand
    among the texts inside one batch may differ. The aggregate is the same."""
    _, chunks = body
    expanded = [
        u
        for item in _by_runs(chunks, batch=True)
        for u in (item.updates() if isinstance(item, updates.DeltaBatch) else [item])
    ]
    events = _by_events(chunks)
    in_batch_order(expanded, events)
    assert respond(chunks, clock=_clock) == collect_agent_response(run(chunks, clock=_clock))


def test_the_runs_are_taken_and_read_through_templates() -> None:
    """The streams above reach the run path, and the templates: a chunk that repeats the
    previous one but for its text is read without decoding the chunk."""
    body = b"".join(b"data: " + _chunk({"content": str(i)}) + b"\n\n" for i in range(20))
    frames = SSEDecoder().feed_runs(body)
    assert [type(f) for f in frames] == [DataRun]
    dialect = OpenAIChatDialect()
    got = dialect.feed_frames(frames, batch=True)
    assert len(dialect._templates) == 1
    assert [type(u).__name__ for u in got] == ["ResponseMetadata", "TextDelta"]
    got += dialect.flush()  # the batch is left open for the next run until asked for
    assert dialect.flush() == []
    # The first chunk sets the metadata, so it is mapped as usual; the others are a batch.
    assert [type(u).__name__ for u in got] == ["ResponseMetadata", "TextDelta", "DeltaBatch"]
    assert got[2].text == [str(i) for i in range(1, 20)]  # type: ignore[union-attr]


def _stream(separators: tuple[str, str]) -> bytes:
    """Text deltas, then two calls' fragments interleaved, serialised with ``separators``."""
    base = {"id": "chatcmpl-9", "object": "chat.completion.chunk", "model": "m"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        body = {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        return "data: " + json.dumps(body, separators=separators) + "\n\n"

    parts = [chunk({"role": "assistant", "content": ""})]
    parts += [chunk({"content": f"word {n}, "}) for n in range(200)]
    for index in (0, 1):
        call = {"index": index, "id": f"call_{index}", "type": "function"}
        parts.append(chunk({"tool_calls": [{**call, "function": {"name": "f", "arguments": ""}}]}))
    text = json.dumps({"path": "/tmp/a b", "body": 'say "hi"\n' * 20})
    pieces = [text[i : i + 5] for i in range(0, len(text), 5)]
    for piece in pieces:
        for index in (0, 1):
            fragment = {"index": index, "function": {"arguments": piece}}
            parts.append(chunk({"tool_calls": [fragment]}))
    parts.append(chunk({}, "tool_calls"))
    return ("".join(parts) + "data: [DONE]\n\n").encode()


def test_spaced_and_compact_json_read_the_same_and_both_through_templates() -> None:
    """Servers that serialise with a space after the colon (Python's json default) get the
    same results as compact ones, and their chunks are read through templates too."""
    counts = {}
    responses = {}
    for name, separators in (("compact", SEP), ("spaced", (", ", ": "))):
        body = _stream(separators)
        reads = [body[i : i + 4096] for i in range(0, len(body), 4096)]
        dialect = OpenAIChatDialect()
        responses[name] = respond(reads, dialect, clock=_clock)
        assert [type(r).__name__ for r in run(reads, "openai_chat", clock=_clock)] == [
            type(r).__name__ for r in run([body], "openai_chat", clock=_clock)
        ]
        counts[name] = dialect.fast_path_counts()
    assert responses["compact"] == responses["spaced"]
    assert len(responses["spaced"].tool_calls) == 2
    payloads = _stream(SEP).count(b"data: ") - 1  # [DONE] is no chunk
    for name, count in counts.items():
        # Every text and argument chunk but the first few of each kind is read through a
        # template (a run's first chunk of a kind is decoded in full and leaves one).
        assert count["template"] >= payloads - 12, (name, count, payloads)
        assert count.get("full", 0) == 0, (name, count)
