"""Columns of the matrix that are programs: a client in any language, speaking
``raf-conformance/1`` (docs/protocol.md) and making its requests itself (``http`` cases).

Two kinds:

* the Node.js adapters raf ships, one ES module per npm library in ``raf/clients/node/``
  (written with the Node kit, ``raf kit node``), found by :func:`node_clients`: the file's
  name is the column's name, its hello says the rest (dialects, capabilities, the library and
  its version, how its user reads the result);
* any program, ``raf clients --impl CMD --name NAME``: a team's own stack beside the
  libraries.

A program is started once per section of the matrix, in a process group of its own
(:class:`~raf.conformance.stdio.StdioImplementation`: its timeouts, restarts and reaping),
and every case of its dialects is sent to it as an ``http`` case on the matrix's
:class:`~raf.serve.ReplayServer`; a hello with the capability ``tool_loop`` also gets one
``tool_loop`` case per tool-loop recording and chunking. Its results are judged exactly as
a Python adapter's (:func:`raf.client_matrix.run.judged`,
:func:`raf.client_matrix.tool_loops.judged_loop`): the same cells, the same reasons.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import raf.clients
from raf.cassettes.tool_loops import ToolLoopSpec
from raf.client_matrix.run import (
    DEFAULT_CHUNKINGS,
    DEFAULT_TIMEOUT,
    Cell,
    judged,
    never_received,
)
from raf.client_matrix.tool_loops import LoopCell, judged_loop
from raf.clients import NODE_FOLDER
from raf.conformance.cases import Case, load_suite
from raf.conformance.implementation import Outcome
from raf.conformance.protocol import ImplementationHello
from raf.conformance.stdio import ImplementationFailed, StdioImplementation
from raf.conformance.tool_loop import load_tool_loop_cases
from raf.serve.server import ReplayServer
from raf.shared.client_response import ClientResponse

__all__ = [
    "NODE_FOLDER",
    "OutsideClient",
    "Session",
    "node_clients",
    "run_outside",
    "run_outside_loops",
    "stream_cell",
]


_NO_REQUEST = "no request for this case reached raf serve"


@dataclass(frozen=True)
class OutsideClient:
    """A column that is a program.

    Attributes:
        name: the column's name.
        command: the program and its arguments.
        language: shown beside the name (``Node.js``; empty for ``--impl``).
        source: the file that defines it (a Node adapter's module), for the reader.
        missing: why it cannot run here (Node.js or the npm libraries not installed), or
            ``None``.
    """

    name: str
    command: tuple[str, ...]
    language: str = ""
    source: str = ""
    missing: str | None = None


def node_clients(folder: Path | None = None) -> dict[str, OutsideClient]:
    """The Node.js adapters in ``folder`` (default: :data:`raf.clients.NODE_FOLDER`), by name
    (the module's file name without ``.mjs``), in name order. Each is ``missing`` when
    ``node`` is not on the ``PATH`` or the npm libraries are not installed beside them
    (``cd FOLDER && npm ci``)."""
    folder = raf.clients.NODE_FOLDER if folder is None else folder
    node = shutil.which("node")
    missing = None
    if node is None:
        missing = "Node.js is not installed (no node on the PATH)"
    elif not (folder / "node_modules").is_dir():
        missing = f"the npm libraries are not installed: (cd {folder} && npm ci)"
    return {
        path.stem: OutsideClient(
            path.stem,
            (node or "node", str(path)),
            language="Node.js",
            source=str(path),
            missing=missing,
        )
        for path in sorted(folder.glob("*.mjs"), key=lambda path: path.stem)
    }


@dataclass
class Session:
    """One program, started and greeted: its hello (``None`` and ``missing`` when it could
    not be started or did not answer)."""

    client: OutsideClient
    implementation: StdioImplementation | None = None
    hello: ImplementationHello | None = None
    missing: str | None = None
    restarts: list[str] = field(default_factory=list)

    @classmethod
    def open(
        cls,
        client: OutsideClient,
        server: ReplayServer,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        loop_server: ReplayServer | None = None,
    ) -> Session:
        if client.missing is not None:
            return cls(client, missing=client.missing)
        implementation = StdioImplementation(
            list(client.command),
            timeout=timeout,
            server=server,
            loop_server=loop_server,
            env=dict(os.environ) | {"NO_COLOR": "1"},
            hello_timeout=30.0,
        )
        try:
            hello = implementation.hello()
        except ImplementationFailed as exc:
            implementation.close(abort=True)
            return cls(client, missing=str(exc))
        return cls(client, implementation, hello)

    @property
    def version(self) -> str:
        return self.hello.version if self.hello is not None else ""

    @property
    def dialects(self) -> tuple[str, ...]:
        return tuple(self.hello.dialects) if self.hello is not None else ()

    @property
    def capabilities(self) -> tuple[str, ...]:
        return tuple(self.hello.capabilities) if self.hello is not None else ()

    @property
    def how(self) -> str:
        """How its user reads the result, as its hello says (its library is a field of the
        column of its own)."""
        return (self.hello.how or "") if self.hello is not None else ""

    @property
    def streams(self) -> bool:
        """Whether it takes one-request cases (it declares the level ``response``)."""
        return self.hello is not None and "response" in self.hello.levels

    @property
    def loops(self) -> bool:
        """Whether it runs its own tool loop (the capability ``tool_loop``)."""
        return self.hello is not None and "tool_loop" in self.hello.capabilities

    def close(self) -> None:
        if self.implementation is not None:
            self.implementation.close()
            self.implementation = None

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.implementation is not None:
            self.implementation.close(abort=exc[0] is not None)
            self.implementation = None


def _answer(outcome: Outcome) -> tuple[ClientResponse | None, str | None]:
    """What the program handed its user, and what it raised (a case it did not answer, for
    a crash or a timeout, counts as raising that)."""
    if outcome.result is None:
        return None, f"AdapterFailed: {outcome.failure or 'no result'}"
    return outcome.result.response, outcome.result.raised


def run_outside(
    session: Session,
    *,
    cassettes: Path,
    goldens: Path,
    chunkings: Sequence[str] = DEFAULT_CHUNKINGS,
    select: Sequence[str] = (),
    on_cell: Callable[[Cell], None] | None = None,
) -> list[Cell]:
    """Every case of the program's dialects, as an ``http`` case, judged at level
    ``response`` (one cell per case)."""
    implementation = session.implementation
    if implementation is None:
        raise RuntimeError(session.missing or "not started")
    suite = load_suite(
        cassettes, goldens, chunkings=chunkings, select=select, dialects=session.dialects
    )
    cells = []
    for case in suite.cases:
        cell = stream_cell(session, implementation, case)
        cells.append(cell)
        if on_cell is not None:
            on_cell(cell)
    return cells


def stream_cell(session: Session, implementation: StdioImplementation, case: Case) -> Cell:
    """One ``http`` case through the program, judged as a library's cell is (``skip`` when
    it needs what the program does not report, or a framing it never asks for)."""
    name, version = session.client.name, session.version
    cell = Cell(name, version, case.scenario, case.dialect, "pass", chunkings=[case.chunking])
    missing = sorted(case.requires - set(session.capabilities))
    if missing:
        cell.status, cell.reason = "skip", f"does not report {', '.join(missing)}"
        return cell
    never = never_received(name, session.hello.framings if session.hello else [], case)
    if never:
        cell.status, cell.reason = "skip", never
        return cell
    outcome = implementation.run(case, "response")
    response, raised = _answer(outcome)
    request = [p for p in outcome.request_problems if p != _NO_REQUEST]
    return judged(
        cell,
        case,
        response=response,
        raised=raised,
        request=request,
        capabilities=session.capabilities,
    )


def run_outside_loops(
    session: Session,
    *,
    folder: Path,
    specs: Sequence[ToolLoopSpec],
    chunkings: Sequence[str] = DEFAULT_CHUNKINGS,
    select: Sequence[str] = (),
    on_cell: Callable[[LoopCell], None] | None = None,
) -> list[LoopCell]:
    """Every tool-loop recording of the program's dialects under ``folder``, under each
    chunking, as a ``tool_loop`` case, judged at levels ``response`` and ``requests`` (one
    cell per run)."""
    implementation = session.implementation
    if implementation is None:
        raise RuntimeError(session.missing or "not started")
    by_case = {spec.case: spec for spec in specs}
    suite = load_tool_loop_cases(
        [folder], chunkings=chunkings, select=select, dialects=session.dialects
    )
    cells = []
    for case in suite.cases:
        spec = case.loop
        if spec is None or spec.case not in by_case:
            continue
        cell = LoopCell(
            session.client.name,
            session.version,
            spec.scenario,
            spec.dialect,
            chunkings=[case.chunking],
        )
        outcome = implementation.run(case, "requests")
        response, raised = _answer(outcome)
        cell = judged_loop(
            cell,
            spec,
            response=response,
            raised=raised,
            entries=outcome.requests,
            capabilities=session.capabilities,
        )
        cells.append(cell)
        if on_cell is not None:
            on_cell(cell)
    return cells
