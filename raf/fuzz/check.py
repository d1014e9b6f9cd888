"""The check of a generated stream against an implementation: the differences that fail.

:class:`ImplementationCheck` turns a :class:`~raf.fuzz.generate.FuzzStream` into a conformance
:class:`~raf.conformance.cases.Case` (its exact network reads under the chunking
``recorded``, the format's request, raf's reference output as what is expected), runs it
through an :class:`~raf.conformance.implementation.Implementation` (a program over stdio, or
over ``raf serve`` with the http transport: :class:`LiveCases`) and judges it with
:func:`raf.conformance.runner.judge` at a level under a severity policy.

Before the implementation is judged, raf's reference is checked against the ground truth
(what the generator built the stream to say): when they disagree, that is a bug in raf,
reported as one difference of level ``reference`` (:data:`REFERENCE`) and never blamed on
the implementation, which then is not run.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path

from raf import formats
from raf.cassettes.format import Cassette, Interaction, Response, ScenarioInfo
from raf.conformance.cases import RECORDED, Case, case_id, requirements
from raf.conformance.goldens import InteractionOutput
from raf.conformance.implementation import Implementation
from raf.conformance.levels import Mismatch
from raf.conformance.reference import output_for
from raf.conformance.review import expectation_problems
from raf.conformance.runner import judge, skip_reason
from raf.conformance.severity import Policy
from raf.fuzz.campaign import StopCampaign
from raf.fuzz.cassette import expectation, request_for
from raf.fuzz.generate import FuzzStream

__all__ = [
    "REFERENCE",
    "ImplementationCheck",
    "ImplementationGaveUp",
    "LiveCases",
    "fuzz_case",
    "reference_check",
]

REFERENCE = "reference"
"""The level of a difference between raf's reference and the ground truth: a bug in raf."""


def reference_check(stream: FuzzStream, output: InteractionOutput) -> list[Mismatch]:
    """Where raf's reference ``output`` for ``stream`` disagrees with the ground truth (each a
    difference of level :data:`REFERENCE`); empty when it agrees."""
    expect = expectation(stream, output.response)
    out = []
    for problem in expectation_problems(expect, output.response):
        where, _, said = problem.partition(": ")
        want, _, got = said.partition(", got ")
        out.append(
            Mismatch(
                where,
                want.removeprefix("expected "),
                got or said,
                kind="wrong",
                field=where,
                level=REFERENCE,
            )
        )
    return out


def fuzz_case(stream: FuzzStream, output: InteractionOutput, scenario: str = "fuzz") -> Case:
    """``stream`` as a conformance case: its reads under the chunking ``recorded``, the
    format's request, and ``output`` (raf's reference) as what is expected."""
    return Case(
        id=case_id(stream.format, scenario, 0, RECORDED),
        scenario=scenario,
        dialect=stream.format,
        cassette=Path(f"<raf fuzz: {scenario}>"),
        interaction=0,
        chunking=RECORDED,
        status=200,
        reason="OK",
        headers={"content-type": _content_type(stream)},
        body=stream.body,
        expected=output,
        requires=requirements(output, 200),
        request=request_for(stream),
        reads=tuple(read for read in stream.chunks if read),
    )


def _content_type(stream: FuzzStream) -> str:
    stripped = stream.body.lstrip(b"\xef\xbb\xbf \t\r\n")
    if stripped.startswith(b"["):
        return "application/json"
    if stream.format == "ollama_chat":
        return "application/x-ndjson"
    found = formats.find(stream.format)
    if found is not None and found.framing == "aws_eventstream":  # a binary body
        return found.content_types.get(found.framing, "application/vnd.amazon.eventstream")
    return "text/event-stream"


class LiveCases:
    """``raf serve`` serving the case of the moment, from memory: a
    :class:`raf.serve.ReplayServer` whose catalogue holds the cassette :meth:`put` gave it
    last (no file per example). A context manager: the server runs inside it."""

    def __init__(self) -> None:
        from raf.serve.catalog import Catalog, Entry  # noqa: PLC0415 - aiohttp only when asked
        from raf.serve.server import ReplayServer  # noqa: PLC0415

        class _Live(Catalog):
            def __init__(self) -> None:
                super().__init__([])
                self.current: tuple[Entry, Cassette] | None = None

            def find(self, dialect: str, scenario: str) -> Entry | None:
                if self.current is None:
                    return None
                entry = self.current[0]
                return entry if (entry.dialect, entry.scenario) == (dialect, scenario) else None

            def load(self, entry: Entry) -> Cassette:
                assert self.current is not None
                return self.current[1]

        self._entry = Entry
        self.server = ReplayServer([], rules="reject", speed=0)
        self._catalog = _Live()
        self.server.config.catalog = self._catalog

    def __enter__(self) -> LiveCases:
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop()

    def put(self, case: Case) -> None:
        """Serve ``case`` (and only it) from now on."""
        assert case.request is not None
        assert case.reads is not None
        cassette = Cassette(
            interactions=[
                Interaction(
                    request=case.request,
                    response=Response(
                        status=case.status,
                        reason=case.reason,
                        headers={k: [v] for k, v in case.headers.items()},
                        body=case.body,
                    ),
                    timing=[(len(read), 0.0) for read in case.reads],
                )
            ],
            info=ScenarioInfo(scenario=case.scenario, dialect=case.dialect),
        )
        entry = self._entry(case.dialect, case.scenario, Path(case.scenario))
        self._catalog.current = (entry, cassette)


class ImplementationCheck:
    """The failing differences of an implementation on a generated stream (the ``check`` of
    :func:`raf.fuzz.campaign.fuzz`).

    Args:
        implementation: what is tested (a :class:`~raf.conformance.stdio.StdioImplementation`
            for a program; raf's :class:`~raf.conformance.implementation.ReferenceImplementation`
            finds nothing).
        level: the level it is judged at (docs/conformance.md).
        policy: which kinds of difference fail.
        live: for the http transport, the server the implementation is sent to (the same
            server the ``StdioImplementation`` was given).

    A stream the implementation did not declare it reads (its format, the level, a
    capability the case needs) is not run and counts in :attr:`skipped`.
    """

    def __init__(
        self,
        implementation: Implementation,
        *,
        level: str = "response",
        policy: Policy | None = None,
        live: LiveCases | None = None,
    ) -> None:
        self.implementation = implementation
        self.level = level
        self.policy = policy or Policy()
        self.live = live
        self.transport = "http" if live is not None else "chunks"
        self.hello = implementation.hello()
        self.capabilities = set(self.hello.capabilities)
        self.skipped = 0
        self.last_skip = ""
        self._numbers = itertools.count()

    def __call__(self, stream: FuzzStream) -> Sequence[Mismatch]:
        output = output_for(200, "OK", [r for r in stream.chunks if r], stream.format)
        wrong = reference_check(stream, output)
        if wrong:
            return wrong
        scenario = f"fuzz_{next(self._numbers)}" if self.live is not None else "fuzz"
        case = fuzz_case(stream, output, scenario)
        skip = skip_reason(case, self.level, self.hello, self.transport)
        if skip is not None:
            self.skipped += 1
            self.last_skip = skip
            return []
        if self.live is not None:
            self.live.put(case)
        outcome = self.implementation.run(case, self.level)
        verdict = judge(
            case,
            outcome,
            self.level,
            self.capabilities,
            policy=self.policy,
            transport=self.transport,
        )
        failing = [d.mismatch for d in verdict.differences if d.failing]
        if outcome.give_up:
            raise ImplementationGaveUp(outcome.give_up)
        return failing


class ImplementationGaveUp(StopCampaign):
    """The implementation cannot go on (it cannot be started again, or it timed out too many
    times in a row): the campaign stops, with the findings so far."""
