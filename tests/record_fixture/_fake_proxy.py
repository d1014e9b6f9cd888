"""A stand-in for :class:`raf.record.RecordingProxy`, for the tests of the pytest fixture
where the real proxy is not installed (tests/record_fixture/conftest.py puts it in its place
only then). It keeps to the proxy's API: ``RecordingProxy(upstream, folder, *, mode,
scenario, dialect, max_age, on_expiry, host, port)`` as a context manager, ``base_url``,
``url(scenario)`` and ``saved``; it writes ``folder/<dialect>/<scenario>.yaml``.

A threaded stdlib HTTP server: no streaming, one interaction per request path."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx

from raf import __version__
from raf.cassettes.format import (
    Cassette,
    Interaction,
    Recorded,
    Request,
    Response,
    ScenarioInfo,
)
from raf.cassettes.persister import load, save

__all__ = ["RecordingProxy"]

_HOP = {"host", "content-length", "transfer-encoding", "connection", "accept-encoding"}


class RecordingProxy:
    def __init__(
        self,
        upstream: str,
        folder: Path,
        *,
        mode: str = "all",
        scenario: str | None = None,
        dialect: str | None = None,
        max_age: str | None = None,
        on_expiry: str = "warn",
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.upstream = upstream.rstrip("/")
        self.folder = Path(folder)
        self.mode = mode
        self.scenario = scenario
        self.dialect = dialect or "openai_chat"
        self.max_age = max_age
        self.on_expiry = on_expiry
        self.saved: list[Path] = []
        self._lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                status, headers, body = proxy.handle(
                    "POST", self.path, dict(self.headers.items()), self.rfile.read(length)
                )
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer((host, port), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def url(self, scenario: str) -> str:
        return f"{self.base_url}/s/{scenario}"

    def __enter__(self) -> RecordingProxy:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def handle(
        self, method: str, path: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, dict[str, str], bytes]:
        scenario = self.scenario
        if path.startswith("/s/"):
            scenario, _, rest = path[3:].partition("/")
            path = "/" + rest
        target = self.folder / self.dialect / f"{scenario}.yaml"
        with self._lock:
            cassette = load(target) if target.is_file() else None
            known = [] if cassette is None else cassette.interactions
            match = next((i for i in known if i.request.uri.endswith(path)), None)
            if self.mode != "all" and match is not None:
                response = match.response
                return response.status, {"content-type": "text/event-stream"}, response.body
            if self.mode == "none" or (self.mode == "once" and cassette is not None):
                return 500, {"content-type": "text/plain"}, b"no recording of this request"
            sent = {k: v for k, v in headers.items() if k.lower() not in _HOP}
            answer = httpx.post(self.upstream + path, content=body, headers=sent)
            interaction = Interaction(
                request=Request(
                    method=method,
                    uri=self.upstream + path,
                    headers={k: [v] for k, v in sent.items()},
                    body=body.decode(),
                ),
                response=Response(
                    status=answer.status_code,
                    headers={"content-type": [answer.headers.get("content-type", "")]},
                    body=answer.content,
                ),
            )
            kept = known if self.mode == "new_episodes" else []
            recorded = Recorded(
                date=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                provider=self.upstream,
                raf_version=__version__,
                max_age=self.max_age,
                on_expiry="fail" if self.on_expiry == "fail" else "warn",
            )
            info = ScenarioInfo(
                scenario=scenario or "unnamed", dialect=self.dialect, recorded=recorded
            )
            save(Cassette(interactions=[*kept, interaction], info=info), target)
            self.saved.append(target)
            return answer.status_code, {"content-type": "text/event-stream"}, answer.content
