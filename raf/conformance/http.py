"""The ``http`` transport of ``raf-conformance/1``: a case is a request to make on ``raf
serve`` instead of chunks to feed. No IO here; the server is handed in.

``raf conform --transport http`` starts a :class:`~raf.serve.ReplayServer` on the suite's
cassettes, and every case becomes an ``http`` case (docs/protocol.md): its ``request`` says
where to send what (the recorded request, to the case's prefix with its chunking and its
interaction pinned), and the client answers with its result as before. Two more things are
judged: that a request reached the server at all, and that it matches the recorded one
(:mod:`raf.serve.request_check`); a mismatch fails the case, naming the field.

A ``tool_loop`` case (:mod:`raf.conformance.tool_loop`) is sent on a run of its own
(``.../r/<run>``, :func:`http_request`), and :func:`run_entries` reads the journal entries of
its requests for the ``requests`` level.
"""

from __future__ import annotations

from typing import Any, Final, Protocol
from urllib.parse import urlsplit

import msgspec

from raf.conformance.cases import Case
from raf.conformance.protocol import HttpRequest
from raf.shared.case_paths import case_path

__all__ = [
    "TRANSPORTS",
    "CaseServer",
    "RequestLog",
    "http_request",
    "recorded_call",
    "request_problems",
    "run_entries",
]

TRANSPORTS: Final = ("chunks", "http")
"""How cases reach an implementation: as chunks in the message, or as a request to make."""


class RequestLog(Protocol):
    """What this transport reads of a server's journal (:class:`raf.serve.journal.Journal`
    is one): how many entries it has recorded, and those after a mark."""

    @property
    def count(self) -> int: ...

    def since(self, count: int) -> list[dict[str, Any]]: ...


class CaseServer(Protocol):
    """A running server the cases are sent to (:class:`raf.serve.ReplayServer` is one):
    its URL and its journal. Stated here so that conformance never imports ``raf.serve``."""

    @property
    def url(self) -> str: ...

    @property
    def journal(self) -> RequestLog: ...


def recorded_call(case: Case) -> tuple[str, str, Any]:
    """The recorded request of ``case`` as a client makes it again: its method, its provider
    path (the URI's path with its query) and its body as JSON (``None`` for none, or for a
    body that is not JSON)."""
    recorded = case.request
    if recorded is None:
        return "POST", "/", None
    parts = urlsplit(recorded.uri)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return recorded.method or "POST", path, _json(recorded.body)


def http_request(case: Case, server_url: str, run: str | None = None) -> HttpRequest:
    """The request ``case`` asks the client to make on the server at ``server_url``; with
    ``run``, on the base URL of that run (``.../r/<run>``: its requests have their own order
    of interactions, and are marked with it in the journal)."""
    method, path, body = recorded_call(case)
    scenario = case.scenario if case.loop is None else case.loop.scenario
    base = server_url + case_path(
        case.dialect, scenario, chunking=case.chunking, interaction=case.interaction
    )
    if run is not None:
        base += f"/r/{run}"
    headers = {"accept": "text/event-stream"}
    if body is not None:
        headers["content-type"] = "application/json"
    return HttpRequest(
        method=method, url=base + path, base_url=base, path=path, headers=headers, body=body
    )


def _json(body: str | bytes | None) -> Any:
    if not body:
        return None
    try:
        return msgspec.json.decode(body)
    except msgspec.DecodeError:
        return None


def request_problems(journal: RequestLog, mark: int, case: Case) -> list[str]:
    """What is wrong with the requests the client made for ``case`` (journal entries after
    ``mark``): none at all, or the first one not matching the recorded request."""
    name = f"{case.dialect}/{case.scenario}"
    entries = [e for e in journal.since(mark) if e.get("case") == name]
    if not entries:
        return ["no request for this case reached raf serve"]
    check = entries[0].get("check") or {}
    return [str(m) for m in check.get("mismatches") or []]


def run_entries(journal: RequestLog, mark: int, run: str) -> tuple[dict[str, Any], ...]:
    """The journal entries after ``mark`` of the requests of ``run``, in the order they
    arrived."""
    return tuple(e for e in journal.since(mark) if e.get("run") == run)
