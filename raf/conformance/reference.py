"""The reference implementation's output for a cassette: what the goldens hold. No file IO.

:func:`run_interaction` replays one interaction's response through raf's pipeline, fed in
the chunks of a named chunking, and returns its updates, results (without metadata) and
aggregated response as canonical JSON builtins. An error status is not read as a stream; it
becomes one ``http_error`` (as :mod:`raf.transport` does for a live response). A body recorded
with a ``content-encoding`` is read decoded, as a client reads it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import msgspec

from raf.cassettes.format import Cassette, Interaction
from raf.chunking import chunk
from raf.collect import collect_agent_response
from raf.conformance.goldens import Golden, InteractionOutput
from raf.model.canonical import to_canonical
from raf.model.response import AgentResponse, AgentResponseResult
from raf.model.updates import AgentResponseUpdate
from raf.pipeline import Pipeline, UpdateDecoder, drive, http_error, iter_updates, run

__all__ = [
    "OutputFunction",
    "compared_response",
    "golden_of",
    "output_for",
    "output_of",
    "output_of_reads",
    "run_cassette",
    "run_interaction",
]

OutputFunction = Callable[[Interaction, str, str], InteractionOutput]
"""A Python client as a function: (interaction, dialect, chunking) -> its canonical output
(what :class:`raf.conformance.implementation.FunctionImplementation` adapts)."""


def run_interaction(
    interaction: Interaction, dialect: str, chunking: str = "whole"
) -> InteractionOutput:
    """raf's canonical output for one interaction under one chunking, of the body as a
    client reads it (decoded from its ``content-encoding``).

    Raises:
        BodyNotDecoded: the body has a ``content-encoding`` and does not decode.
    """
    response = interaction.response
    body = response.content()
    return output_for(response.status, response.reason, chunk(body, chunking), dialect)


def output_for(
    status: int, reason: str, chunks: Sequence[bytes], dialect: str
) -> InteractionOutput:
    """raf's canonical output for a response with ``status``, whose body arrives in
    ``chunks``."""
    if not 200 <= status < 300:
        error = http_error(status, reason, b"".join(chunks))
        updates = UpdateDecoder(dialect).fail(error)
        results = Pipeline(dialect).fail(error)
    else:
        updates = list(iter_updates(chunks, dialect))
        results = list(run(chunks, dialect))
    return output_of(updates, results)


def output_of_reads(
    status: int, reason: str, reads: Sequence[bytes], dialect: str, failure: Exception | None
) -> InteractionOutput:
    """:func:`output_for` of a body read from the network, whose reading ended with
    ``failure`` (a dropped connection...) after ``reads``: the turn ends with a
    ``transport_error`` after what arrived, as :func:`raf.pipeline.drive` does."""
    if failure is None or not 200 <= status < 300:
        return output_for(status, reason, reads, dialect)

    def source() -> Iterator[bytes]:
        yield from reads
        raise failure

    updates: list[AgentResponseUpdate] = []
    results: list[AgentResponseResult] = []
    with contextlib.suppress(Exception):
        updates.extend(drive(UpdateDecoder(dialect), source()))
    with contextlib.suppress(Exception):
        results.extend(drive(Pipeline(dialect), source()))
    return output_of(updates, results)


def output_of(
    updates: Sequence[AgentResponseUpdate], results: Sequence[AgentResponseResult]
) -> InteractionOutput:
    """The canonical output of an interaction from its updates and results (the response is
    aggregated from the results).

    The response is the one conformance compares: its ``turn_transcript`` is left empty, as
    RAF's collect leaves it, since no level judges it (tests/test_turn_transcript.py checks
    raf's own against the cassettes; docs/deviations.md)."""
    return InteractionOutput(
        updates=to_canonical(updates),
        results=to_canonical(results),
        response=compared_response(collect_agent_response(results)),
    )


def compared_response(response: AgentResponse) -> dict[str, Any]:
    """The canonical form of ``response`` that goldens hold and conformance compares: its
    ``turn_transcript`` left empty, as RAF's collect leaves it (no level judges it), and
    ``rounds`` left out when empty (a single model turn has none; the tool loop's runs are judged
    by their own cases, docs/agent.md)."""
    canonical: dict[str, Any] = to_canonical(msgspec.structs.replace(response, turn_transcript=()))
    if not canonical.get("rounds"):
        canonical.pop("rounds", None)
    return canonical


def run_cassette(
    cassette: Cassette, chunking: str = "whole", implementation: OutputFunction = run_interaction
) -> list[InteractionOutput]:
    """The output of every interaction of ``cassette``."""
    dialect = cassette.info.dialect if cassette.info else "openai_chat"
    return [implementation(i, dialect, chunking) for i in cassette.interactions]


def golden_of(cassette: Cassette, scenario: str) -> Golden:
    """The golden raf's reference pipeline gives ``cassette`` (under the ``whole`` chunking)."""
    dialect = cassette.info.dialect if cassette.info else "openai_chat"
    return Golden(scenario=scenario, dialect=dialect, interactions=run_cassette(cassette))
