"""The cost probe's runners: a delivery sent to an implementation (raf-conformance/1, or raf's
reference in process) or to a client library of the matrix (over ``raf serve``), and what it
handed back. The thin shell around :mod:`raf.fuzz.cost`, which orders and judges the runs.
"""

from __future__ import annotations

import json
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from raf.conformance.cases import Case
from raf.conformance.goldens import InteractionOutput
from raf.conformance.implementation import Implementation, Outcome
from raf.fuzz.cost import LARGE_PIECE, Answer, Delivery, Runner
from raf.shared.client_response import ClientResponse

__all__ = ["case_of", "client_runner", "implementation_runner", "served_cassettes"]


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


def _cassette(delivery: Delivery) -> dict[str, Any]:
    s = delivery.stream
    request: dict[str, Any] = {"model": "m", "stream": True, "messages": []}
    return {
        "raf": {"scenario": case_of(delivery).scenario, "dialect": s.format},
        "interactions": [
            {
                "request": {
                    "method": "POST",
                    "uri": "https://recorded.invalid/v1/chat/completions",
                    "body": json.dumps(request),
                    "headers": {"content-type": ["application/json"]},
                },
                "response": {
                    "status": {"code": 200, "message": "OK"},
                    "headers": {"content-type": [s.content_type]},
                    "body": {"string": s.body.decode("utf-8")},
                },
            }
        ],
    }


@contextmanager
def served_cassettes(deliveries: list[Delivery]) -> Iterator[Path]:
    """A temporary folder of cassettes, one per stream (``<format>/<scenario>.json``)."""
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
            path = folder / f"{case.scenario}.json"
            path.write_text(json.dumps(_cassette(delivery)), encoding="utf-8")
        yield root


def client_runner(adapter: Any, server: Any, chunking: str) -> Runner:
    """Each delivery through a client library (a :class:`raf.clients.base.Adapter`) against
    ``server`` (a :class:`raf.serve.ReplayServer` over :func:`served_cassettes`), the server
    writing the body in ``chunking``'s pieces (tiny ones: ``fixed-4``) or 16 KiB ones. The
    call runs in a worker thread; one past the timeout is abandoned (counted as stopped)."""
    from raf.clients.base import ClientCase, ClientRaised  # noqa: PLC0415
    from raf.shared.case_paths import case_path  # noqa: PLC0415

    def run(delivery: Delivery, timeout: float) -> Answer:
        case = case_of(delivery)
        cut = chunking if delivery.cut == "tiny" else f"fixed-{LARGE_PIECE}"
        prefix = case_path(case.dialect, case.scenario, chunking=cut, interaction=0)
        client_case = ClientCase(
            dialect=case.dialect,
            scenario=case.scenario,
            server=server.url,
            prefix=prefix,
            request={"model": "m", "stream": True, "messages": []},
            path="/v1/chat/completions",
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
