"""``respond()`` is aggregate-only by default (docs/converter.md, "Aggregate-only"): it skips
the contents only a streaming caller sees. Its response must be exactly what collecting every
result of ``run()`` gives, for every bundled cassette under every chunking and for generated
streams of every wire format (with tight limits too, so the error paths are compared), and
the mode must switch itself off when a caller may look at streaming contents."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from raf import formats
from raf.cassettes import load
from raf.cassettes.lint import cassette_files
from raf.chunking import STANDARD_CHUNKINGS, chunk
from raf.collect import ResponseCollector, collect_agent_response
from raf.converter import AgentResponseConverter
from raf.errors import AgentResponseError
from raf.model import AgentResponse, AgentResponseResult, contents
from raf.pipeline import Pipeline, respond, run
from raf.testing import strategies

ROOT = Path(__file__).resolve().parents[2]
T0 = datetime(2026, 1, 1, tzinfo=UTC)
STREAMING_ONLY = (
    contents.ToolCallStart,
    contents.ToolCallArgs,
    contents.ToolCallArgsParsed,
    contents.ToolCallArgsProgress,
    contents.ToolCallEnd,
)
TIGHT = {
    "max_line_bytes": 300,
    "max_arguments_chars": 40,
    "max_total_arguments_chars": 70,
    "max_tool_calls": 2,
    "max_json_depth": 3,
}


def clock() -> datetime:
    return T0


def both(chunks: list[bytes], dialect: str, **options: Any) -> tuple[AgentResponse, AgentResponse]:
    """The aggregate-only response and the one collected from every streamed result."""
    fast = respond(chunks, dialect, clock=clock, **options)
    full = collect_agent_response(run(chunks, dialect, clock=clock, **options))
    return fast, full


def bodies() -> list[tuple[str, str, bytes]]:
    out = []
    for path in cassette_files([ROOT / "cassettes"]):
        cassette = load(path)
        assert cassette.info is not None
        for index, interaction in enumerate(cassette.interactions):
            body = interaction.response.body
            data = body if isinstance(body, bytes) else (body or "").encode()
            out.append((f"{path.parent.name}/{path.stem}#{index}", cassette.info.dialect, data))
    return out


BODIES = bodies()
PARALLEL = next(body for name, _, body in BODIES if name.startswith("openai_chat/parallel"))


@pytest.mark.parametrize("how", STANDARD_CHUNKINGS)
def test_every_bundled_cassette_gives_the_same_response_aggregate_only(how: str) -> None:
    differ = [
        name
        for name, dialect, body in BODIES
        if (pair := both(chunk(body, how), dialect))[0] != pair[1]
    ]
    assert differ == []
    assert len(BODIES) >= 90


FORMATS = st.sampled_from(formats.names())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), FORMATS, st.booleans())
def test_generated_streams_give_the_same_response_aggregate_only(
    data: st.DataObject, name: str, tight: bool
) -> None:
    stream = data.draw(getattr(strategies, name).streams())
    fast, full = both(list(stream.chunks), name, **(TIGHT if tight else {}))
    assert fast == full


def test_a_truncated_and_a_dropped_stream_give_the_same_response_aggregate_only() -> None:
    half = PARALLEL[: len(PARALLEL) // 2]
    fast, full = both([half], "openai_chat")
    assert fast == full
    assert "stream_truncated" in {error.error_code for error in fast.errors}

    def dropping() -> Iterator[bytes]:
        yield half
        raise ConnectionResetError("peer went away")

    with pytest.raises(AgentResponseError) as aggregate_only:
        respond(dropping(), clock=clock)
    with pytest.raises(AgentResponseError) as streamed:
        collect_agent_response(run(dropping(), clock=clock))
    assert aggregate_only.value.response == streamed.value.response
    assert aggregate_only.value.response.errors[0].error_code == "transport_error"


def _sse(*payloads: Any) -> bytes:
    return b"".join(
        b"data: "
        + (p if isinstance(p, bytes) else json.dumps(p, separators=(",", ":")).encode())
        + b"\n\n"
        for p in payloads
    )


def _fragment(index: int, arguments: str, **chunk: Any) -> dict[str, Any]:
    call = {"index": index, "function": {"arguments": arguments}}
    return {
        "id": "c1",
        "model": "m",
        **chunk,
        "choices": [{"index": 0, "delta": {"tool_calls": [call]}}],
    }


def _start(index: int, call_id: str, name: str) -> dict[str, Any]:
    call = {
        "index": index,
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": ""},
    }
    return {"id": "c1", "model": "m", "choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}


FINISH = {
    "id": "c1",
    "model": "m",
    "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}],
}


@pytest.mark.parametrize(
    "limits",
    [
        {},
        {"max_total_arguments_chars": 30},  # passed inside a batch: which call overflows matters
        {"max_arguments_chars": 12},
        {"max_tool_calls": 1},
    ],
)
def test_interleaved_fragments_in_one_read_give_the_same_response(limits: dict[str, Any]) -> None:
    """A read holding the fragments of two calls, interleaved, is one batch; where a limit is
    passed inside it, its fragments are taken one by one, in the order they came."""
    pieces = [(i % 2, f'{{"k{i}":' if i < 2 else f'"{i}' * 3) for i in range(16)]
    body = _sse(
        _start(0, "call_a", "f"),
        _start(1, "call_b", "g"),
        *[_fragment(index, text) for index, text in pieces],
        FINISH,
        b"[DONE]",
    )
    for chunks in (
        [body],
        [body[:200], body[200:]],
        [body[i : i + 97] for i in range(0, len(body), 97)],
    ):
        fast, full = both(chunks, "openai_chat", **limits)
        assert fast == full
    if limits:
        assert fast.errors, "the limit was passed"


def test_a_chunk_like_the_last_with_another_model_is_not_read_through_its_template() -> None:
    """Templates are made under the response's id and model: a chunk that differs from the one
    before only in its model (or id) still changes the metadata."""
    text = {"id": "c1", "model": "m", "choices": [{"index": 0, "delta": {"content": "a"}}]}
    other = {**text, "model": "m2"}
    body = _sse(
        text,
        text,
        other,
        text,
        {**other, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        b"[DONE]",
    )
    fast, full = both([body], "openai_chat")
    assert fast == full
    assert fast.text == "aaaa"
    assert fast.model == "m2"
    results = list(run([body], "openai_chat", clock=clock))
    models = [
        c.meta.model_id if c.meta else None
        for r in results
        for c in r.contents
        if isinstance(c, contents.Text)
    ]
    assert models == ["m", "m", "m2", "m"]


class Watching(ResponseCollector):
    """A collector that keeps every content it is given."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[Any] = []

    def add(self, result: AgentResponseResult) -> None:
        self.seen.extend(type(content) for content in result.contents)
        super().add(result)


def test_respond_skips_the_streaming_contents_by_default() -> None:
    pipeline = Pipeline("openai_chat", streaming_contents=False)
    results = [*pipeline.feed(PARALLEL), *pipeline.close()]
    kinds = {type(content) for result in results for content in result.contents}
    assert not kinds & set(STREAMING_ONLY)
    assert contents.ToolCalling in kinds
    # ... and the response is that of the streaming converter.
    assert collect_agent_response(results) == respond([PARALLEL])


def test_a_collector_subclass_sees_the_streaming_contents() -> None:
    watching = Watching()
    respond([PARALLEL], collector=watching)
    assert set(STREAMING_ONLY) <= set(watching.seen)


def test_streaming_contents_false_is_obeyed_even_with_a_collector_subclass() -> None:
    watching = Watching()
    respond([PARALLEL], collector=watching, streaming_contents=False)
    assert not set(STREAMING_ONLY) & set(watching.seen)
    assert contents.ToolCalling in watching.seen


def test_a_converter_passed_to_respond_is_used_as_it_is() -> None:
    class Counting(AgentResponseConverter):
        starts = 0

        def _set_name(self, call: Any, name: str, out: list[Any]) -> None:
            Counting.starts += 1
            super()._set_name(call, name, out)

    watching = Watching()
    respond([PARALLEL], converter=Counting(), collector=watching)
    assert Counting.starts >= 2
    assert contents.ToolCallArgs in watching.seen


class Shouting(AgentResponseConverter):
    """Overrides a handler of the dispatch table: text in capitals."""

    def _on_text(self, update: Any) -> Any:
        return super()._on_text(type(update)(delta=update.delta.upper()))


class CountingFragments(AgentResponseConverter):
    """Overrides a helper the aggregate-only fast path skips: every argument fragment."""

    fragments = 0

    def _add_args(self, call: Any, delta: str, out: list[Any]) -> None:
        if delta:
            CountingFragments.fragments += 1
        super()._add_args(call, delta, out)


@pytest.mark.parametrize("streaming_contents", [True, False])
def test_a_subclass_s_overrides_are_called_in_both_modes(streaming_contents: bool) -> None:
    text = _sse(
        *({"id": "c", "model": "m", "choices": [{"index": 0, "delta": {"content": w}}]}
          for w in ("hello ", "world")),
        b"[DONE]",
    )  # fmt: skip
    shouted = respond([text], converter=Shouting(streaming_contents=streaming_contents))
    assert shouted.text == "HELLO WORLD"
    streamed = collect_agent_response(run([text], converter=Shouting()))
    assert streamed.text == "HELLO WORLD"

    expected = collect_agent_response(run([PARALLEL]))
    CountingFragments.fragments = 0
    counted = respond(
        [PARALLEL], converter=CountingFragments(streaming_contents=streaming_contents)
    )
    assert counted == expected
    fragments = PARALLEL.count(b'"arguments":"') - PARALLEL.count(b'"arguments":""')
    assert CountingFragments.fragments == fragments


def test_a_subclass_that_overrides_no_handler_keeps_the_fast_paths() -> None:
    class Named(AgentResponseConverter):
        def _set_name(self, call: Any, name: str, out: list[Any]) -> None:
            super()._set_name(call, name, out)

    base = AgentResponseConverter(streaming_contents=False)
    for converter in (Named(streaming_contents=False), CountingFragments(streaming_contents=False)):
        shares = converter._collect_table is base._collect_table
        assert shares is (type(converter) is Named)


def test_a_batch_left_open_comes_before_a_run_read_event_by_event() -> None:
    """A run with a payload that may nest too deep is read event by event; the batch the
    runs before it left open is handed on first, so the text keeps its order."""
    text = {"id": "c1", "model": "m", "choices": [{"index": 0, "delta": {"content": "a"}}]}
    many_brackets = {**text, "x": [[]] * 6, "choices": [{"index": 0, "delta": {"content": "b"}}]}
    first = _sse(text, text, text)
    second = _sse(
        many_brackets,
        {**text, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        b"[DONE]",
    )
    fast, full = both([first, second], "openai_chat", max_json_depth=8)
    assert fast == full
    assert fast.text == "aaab"
