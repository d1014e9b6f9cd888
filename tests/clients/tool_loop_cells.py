"""What the tool-loop adapters' tests share: one run of a library's own loop over a bundled
tool-loop recording, served by a real ``ReplayServer`` on 127.0.0.1, and its verdicts: the
final answer against the recording's reviewed ``raf.expect`` (level ``response``) and the
requests the loop made, from the server's journal (level ``requests``)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import pytest

from raf.cassettes.tool_loops import ToolLoopSpec, tool_loop_specs
from raf.clients import tool_loop_adapter
from raf.clients.base import ToolLoopCase
from raf.conformance.levels import Mismatch, compare_response
from raf.conformance.requests_level import judge_requests
from raf.serve import ReplayServer
from raf.shared.bundled import bundled
from raf.shared.client_response import ClientResponse, ClientUsage

_RUNS = itertools.count(1)


def specs(folder: Path | None = None) -> dict[str, ToolLoopSpec]:
    """The recordings, by ``<format>/<scenario>``."""
    return {s.case: s for s in tool_loop_specs(folder or bundled().tool_loops)}


@pytest.fixture(scope="module")
def loop_server() -> Iterator[ReplayServer]:
    with ReplayServer([bundled().tool_loops]) as running:
        yield running


@dataclass
class Cell:
    """One run: what the user got, what the library raised, and the two verdicts."""

    response: ClientResponse | None
    raised: str | None
    answer: list[Mismatch] = field(default_factory=list)
    requests: list[Mismatch] = field(default_factory=list)
    sent: list[dict[str, object]] = field(default_factory=list)

    def answer_fields(self) -> set[tuple[str, str]]:
        return {(m.kind, m.where) for m in self.answer}

    def request_fields(self) -> set[tuple[str, str]]:
        """Each request difference as (kind, field), the request's number left out."""
        return {(m.kind, m.field.split(".", 1)[-1]) for m in self.requests}

    def request_paths(self) -> set[str]:
        """Where the requests differ from the recorded ones (the request check's paths, such
        as ``messages[3].content``, any request of the run), the rules they broke
        (``rule:<id>``) and the count (``count``)."""
        return {m.field.split(".", 1)[-1] for m in self.requests}


def expected(spec: ToolLoopSpec) -> dict[str, Any]:
    """The recording's ``raf.expect`` (an agent response: ``reasoning``) as level
    ``response`` reads an expectation (``reasoning_text``)."""
    found = dict(spec.expect or {})
    found["reasoning_text"] = found.pop("reasoning", None)
    return found


def counted(response: ClientResponse | None) -> ClientResponse | None:
    """``response`` with its usage cut to the three counts ``raf.expect`` reviews (the
    recording's richer counts, cache reads and reasoning tokens, are not in it)."""
    if response is None or response.usage is None:
        return response
    found = response.usage
    three = ClientUsage(
        prompt_tokens=found.prompt_tokens,
        completion_tokens=found.completion_tokens,
        total_tokens=found.total_tokens,
    )
    return msgspec.structs.replace(response, usage=three)


def _body(body: object) -> dict[str, object]:
    """A journal entry's request body, parsed (an empty object when it is not JSON)."""
    if isinstance(body, str):
        try:
            body = json.loads(body)
        except ValueError:
            return {}
    return body if isinstance(body, dict) else {}


def run_cell(server: ReplayServer, adapter: str, spec: ToolLoopSpec) -> Cell:
    """``adapter``'s loop over ``spec`` under the run ``t<n>``, judged."""
    found = tool_loop_adapter(adapter)
    run = f"t{next(_RUNS)}"
    case = ToolLoopCase(
        spec, server.url, f"/s/{spec.dialect}/{spec.scenario}/c/whole/r/{run}", timeout=20
    )
    response: ClientResponse | None = None
    raised: str | None = None
    try:
        response = found.run(case)
    except Exception as exc:  # what the library raised is part of the verdict
        raised = f"{type(exc).__name__}: {exc}"
    entries = [e for e in server.journal.entries() if e.get("run") == run]
    answer = compare_response(
        expected(spec),
        counted(response),
        raised=raised,
        capabilities=found.capabilities,
    )
    return Cell(
        response,
        raised,
        answer,
        judge_requests(spec, entries),
        [_body(e.get("body")) for e in entries],
    )
