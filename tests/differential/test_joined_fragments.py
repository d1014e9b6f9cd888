"""``join_fragments`` (docs/converter.md, "Joined fragments"): consecutive argument fragments
of one call within one network read are converted as one. Against the default converter, for
every bundled cassette under every chunking and for generated streams of every wire format
(tight limits too): the same response, the same contents apart from the argument fragments
and what the parser reports about them, and per call the same argument text and the same
parsed values, with progress that is a prefix of the default converter's."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from raf import formats
from raf.chunking import STANDARD_CHUNKINGS, chunk
from raf.collect import collect_agent_response
from raf.converter import AgentResponseConverter
from raf.model import AgentResponseResult, contents, updates
from raf.pipeline import respond, run
from raf.testing import strategies
from tests.differential.test_aggregate_only import BODIES, TIGHT

T0 = datetime(2026, 1, 1, tzinfo=UTC)
FRAGMENTS = (contents.ToolCallArgs, contents.ToolCallArgsParsed, contents.ToolCallArgsProgress)


def clock() -> datetime:
    return T0


def view(results: list[AgentResponseResult]) -> dict[str, Any]:
    """What joining fragments must keep: every other content and event in order, and per
    call its argument text and its parsed values in order; and per argument the progress
    text with the last count (whose counts must add up)."""
    others = []
    args: dict[str, str] = defaultdict(str)
    parsed: dict[str, list[tuple[str, Any]]] = defaultdict(list)
    progress: dict[tuple[str, str], tuple[str, int]] = {}
    for result in results:
        rest = [c for c in result.contents if not isinstance(c, FRAGMENTS)]
        if rest or result.events or result.finish_reason is not None:
            others.append((result.id, result.model, result.finish_reason, rest, result.events))
        for content in result.contents:
            if isinstance(content, contents.ToolCallArgs):
                args[content.call_id] += content.args_delta
            elif isinstance(content, contents.ToolCallArgsParsed):
                parsed[content.call_id].append((content.name, content.value))
            elif isinstance(content, contents.ToolCallArgsProgress):
                text, _ = progress.get((content.call_id, content.name), ("", 0))
                text += content.value
                assert content.received == len(text)
                progress[content.call_id, content.name] = (text, content.received)
    return {"others": others, "args": args, "parsed": parsed, "progress": progress}


def compare(chunks: list[bytes], dialect: str, **options: Any) -> tuple[int, int]:
    """Check the joined run against the default one; their numbers of results."""
    usual = list(run(chunks, dialect, clock=clock, **options))
    joined = list(run(chunks, dialect, clock=clock, join_fragments=True, **options))
    ours, theirs = view(joined), view(usual)
    progress, usual_progress = ours.pop("progress"), theirs.pop("progress")
    # A call dropped by a size limit: the fragments of the read that passed it are not sent.
    dropped = {
        c.call_id
        for result in usual
        for c in result.contents
        if isinstance(c, contents.Error) and c.error_code == "tool_arguments_too_large"
    }
    for part in ("args", "parsed"):
        for call_id in dropped:
            mine, usual_part = ours[part][call_id], theirs[part][call_id]  # defaultdicts
            del ours[part][call_id], theirs[part][call_id]
            assert usual_part[: len(mine)] == mine
    assert ours == theirs
    for key, (text, _) in progress.items():
        # A read that ends a string value reports the value, not the progress before it.
        assert usual_progress[key][0].startswith(text)
    assert collect_agent_response(joined) == collect_agent_response(usual)
    assert collect_agent_response(joined) == respond(chunks, dialect, clock=clock, **options)
    return len(joined), len(usual)


@pytest.mark.parametrize("how", STANDARD_CHUNKINGS)
def test_every_bundled_cassette_keeps_its_contents_with_joined_fragments(how: str) -> None:
    fewer = 0
    for name, dialect, body in BODIES:
        try:
            joined, usual = compare(chunk(body, how), dialect)
        except AssertionError as exc:
            raise AssertionError(f"{name} under {how}") from exc
        assert joined <= usual
        fewer += usual - joined
    if how == "whole":
        assert fewer > 0  # the fragments of one read were joined


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.sampled_from(formats.names()), st.booleans())
def test_generated_streams_keep_their_contents_with_joined_fragments(
    data: st.DataObject, name: str, tight: bool
) -> None:
    stream = data.draw(getattr(strategies, name).streams())
    compare(list(stream.chunks), name, **(TIGHT if tight else {}))


Delta = updates.ToolCallDelta


def test_one_batch_gives_one_fragment_one_progress_and_one_result() -> None:
    converter = AgentResponseConverter(clock=clock, join_fragments=True)
    converter.results([Delta(index=0, id="c1", name="write", arguments_delta='{"text":"He')])
    first = converter.results(
        [Delta(index=0, arguments_delta=piece) for piece in ("ll", "o, ", "wor")]
    )
    second = converter.results(
        [
            updates.ToolCallArgs(id="c1", args_delta='ld"'),
            updates.ToolCallArgs(id="c1", args_delta=', "n": 1}'),
            updates.TextDelta(delta="done"),
        ]
    )
    assert [[type(c).__name__ for c in r.contents] for r in first] == [
        ["ToolCallArgs", "ToolCallArgsProgress"]
    ]
    args, progress = first[0].contents
    assert isinstance(args, contents.ToolCallArgs)
    assert args.args_delta == "llo, wor"
    assert isinstance(progress, contents.ToolCallArgsProgress)
    assert (progress.received, progress.value) == (len("Hello, wor"), "llo, wor")
    assert [[type(c).__name__ for c in r.contents] for r in second] == [
        ["ToolCallArgs", "ToolCallArgsParsed", "ToolCallArgsParsed"],
        ["Text"],
    ]
    calls = converter.finalize("tool_calls").contents
    assert isinstance(calls[-1], contents.ToolCalling)
    assert calls[-1].arguments == {"text": "Hello, world", "n": 1}
