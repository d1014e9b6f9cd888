"""The Gemini dialect reads its usual chunk typed (docs/dialects.md, section ``gemini``): as
events (JSON array, JSON lines, SSE events outside a run) and straight from bytes in SSE runs,
through templates where a chunk repeats the last text chunk but for its text, and with
``batch`` its text and thoughts gathered into batches. On generated streams (every profile,
compact and spaced JSON, any network reads) and on streams made to trip the fast paths up
(chunks that repeat a usual one but for a field changed, a type wrong, a key escaped or
spaced, invalid UTF-8, usage on every chunk, a finish, an error, a blocked prompt, a hosted
part, a streamed call, another candidate, deep nesting), the updates must be exactly those of
the shared path fed the events one by one, and respond() must give what collecting run()
gives."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from raf import framing
from raf.collect import collect_agent_response
from raf.dialects.base import JSONEventDialect
from raf.formats.gemini import strategies
from raf.formats.gemini.dialect import _USAGE_FIELDS, USAGE, GeminiDialect
from raf.formats.ollama_chat import strategies as ollama_strategies
from raf.formats.ollama_chat.dialect import OllamaChatDialect
from raf.framing.sse import DataRun
from raf.model import updates
from raf.pipeline import respond, run

COMPACT = (",", ":")
SPACED = (", ", ": ")
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _clock() -> datetime:
    return T0


class _Shared(GeminiDialect):
    """The dialect without its fast paths: every frame decoded in full by the shared path."""

    usual = None  # type: ignore[assignment]


class _SharedOllama(OllamaChatDialect):
    usual = None  # type: ignore[assignment]


_SHARED: dict[type[JSONEventDialect], type[JSONEventDialect]] = {
    GeminiDialect: _Shared,
    OllamaChatDialect: _SharedOllama,
}


def _by_events(
    chunks: list[bytes], depth: int | None = None, cls: type[JSONEventDialect] = GeminiDialect
) -> list[Any]:
    """The reference: each frame mapped on its own by the shared path."""
    limits = {} if depth is None else {"max_json_depth": depth}
    body, dialect = framing.create("auto"), _SHARED[cls](**limits)
    out: list[Any] = []
    for chunk in chunks:
        out.extend(dialect.feed_events(body.feed(chunk)))
    close = body.close()
    out.extend(dialect.feed_events(close))
    return out + dialect.close(truncated=body.truncated)


def _by_runs(
    chunks: list[bytes],
    batch: bool,
    depth: int | None = None,
    cls: type[JSONEventDialect] = GeminiDialect,
) -> tuple[list[Any], Any]:
    limits = {} if depth is None else {"max_json_depth": depth}
    body, dialect = framing.create("auto"), cls(**limits)
    out: list[Any] = []
    for chunk in chunks:
        out.extend(dialect.feed_frames(body.feed_runs(chunk), batch=batch))  # type: ignore[attr-defined]
    out.extend(dialect.feed_frames(body.close(), batch=batch))
    out += dialect.close(truncated=body.truncated)
    return out, dialect


def _expanded(items: list[Any]) -> list[Any]:
    return [
        u
        for item in items
        for u in (item.updates() if isinstance(item, updates.DeltaBatch) else [item])
    ]


def _check(
    chunks: list[bytes], depth: int | None = None, cls: type[JSONEventDialect] = GeminiDialect
) -> None:
    """Runs, runs with batches (expanded) and the shared path give the same updates, in the
    same order; respond() is collect(run())."""
    reference = _by_events(chunks, depth, cls)
    streamed, _ = _by_runs(chunks, batch=False, depth=depth, cls=cls)
    assert streamed == reference
    batched, _ = _by_runs(chunks, batch=True, depth=depth, cls=cls)
    # A batch holds text after reasoning only (thoughts after text start a new batch), so
    # expanding it gives the updates in their own order.
    assert _expanded(batched) == reference
    if depth is None:
        assert respond(chunks, cls.name, clock=_clock) == collect_agent_response(
            run(chunks, cls.name, clock=_clock)
        )


def _respaced(stream: Any, separators: tuple[str, str], size: int) -> list[bytes]:
    """A generated stream's body with its SSE payloads serialised with ``separators`` (a JSON
    array body is kept as it is: pretty-printed), read ``size`` bytes at a time."""
    body: bytes = stream.body
    if not body.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"["):
        for payload in stream.payloads:
            again = json.dumps(json.loads(payload), separators=separators, ensure_ascii=False)
            body = body.replace(payload.encode(), again.encode())
    return [body[i : i + size] for i in range(0, len(body), size)] or [b""]


@settings(max_examples=200, deadline=None)
@given(
    strategies.streams(),
    st.sampled_from([COMPACT, SPACED]),
    st.sampled_from([1, 7, 64, 300, 4096, 1 << 20]),
)
def test_generated_streams_read_the_same_through_the_fast_paths(
    stream: Any, separators: tuple[str, str], size: int
) -> None:
    _check(_respaced(stream, separators, size))


def _chunk(
    parts: list[dict[str, Any]], separators: tuple[str, str] = COMPACT, **extra: Any
) -> bytes:
    candidate = {"content": {"role": "model", "parts": parts}, "index": 0}
    body = {"candidates": [candidate], "modelVersion": "m", "responseId": "r1", **extra}
    return json.dumps(body, separators=separators, ensure_ascii=False).encode()


_strings = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=6)
_USAGE = {"promptTokenCount": 3, "candidatesTokenCount": 1, "totalTokenCount": 4}


@st.composite
def _payloads(draw: st.DrawFn) -> bytes:
    """One chunk: mostly a text or thought chunk like the others, sometimes not."""
    kind = draw(st.integers(0, 14))
    text = draw(_strings)
    separators = draw(st.sampled_from([COMPACT, COMPACT, SPACED]))
    if kind <= 5:
        return _chunk([{"text": text}], separators)
    if kind <= 7:
        return _chunk([{"text": text, "thought": True}], separators)
    if kind <= 9:
        counts = {**_USAGE, "candidatesTokenCount": draw(st.integers(-1, 9))}
        return _chunk([{"text": text}], separators, usageMetadata=counts)
    usual = _chunk([{"text": "x"}])
    mutations = [
        usual.replace(b'"text":"x"', b'"text" : "x"'),
        usual.replace(b'"text":"x"', b'"t\\u0065xt":"x"'),
        usual.replace(b'"x"', b'"\xff"'),
        usual.replace(b'"x"', b'"a\tb"'),
        usual.replace(b'"x"', b'"x","text":"y"'),
        usual.replace(b'"x"', b"7"),
        usual.replace(b'"x"', b'"x","thought":true'),
        usual.replace(b'"x"', b'"x","thought":"yes"'),
        usual.replace(b'"x"', b'"x","thoughtSignature":"sig"'),
        usual.replace(b'"x"', b'"x","thought":true,"thoughtSignature":"sig"'),
        usual.replace(b'"x"', b'"x","executableCode":null'),
        usual.replace(b'"x"', b'"x","executableCode":{"code":"print(1)"}'),
        usual.replace(b'"x"', b'"x","inlineData":{"data":"AAAA"}'),
        usual.replace(b'"m"', b'"m2"'),
        usual.replace(b'"r1"', b'"r2"'),
        usual.replace(b'"r1"', b'""'),
        usual.replace(b'"r1"', b"7"),
        usual.replace(b'"index":0', b'"index":1'),
        usual.replace(b'"index":0', b'"index":true'),
        usual.replace(b'"index":0', b'"index":0,"finishReason":"STOP"'),
        usual.replace(b'"index":0', b'"index":0,"finishReason":"MAX_TOKENS"'),
        usual.replace(b'"index":0', b'"index":0,"finishReason":""'),
        usual.replace(b'"index":0', b'"index":0,"groundingMetadata":{}'),
        usual.replace(b'"parts":', b'"parts":null,"x":'),
        usual.replace(b'"role"', b'"parts":[],"role"'),
        usual.replace(b"[{", b'[{"index":2},{', 1),
        usual.replace(b"}]}", b'},{"index":1,"content":{"parts":[{"text":"z"}]}}]}'),
        _chunk([{"text": "x"}], usageMetadata={"promptTokenCount": "3"}),
        _chunk([{"text": "x"}], usageMetadata={"promptTokenCount": True}),
        _chunk([{"text": "x"}], usageMetadata={"thoughtsTokenCount": 5, "x": [1]}),
        _chunk([{"text": "x"}], usageMetadata=[1]),
        _chunk([{"text": "x"}], error={"message": "overloaded", "code": 503}),
        _chunk([{"text": "x"}], error=None),
        _chunk([], promptFeedback={"blockReason": "SAFETY"}),
        _chunk([{"functionCall": {"name": "f", "args": {"a": [1, 2.5, "é"], "b": None}}}]),
        _chunk([{"functionCall": {"name": "f", "args": {"a": 1e308}}, "thoughtSignature": "s"}]),
        _chunk([{"functionCall": {"name": "f", "args": '{"a": 1}', "id": "c1"}}]),
        _chunk([{"functionCall": {"name": "f"}}, {"text": "after"}]),
        _chunk([{"functionCall": {"name": "", "args": {"a": 1}}}]),
        _chunk([{"functionCall": {"args": {"a": 1}}}]),
        _chunk([{"functionCall": {"name": "g", "willContinue": True}}]),
        _chunk([{"functionCall": {"partialArgs": [{"jsonPath": "$.a", "numberValue": 1}]}}]),
        _chunk([{"functionCall": {"willContinue": False}}]),
        usual.replace(b'"x"', b'"x","functionCall":{"name":"f","args":{"a":1e400}}'),
        usual.replace(b'"x"', b'"x","functionCall":{"name":"f","args":{"a":"\\ud800"}}'),
        _chunk([{"text": "x"}], deep=json.loads("[" * 70 + "]" * 70)),
        b'{"candidates":[]}',
        b'{"candidates":null,"modelVersion":"m"}',
        b'{"usageMetadata":{"promptTokenCount":4}}',
        b'{"choices":[]}',
        b"[1]",
        b"",
        b"{",
    ]
    return draw(st.sampled_from(mutations))


@st.composite
def _bodies(draw: st.DrawFn) -> list[bytes]:
    items = draw(st.lists(_payloads(), min_size=1, max_size=30))
    body = b"".join(b"data: " + p + b"\n\n" for p in items)
    size = draw(st.sampled_from([7, 64, 300, 4096, len(body)]))
    return [body[i : i + size] for i in range(0, len(body), size)]


@settings(max_examples=400, deadline=None)
@given(_bodies())
def test_runs_read_what_the_shared_path_reads_event_by_event(chunks: list[bytes]) -> None:
    _check(chunks)


@settings(max_examples=100, deadline=None)
@given(_bodies())
def test_the_depth_limit_is_kept_on_the_fast_paths(chunks: list[bytes]) -> None:
    """With a low ``max_json_depth`` most chunks are long enough to be counted; the deep one
    of the mutations is ``json_too_deep`` on every path."""
    _check(chunks, depth=5)


def test_json_array_and_json_lines_bodies_read_the_same_through_the_typed_path() -> None:
    objects = [json.loads(_chunk([{"text": f"w{n} "}])) for n in range(30)]
    objects[-1]["candidates"][0]["finishReason"] = "STOP"
    array = ("[" + ",\r\n".join(json.dumps(o, indent=2) for o in objects) + "]").encode()
    lines = b"".join(json.dumps(o).encode() + b"\n" for o in objects)
    for body in (array, lines):
        reads = [body[i : i + 100] for i in range(0, len(body), 100)]
        _check(reads)
        _, dialect = _by_runs(reads, batch=True)
        counts = dialect.fast_path_counts()
        assert counts.get("typed") == 30, counts
        assert not counts.get("full"), counts


def _text_stream(separators: tuple[str, str], usage: bool) -> bytes:
    """A usual text stream: thoughts, then text, then a finish with usage; with ``usage``,
    each chunk carries its growing counts (as Gemini sends them)."""
    out = []
    for n in range(300):
        part: dict[str, Any] = {"text": f"word {n}, "}
        if n < 40:
            part["thought"] = True
        extra: dict[str, Any] = {}
        if usage:
            extra["usageMetadata"] = {**_USAGE, "candidatesTokenCount": n}
        out.append(_chunk([part], separators, **extra))
    last = _chunk([{"text": "end"}], separators, usageMetadata=_USAGE)
    out.append(last.replace(b'"index"', b'"finishReason":"STOP","index"'))
    return b"".join(b"data: " + p + b"\r\n\r\n" for p in out)


def test_a_usual_text_stream_takes_the_fast_paths_compact_and_spaced() -> None:
    """No chunk of a usual text stream is decoded in full; without usage on every chunk,
    nearly all are read through a template."""
    responses = []
    for separators in (COMPACT, SPACED):
        for usage in (False, True):
            body = _text_stream(separators, usage)
            reads = [body[i : i + 4096] for i in range(0, len(body), 4096)]
            _check(reads)
            for batch in (False, True):
                _, dialect = _by_runs(reads, batch=batch)
                counts = dialect.fast_path_counts()
                assert not counts.get("full"), counts
                assert counts.get("template", 0) + counts["typed"] == 301, counts
                if not usage:
                    # The first read comes as events (the framing is chosen on it), decoded
                    # typed; after it, each run's chunks are read through a template.
                    assert counts["template"] >= 301 - 30, (separators, counts)
                if batch:
                    assert counts["batched"] >= 301 - 30, counts
            response = respond(reads, "gemini", clock=_clock)
            assert response.text.startswith("word 40, word 41")
            assert response.usage is not None
            assert response.usage.total_tokens == 4
            responses.append(response)
    assert all(r == responses[0] for r in responses)


def test_a_run_is_taken_and_its_batch_left_open_until_flushed() -> None:
    body = b"".join(b"data: " + _chunk([{"text": str(i)}]) + b"\n\n" for i in range(20))
    frames = framing.create("sse").feed_runs(body)  # type: ignore[attr-defined]
    assert [type(f) for f in frames] == [DataRun]
    dialect = GeminiDialect()
    got = dialect.feed_frames(frames, batch=True)
    # The first chunk sets the metadata, so it is mapped as usual; the others are a batch.
    assert [type(u).__name__ for u in got] == ["ResponseMetadata", "TextDelta"]
    got += dialect.flush()
    assert dialect.flush() == []
    assert [type(u).__name__ for u in got] == ["ResponseMetadata", "TextDelta", "DeltaBatch"]
    assert got[2].text == [str(i) for i in range(1, 20)]  # type: ignore[union-attr]


def test_the_typed_usage_reads_the_counts_the_usage_table_reads() -> None:
    counts: tuple[str, ...] = (
        "prompt_tokens",
        "completion_tokens",
        "total_tokens",
        "cache_hit",
        "cache_miss",
    )
    counts += ("reasoning",)
    read = {path for name in counts for group in getattr(USAGE, name) for path in group}
    assert set(_USAGE_FIELDS) == read


# Ollama's JSON lines: the usual line (text or thinking) is read typed.


def _ollama_line(message: dict[str, Any], separators: tuple[str, str], **extra: Any) -> bytes:
    body: dict[str, Any] = {
        "model": "qwen3",
        "created_at": "2026-01-01T00:00:00Z",
        "message": message,
    }
    body |= {"done": False, **extra}
    return json.dumps(body, separators=separators, ensure_ascii=False).encode()


@st.composite
def _ollama_lines(draw: st.DrawFn) -> bytes:
    kind = draw(st.integers(0, 9))
    text = draw(_strings)
    separators = draw(st.sampled_from([COMPACT, SPACED]))
    if kind <= 4:
        return _ollama_line({"role": "assistant", "content": text}, separators)
    if kind <= 6:
        return _ollama_line({"role": "assistant", "content": "", "thinking": text}, separators)
    usual = _ollama_line({"role": "assistant", "content": "x"}, COMPACT)
    mutations = [
        usual.replace(b'"x"', b"5"),
        usual.replace(b'"x"', b'"\\ud800"'),
        usual.replace(b'"qwen3"', b'"other"'),
        usual.replace(b'"qwen3"', b'""'),
        usual.replace(b'"qwen3"', b"[1]"),
        usual.replace(b'"done":false', b'"done":"no"'),
        usual.replace(b'"done":false', b'"done":null'),
        usual.replace(b'"done":false', b'"done":true,"done_reason":"stop","eval_count":3'),
        usual.replace(b'"done":false', b'"done":false,"error":"boom"'),
        usual.replace(b'"done":false', b'"done":false,"response":"r"'),
        usual.replace(b'"content":"x"', b'"content":"x","thinking":7'),
        usual.replace(b'"content":"x"', b'"content":"x","tool_calls":{}'),
        usual.replace(b'"content":"x"', b'"content":"x","tool_calls":[]'),
        _ollama_line({"tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}}]}, COMPACT),
        _ollama_line({"content": "x"}, COMPACT, deep=json.loads("[" * 70 + "]" * 70)),
        b'{"message":null}',
        b'{"error":"overloaded"}',
        b"[1]",
        b"{",
    ]
    return draw(st.sampled_from(mutations))


@settings(max_examples=300, deadline=None)
@given(st.lists(_ollama_lines(), min_size=1, max_size=30), st.sampled_from([7, 64, 300, 4096]))
def test_ollama_lines_read_what_the_shared_path_reads(lines: list[bytes], size: int) -> None:
    body = b"".join(line + b"\n" for line in lines)
    chunks = [body[i : i + size] for i in range(0, len(body), size)]
    _check(chunks, cls=OllamaChatDialect)
    _check(chunks, depth=5, cls=OllamaChatDialect)


@settings(max_examples=100, deadline=None)
@given(ollama_strategies.streams(), st.sampled_from([1, 64, 4096]))
def test_generated_ollama_streams_read_the_same_through_the_typed_path(
    stream: Any, size: int
) -> None:
    body = stream.body
    _check([body[i : i + size] for i in range(0, len(body), size)], cls=OllamaChatDialect)


def test_a_usual_ollama_stream_is_read_typed_compact_and_spaced() -> None:
    for separators in (COMPACT, SPACED):
        lines = [
            _ollama_line({"role": "assistant", "content": f"w{n} "}, separators) for n in range(50)
        ]
        lines.append(_ollama_line({"role": "assistant", "content": ""}, separators, done=True))
        body = b"".join(line + b"\n" for line in lines)
        reads = [body[i : i + 4096] for i in range(0, len(body), 4096)]
        _check(reads, cls=OllamaChatDialect)
        _, dialect = _by_runs(reads, batch=True, cls=OllamaChatDialect)
        counts = dialect.fast_path_counts()
        assert counts["typed"] == 50, counts  # every text line
        assert counts["full"] == 1, counts  # the done line takes the shared path
