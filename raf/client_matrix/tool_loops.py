"""Run client libraries' own tool loops over the tool-loop recordings, and judge every run at
levels ``response`` and ``requests``.

For each tool-loop adapter (:class:`~raf.clients.base.ToolLoopAdapter`) and each tool-loop
recording of its dialects (:func:`raf.cassettes.tool_loops.tool_loop_specs`), under each
chunking, :func:`run_tool_loops` runs the library's loop once against one
:class:`~raf.serve.ReplayServer` serving the recordings (a real loopback socket, its request
rules on): each run has its own name (``/r/<run>`` in the prefix), so the server answers its
requests in their own order and marks them in the journal. The loop runs in a worker thread
with a timeout; then two verdicts:

- ``response``: what the library handed its user at the end (the last round's answer)
  against the recording's reviewed final response (``raf.expect``), compared as the stream
  matrix compares a cell (:func:`raf.conformance.levels.compare_response`, the same kinds and
  severities);
- ``requests``: every request of the run, from the server's journal, by
  :func:`raf.conformance.requests_level.judge_requests`: the request rules each broke (by id),
  the differences from the recorded request, too few or too many requests.

A cell shows both (``✓ / ✗ wrong: rule anthropic.thinking_first``); cells of one recording
under several chunkings are merged by :func:`merge_loops`.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from raf.cassettes.tool_loops import ToolLoopSpec
from raf.client_matrix.run import DEFAULT_CHUNKINGS, short_reason
from raf.clients.base import ClientRaised, ToolLoopAdapter, ToolLoopCase
from raf.conformance.levels import Mismatch, compare_response
from raf.conformance.requests_level import judge_requests
from raf.conformance.severity import KINDS, MARKS, Policy
from raf.serve.server import ReplayServer
from raf.shared.case_paths import case_path
from raf.shared.client_response import ClientResponse, ClientUsage

__all__ = [
    "DEFAULT_CHUNKINGS",
    "DEFAULT_TIMEOUT",
    "LoopCell",
    "Verdict",
    "expected_response",
    "judged_loop",
    "merge_loops",
    "requests_reason",
    "run_tool_loop",
    "run_tool_loops",
    "selected",
]

DEFAULT_TIMEOUT = 60.0
"""Seconds one run of a library's tool loop may take (every round of it)."""


@dataclass
class Verdict:
    """One level's verdict on a run: ``pass``, ``notice`` (passed with notices only) or
    ``fail``, the few words a cell shows, the kinds that decided it and every difference."""

    status: str = "pass"
    reason: str = ""
    kinds: list[str] = field(default_factory=list)
    details: list[str] = field(default_factory=list)

    @property
    def mark(self) -> str:
        symbol = MARKS["fail" if self.status == "fail" else self.status]
        return f"{symbol} {self.reason}" if self.reason else symbol

    def to_builtins(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "reason": self.reason,
            "kinds": self.kinds,
            "details": self.details,
        }


@dataclass
class LoopCell:
    """The verdicts on one library's tool loop for one recording (merged: over its
    chunkings)."""

    client: str
    version: str
    scenario: str
    dialect: str
    response: Verdict = field(default_factory=Verdict)
    requests: Verdict = field(default_factory=Verdict)
    skip: str = ""
    """Why the recording is not a cell of the library (empty: it is)."""
    rules: list[str] = field(default_factory=list)
    """The ids of the request rules the run's requests broke, in order of first breach."""
    sent: int = 0
    """How many requests the run sent (the most of any chunking, when merged)."""
    chunkings: list[str] = field(default_factory=list)
    raised: str | None = None
    seconds: float = 0.0

    @property
    def status(self) -> str:
        """``skip``, ``fail`` when either level fails, ``notice`` when either has notices
        only, else ``pass``."""
        if self.skip:
            return "skip"
        both = (self.response.status, self.requests.status)
        return "fail" if "fail" in both else "notice" if "notice" in both else "pass"

    @property
    def ok(self) -> bool:
        return self.status != "fail"

    @property
    def mark(self) -> str:
        """``response / requests``: ``✓ / ✗ wrong: rule anthropic.thinking_first``; ``-``
        when skipped."""
        if self.skip:
            return "-"
        return f"{self.response.mark} / {self.requests.mark}"

    def to_builtins(self) -> dict[str, Any]:
        return {
            "client": self.client,
            "scenario": self.scenario,
            "dialect": self.dialect,
            "ok": self.ok,
            "status": self.status,
            "response": self.response.to_builtins(),
            "requests": self.requests.to_builtins(),
            "rules": self.rules,
            "sent": self.sent,
            "raised": self.raised,
            "skip": self.skip,
        }


def expected_response(expect: Mapping[str, Any]) -> dict[str, Any]:
    """A recording's ``raf.expect`` (the reviewed final response) as the canonical response
    the ``response`` level compares with: ``reasoning`` is ``reasoning_text``, the error and
    notice codes are errors and notices with those codes."""
    return {
        "text": expect.get("text") or "",
        "reasoning_text": expect.get("reasoning"),
        "tool_calls": list(expect.get("tool_calls") or []),
        "finish_reason": expect.get("finish_reason"),
        "usage": expect.get("usage"),
        "errors": [{"error_code": code} for code in expect.get("errors") or []],
        "notices": [{"error_code": code} for code in expect.get("notices") or []],
    }


def _three_counts(response: ClientResponse | None) -> ClientResponse | None:
    """``response`` with its usage cut to the three counts: a recording's expectation states
    those only (as :func:`raf.conformance.review.expectation_problems` compares them), so a
    richer count the provider did send is neither missing nor invented."""
    if response is None or response.usage is None:
        return response
    u = response.usage
    three = ClientUsage(
        prompt_tokens=u.prompt_tokens,
        completion_tokens=u.completion_tokens,
        total_tokens=u.total_tokens,
    )
    return msgspec.structs.replace(response, usage=three)


def _call(
    adapter: ToolLoopAdapter, case: ToolLoopCase, timeout: float
) -> tuple[Any, BaseException | None]:
    """Run the adapter in a worker thread; (response, exception), or a timeout."""
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["response"] = adapter.run(case)
        except BaseException as exc:  # the library raised: that is its answer
            box["error"] = exc

    worker = threading.Thread(target=work, daemon=True, name=f"raf-tool-loop-{adapter.name}")
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        return None, TimeoutError(f"no final answer within {timeout:g} s")
    return box.get("response"), box.get("error")


def _verdict(
    mismatches: Sequence[Mismatch], reason: Callable[[Sequence[Mismatch]], str]
) -> Verdict:
    policy = Policy()
    failing = [m for m in mismatches if policy.fails(m.kind)]
    notices = [m for m in mismatches if not policy.fails(m.kind)]
    verdict = Verdict(details=[f"{m.kind}: {m.summary()}" for m in mismatches])
    shown = failing or notices
    if shown:
        verdict.status = "fail" if failing else "notice"
        verdict.reason = reason(shown)
        verdict.kinds = list(dict.fromkeys(m.kind for m in shown))
    return verdict


def requests_reason(mismatches: Sequence[Mismatch]) -> str:
    """A few words for the requests half of a cell: the rules broken by id, the requests
    that differ from the recorded ones by place, and the count, grouped by kind
    (``wrong: rule anthropic.thinking_first, messages[].reasoning_content; lost: 3 of 4
    requests``),
    at most three places a kind (``...`` when there are more)."""
    by_kind: dict[str, list[str]] = {}
    for m in mismatches:
        field_ = m.field or m.where
        if ".rule:" in field_:
            phrase = "rule " + field_.split(".rule:", 1)[1]
        elif field_ == "requests.count":
            phrase = (
                f"{m.actual} of {m.expected}"
                if m.kind == "lost"
                else f"{m.actual} for {m.expected}"
            )
        else:  # a request check line: the place, its list positions left out
            head = m.where.split(": ", 1)
            place = head[1].split(": ", 1)[0] if len(head) == 2 else m.where
            phrase = re.sub(r"\[\d+\]", "[]", place)
        phrases = by_kind.setdefault(m.kind, [])
        if phrase not in phrases:
            phrases.append(phrase)
    parts = []
    for kind in KINDS:
        found = by_kind.get(kind)
        if found:
            more = ", ..." if len(found) > 3 else ""
            parts.append(f"{kind}: {', '.join(found[:3])}{more}")
    return "; ".join(parts)


def _rules_of(entries: Iterable[Mapping[str, Any]]) -> list[str]:
    found: list[str] = []
    for entry in entries:
        for broken in entry.get("rules") or ():
            rule_id = str(broken.get("rule", ""))
            if rule_id and rule_id not in found:
                found.append(rule_id)
    return found


def run_tool_loop(
    adapter: ToolLoopAdapter,
    spec: ToolLoopSpec,
    *,
    version: str,
    server: ReplayServer,
    chunking: str,
    run: str,
    timeout: float = DEFAULT_TIMEOUT,
) -> LoopCell:
    """One run of ``adapter``'s tool loop over ``spec`` under ``chunking``, named ``run``
    (unique in the server's journal), judged at both levels."""
    cell = LoopCell(adapter.name, version, spec.scenario, spec.dialect, chunkings=[chunking])
    prefix = case_path(spec.dialect, spec.scenario, chunking=chunking) + f"/r/{run}"
    case = ToolLoopCase(spec=spec, server=server.url, prefix=prefix, timeout=timeout)
    mark = server.journal.count
    began = time.perf_counter()
    response, error = _call(adapter, case, timeout + 5)
    cell.seconds = time.perf_counter() - began
    raised = None
    if isinstance(error, ClientRaised):
        response, raised = error.partial, str(error)
    elif error is not None:
        raised = f"{type(error).__name__}: {error}"
    entries = [e for e in server.journal.since(mark) if e.get("run") == run]
    return judged_loop(
        cell,
        spec,
        response=response,
        raised=raised,
        entries=entries,
        capabilities=adapter.capabilities,
    )


def judged_loop(
    cell: LoopCell,
    spec: ToolLoopSpec,
    *,
    response: Any,
    raised: str | None,
    entries: Sequence[Mapping[str, Any]],
    capabilities: Sequence[str],
) -> LoopCell:
    """``cell`` with both verdicts on a run of a tool loop over ``spec``: what the library
    handed its user at the end (``response``, what it ``raised``), and every request of the
    run (``entries``: the server's journal entries of the run, in order)."""
    cell.raised = raised
    if response is not None and not isinstance(response, ClientResponse):
        cell.response = Verdict(
            "fail", f"the adapter returned {type(response).__name__}", ["lost"], []
        )
        response = None
    elif spec.expect is None:
        cell.response = Verdict("fail", "the recording has no raf.expect", ["lost"], [])
    else:
        mismatches = compare_response(
            expected_response(spec.expect),
            _three_counts(response),
            raised=raised,
            capabilities=capabilities,
        )
        cell.response = _verdict(mismatches, lambda shown: short_reason(shown, raised))
    cell.sent = len(entries)
    cell.rules = _rules_of(entries)
    cell.requests = _verdict(judge_requests(spec, list(entries)), requests_reason)
    return cell


def selected(spec: ToolLoopSpec, select: Sequence[str]) -> bool:
    """Whether ``spec`` is chosen by the ``-k`` patterns (a substring of
    ``<dialect>/<scenario>``, as ``raf conform`` takes them; none: every one)."""
    return not select or any(pattern in spec.case for pattern in select)


def run_tool_loops(
    adapter: ToolLoopAdapter,
    server: ReplayServer,
    specs: Sequence[ToolLoopSpec],
    *,
    chunkings: Sequence[str] = DEFAULT_CHUNKINGS,
    select: Sequence[str] = (),
    timeout: float = DEFAULT_TIMEOUT,
    on_cell: Callable[[LoopCell], None] | None = None,
) -> list[LoopCell]:
    """Every recording of ``adapter``'s dialects in ``specs`` (chosen by ``select``), under
    each chunking, one run each (one cell per run). The library is imported first, so its
    import time never counts against a run's timeout; ``RuntimeError`` when it cannot be
    imported."""
    missing = adapter.missing()
    if missing is not None:
        raise RuntimeError(missing)
    version = adapter.version() or "?"
    cells = []
    for spec in specs:
        if spec.dialect not in adapter.dialects or not selected(spec, select):
            continue
        for chunking in chunkings:
            run = f"{adapter.name}-{spec.scenario}-{chunking}-{server.journal.count}"
            cell = run_tool_loop(
                adapter,
                spec,
                version=version,
                server=server,
                chunking=chunking,
                run=run.replace("_", "-"),
                timeout=timeout,
            )
            cells.append(cell)
            if on_cell is not None:
                on_cell(cell)
    return cells


def _merged(verdicts: Sequence[tuple[Verdict, list[str]]]) -> Verdict:
    """One verdict of several chunkings' (each with its chunkings): the worst status, the
    reasons of the runs that had it (naming their chunkings when not all had it)."""
    for status in ("fail", "notice"):
        shown = [(v, c) for v, c in verdicts if v.status == status]
        if not shown:
            continue
        reasons = list(dict.fromkeys(v.reason for v, _ in shown))
        reason = " | ".join(reasons)
        if len(shown) < len(verdicts):
            reason += f" (under {', '.join(x for _, c in shown for x in c)})"
        return Verdict(
            status,
            reason,
            list(dict.fromkeys(k for v, _ in shown for k in v.kinds)),
            shown[0][0].details,
        )
    return Verdict()


def merge_loops(cells: Iterable[LoopCell]) -> list[LoopCell]:
    """One cell per (client, recording): each level failed if it failed under any
    chunking."""
    groups: dict[tuple[str, str, str], list[LoopCell]] = {}
    for cell in cells:
        groups.setdefault((cell.client, cell.dialect, cell.scenario), []).append(cell)
    out = []
    for group in groups.values():
        first = group[0]
        merged = LoopCell(
            first.client,
            first.version,
            first.scenario,
            first.dialect,
            response=_merged([(c.response, c.chunkings) for c in group]),
            requests=_merged([(c.requests, c.chunkings) for c in group]),
            skip=first.skip if all(c.skip for c in group) else "",
            rules=list(dict.fromkeys(r for c in group for r in c.rules)),
            sent=max(c.sent for c in group),
            chunkings=[x for c in group for x in c.chunkings],
            raised=next((c.raised for c in group if c.raised), None),
            seconds=sum(c.seconds for c in group),
        )
        out.append(merged)
    return out
