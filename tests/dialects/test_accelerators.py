"""Optional dialect and framing methods are declared, typed accelerators (docs/dialects.md,
"The protocol"): the pipeline uses the declared ones and no others, a declaration that does not
match the class (a misspelt, undeclared, missing or mis-typed method) is refused with a message
naming it, and the accelerated paths give what the rules alone give on every bundled cassette."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

import pytest

from raf import dialects, formats
from raf import framing as framings
from raf.cassettes import load
from raf.cassettes.lint import cassette_files
from raf.chunking import STANDARD_CHUNKINGS, chunk
from raf.collect import collect_agent_response
from raf.dialects.base import (
    ACCELERATORS,
    Accelerator,
    Dialect,
    accelerator_problems,
    accelerators_of,
)
from raf.errors import DialectError
from raf.model import updates
from raf.pipeline import UpdateDecoder, respond, run
from raf.sse import ServerSentEvent

ROOT = Path(__file__).resolve().parents[2]
T0 = datetime(2026, 1, 1, tzinfo=UTC)
BUILT_IN = formats.names()


class Plain:
    """A dialect with only the required members."""

    name = "plain"
    framing = "json_lines"

    def __init__(self) -> None:
        self.done = False

    def feed(self, event: ServerSentEvent) -> list[Any]:
        payload = json.loads(event.data)
        if payload.get("end"):
            self.done = True
            return [updates.Finish(finish_reason="stop")]
        return [updates.TextDelta(delta=payload["t"])]

    def close(self, *, truncated: bool = False) -> list[Any]:
        return []


class Declared(Plain):
    accelerators: ClassVar[frozenset[Accelerator]] = frozenset({"feed_events"})

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def feed_events(self, events: Any) -> list[Any]:
        self.calls += 1
        out: list[Any] = []
        for event in events:
            if self.done:
                break
            out.extend(self.feed(event))
        return out


class Misspelt(Plain):
    def feed_evnets(self, events: Any) -> list[Any]:
        return []


class Undeclared(Declared):
    accelerators: ClassVar[frozenset[Accelerator]] = frozenset()


class Missing(Plain):
    accelerators: ClassVar[frozenset[Accelerator]] = frozenset({"feed_frames"})


class WrongSignature(Plain):
    accelerators: ClassVar[frozenset[Accelerator]] = frozenset({"feed_frames"})

    def feed_frames(self, frames: Any) -> list[Any]:  # no batch
        return []


class UnknownName(Plain):
    accelerators = frozenset({"feed_runs"})


class RulesOnly:
    """Any dialect, through ``feed`` alone: the rules, without its accelerators."""

    def __init__(self, inner: Dialect) -> None:
        self.inner = inner
        self.name = inner.name
        self.framing = inner.framing

    @property
    def done(self) -> bool:
        return self.inner.done

    def feed(self, event: ServerSentEvent) -> list[Any]:
        return self.inner.feed(event)

    def close(self, *, truncated: bool = False) -> list[Any]:
        return self.inner.close(truncated=truncated)


@pytest.mark.parametrize("name", BUILT_IN)
def test_every_built_in_dialect_declares_exactly_the_accelerators_it_has(name: str) -> None:
    dialect = dialects.create(name)
    assert accelerator_problems(type(dialect)) == []
    offered = accelerators_of(dialect)
    assert offered.feed_events is not None
    assert offered.feed_frames is not None
    assert offered.flush is not None


def test_a_dialect_with_only_the_required_members_has_no_accelerators() -> None:
    assert accelerator_problems(Plain) == []
    assert tuple(accelerators_of(Plain())) == (None,) * len(ACCELERATORS)
    assert respond([b'{"t": "a"}\n{"t": "b"}\n{"end": 1}\n'], Plain()).text == "ab"


def test_the_pipeline_calls_a_declared_accelerator() -> None:
    dialect = Declared()
    assert accelerator_problems(Declared) == []
    response = respond([b'{"t": "a"}\n{"t": "b"}\n', b'{"end": 1}\n'], dialect)
    assert (response.text, dialect.calls) == ("ab", 2)


@pytest.mark.parametrize(
    ("cls", "problem"),
    [
        (Misspelt, "defines 'feed_evnets': a misspelling of the accelerator 'feed_events'?"),
        (Undeclared, "defines 'feed_events' but does not declare it in accelerators"),
        (Missing, "declares 'feed_frames' but does not define it"),
        (WrongSignature, "feed_frames has other parameters than FrameFeeder.feed_frames"),
        (UnknownName, "declares 'feed_runs', which is not an accelerator"),
    ],
)
def test_a_declaration_that_does_not_match_the_class_is_refused(cls: type, problem: str) -> None:
    problems = accelerator_problems(cls)
    assert len(problems) == 1
    assert problems[0].startswith(problem)
    with pytest.raises(DialectError, match="dialect 'plain'") as refused:
        UpdateDecoder(cls())
    assert problem in str(refused.value)


@pytest.mark.parametrize("name", framings.names())
def test_every_framing_declares_exactly_the_accelerators_it_has(name: str) -> None:
    framing = framings.create(name)
    has = {"feed_runs"} & set(dir(framing))
    assert set(framing.accelerators) == has
    feed_runs = framings.runs_of(framing)
    assert (feed_runs is not None) == bool(has)


def _bodies() -> list[tuple[str, str, bytes]]:
    out = []
    for path in cassette_files([ROOT / "cassettes"]):
        cassette = load(path)
        assert cassette.info is not None
        for index, interaction in enumerate(cassette.interactions):
            body = interaction.response.body
            data = body if isinstance(body, bytes) else (body or "").encode()
            out.append((f"{path.parent.name}/{path.stem}#{index}", cassette.info.dialect, data))
    return out


BODIES = _bodies()


def _clock() -> datetime:
    return T0


@pytest.mark.parametrize("how", STANDARD_CHUNKINGS)
def test_the_accelerators_give_what_the_rules_give_on_every_bundled_cassette(how: str) -> None:
    differ = []
    for name, dialect, body in BODIES:
        chunks = chunk(body, how)
        fast = respond(chunks, dialect, clock=_clock)
        rules = respond(chunks, RulesOnly(dialects.create(dialect)), clock=_clock)
        streamed = collect_agent_response(run(chunks, dialect, clock=_clock))
        rules_streamed = collect_agent_response(
            run(chunks, RulesOnly(dialects.create(dialect)), clock=_clock)
        )
        if fast != rules or streamed != rules_streamed:
            differ.append(name)
    assert differ == []
    assert len(BODIES) >= 90
