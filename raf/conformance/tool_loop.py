"""``tool_loop`` cases: a client's own tool loop run against ``raf serve``, one case per
tool-loop recording and chunking. Reads the recordings; runs nothing.

A tool-loop recording (``conformance/tool_loops/<format>/<scenario>.yaml``, or any cassette
with a ``raf.run`` header under ``raf conform --cassettes DIR``) holds one interaction per
round. Its case (id ``<format>/<scenario>#loop@<chunking>``; its scenario in every report
and baseline is ``<scenario>#loop``, apart from a cassette of the same name) gives the
client, as an ``http`` case of its own run on the server (``.../r/<run>``), the
conversation, the tools and the canned result of every call
(:class:`raf.cassettes.tool_loops.ToolLoopSpec`, sent as
:class:`raf.conformance.protocol.ToolLoop`); the client sends the first request, runs the
tools, sends the follow-ups, and answers with the final response.

What is judged (docs/conformance.md): at level ``response``, the final response against the
recording's last answer as raf reads it (which must satisfy the reviewed ``raf.expect``), and
that the run reached the server; at level ``requests``, also every request of the run
(:func:`raf.conformance.requests_level.judge_requests`). Levels ``lifecycle`` and ``updates``
skip a ``tool_loop`` case: they judge one streamed turn, a tool loop's final answer has its
own ``http`` case in the suite.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from raf.cassettes.coding import BodyNotDecoded
from raf.cassettes.format import Cassette
from raf.cassettes.lint import cassette_files
from raf.cassettes.persister import load as load_cassette
from raf.cassettes.tool_loops import ToolLoopError, ToolLoopSpec, load_tool_loop
from raf.conformance.cases import (
    Case,
    Problem,
    Suite,
    blessing_problem,
    matches,
    requirements,
    response_headers,
)
from raf.conformance.goldens import InteractionOutput
from raf.conformance.protocol import CannedResult, ToolDefinition, ToolLoop
from raf.conformance.reference import output_for
from raf.conformance.review import expectation_problems, other_readings
from raf.errors import CassetteError

__all__ = ["LOOP", "load_tool_loop_cases", "loop_case_id", "tool_loop_message"]

LOOP = "loop"
"""What a ``tool_loop`` case id has where a case of one interaction has its number."""


def loop_case_id(dialect: str, scenario: str, chunking: str) -> str:
    """``<dialect>/<scenario>#loop@<chunking>``."""
    return f"{dialect}/{scenario}#{LOOP}@{chunking}"


def tool_loop_message(spec: ToolLoopSpec) -> ToolLoop:
    """What a ``tool_loop`` case message carries of ``spec``."""
    return ToolLoop(
        model=spec.model,
        messages=[dict(m) for m in spec.messages],
        tools=[
            ToolDefinition(name=t.name, description=t.description, parameters=dict(t.parameters))
            for t in spec.tools
        ],
        results=[
            CannedResult(name=r.name, arguments=r.arguments, content=r.content, is_error=r.is_error)
            for r in spec.results
        ],
        max_rounds=spec.max_rounds,
        requests=spec.requests,
    )


def load_tool_loop_cases(
    folders: Iterable[Path],
    *,
    chunkings: Sequence[str],
    select: Sequence[str] = (),
    dialects: Sequence[str] = (),
    served_first: Iterable[Path] = (),
) -> Suite:
    """The ``tool_loop`` cases of the tool-loop recordings (cassettes with ``raf.run``) under
    ``folders``, one per chunking, and the recordings that give none (with why).

    Args:
        folders: where the recordings are (``<format>/<scenario>.yaml``); cassettes without
            ``raf.run`` are not tool-loop recordings and are passed over.
        chunkings: the chunkings the server cuts every answer of a run by.
        select: patterns (:func:`raf.conformance.cases.matches`) on the scenario and the id.
        dialects: only these (all when empty).
        served_first: cassette folders the server looks in before ``folders``: a recording
            whose name one of them also has would never be answered, and is a problem.
    """
    suite = Suite()
    first = list(served_first)
    for path in sorted(cassette_files(list(folders))):
        try:
            cassette = load_cassette(path)
        except CassetteError:
            continue  # an unreadable cassette is the ordinary suite's problem
        info = cassette.info
        if info is None or info.run is None:
            continue
        dialect, scenario = info.dialect, info.scenario
        if dialects and dialect not in dialects:
            continue
        ids = [loop_case_id(dialect, scenario, c) for c in chunkings]
        if not matches(select, scenario, *ids):
            continue
        named = f"{scenario}#{LOOP}"  # apart from a cassette of the same name, in every report
        problem = blessing_problem(cassette)
        if problem is not None:
            suite.problems.append(Problem(named, dialect, path, problem, unblessed=True))
            continue
        shadow = next((f for f in first if (f / dialect / f"{scenario}.yaml").exists()), None)
        if shadow is not None:
            why = f"{shadow} has a cassette of the same name, which raf serve answers instead"
            suite.problems.append(Problem(named, dialect, path, why))
            continue
        try:
            spec = load_tool_loop(path)
            last = cassette.interactions[-1].response
            output = output_for(last.status, last.reason, [last.content()], dialect)
        except (ToolLoopError, BodyNotDecoded) as exc:
            suite.problems.append(Problem(named, dialect, path, str(exc)))
            continue
        expect = info.expect
        assert expect is not None  # blessed
        contradictions = expectation_problems(expect, output.response)
        if contradictions:
            why = "the last answer contradicts raf.expect: " + "; ".join(contradictions)
            suite.problems.append(Problem(named, dialect, path, why))
            continue
        _add(suite, spec, cassette, output, chunkings=chunkings, select=select)
    return suite


def _add(
    suite: Suite,
    spec: ToolLoopSpec,
    cassette: Cassette,
    output: InteractionOutput,
    *,
    chunkings: Sequence[str],
    select: Sequence[str],
) -> None:
    first, last = cassette.interactions[0], cassette.interactions[-1].response
    expect = cassette.info.expect if cassette.info is not None else None
    readings = tuple(other_readings(expect, output.response))
    expected = InteractionOutput(updates=[], results=[], response=output.response)
    needs = requirements(output, first.response.status) | {"tool_loop"}
    for chunking in chunkings:
        identifier = loop_case_id(spec.dialect, spec.scenario, chunking)
        if not matches(select, spec.scenario, identifier):
            continue
        suite.cases.append(
            Case(
                id=identifier,
                scenario=f"{spec.scenario}#{LOOP}",
                dialect=spec.dialect,
                cassette=spec.path,
                interaction=None,
                chunking=chunking,
                status=first.response.status,
                reason=first.response.reason,
                headers=response_headers(first),
                body=last.content(),
                expected=expected,
                requires=needs,
                request=first.request,
                readings=readings,
                loop=spec,
            )
        )
