"""Run client adapters over the bundled scenarios and judge every cell at level ``response``.

For each adapter and each case of its dialects (one interaction of one cassette under one
chunking), :func:`run_client` starts the call against a :class:`~raf.serve.ReplayServer`
(one server for the whole run, a real loopback socket), waits for it in a worker thread
with a timeout, and judges what the library handed its user against the reviewed golden,
exactly as ``raf conform`` judges an implementation at level ``response``: text, reasoning,
tool calls, finish reason, usage and the presence of errors. What the library sent is
checked against the recorded request (:mod:`raf.serve.request_check`) and kept in the cell:
an adapter that asks a different question would make its cell meaningless.

Each case is judged by :func:`raf.conformance.runner.judge`, as ``raf conform`` judges it
(the other correct readings of the cassette accepted, every difference of a kind and a
severity). A cell is ``pass`` (``✓``), ``notice`` (``◐``: passed with notices only),
``fail`` (``✗``, with a short reason grouped by kind: "raised KeyError; lost: 1 of 3 calls,
usage", or "sent another request" when the request check found a difference: then the library
was asked another question than the one recorded) or ``skip`` (the case needs something the
library does not report, such as reasoning); cells of one scenario under several chunkings are
merged by :func:`merge` into the one a matrix shows.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from raf import formats
from raf.clients.base import Adapter, ClientCase, ClientRaised
from raf.conformance.cases import Case, load_suite
from raf.conformance.http import recorded_call
from raf.conformance.implementation import Outcome
from raf.conformance.levels import Mismatch
from raf.conformance.protocol import Result
from raf.conformance.runner import judge
from raf.conformance.severity import KINDS, MARKS
from raf.serve.request_check import RECEIVED, requested_framing
from raf.serve.server import ReplayServer
from raf.shared.case_paths import case_path
from raf.shared.client_response import ClientResponse

__all__ = [
    "DEFAULT_CHUNKINGS",
    "Cell",
    "judged",
    "merge",
    "never_received",
    "run_client",
    "short_reason",
]

DEFAULT_CHUNKINGS = ("whole", "random")
"""The chunkings every scenario is served with: one read, and cuts of 1-64 bytes."""

DEFAULT_TIMEOUT = 20.0


@dataclass
class Cell:
    """The verdict on one library for one case (or, merged, one scenario)."""

    client: str
    version: str
    scenario: str
    dialect: str
    status: str  # pass, notice (passed with notices only), fail, skip
    reason: str = ""
    chunkings: list[str] = field(default_factory=list)
    raised: str | None = None
    details: list[str] = field(default_factory=list)
    request: list[str] = field(default_factory=list)
    seconds: float = 0.0
    kinds: list[str] = field(default_factory=list)
    """The kinds of the differences that decided the status (failing ones, else notices)."""
    failing: list[Mismatch] = field(default_factory=list)
    """The differences that fail the cell, as the judge found them (not in the reports:
    ``raf fuzz --client`` tells its failures apart by them)."""

    @property
    def ok(self) -> bool:
        return self.status != "fail"

    @property
    def mark(self) -> str:
        """How the matrix shows the cell: ``✓``, ``◐`` and the notices, ``✗`` and what
        differs, ``-`` (skipped)."""
        if self.status == "skip":
            return "-"
        symbol = MARKS["fail" if self.status == "fail" else self.status]
        return f"{symbol} {self.reason}" if self.reason else symbol


def _call(adapter: Adapter, case: ClientCase, timeout: float) -> tuple[Any, BaseException | None]:
    """Run the adapter in a worker thread; (response, exception), or a timeout."""
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["response"] = adapter.run(case)
        except BaseException as exc:  # the library raised: that is its answer
            box["error"] = exc

    worker = threading.Thread(target=work, daemon=True, name=f"raf-client-{adapter.name}")
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        return None, TimeoutError(f"no answer within {timeout:g} s")
    return box.get("response"), box.get("error")


def short_reason(mismatches: Sequence[Mismatch], raised: str | None) -> str:
    """A few words for a matrix cell: what the library raised, then what differs, grouped
    by kind (``lost: text, usage; unreported: error``), the kinds in the order of
    :data:`raf.conformance.severity.KINDS`, at most three places each (``...`` when there is
    more)."""
    by_kind: dict[str, list[str]] = {}
    for m in mismatches:
        if m.where == "errors" and m.kind == "invented" and raised:
            continue  # raising is the invented error
        phrases = by_kind.setdefault(m.kind, [])
        phrase = _phrase(m)
        if phrase not in phrases:
            phrases.append(phrase)
    parts = ["raised " + raised.split(":", 1)[0]] if raised else []
    for kind in KINDS:
        found = by_kind.get(kind)
        if found:
            more = ", ..." if len(found) > 3 else ""
            parts.append(f"{kind}: {', '.join(found[:3])}{more}")
    return "; ".join(parts)


def _phrase(m: Mismatch) -> str:
    """What one mismatch is about, in a word or three (its kind is said beside it)."""
    where, got = m.where, m.actual
    if where == "tool_calls":
        want, have = _count(m.expected), _count(got)
        if want is None or have is None:
            return "calls"
        return f"{have} of {want} calls" if have < want else f"{have} calls for {want}"
    if where.endswith(".name"):
        name = got if len(got) <= 26 else got[:22] + '..."'
        return f"call name {name}"
    if where.endswith(".arguments"):
        return "arguments"
    if where.endswith(".id"):
        return "call id"
    if where == "text":
        return "text"
    if where == "reasoning_text":
        return "reasoning"
    if where == "finish_reason":
        return "finish reason" if m.kind == "lost" else f"finish reason {got}"
    if where == "usage":
        return "usage"
    if where.startswith("usage."):
        return where.removeprefix("usage.")
    if where == "errors":
        return "error"
    if where.startswith("errors"):
        return "error code"
    if where == "result":
        return "no result"
    return where


def _count(text: str) -> int | None:
    head = text.split(" ", 1)[0]
    return int(head) if head.isdigit() else None


def run_client(
    adapter: Adapter,
    server: ReplayServer,
    *,
    cassettes: Path,
    goldens: Path,
    chunkings: Sequence[str] = DEFAULT_CHUNKINGS,
    select: Sequence[str] = (),
    timeout: float = DEFAULT_TIMEOUT,
    on_cell: Callable[[Cell], None] | None = None,
) -> list[Cell]:
    """Every case of ``adapter``'s dialects, run and judged (one cell per case). The
    library is imported first, so its import time never counts against a case's timeout;
    ``RuntimeError`` when it cannot be imported."""
    missing = adapter.missing()
    if missing is not None:
        raise RuntimeError(missing)
    version = adapter.version() or "?"
    suite = load_suite(
        cassettes, goldens, chunkings=chunkings, select=select, dialects=adapter.dialects
    )
    cells = []
    for case in suite.cases:
        cell = run_case(adapter, version=version, server=server, case=case, timeout=timeout)
        cells.append(cell)
        if on_cell is not None:
            on_cell(cell)
    return cells


def run_case(
    adapter: Adapter,
    *,
    version: str,
    server: ReplayServer,
    case: Case,
    timeout: float = DEFAULT_TIMEOUT,
) -> Cell:
    """One case through one library; ``skip`` when the case needs what the library does
    not report (its capabilities), or when its recorded request asked for a framing the
    library never asks for (:attr:`Adapter.framings`: a response it never receives)."""
    cell = Cell(
        adapter.name, version, case.scenario, case.dialect, "pass", chunkings=[case.chunking]
    )
    missing = sorted(case.requires - set(adapter.capabilities))
    if missing:
        cell.status, cell.reason = "skip", f"does not report {', '.join(missing)}"
        return cell
    never = never_received(adapter.name, adapter.framings, case)
    if never:
        cell.status, cell.reason = "skip", never
        return cell
    method, path, body = recorded_call(case)
    prefix = case_path(
        case.dialect, case.scenario, chunking=case.chunking, interaction=case.interaction
    )
    client_case = ClientCase(
        dialect=case.dialect,
        scenario=case.scenario,
        server=server.url,
        prefix=prefix,
        request=body if isinstance(body, dict) else {},
        path=path,
        timeout=timeout,
        method=method,
    )
    mark = server.journal.count
    began = time.perf_counter()
    response, error = _call(adapter, client_case, timeout + 5)
    cell.seconds = time.perf_counter() - began
    raised = None
    if isinstance(error, ClientRaised):
        response, raised = error.partial, str(error)
    elif error is not None:
        raised = f"{type(error).__name__}: {error}"
    if response is not None and not isinstance(response, ClientResponse):
        cell.status, cell.reason = "fail", f"the adapter returned {type(response).__name__}"
        return cell
    entries = [
        e for e in server.journal.since(mark) if e.get("case") == f"{case.dialect}/{case.scenario}"
    ]
    request: list[str] = []
    if entries:
        check = entries[0].get("check") or {}
        request = list(check.get("mismatches") or [])
    return judged(
        cell,
        case,
        response=response,
        raised=raised,
        request=request,
        capabilities=adapter.capabilities,
    )


def judged(
    cell: Cell,
    case: Case,
    *,
    response: ClientResponse | None,
    raised: str | None,
    request: Sequence[str],
    capabilities: Sequence[str],
) -> Cell:
    """``cell`` with the verdict on what a library handed its user for ``case``
    (``response``, what it ``raised``) and on its request (``request``: how it differs from
    the recorded one), as ``raf conform`` judges a case at level ``response``."""
    cell.raised = raised
    cell.request = list(request)
    verdict = judge(
        case,
        Outcome(Result(id=case.id, response=response, raised=raised)),
        "response",
        set(capabilities),
    )
    failing = [d.mismatch for d in verdict.differences if d.fails]
    notices = [d.mismatch for d in verdict.differences if not d.fails]
    cell.failing = list(failing)
    cell.kinds = list(dict.fromkeys(m.kind for m in failing))
    if failing:
        cell.status = "fail"
        cell.reason = short_reason(failing, raised)
    elif notices:
        cell.status = "notice"
        cell.reason = short_reason(notices, None)
        cell.kinds = list(dict.fromkeys(m.kind for m in notices))
    cell.details = [f"{d.mismatch.kind}: {d.mismatch.summary()}" for d in verdict.differences]
    if cell.request:  # the library was asked another question: its answer means nothing
        cell.status = "fail"
        cell.kinds = list(dict.fromkeys(["wrong", *cell.kinds]))
        cell.reason = f"sent another request ({cell.request[0]})"
        cell.details = [f"request: {r}" for r in cell.request] + cell.details
    return cell


def never_received(name: str, framings: Sequence[str], case: Case) -> str:
    """Why the library of column ``name``, which only ever asks for ``framings`` (empty:
    what the recording asked for), never receives the response of ``case`` (its recorded
    request asked for another framing), or ``""``."""
    uri = case.request.uri if case.request is not None else None
    framing = requested_framing(case.dialect, uri)
    if not framings or framing is None or framing in framings:
        return ""
    shape = formats.get(case.dialect).request_url
    asked = " or ".join(shape.asks(f) if shape else f for f in framings)
    return f"{name} always asks for {asked}: it never receives {RECEIVED[framing]}"


def merge(cells: Iterable[Cell]) -> list[Cell]:
    """One cell per (client, scenario): failed if any chunking failed (the reason names the
    chunkings when not all of them failed)."""
    groups: dict[tuple[str, str, str], list[Cell]] = {}
    for cell in cells:
        groups.setdefault((cell.client, cell.dialect, cell.scenario), []).append(cell)
    out = []
    for group in groups.values():
        first = group[0]
        failed = [c for c in group if c.status == "fail"]
        noticed = [c for c in group if c.status == "notice"]
        skipped = all(c.status == "skip" for c in group)
        status = "skip" if skipped else "fail" if failed else "notice" if noticed else "pass"
        merged = Cell(
            first.client,
            first.version,
            first.scenario,
            first.dialect,
            status,
            chunkings=[c for cell in group for c in cell.chunkings],
            seconds=sum(c.seconds for c in group),
        )
        shown = failed or noticed
        if shown:
            reasons = list(dict.fromkeys(c.reason for c in shown))
            merged.reason = " | ".join(reasons)
            failing = list(dict.fromkeys(c for f in shown for c in f.chunkings))
            if set(failing) < {c for cell in group for c in cell.chunkings}:
                merged.reason += f" (under {', '.join(failing)})"
            merged.raised = shown[0].raised
            merged.details = shown[0].details
            merged.kinds = list(dict.fromkeys(k for c in shown for k in c.kinds))
        elif skipped:
            merged.reason = first.reason
        merged.request = list(dict.fromkeys(r for c in group for r in c.request))
        out.append(merged)
    return out
