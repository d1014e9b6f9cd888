"""What the interop tests share: every bundled stream under every chunking as raf's results,
the agent scenarios' runs, and the switch that makes a model's library required."""

from __future__ import annotations

import functools
import importlib
import os
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

from raf.cassettes import load
from raf.cassettes.lint import cassette_files
from raf.chunking import STANDARD_CHUNKINGS, chunk
from raf.model.canonical import to_json
from raf.model.response import AgentResponseResult
from raf.pipeline import run
from raf.testing.agent_replay import load_scenarios, replay

ROOT = Path(__file__).resolve().parents[2]
CASSETTES = cassette_files([ROOT / "cassettes"])


@dataclass(frozen=True)
class Stream:
    """One recorded response body of a bundled cassette."""

    name: str
    dialect: str
    body: bytes


@functools.cache
def bundled_streams() -> tuple[Stream, ...]:
    """Every response body of every bundled cassette (there are more than 100)."""
    out: list[Stream] = []
    for path in CASSETTES:
        cassette = load(path)
        assert cassette.info is not None
        for i, interaction in enumerate(cassette.interactions):
            response = interaction.response
            if 200 <= response.status < 300:
                name = path.relative_to(ROOT / "cassettes").with_suffix("").as_posix()
                out.append(Stream(f"{name}#{i}", cassette.info.dialect, response.content()))
    assert len(out) > 100, "the bundled cassettes are missing"
    return tuple(out)


@functools.cache
def results_of(stream: Stream, chunking: str) -> tuple[AgentResponseResult, ...]:
    """raf's results of ``stream`` fed in ``chunking``'s pieces."""
    return tuple(run(chunk(stream.body, chunking), stream.dialect))


@functools.cache
def agent_runs() -> tuple[tuple[str, tuple[AgentResponseResult, ...]], ...]:
    """The results of every run of every agent scenario (tool calls run, tool results,
    approval requests, several rounds), by ``scenario#run``."""
    out = []
    for name, scenario in load_scenarios().items():
        for i, report in enumerate(replay(scenario)):
            out.append((f"{name}#{i}", tuple(report.results)))
    assert len(out) > 30, "the agent scenarios are missing"
    return tuple(out)


@functools.cache
def distinct_results(stream: Stream) -> tuple[tuple[AgentResponseResult, ...], ...]:
    """raf's results of ``stream`` under every standard chunking, one per distinct canonical
    form (raf's results do not depend on the chunking, so this is one; if a chunking ever
    changed them, each form is here and is exported and checked)."""
    seen: dict[str, tuple[AgentResponseResult, ...]] = {}
    for chunking in STANDARD_CHUNKINGS:
        results = results_of(stream, chunking)
        seen.setdefault(to_json(list(results)), results)
    return tuple(seen.values())


def every_stream_and_chunking() -> list[tuple[Stream, str]]:
    """(stream, chunking) for every bundled stream and every standard chunking."""
    return [(s, c) for s in bundled_streams() for c in STANDARD_CHUNKINGS]


def stream_id(value: object) -> str:
    return value.name if isinstance(value, Stream) else str(value)


def library(module: str) -> ModuleType:
    """Import a model's library, or skip; with RAF_REQUIRE_CLIENTS=1 (``tox -e clients``, CI)
    its absence fails instead."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        if os.environ.get("RAF_REQUIRE_CLIENTS") == "1":
            pytest.fail(f"{module} is required (RAF_REQUIRE_CLIENTS=1) but missing: {exc}")
        pytest.skip(f"{module} is not installed (tox -e clients installs it)")
