"""The HTTP shell of ``raf serve``: an aiohttp application that answers a request with the
plan :func:`raf.serve.faults.plan` made for it. Everything decided about a response (its
status, headers, chunks, pauses and faults) is decided there; this module only reads the
request, writes bytes and keeps the journal.

aiohttp, rather than an ASGI framework, because faults need the connection itself: closing
it after N bytes of body, or sending a chunk header that promises more than follows, is
below what ASGI lets an application do, and aiohttp exposes the transport while still doing
all of HTTP/1.1 (parsing, keep-alive, chunked encoding, body limits) for the normal path.

Endpoints: ``/s/...`` (docs/serve.md: cases), ``GET /_raf/journal`` (in pages:
``?since=SEQ&limit=N``), ``GET /_raf/scenarios``, ``POST /_raf/reset``, ``GET /_raf/health``.
Every error is JSON ``{"error": {"type": "raf_serve", "message": ...}}`` with the status: 400
for a request body that is not a JSON object (:func:`~raf.serve.request_check.read_body`) or
a journal page asked with a bad number, 404 for unknown paths, scenarios and interactions
(and for path traversal), 405 with ``Allow`` for a method the path does not take, 413 for a
body over the limit, 500 for a cassette that cannot be replayed (unreadable, or a body whose
``content-encoding`` does not decode), 503 when the server is at its limit of concurrent
streams or of open connections. A request that breaks a request rule the provider refuses
gets the provider's own error instead (raf.serve.verdicts: the rule's status and the format's
error document, with ``x-raf-rules``), before any fault of its path.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from aiohttp import web
from aiohttp.http import HttpProcessingError
from aiohttp.web_protocol import RequestPayloadError

from raf import interop
from raf.cassettes.coding import BodyNotDecoded
from raf.cassettes.format import Cassette, Interaction
from raf.limits import (
    SERVE_BODY_TIMEOUT,
    SERVE_HEADER_TIMEOUT,
    SERVE_MAX_BODY_BYTES,
    SERVE_MAX_CONNECTIONS,
    SERVE_MAX_STREAMS,
    SERVE_WRITE_BYTES,
)
from raf.serve import faults as fault_plan
from raf.serve.as_model import reencode
from raf.serve.catalog import Catalog, Order
from raf.serve.connections import Connections
from raf.serve.journal import PAGE_ENTRIES, Journal
from raf.serve.request_check import check_request, read_body
from raf.serve.rounds import Answer, Match, Rounds, RoundsCache, answer_of, match
from raf.serve.routes import Route, RouteError, allowed_methods, parse, provider_path_problem
from raf.serve.shared_chunks import SharedChunks
from raf.serve.verdicts import DEFAULT_MODE, HEADER, MODES, Mode, Verdict, header_value, judge

__all__ = [
    "DEFAULT_MAX_BODY",
    "DEFAULT_MAX_CONNECTIONS",
    "DEFAULT_MAX_STREAMS",
    "SESSION_HEADER",
    "ServeConfig",
    "make_app",
]

DEFAULT_MAX_BODY: Final = SERVE_MAX_BODY_BYTES
DEFAULT_MAX_STREAMS: Final = SERVE_MAX_STREAMS
DEFAULT_MAX_CONNECTIONS: Final = SERVE_MAX_CONNECTIONS

SESSION_HEADER: Final = "x-raf-session"
"""A client that sends this header gets its own order of interactions (catalog.Order)."""

_CONFIG: web.AppKey[ServeConfig] = web.AppKey("config")
_LOG: Final = logging.getLogger("raf.serve")
"""Problems, one line each (the server shell writes them to stderr)."""


@dataclass
class ServeConfig:
    """What a server serves, and how.

    Attributes:
        folders: cassette folders (``<dialect>/<scenario>.yaml`` under each).
        speed: recorded delays are divided by it (``0``: no delays at all).
        chunking: the chunking of a path that names none; ``None``: ``recorded`` for a
            cassette with a recorded timing, ``whole`` otherwise.
        max_body: largest request body, in bytes.
        max_streams: most responses in progress at once.
        max_connections: most connections served at once (raf.serve.connections).
        header_timeout: seconds a new connection has to send a complete request head.
        body_timeout: seconds a request has to send its whole body once its head arrived.
        journal: where requests are recorded.
        rules: what a request that breaks a request rule gets (raf.serve.verdicts):
            ``reject`` (the provider's error, for the rules it refuses), ``report`` (the
            recorded answer; the journal lists the rules) or ``off`` (nothing is checked).
    """

    folders: list[Path]
    speed: float = 1.0
    chunking: str | None = None
    max_body: int = DEFAULT_MAX_BODY
    max_streams: int = DEFAULT_MAX_STREAMS
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    header_timeout: float = SERVE_HEADER_TIMEOUT
    body_timeout: float = SERVE_BODY_TIMEOUT
    journal: Journal = field(default_factory=Journal)
    rules: Mode = DEFAULT_MODE
    connections: Connections[Any] | None = field(default=None, repr=False)
    """Which connections are served (set by the server once it runs; ``None``: all)."""
    shared_chunks: SharedChunks = field(default_factory=SharedChunks, repr=False)
    """The cut bodies, shared by the responses that send them."""
    catalog: Catalog = field(init=False)
    order: Order = field(default_factory=Order)
    rounds: RoundsCache = field(default_factory=RoundsCache, repr=False)
    """The rounds of the cassettes served (raf.serve.rounds), read once each."""
    active: int = 0
    peak: int = 0

    def __post_init__(self) -> None:
        if self.rules not in MODES:
            raise ValueError(f"rules takes one of {', '.join(MODES)}, not {self.rules!r}")
        self.catalog = Catalog(self.folders)


def error_response(status: int, message: str, **extra: Any) -> web.Response:
    """raf's own JSON error."""
    body = {"error": {"type": "raf_serve", "message": message, **extra}}
    return web.json_response(body, status=status)


def make_app(config: ServeConfig) -> web.Application:
    """The application serving ``config``."""
    app = web.Application(client_max_size=config.max_body, middlewares=[_errors_as_json, _bounded])
    app[_CONFIG] = config
    app.router.add_get("/_raf/journal", _journal)
    app.router.add_get("/_raf/scenarios", _scenarios)
    app.router.add_post("/_raf/reset", _reset)
    app.router.add_get("/_raf/health", _health)
    app.router.add_route("*", "/s/{tail:.*}", _case)
    return app


@web.middleware
async def _errors_as_json(request: web.Request, handler: Any) -> web.StreamResponse:
    try:
        response: web.StreamResponse = await handler(request)
    except web.HTTPException as exc:
        if exc.status == 413:
            limit = request.app[_CONFIG].max_body
            return error_response(413, f"the request body is over the limit of {limit} bytes")
        if exc.status == 404:
            return error_response(
                404, f"no such path {request.path!r}: cases are under /s/<dialect>/<scenario>/"
            )
        if exc.status == 405:
            refused = error_response(405, f"{request.method} is not allowed on {request.path}")
            if "allow" in exc.headers:
                refused.headers["allow"] = exc.headers["allow"]
            return refused
        return error_response(exc.status, exc.reason)
    return response


@web.middleware
async def _bounded(request: web.Request, handler: Any) -> web.StreamResponse:
    """Serve the request if its connection has a place (raf.serve.connections), once its
    body has arrived within ``body_timeout``; otherwise 503 or 408, and close."""
    config = request.app[_CONFIG]
    gate = config.connections
    connection = request.protocol
    if gate is not None and not gate.request(connection):
        response = error_response(
            503, f"raf serve is at its limit of {config.max_connections} open connections"
        )
        response.headers["retry-after"] = "1"
        response.force_close()
        return response
    try:
        try:
            # Read here, bounded in time; the handler's own read() gets these bytes.
            await asyncio.wait_for(request.read(), config.body_timeout)
        except TimeoutError:
            response = error_response(
                408, f"the request body did not arrive within {config.body_timeout:g} s"
            )
            response.force_close()
            return response
        except (HttpProcessingError, RequestPayloadError, ConnectionError) as exc:
            # A body that breaks its framing or its content-encoding, or a client gone.
            reason = getattr(exc, "message", None) or str(exc) or type(exc).__name__
            response = error_response(400, f"the request body cannot be read: {reason}")
            response.force_close()
            return response
        answer: web.StreamResponse = await handler(request)
        return answer
    finally:
        if gate is not None:
            gate.done(connection)


async def _journal(request: web.Request) -> web.Response:
    """A page of the journal (``?since=SEQ&limit=N``; without them, the first page), encoded
    in a worker thread: the loop goes on serving while a large page is built."""
    numbers: dict[str, int] = {}
    for name, default, top in (("since", 0, None), ("limit", PAGE_ENTRIES, PAGE_ENTRIES)):
        text = request.query.get(name)
        if text is None:
            numbers[name] = default
            continue
        if not text.isascii() or not text.isdigit() or len(text) > 18:
            return error_response(400, f"{name} takes a whole number")
        value = int(text)
        if name == "limit" and value < 1:
            return error_response(400, f"limit takes a number from 1 to {PAGE_ENTRIES}")
        numbers[name] = value if top is None else min(value, top)
    journal = request.app[_CONFIG].journal
    body = await asyncio.to_thread(journal.page_json, numbers["since"], numbers["limit"])
    return web.Response(body=body, content_type="application/json")


async def _scenarios(request: web.Request) -> web.Response:
    catalog = request.app[_CONFIG].catalog
    return web.json_response(
        {
            "scenarios": [
                {
                    "dialect": e.dialect,
                    "scenario": e.scenario,
                    "path": f"/s/{e.dialect}/{e.scenario}",
                }
                for e in catalog.entries()
            ]
        }
    )


async def _reset(request: web.Request) -> web.Response:
    config = request.app[_CONFIG]
    config.order.reset()
    if request.query.get("journal") == "1":
        config.journal.clear()
    return web.json_response({"reset": True})


async def _health(request: web.Request) -> web.Response:
    config = request.app[_CONFIG]
    return web.json_response(
        {"ok": True, "cassettes": len(config.catalog), "active": config.active, "peak": config.peak}
    )


async def _case(request: web.Request) -> web.StreamResponse:
    config = request.app[_CONFIG]
    raw_path = request.raw_path.partition("?")[0]
    route = parse(raw_path)
    if isinstance(route, RouteError):
        return error_response(route.status, route.message)
    entry = config.catalog.find(route.dialect, route.scenario)
    if entry is None:
        near = config.catalog.suggestions(route.dialect, route.scenario)
        hint = f"; did you mean {', '.join(near)}?" if near else ""
        return error_response(
            404,
            f"no scenario {route.case} is served{hint} (GET /_raf/scenarios lists them)",
        )
    problem = (
        provider_path_problem(route.dialect, request.method, route.provider_path)
        if route.model is None  # a front end's request: its own path, any method
        else None
    )
    if problem is not None:
        allowed = allowed_methods(route.dialect, route.provider_path)
        if not allowed:
            return error_response(404, problem)
        response = error_response(405, problem)
        response.headers["allow"] = ", ".join(allowed)
        return response
    cassette = config.catalog.load(entry)
    if not isinstance(cassette, Cassette):
        return error_response(500, f"the cassette of {route.case} cannot be read: {cassette}")
    if not cassette.interactions:
        return error_response(404, f"the cassette of {route.case} has no interaction")
    count = len(cassette.interactions)
    if route.interaction is not None and route.interaction >= count:
        return error_response(
            404, f"{route.case} has {count} interaction(s); /i/{route.interaction} is not one"
        )
    body = await request.read()
    journal_entry = config.journal.record(
        method=request.method,
        path=request.path,
        query=request.raw_path.partition("?")[2],
        headers=list(request.headers.items()),
        body=body,
    )
    if config.active >= config.max_streams:
        config.journal.finish(journal_entry, status=503, outcome="refused: server busy")
        response = error_response(
            503, f"raf serve is at its limit of {config.max_streams} concurrent streams"
        )
        response.headers["retry-after"] = "1"
        return response
    received = read_body(body)
    if received.problem is not None:
        config.journal.finish(
            journal_entry, case=route.case, status=400, outcome="refused: bad request body"
        )
        return error_response(400, received.problem)
    session = request.headers.get(SESSION_HEADER, "")
    attempt, _ = config.order.take(route.prefix, session, count)
    if route.model is not None:
        return await _as_model(
            request, config, route, cassette, attempt=attempt, journal_entry=journal_entry
        )
    if count > 1 and not config.rounds.has(cassette):  # read once, off the event loop
        with contextlib.suppress(Exception):  # a bug there is reported by _decide's own try
            await asyncio.to_thread(config.rounds.get, route.dialect, cassette)
    chosen, verdict = _decide(
        config, route.dialect, cassette, received.value, attempt=attempt, pinned=route.interaction
    )
    number = chosen.interaction
    interaction = cassette.interactions[number]
    query = request.raw_path.partition("?")[2]
    check = check_request(
        route.dialect,
        interaction.request.body,
        received,
        recorded_uri=interaction.request.uri,
        received_url=route.provider_path + (f"?{query}" if query else ""),
    )
    judged: dict[str, Any] = {
        "run": route.run,
        "matched": chosen.matched,
        "rules": None if config.rules == "off" else verdict.rules(),
    }
    if verdict.problems:
        judged["rules_problems"] = list(verdict.problems)
    extra_headers = [(HEADER, header_value(verdict.broken))] if verdict.broken else []
    if verdict.refusal is not None:
        refusal = verdict.refusal
        config.journal.finish(
            journal_entry,
            case=route.case,
            interaction=number,
            check=check.to_builtins(),
            status=refusal.status,
            outcome=f"refused: breaks rule {refusal.rule}",
            **judged,
        )
        refused = web.json_response(refusal.document, status=refusal.status)
        for name, value in [
            *fault_plan.error_headers(route.dialect, refusal.status),
            *extra_headers,
        ]:
            refused.headers[name] = value
        return refused
    faults = fault_plan.active(route.faults, attempt)
    try:
        plan = _plan(config, route.dialect, route.chunking, faults, interaction)
    except BodyNotDecoded as exc:  # the recorded body cannot be sent as a client reads it
        problem = (
            f"the cassette of {route.case} cannot be replayed: "
            f"interactions[{number}].response: {exc}"
        )
        _LOG.error("%s %s: %s", request.method, request.path, problem)
        config.journal.finish(
            journal_entry,
            case=route.case,
            interaction=number,
            status=500,
            outcome=f"server error: {exc}",
        )
        return error_response(500, problem)
    config.journal.update(
        journal_entry,
        case=route.case,
        **judged,
        chunking=route.chunking,
        faults=[f.name for f in faults],
        interaction=number,
        check=check.to_builtins(),
        status=plan.status,
    )
    config.active += 1
    config.peak = max(config.peak, config.active)
    try:
        return await _send(request, plan, config, journal_entry, extra_headers)
    finally:
        config.active -= 1


async def _as_model(
    request: web.Request,
    config: ServeConfig,
    route: Route,
    cassette: Cassette,
    *,
    attempt: int,
    journal_entry: dict[str, Any],
) -> web.StreamResponse:
    """A case asked ``/as/<name>``: the recorded answer re-encoded in that message model
    (raf.serve.as_model), with the path's chunking and faults. The request comes from a front
    end, not from a provider's client: it is answered in order (or as ``/i/<n>`` pins), and
    neither the request rules nor the recorded request are checked. The re-encoding runs in a
    worker thread, counted among the streams in progress; a model that cannot be loaded or
    that raises is a 500, one line in the log and the journal."""
    name = route.model or ""
    count = len(cassette.interactions)
    number = route.interaction if route.interaction is not None else attempt % count
    faults = fault_plan.active(route.faults, attempt)
    config.journal.update(
        journal_entry,
        case=route.case,
        run=route.run,
        matched="pinned" if route.interaction is not None else "order",
        rules=None,
        model=name,
        chunking=route.chunking,
        faults=[f.name for f in faults],
        interaction=number,
        check=None,
    )
    config.active += 1
    config.peak = max(config.peak, config.active)
    try:
        try:
            model = interop.get(name)
            chunks: list[bytes] = []
            delays: list[float] | None = None
            if not any(fault.kind == "http" for fault in faults):
                chunks, delays = await asyncio.to_thread(
                    reencode,
                    model,
                    route.dialect,
                    cassette.interactions[number],
                    route.chunking or config.chunking or "recorded",
                )
            if delays is not None:
                delays = [d / config.speed for d in delays] if config.speed > 0 else None
            plan = fault_plan.plan(
                dialect=route.dialect,
                status=200,
                reason="OK",
                headers=[
                    ("content-type", model.media_type),
                    ("cache-control", "no-cache"),
                    *model.headers,
                ],
                chunks=chunks,
                delays=delays,
                faults=faults,
            )
        except asyncio.CancelledError:
            config.journal.finish(
                journal_entry, status=200, outcome="client closed the connection", bytes_sent=0
            )
            raise
        except Exception as exc:  # a body that does not decode, a model that breaks
            problem = (
                f"the cassette of {route.case} cannot be replayed as {name}: "
                f"interactions[{number}].response: {type(exc).__name__}: {exc}"
            )
            _LOG.error("%s %s: %s", request.method, request.path, problem)
            config.journal.finish(
                journal_entry, status=500, outcome=f"server error: {problem}", bytes_sent=0
            )
            return error_response(500, problem)
        config.journal.update(journal_entry, status=plan.status)
        return await _send(request, plan, config, journal_entry)
    finally:
        config.active -= 1


def _decide(
    config: ServeConfig,
    dialect: str,
    cassette: Cassette,
    body: Any,
    *,
    attempt: int,
    pinned: int | None,
) -> tuple[Match, Verdict]:
    """The interaction a request gets (raf.serve.rounds) and the rules it breaks
    (raf.serve.verdicts). Never raises: a bug in either is one line in the log and the
    journal's ``rules_problems``, and the request is answered in order, unjudged."""
    count = len(cassette.interactions)
    try:
        rounds: Rounds = config.rounds.get(dialect, cassette)
        # One interaction or a pinned one: what the request answers changes nothing.
        answer = answer_of(dialect, body) if count > 1 and pinned is None else Answer()
        chosen = match(rounds, answer, turn=attempt, pinned=pinned)
        verdict = judge(dialect, body, rounds.prior(chosen.interaction), config.rules)
    except Exception as exc:  # a bug in raf: the client still gets its answer
        problem = f"the round or the rules could not be decided: {type(exc).__name__}: {exc}"
        _LOG.error("%s: %s", dialect, problem)
        number = pinned if pinned is not None else attempt % count
        return Match(number, "pinned" if pinned is not None else "order"), Verdict(
            problems=(problem,)
        )
    for problem in verdict.problems:
        _LOG.error("%s: a request rule's check raised: %s", dialect, problem)
    return chosen, verdict


def _plan(
    config: ServeConfig,
    dialect: str,
    chunking: str | None,
    faults: tuple[fault_plan.Fault, ...],
    interaction: Interaction,
) -> fault_plan.Plan:
    response = interaction.response
    chunks: list[bytes] = []
    delays: list[float] | None = None
    if not any(fault.kind == "http" for fault in faults):  # an injected error sends no body
        chunks, delays = config.shared_chunks.cut(
            interaction, chunking or config.chunking or "recorded"
        )
    if delays is not None:
        delays = [d / config.speed for d in delays] if config.speed > 0 else None
    headers = [(k, v) for k, values in response.headers.items() for v in values]
    return fault_plan.plan(
        dialect=dialect,
        status=response.status,
        reason=response.reason or "",
        headers=headers,
        chunks=chunks,
        delays=delays,
        faults=faults,
    )


async def _send(
    request: web.Request,
    plan: fault_plan.Plan,
    config: ServeConfig,
    entry: dict[str, Any],
    extra_headers: list[tuple[str, str]] | None = None,
) -> web.StreamResponse:
    """Execute ``plan``. HTTP/1.1 gets a chunked body, each write one chunk; HTTP/1.0, which
    has no chunked encoding, a ``Content-Length`` body (longer than what is sent when the plan
    breaks it, so the client sees it incomplete). The body is written from the plan's bytes
    (the cassette's own, not a copy) in slices of at most ``SERVE_WRITE_BYTES``, each after
    the connection's buffer has drained: a client that does not read holds at most a slice
    and the transport's buffer of the server's memory, never its response."""
    response = web.StreamResponse(status=plan.status, reason=plan.reason or None)
    for name, value in [*plan.headers, *(extra_headers or ())]:
        response.headers.add(name, value)
    chunked = request.version >= (1, 1)
    if chunked:
        response.enable_chunked_encoding()
    else:
        response.content_length = _content_length(plan)
    sent = 0
    outcome = "complete"
    try:
        await response.prepare(request)
        for step in plan.steps:
            if isinstance(step, fault_plan.Write):
                await _write(request, response, step.data, chunked=chunked)
                sent += len(step.data)
            elif isinstance(step, fault_plan.Pause):
                await asyncio.sleep(step.seconds)
            elif isinstance(step, fault_plan.Close):
                _close(request, response, reset=step.reset)
                outcome = "reset" if step.reset else "cut"
                break
            else:  # Truncate: a chunk header that promises more than follows (HTTP/1.1)
                if chunked:
                    await _write_raw(request, f"{step.promised:x}\r\n".encode())
                    await _write_raw(request, step.data)
                else:
                    await _write(request, response, step.data, chunked=False)
                _close(request, response)
                sent += len(step.data)
                outcome = "truncated"
                break
        else:
            await response.write_eof()
    except (ConnectionError, asyncio.CancelledError) as exc:
        outcome = "client closed the connection"
        config.journal.finish(entry, status=plan.status, outcome=outcome, bytes_sent=sent)
        if isinstance(exc, asyncio.CancelledError):
            raise
        return response
    except Exception as exc:  # one line in the journal and the log, no traceback
        _LOG.error("%s %s: the response cannot be sent: %s", request.method, request.path, exc)
        if not response.prepared:  # nothing sent yet: say so
            config.journal.finish(entry, status=500, outcome=f"server error: {exc}", bytes_sent=0)
            return error_response(500, f"the recorded response cannot be sent: {exc}")
        config.journal.finish(
            entry, status=plan.status, outcome=f"server error: {exc}", bytes_sent=sent
        )
        _close(request, response, reset=True)
        return response
    config.journal.finish(entry, status=plan.status, outcome=outcome, bytes_sent=sent)
    return response


def _content_length(plan: fault_plan.Plan) -> int:
    """The ``Content-Length`` of ``plan``'s body: what it writes, and when it breaks the body
    (a cut, a reset, a truncation) more than that, so the client sees it incomplete."""
    length = 0
    for step in plan.steps:
        if isinstance(step, fault_plan.Write):
            length += len(step.data)
        elif isinstance(step, fault_plan.Truncate):
            return length + len(step.data) + max(step.promised - len(step.data), 1)
        elif isinstance(step, fault_plan.Close):
            return length + 1
    return length


async def _write(
    request: web.Request, response: web.StreamResponse, data: bytes, *, chunked: bool
) -> None:
    """One write of the plan (one HTTP chunk under chunked encoding, however large), sent in
    slices of at most ``SERVE_WRITE_BYTES`` that each wait for the connection to drain."""
    if not chunked:
        view = memoryview(data)
        for start in range(0, len(view), SERVE_WRITE_BYTES):
            await response.write(view[start : start + SERVE_WRITE_BYTES])
            await _drained(request)
        return
    if len(data) <= SERVE_WRITE_BYTES:
        await response.write(data)
        await _drained(request)
        return
    # aiohttp would frame the chunk by joining it with its header (a copy of the whole
    # chunk, all of it in the transport's buffer at once): frame it here instead.
    send_headers = getattr(request.writer, "send_headers", None)
    if send_headers is not None:  # aiohttp >= 3.11 holds the headers back until a write
        send_headers()
    await _write_raw(request, f"{len(data):x}\r\n".encode())
    await _write_raw(request, data)
    await _write_raw(request, b"\r\n")


async def _write_raw(request: web.Request, data: bytes) -> None:
    """Write ``data`` as it is (no chunk framing) in slices of ``SERVE_WRITE_BYTES``, each
    once the transport's buffer is under its high-water mark."""
    transport = request.transport
    view = memoryview(data)
    for start in range(0, len(view), SERVE_WRITE_BYTES):
        if transport is None or transport.is_closing():
            raise ConnectionResetError("the client closed the connection")
        transport.write(view[start : start + SERVE_WRITE_BYTES])
        await _drained(request)


async def _drained(request: web.Request) -> None:
    """Wait until the connection's write buffer is under its high-water mark (asyncio pauses
    the protocol above it)."""
    await request.writer.drain()


def _close(request: web.Request, response: web.StreamResponse, *, reset: bool = False) -> None:
    """Send what is buffered, then close the connection without ending the body: with a
    FIN, or with ``reset`` an RST (the socket lingers for 0 seconds, so closing it discards
    the connection)."""
    writer = getattr(response, "_payload_writer", None)
    with contextlib.suppress(Exception):
        if writer is not None:
            writer.send_headers()  # headers may still be buffered when no body was written
    transport = request.transport
    if transport is None:
        return
    if reset:
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        transport.abort()
        return
    transport.close()  # a FIN after the bytes already written: never an ended body
