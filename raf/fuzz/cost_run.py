"""The cost probe's runners: a delivery sent to an implementation (raf-conformance/1, or raf's
reference in process) or to a client library of the matrix (over ``raf serve``), and what it
handed back. The thin shell around :mod:`raf.fuzz.cost`, which orders and judges the runs.
"""

from __future__ import annotations

import json
import os
import re
import selectors
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from raf.cassettes.format import Cassette, Interaction, Request, Response
from raf.cassettes.persister import save
from raf.conformance.cases import Case
from raf.conformance.goldens import InteractionOutput
from raf.conformance.implementation import Implementation, Outcome
from raf.fuzz.cost import LARGE_PIECE, Answer, Delivery, Runner
from raf.shared.case_paths import case_path
from raf.shared.client_response import ClientResponse

__all__ = [
    "ServeProcess",
    "case_of",
    "client_runner",
    "implementation_runner",
    "serve_process",
    "served_cassettes",
    "warm",
]


def case_of(delivery: Delivery) -> Case:
    """The delivery as a ``chunks`` case whose reads are exactly its pieces."""
    s = delivery.stream
    chunking = "tiny" if delivery.cut == "tiny" else f"fixed-{LARGE_PIECE}"
    return Case(
        id=f"{s.format}/cost_{s.what}_{s.shape}_{s.size}#0@{chunking}",
        scenario=f"cost_{s.what}_{s.shape}_{s.size}",
        dialect=s.format,
        cassette=Path("cost"),
        interaction=0,
        chunking=chunking,
        status=200,
        reason="OK",
        headers={"content-type": s.content_type},
        body=s.body,
        expected=InteractionOutput(updates=[], results=[], response={}),
        requires=frozenset({"tool_calls"}) if s.what == "arguments" else frozenset(),
        reads=delivery.reads,
    )


def _got(response: ClientResponse | None, what: str) -> str | None:
    if response is None:
        return None
    if what == "text":
        return response.text
    if not response.tool_calls:
        return ""
    arguments = response.tool_calls[0].arguments
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, separators=(",", ":"), ensure_ascii=False)


def _answer(outcome: Outcome, what: str) -> Answer:
    if outcome.failure is not None:
        return Answer(failure=outcome.failure, timed_out=outcome.failure.startswith("timeout"))
    result = outcome.result
    if result is None:
        return Answer(failure="no result")
    if result.raised:
        return Answer(got=_got(result.response, what), failure=f"raised {result.raised}")
    return Answer(got=_got(result.response, what))


def implementation_runner(implementation: Implementation) -> Runner:
    """Each delivery as a ``chunks`` case at level ``response``. A stdio implementation is
    stopped at its own timeout (give it the budget) and started again for the next run; one
    in this process runs to its end."""

    def run(delivery: Delivery, timeout: float) -> Answer:
        del timeout  # the implementation's own
        answer = _answer(implementation.run(case_of(delivery), "response"), delivery.stream.what)
        if answer.timed_out:
            try:  # started again now, so that the next run does not count its start
                implementation.hello()
            except Exception as exc:  # it cannot be started again: every next run says so
                return Answer(failure=str(exc), timed_out=True)
        return answer

    return run


# -- client libraries over raf serve --------------------------------------------------------


_HI = [{"role": "user", "content": "hi"}]

CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "openai_chat": ("/v1/chat/completions", {"model": "m", "stream": True, "messages": _HI}),
    "openai_completions": ("/v1/completions", {"model": "m", "stream": True, "prompt": "hi"}),
    "openai_responses": ("/v1/responses", {"model": "m", "stream": True, "input": "hi"}),
    "anthropic_messages": (
        "/v1/messages",
        {"model": "m", "stream": True, "max_tokens": 1024, "messages": _HI},
    ),
    "gemini": (
        "/v1beta/models/m:streamGenerateContent?alt=sse",
        {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]},
    ),
    "ollama_chat": ("/api/chat", {"model": "m", "stream": True, "messages": _HI}),
    "cohere_v2": ("/v2/chat", {"model": "m", "stream": True, "messages": _HI}),
    "bedrock_converse": (
        "/model/m/converse-stream",
        {"messages": [{"role": "user", "content": [{"text": "hi"}]}]},
    ),
    "gemini_interactions": ("/v1beta/interactions", {"model": "m", "stream": True, "input": "hi"}),
}
"""The recorded call of each format's cost stream: the provider path and the request body a
library is given (``raf serve`` answers any request on the case's path)."""


def _cassette(delivery: Delivery) -> Cassette:
    s = delivery.stream
    path, body = CALLS[s.format]
    return Cassette(
        interactions=[
            Interaction(
                request=Request(
                    uri="https://recorded.invalid" + path,
                    headers={"content-type": ["application/json"]},
                    body=json.dumps(body),
                ),
                response=Response(headers={"content-type": [s.content_type]}, body=s.body),
            )
        ]
    )


@contextmanager
def served_cassettes(deliveries: list[Delivery]) -> Iterator[Path]:
    """A temporary folder of cassettes, one per stream (``<format>/<scenario>.yaml``), for
    ``raf serve``; removed on leaving."""
    with tempfile.TemporaryDirectory(prefix="raf-cost-") as tmp:
        root = Path(tmp)
        seen = set()
        for delivery in deliveries:
            case = case_of(delivery)
            if case.scenario in seen:
                continue
            seen.add(case.scenario)
            folder = root / delivery.stream.format
            folder.mkdir(exist_ok=True)
            save(_cassette(delivery), folder / f"{case.scenario}.yaml", scrub=False)
        yield root


@dataclass(frozen=True)
class ServeProcess:
    """A ``raf serve`` running in a process of its own (``url``: where it listens)."""

    url: str
    process: subprocess.Popen[bytes]


_LISTENING = re.compile(rb"listening on (http://127\.0\.0\.1:\d+)")


@contextmanager
def serve_process(folder: Path, *, start_timeout: float = 30.0) -> Iterator[ServeProcess]:
    """``raf serve`` on ``folder`` in another process, on a free port of 127.0.0.1, without
    delays and answering every request (``--rules report``): the server's work then runs on
    another core, not in the process whose time is measured. Stopped and reaped on leaving.

    Raises:
        OSError: it could not be started, or did not say where it listens in time.
    """
    argv = [
        sys.executable,
        "-m",
        "raf",
        "serve",
        "--cassettes",
        str(folder),
        "--port",
        "0",
        "--speed",
        "0",
        "--rules",
        "report",
    ]
    process = subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    try:
        assert process.stdout is not None
        deadline = time.monotonic() + start_timeout
        seen = b""
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            while (found := _LISTENING.search(seen)) is None:
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    raise OSError(f"raf serve did not start within {start_timeout:g} s")
                data = os.read(process.stdout.fileno(), 4096)
                if not data:
                    raise OSError(f"raf serve exited: {seen.decode(errors='replace')[-500:]}")
                seen += data
        yield ServeProcess(found.group(1).decode(), process)
    finally:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()


def warm(url: str, deliveries: list[Delivery]) -> None:
    """Ask ``raf serve`` at ``url`` once for each stream, in 16 KiB pieces, so that reading
    its cassette (on first use) is not counted in a measurement.

    Raises:
        OSError: a request failed.
    """
    import urllib.request  # noqa: PLC0415 - only for --client

    done = set()
    for delivery in deliveries:
        case = case_of(delivery)
        if case.scenario in done:
            continue
        done.add(case.scenario)
        prefix = case_path(case.dialect, case.scenario, chunking=f"fixed-{LARGE_PIECE}")
        path, body = CALLS[case.dialect]
        request = urllib.request.Request(
            url + prefix + path,
            data=json.dumps(body).encode(),
            headers={"content-type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            response.read()


def client_runner(adapter: Any, server: Any, chunking: str) -> Runner:
    """Each delivery through a client library (a :class:`raf.clients.base.Adapter`) against
    ``server`` (:func:`serve_process` over :func:`served_cassettes`, or anything with a
    ``url``), the server
    writing the body in ``chunking``'s pieces (tiny ones: ``fixed-4``) or 16 KiB ones. The
    call runs in a worker thread; one past the timeout is abandoned (counted as stopped)."""
    from raf.clients.base import ClientCase, ClientRaised  # noqa: PLC0415

    def run(delivery: Delivery, timeout: float) -> Answer:
        case = case_of(delivery)
        cut = chunking if delivery.cut == "tiny" else f"fixed-{LARGE_PIECE}"
        prefix = case_path(case.dialect, case.scenario, chunking=cut, interaction=0)
        path, body = CALLS[case.dialect]
        client_case = ClientCase(
            dialect=case.dialect,
            scenario=case.scenario,
            server=server.url,
            prefix=prefix,
            request=json.loads(json.dumps(body)),
            path=path,
            timeout=timeout + 60,
        )
        box: dict[str, Any] = {}

        def work() -> None:
            try:
                box["response"] = adapter.run(client_case)
            except ClientRaised as exc:
                box["response"], box["error"] = exc.partial, str(exc)
            except BaseException as exc:  # the library raised: that is its answer
                box["error"] = f"{type(exc).__name__}: {exc}"

        worker = threading.Thread(target=work, daemon=True, name="raf-cost-client")
        worker.start()
        worker.join(timeout)
        if worker.is_alive():
            return Answer(failure=f"no answer within {timeout:g} s", timed_out=True)
        response = box.get("response")
        got = _got(response if isinstance(response, ClientResponse) else None, case_what(case))
        error = box.get("error")
        return Answer(got=got, failure=None if error is None else f"raised {error}")

    return run


def case_what(case: Case) -> str:
    return "arguments" if case.scenario.startswith("cost_arguments") else "text"
