"""Fuzzing the libraries of the real-client matrix (``raf fuzz --client NAME``).

Each generated stream is served by ``raf serve`` on 127.0.0.1 (:class:`~raf.fuzz.check.LiveCases`,
one case at a time, cut into the stream's exact network reads), the library is driven by its
adapter exactly as ``raf clients`` drives it (:func:`raf.client_matrix.run.run_case` for a
Python library, :func:`raf.client_matrix.outside.stream_cell` for a Node.js one), and what it
handed its user is judged at level ``response`` as the matrix judges a cell
(:func:`raf.client_matrix.run.judged`). A stream that needs what the library does not report
(reasoning, tool calls...) or that comes in a framing it never asks for is skipped, as the
matrix skips such a cell: a library is never blamed for a capability it lacks.

A library's failure differs from another by its first failing difference, as for any
implementation; a library that *raised* differs by the exception's type too (``raised
JSONDecodeError``), since that is what its user sees. A request that differs from the
recorded one comes first: then the library was asked another question, and its answer means
nothing.

    with open_library("openai", live) as library:
        campaign = fuzz(streams("openai_chat"), library.check, seconds=60)
"""

from __future__ import annotations

import contextlib
import itertools
import re
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import msgspec

from raf.cassettes.format import Cassette
from raf.client_matrix.outside import Session, node_clients, stream_cell
from raf.client_matrix.run import DEFAULT_TIMEOUT, Cell, run_case
from raf.clients import adapter as python_adapter
from raf.clients import names as python_names
from raf.conformance.cases import Case
from raf.conformance.levels import Mismatch
from raf.conformance.reference import output_for
from raf.conformance.requests_level import request_line_mismatch
from raf.fuzz.campaign import Finding, StopCampaign
from raf.fuzz.cassette import finding_cassette, signature
from raf.fuzz.check import LiveCases, fuzz_case, reference_check
from raf.fuzz.generate import FuzzStream

__all__ = [
    "ALL",
    "Library",
    "LibraryMissing",
    "ToolLoopsOnly",
    "library_cassette",
    "library_names",
    "open_library",
    "raised_mismatch",
]

ALL = "all"
"""The name that stands for every installed library of the stream matrix."""


class LibraryMissing(Exception):
    """The library cannot run here (not installed, or its program did not start)."""


class ToolLoopsOnly(LibraryMissing):
    """The column is a library's own tool loop: it takes no one-request case."""


def library_names() -> list[str]:
    """Every library of the stream matrix, by its column's name: the Python adapters, then
    the Node.js ones (those that take one-request cases are known only once started)."""
    return python_names() + list(node_clients())


@dataclass
class Library:
    """One library, ready to be fuzzed: its ``check`` for :func:`raf.fuzz.campaign.fuzz`.

    Attributes:
        name: its column's name in the matrix (``openai``, ``openai-node``).
        version: the installed version of the library.
        distribution: the package it is (``openai``, ``@ai-sdk/openai``).
        dialects: the wire formats it reads.
        capabilities: what it reports (docs/clients.md).
        skipped: streams not run (what they need, the library does not report).
        last_skip: why the last one was skipped.
        run: how one case goes through it (a matrix cell).
    """

    name: str
    version: str
    distribution: str
    dialects: tuple[str, ...]
    capabilities: tuple[str, ...]
    run: Callable[[Case], Cell]
    live: LiveCases
    skipped: int = 0
    last_skip: str = ""
    _numbers: Iterator[int] = field(default_factory=itertools.count)

    @property
    def label(self) -> str:
        return f"{self.name} {self.version}".strip()

    def check(self, stream: FuzzStream) -> Sequence[Mismatch]:
        """The failing differences of the library on ``stream`` (empty: it passed, or the
        stream was skipped); raf's own reference is checked against the ground truth first
        (:func:`raf.fuzz.check.reference_check`: a disagreement is raf's bug, the library is
        not run)."""
        output = output_for(200, "OK", [r for r in stream.chunks if r], stream.format)
        wrong = reference_check(stream, output)
        if wrong:
            return wrong
        case = fuzz_case(stream, output, f"fuzz_{next(self._numbers)}")
        self.live.put(case)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the library's own notices are not findings
            cell = self.run(case)
        if cell.status == "skip":
            self.skipped += 1
            self.last_skip = cell.reason
            return []
        if cell.status != "fail":
            return []
        return cell_failures(cell)


def cell_failures(cell: Cell) -> list[Mismatch]:
    """The differences that fail a matrix cell, the one that tells it apart first: what its
    request got wrong (the library was asked another question), then what it raised, then
    what it handed its user."""
    out = [request_line_mismatch(line, "request", "request") for line in cell.request]
    failing = list(cell.failing)
    if cell.raised:
        out.append(raised_mismatch(cell.raised, failing))
    return out + failing


def raised_mismatch(raised: str, failing: Sequence[Mismatch]) -> Mismatch:
    """The library raised ``raised`` (``JSONDecodeError: ...``): a difference placed at
    ``raised <type>``, so that each exception is a failure of its own. Its kind is
    ``invented`` where the stream said no error, else (raising was a way to report the
    stream's error) the kind of the first failing difference: what the user lost by it."""
    invented = any(m.key == "errors" and m.kind == "invented" for m in failing)
    kind = "invented" if invented or not failing else failing[0].kind
    error = raised.split(":", 1)[0].strip() or "an exception"
    return Mismatch("errors", "no exception", raised, kind=kind, field=f"raised {error}")


def library_cassette(library: Library, finding: Finding) -> Cassette:
    """A finding's cassette, as ``raf fuzz -o DIR`` writes it
    (:func:`raf.fuzz.cassette.finding_cassette`), named and titled by the library and its
    version: scenario ``fuzz_<format>_<library>_<digest>``."""
    cassette = finding_cassette(finding.stream, finding.mismatches, seed=finding.seed)
    info = cassette.info
    assert info is not None
    sig = signature(finding.stream, finding.mismatches)
    slug = re.sub(r"[^a-z0-9]+", "_", library.name.lower()).strip("_")
    notes = (
        f"Found by raf fuzz --client {library.name} ({library.distribution} {library.version}). "
    )
    info = msgspec.structs.replace(
        info,
        scenario=f"fuzz_{finding.stream.format}_{slug}_{sig.digest}",
        title=f"{library.label}: {info.title}",
        notes=notes + (info.notes or ""),
    )
    return msgspec.structs.replace(cassette, info=info)


@contextlib.contextmanager
def open_library(
    name: str, live: LiveCases, *, timeout: float = DEFAULT_TIMEOUT
) -> Iterator[Library]:
    """The library of the matrix's column ``name``, driven against ``live``'s server (a
    Node.js library's program is started here and stopped on leaving). ``KeyError`` for an
    unknown name, :class:`LibraryMissing` when it cannot run here."""
    if name in python_names():
        chosen = python_adapter(name)
        missing = chosen.missing()
        if missing is not None:
            raise LibraryMissing(missing)
        version = chosen.version() or "?"

        def run(case: Case) -> Cell:
            return run_case(chosen, version=version, server=live.server, case=case, timeout=timeout)

        yield Library(
            name,
            version,
            chosen.distribution,
            chosen.dialects,
            chosen.capabilities,
            run,
            live,
        )
        return
    programs = node_clients()
    if name not in programs:
        raise KeyError(f"unknown client {name!r}; use one of {', '.join(library_names())}")
    with Session.open(programs[name], live.server, timeout=timeout) as session:
        if session.missing is not None or session.implementation is None:
            raise LibraryMissing(session.missing or "not started")
        if not session.streams:
            raise ToolLoopsOnly(f"{name} runs tool loops only, not one-request cases")
        implementation = session.implementation

        def run_node(case: Case) -> Cell:
            cell = stream_cell(session, implementation, case)
            gave_up = getattr(implementation, "_given_up", None)  # the program cannot go on
            if gave_up:
                raise StopCampaign(str(gave_up))
            return cell

        hello = session.hello
        yield Library(
            name,
            session.version,
            (hello.library if hello is not None else "") or name,
            session.dialects,
            session.capabilities,
            run_node,
            live,
        )
