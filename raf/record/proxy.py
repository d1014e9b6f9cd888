"""The recording proxy: an aiohttp server on 127.0.0.1 in a background thread that forwards
each request to the provider, streams each read back to the client as it arrives, and saves
the exchange as a cassette (``<folder>/<dialect>/<scenario>.yaml``, scrubbed). What it
decides is :mod:`raf.cassettes.recorder`'s; here are the sockets, the clock and the files.

    with RecordingProxy("https://api.openai.com", Path("cassettes")) as proxy:
        client = openai.OpenAI(base_url=proxy.url("my_case") + "/v1")
        ...
    proxy.saved                                       # [cassettes/openai_chat/my_case.yaml]
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import socket
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Literal
from urllib.parse import urlsplit

import aiohttp
import msgspec
from aiohttp import web

import raf
from raf.cassettes.expiry import MAX_AGE_FORMS
from raf.cassettes.format import NAME_RULE, Cassette, Interaction, ScenarioInfo, is_file_name
from raf.cassettes.persister import load, save
from raf.cassettes.recorder import (
    MODES,
    Episodes,
    Forward,
    Mode,
    Recorder,
    Refuse,
    Replay,
    Route,
    answered_headers,
    dialect_of,
    fingerprint,
    forwarded_headers,
    is_max_age,
    model_of,
    recorded_header,
    replay_cuts,
    request_fingerprint,
    route,
    upstream_uri,
)
from raf.cassettes.scrub import scrub_text, scrub_uri
from raf.errors import CassetteNotFound, RafError
from raf.limits import SERVE_MAX_BODY_BYTES
from raf.shared import loop_thread

__all__ = ["RecordingProxy", "check_upstream"]

_SHUTDOWN_TIMEOUT: Final = 2.0
_CONNECT_TIMEOUT: Final = 30.0
_LINE_CHARS: Final = 400


def check_upstream(upstream: str) -> str:
    """``upstream`` as a base URL to forward to (``http``/``https``, a host, no query or
    fragment), without a trailing ``/``.

    Raises:
        ValueError: it is not such a URL (the message says why, secrets removed).
    """
    try:
        split = urlsplit(upstream)
        split.port  # noqa: B018 - raises ValueError for a port out of range
    except ValueError as exc:
        raise ValueError(f"not a URL: {scrub_uri(upstream)!r} ({exc})") from None
    if split.scheme not in ("http", "https") or not split.hostname:
        raise ValueError(
            f"not an http(s) base URL: {scrub_uri(upstream)!r} (e.g. https://api.openai.com)"
        )
    if split.query or split.fragment:
        raise ValueError(f"a base URL has no query nor fragment: {scrub_uri(upstream)!r}")
    return upstream.rstrip("/")


def _one_line(text: str) -> str:
    text = scrub_text(re.sub(r"\s+", " ", text).strip())
    return text if len(text) <= _LINE_CHARS else text[: _LINE_CHARS - 3] + "..."


def _stderr(line: str) -> None:
    with contextlib.suppress(Exception):  # a closed stderr must not stop the proxy
        sys.stderr.write(line + "\n")
        sys.stderr.flush()


def _reason(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return _one_line(f"{type(exc).__name__}: {text}" if str(exc) else text)


def _refusal(status: int, message: str) -> web.Response:
    body = msgspec.json.encode(
        {"error": {"message": _one_line(message), "type": "raf_record", "code": status}}
    )
    return web.Response(status=status, body=body, content_type="application/json")


@dataclass
class _Scenario:
    episodes: Episodes
    info: ScenarioInfo | None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class RecordingProxy:
    """``raf record`` in a background thread, bound to 127.0.0.1 by default.

    Args:
        upstream: the provider's base URL (``https://api.openai.com``); a request to
            ``/s/<scenario>/v1/chat/completions`` goes to ``upstream + /v1/chat/completions``.
        folder: where cassettes are written, as ``<folder>/<dialect>/<scenario>.yaml``.
        mode: ``all`` (forward and record everything, rewriting a scenario's cassette on its
            first request), ``once`` (replay a scenario that has a cassette, record one that
            has none), ``new_episodes`` (replay requests recorded before, record and append
            the others), ``none`` (replay only; a request without a recording gets 404).
        scenario: the scenario of a request that names none (else such a request gets 400).
        dialect: the dialect folder (default: guessed from the provider path).
        max_age, on_expiry: written into each cassette's ``recorded`` header.
        host, port: where to listen (``port=0``: a free port, known after :meth:`start`).
        report: called with a line per request handled (from the proxy's thread).
    """

    def __init__(
        self,
        upstream: str,
        folder: Path,
        *,
        mode: Mode = "all",
        scenario: str | None = None,
        dialect: str | None = None,
        max_age: str | None = None,
        on_expiry: str = "warn",
        host: str = "127.0.0.1",
        port: int = 0,
        report: Callable[[str], None] | None = None,
    ) -> None:
        self.upstream = check_upstream(upstream)
        if mode not in MODES:
            raise ValueError(f"not a record mode: {mode!r} (one of {', '.join(MODES)})")
        for what, name in (("scenario", scenario), ("dialect", dialect)):
            if name is not None and not is_file_name(name):
                raise ValueError(f"{what} {name!r} is not a name: {NAME_RULE}")
        if max_age is not None and not is_max_age(max_age):
            raise ValueError(f"not a max age: {max_age!r} ({MAX_AGE_FORMS})")
        if on_expiry not in ("warn", "fail"):
            raise ValueError(f"on_expiry is warn or fail, not {on_expiry!r}")
        self.folder = Path(folder)
        self.mode: Mode = mode
        self.scenario = scenario
        self.dialect = dialect
        self.max_age = max_age
        self.on_expiry: Literal["warn", "fail"] = "fail" if on_expiry == "fail" else "warn"
        self.host = host
        self.port = port
        self.problems: list[str] = []
        """One line per problem (a cassette that could not be written, an upstream that
        broke off), also written to standard error."""
        self._report = report
        self._saved: list[Path] = []
        self._scenarios: dict[tuple[str, str], _Scenario] = {}
        self._dialects: dict[str, str] = {}
        self._thread: loop_thread.LoopThread | None = None
        self._session: aiohttp.ClientSession | None = None
        self._clock: Callable[[], float] = time.perf_counter
        self._now: Callable[[], datetime] = lambda: datetime.now(UTC)

    # -- what a client needs --------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """``http://host:port`` (after :meth:`start`)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def url(self, scenario: str) -> str:
        """The base URL that records ``scenario``: a client appends its provider path."""
        if not is_file_name(scenario):
            raise ValueError(f"scenario {scenario!r} is not a name: {NAME_RULE}")
        return f"{self.base_url}/s/{scenario}"

    @property
    def saved(self) -> list[Path]:
        """The cassettes written so far, each once, in the order first written."""
        return list(self._saved)

    # -- running ----------------------------------------------------------------------------

    def start(self) -> str:
        """Bind and start serving; return :attr:`base_url`.

        Raises:
            OSError: the address cannot be bound.
            ValueError: the output folder is a file.
        """
        if self._thread is not None:
            return self.base_url
        if self.folder.exists() and not self.folder.is_dir():
            raise ValueError(f"the output folder {self.folder} is not a folder")
        sock = loop_thread.bind(self.host, self.port)
        self.port = sock.getsockname()[1]
        thread = loop_thread.LoopThread(f"raf-record-{self.port}", "raf record")
        thread.start(lambda stop, ready: self._run(sock, stop, ready))
        self._thread = thread
        return self.base_url

    def stop(self) -> None:
        """Stop accepting, let exchanges in progress end (2 s at most), close."""
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.stop(timeout=_SHUTDOWN_TIMEOUT + 10)

    def __enter__(self) -> RecordingProxy:
        self.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    async def _run(
        self, sock: socket.socket, stop: asyncio.Event, ready: Callable[[], None]
    ) -> None:
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(self._loop_problem)
        app = web.Application(client_max_size=SERVE_MAX_BODY_BYTES)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        runner = web.AppRunner(
            app, shutdown_timeout=_SHUTDOWN_TIMEOUT, access_log=None, handle_signals=False
        )
        self._session = aiohttp.ClientSession(
            auto_decompress=False,
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=_CONNECT_TIMEOUT),
            skip_auto_headers=("User-Agent", "Accept-Encoding", "Content-Type"),
        )
        await runner.setup()
        try:
            await web.SockSite(runner, sock).start()
            ready()
            await stop.wait()
        finally:
            await runner.cleanup()
            await self._session.close()

    def _loop_problem(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        message = str(context.get("message") or "error in the event loop")
        if isinstance(exc, BaseException):
            message += f": {_reason(exc)}"
        self._problem(message)

    def _problem(self, text: str) -> None:
        line = _one_line(text)
        self.problems.append(line)
        _stderr(f"raf record: {line}")

    def _say(self, text: str) -> None:
        if self._report is not None:
            with contextlib.suppress(Exception):
                self._report(_one_line(text))

    # -- one request ------------------------------------------------------------------------

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        sent: list[web.StreamResponse] = []  # the response whose head is sent, if any
        try:
            return await self._answer(request, sent)
        except web.HTTPException:
            raise  # aiohttp's own answers (413 for a body past the limit)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # no exception escapes the server
            self._problem(f"{request.method} {scrub_uri(request.path)}: {_reason(exc)}")
            if sent:  # its head is sent: the response ends as it is
                return sent[0]
            return _refusal(500, f"raf record: internal error: {_reason(exc)}")

    async def _answer(
        self, request: web.Request, sent: list[web.StreamResponse]
    ) -> web.StreamResponse:
        routed = route(request.raw_path, request.headers.items(), self.scenario)
        if isinstance(routed, Refuse):
            self._say(f"{request.method} {scrub_uri(request.raw_path)}: {routed.message}")
            return _refusal(routed.status, f"raf record: {routed.message}")
        body = await request.read()
        # A scenario's first request in the session fixes its dialect: its later requests
        # (an agent's rounds, a provider's other endpoints) are interactions of one cassette.
        dialect = self._dialects.setdefault(routed.scenario, dialect_of(routed.path, self.dialect))
        state = await self._state(dialect, routed.scenario)
        if isinstance(state, Refuse):
            return _refusal(state.status, state.message)
        where = f"{dialect}/{routed.scenario}"
        # the path as the provider gets it (the upstream's own path included), as a
        # recorded request's URI has it
        goes_to = urlsplit(upstream_uri(self.upstream, routed.path))
        target = goes_to.path + (f"?{goes_to.query}" if goes_to.query else "")
        decision = state.episodes.decide(fingerprint(request.method, target, body))
        if isinstance(decision, Refuse):
            self._say(
                f"{request.method} {scrub_uri(routed.path)} -> {where}: refused ({self.mode})"
            )
            return _refusal(decision.status, decision.message)
        if isinstance(decision, Replay):
            self._say(
                f"{request.method} {scrub_uri(routed.path)} -> {where}: replayed #{decision.index}"
            )
            return await self._replay(request, decision.interaction, sent)
        assert isinstance(decision, Forward)
        return await self._forward(
            request, routed=routed, body=body, where=where, state=state, sent=sent
        )

    async def _state(self, dialect: str, scenario: str) -> _Scenario | Refuse:
        """The scenario's bookkeeping, its cassette read on its first request."""
        key = (dialect, scenario)
        if key not in self._scenarios:
            path = self._path(dialect, scenario)
            found: Cassette | None = None
            try:
                found = await asyncio.get_running_loop().run_in_executor(None, load, path)
            except CassetteNotFound:
                found = None
            except (RafError, OSError) as exc:
                if self.mode != "all":  # all rewrites it anyway
                    return Refuse(500, f"raf record: cannot read {path}: {_reason(exc)}")
            if key not in self._scenarios:  # another request may have read it meanwhile
                interactions = None
                if found is not None and self.mode != "all":
                    interactions = list(found.interactions)
                self._scenarios[key] = _Scenario(
                    Episodes(dialect, scenario, self.mode, interactions),
                    found.info if found is not None else None,
                )
        return self._scenarios[key]

    def _path(self, dialect: str, scenario: str) -> Path:
        return self.folder / dialect / f"{scenario}.yaml"

    async def _replay(
        self, request: web.Request, interaction: Interaction, sent: list[web.StreamResponse]
    ) -> web.StreamResponse:
        recorded = interaction.response
        response = web.StreamResponse(status=recorded.status, reason=recorded.reason or None)
        for name, values in recorded.headers.items():
            if name.lower() not in ("content-length", "transfer-encoding", "connection"):
                for value in values:
                    response.headers.add(name, value)
        await response.prepare(request)
        sent.append(response)
        try:
            for piece, delay in replay_cuts(interaction):
                if delay > 0:
                    await asyncio.sleep(delay)
                await response.write(piece)
            await response.write_eof()
        except (ConnectionError, RuntimeError):
            pass  # the client went away
        return response

    async def _forward(
        self,
        request: web.Request,
        *,
        routed: Route,
        body: bytes,
        where: str,
        state: _Scenario,
        sent: list[web.StreamResponse],
    ) -> web.StreamResponse:
        assert self._session is not None
        uri = upstream_uri(self.upstream, routed.path)
        pairs = [(str(name), str(value)) for name, value in request.headers.items()]
        recorder = Recorder(request.method, uri, pairs, body)
        try:
            upstream = await self._session.request(
                request.method,
                uri,
                headers=forwarded_headers(pairs),
                data=body if body else None,
                allow_redirects=False,
            )
        except (TimeoutError, aiohttp.ClientError, OSError, ValueError) as exc:
            message = f"cannot reach {scrub_uri(self.upstream)}: {_reason(exc)}"
            self._say(f"{request.method} {scrub_uri(routed.path)} -> {where}: {message}")
            return _refusal(502, f"raf record: {message}")
        async with upstream:
            raw = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in upstream.raw_headers]
            # (str(), not the case-insensitive istr of aiohttp: a cassette holds plain text)
            recorder.head(upstream.status, upstream.reason or "", raw, self._clock())
            response = web.StreamResponse(status=upstream.status, reason=upstream.reason)
            for name, value in answered_headers(raw):
                response.headers.add(name, value)
            await response.prepare(request)
            sent.append(response)
            listening, complete = True, True
            try:
                async for data in upstream.content.iter_any():
                    recorder.read(data, self._clock())
                    if listening:
                        try:
                            await response.write(data)
                        except (ConnectionError, RuntimeError):
                            listening = False  # the client went away: keep recording
            except (TimeoutError, aiohttp.ClientError, OSError) as exc:
                complete = False
                self._problem(
                    f"{where}: the provider broke off after {recorder.size} bytes "
                    f"({_reason(exc)}); not saved"
                )
            if complete:
                await self._save(state, recorder.interaction())
                self._say(
                    f"{request.method} {scrub_uri(routed.path)} -> {where}: recorded "
                    f"{upstream.status}, {recorder.size} bytes in {len(recorder.timing)} reads"
                )
            if listening and not complete:  # the client sees the cut as it came
                response.force_close()
                if request.transport is not None:
                    request.transport.close()
            elif listening:
                with contextlib.suppress(ConnectionError, RuntimeError):
                    await response.write_eof()
        return response

    async def _save(self, state: _Scenario, interaction: Interaction) -> None:
        episodes = state.episodes
        async with state.lock:
            interactions = episodes.recorded(interaction)
            first = interactions[0].request
            split = urlsplit(first.uri)
            header = recorded_header(
                when=self._now(),
                provider=self.upstream,
                model=model_of(split.path, first.body),
                digest=request_fingerprint(first),
                version=raf.__version__,
                max_age=self.max_age,
                on_expiry=self.on_expiry,
            )
            base = state.info or ScenarioInfo(scenario=episodes.scenario)
            info = msgspec.structs.replace(
                base, scenario=episodes.scenario, dialect=episodes.dialect, recorded=header
            )
            cassette = Cassette(interactions=interactions, info=info)
            path = self._path(episodes.dialect, episodes.scenario)
            try:
                await asyncio.get_running_loop().run_in_executor(None, save, cassette, path)
            except Exception as exc:  # any failure to write is a line, never the server's end
                self._problem(f"{path} not written: {_reason(exc)}")
                return
            if path not in self._saved:
                self._saved.append(path)
