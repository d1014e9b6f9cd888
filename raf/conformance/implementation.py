"""What the runner needs of an implementation under test, and the in-process ones. No IO.

An :class:`Implementation` says hello once (:class:`~raf.conformance.protocol.ImplementationHello`:
its dialects, levels and capabilities) and then runs cases: :meth:`Implementation.run` takes a
:class:`~raf.conformance.cases.Case` and the level, and returns an :class:`Outcome` (the
:class:`~raf.conformance.protocol.Result` it produced, or why it produced none) without ever
raising. Three kinds exist:

* :class:`ReferenceImplementation`: raf's own pipeline, in this process (all levels, all
  capabilities): what the goldens hold.
* :class:`FunctionImplementation`: a Python function ``(interaction, dialect, chunking) ->
  InteractionOutput`` (canonical updates, results and response), for a client written in
  Python and driven from a test.
* :class:`raf.conformance.stdio.StdioImplementation`: any program speaking the stdio protocol
  (docs/protocol.md).
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from typing import Any, Protocol

import msgspec

from raf.conformance.cases import Case
from raf.conformance.goldens import InteractionOutput
from raf.conformance.protocol import (
    CAPABILITIES,
    LEVELS,
    PROTOCOL,
    ImplementationHello,
    Result,
)
from raf.conformance.reference import OutputFunction
from raf.shared.client_response import ClientResponse

__all__ = [
    "FunctionImplementation",
    "Implementation",
    "Outcome",
    "ReferenceImplementation",
    "result_of",
]


@dataclass(frozen=True)
class Outcome:
    """What running one case gave: the implementation's ``result``, or ``failure`` (why it
    gave none: a timeout, a crash, a malformed line, a result that breaks the schema...), and
    what it wrote to its standard error meanwhile (``stderr``), and for an ``http`` case what
    was wrong with its request."""

    result: Result | None = None
    failure: str | None = None
    stderr: str = ""
    request_problems: tuple[str, ...] = ()
    """For an ``http`` case: what is wrong with the request the client sent (none reached
    the server, or it differs from the recorded one)."""
    requests: tuple[dict[str, Any], ...] = ()
    """For a ``tool_loop`` case: the journal entries of the requests of its run, in the order
    they reached the server (``raf serve``'s journal, docs/serve.md)."""
    give_up: str | None = None
    """Set when the implementation cannot go on (it cannot be started again, or it timed out
    too many times in a row): the one message to show for the whole run. ``failure`` still
    explains this case; every later :meth:`Implementation.run` returns at once with the same
    ``give_up`` and runs nothing."""


class Implementation(Protocol):
    """An implementation under test."""

    def hello(self) -> ImplementationHello:
        """Its answer to the protocol's hello (called once, before any case)."""
        ...

    def run(self, case: Case, level: str) -> Outcome:
        """Run one case; never raises."""
        ...

    def close(self, *, abort: bool = False) -> None:
        """Done with it (stop the process, if any); ``abort``: at once, without waiting for
        it to finish on its own (Ctrl-C, SIGTERM)."""
        ...


def result_of(case_id: str, output: InteractionOutput) -> Result:
    """The protocol result that carries a canonical output (all three levels)."""
    return Result(
        id=case_id,
        response=msgspec.convert(output.response, ClientResponse),
        results=output.results,
        updates=output.updates,
    )


_NO_LOOP = "an implementation in this process runs no tool_loop case (raf conform --transport http)"


class FunctionImplementation:
    """A Python function ``(interaction, dialect, chunking) -> InteractionOutput`` as an
    implementation: every level, the capabilities given. An exception it raises is the
    client raising (``raised``), with no partial response."""

    def __init__(
        self,
        function: OutputFunction,
        *,
        name: str = "python-function",
        version: str = "",
        dialects: tuple[str, ...] = ("openai_chat",),
        capabilities: tuple[str, ...] = tuple(CAPABILITIES),
    ) -> None:
        self.function = function
        self._hello = ImplementationHello(
            protocol=PROTOCOL,
            name=name,
            version=version,
            dialects=list(dialects),
            levels=list(LEVELS),
            capabilities=list(capabilities),
        )

    def hello(self) -> ImplementationHello:
        return self._hello

    def run(self, case: Case, level: str) -> Outcome:
        del level
        if case.loop is not None:
            return Outcome(failure=_NO_LOOP)
        try:
            output = self.function(case.to_interaction(), case.dialect, case.chunking)
        except Exception as exc:  # the client under test raised: that is its answer
            return Outcome(
                Result(id=case.id, raised=f"{type(exc).__name__}: {exc}"),
                stderr="".join(traceback.format_exception(exc))[-4000:],
            )
        try:
            return Outcome(result_of(case.id, output))
        except msgspec.ValidationError as exc:
            return Outcome(failure=f"its response is not an agent_response: {exc}")

    def close(self, *, abort: bool = False) -> None:
        del abort


class ReferenceImplementation(FunctionImplementation):
    """raf's reference pipeline, in this process."""

    def __init__(self) -> None:
        from raf import __version__, dialects  # noqa: PLC0415 - avoid a cycle at import time
        from raf.conformance.reference import run_interaction  # noqa: PLC0415

        super().__init__(
            run_interaction,
            name="raf-reference",
            version=__version__,
            dialects=tuple(dialects.names()),
        )

    def run(self, case: Case, level: str) -> Outcome:
        from raf.conformance.reference import output_for  # noqa: PLC0415

        del level
        if case.loop is not None:
            return Outcome(failure=_NO_LOOP)
        return Outcome(
            result_of(case.id, output_for(case.status, case.reason, case.chunks(), case.dialect))
        )
