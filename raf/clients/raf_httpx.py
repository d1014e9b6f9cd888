"""raf itself as a client: httpx reads the stream and raf's pipeline turns it into the
response (``raf.transport.iter_response``, then ``collect_agent_response``), the way
docs/model.md shows a user of raf doing it.

It is the matrix's control column: it must pass every cell, so a cell another library fails
is the library's, not the server's or the matrix's. The user reads the ``AgentResponse``:
its text, reasoning, tool calls (id, name, parsed arguments), finish reason, usage and
errors (raf never raises for what the stream holds; a connection lost mid-stream is one
``transport_error`` after what arrived).
"""

from __future__ import annotations

from typing import Any

import httpx
import msgspec

from raf import formats
from raf.clients.base import Adapter, ClientCase, ClientRaised
from raf.collect import collect_agent_response
from raf.model.canonical import to_canonical
from raf.model.response import AgentResponseResult
from raf.shared.client_response import ClientResponse
from raf.transport import iter_response

__all__ = ["ADAPTER"]


def _run(case: ClientCase) -> ClientResponse:
    results: list[AgentResponseResult] = []
    content = msgspec.json.encode(case.request) if case.request else None
    try:
        with (
            httpx.Client(timeout=case.timeout) as client,
            client.stream(
                case.method,
                case.base_url + case.path,
                content=content,
                headers={"content-type": "application/json", "accept": "text/event-stream"},
            ) as response,
        ):
            results.extend(iter_response(response, case.dialect))
    except httpx.HTTPError as exc:  # the results already hold its transport_error
        raise ClientRaised(exc, _mapped(results)) from exc
    return _mapped(results)


def _mapped(results: list[AgentResponseResult]) -> ClientResponse:
    canonical: Any = to_canonical(collect_agent_response(results))
    return msgspec.convert(canonical, ClientResponse)


ADAPTER = Adapter(
    name="raf",
    distribution="raf",
    dialects=tuple(formats.names()),  # raf reads every format it has
    capabilities=("tool_calls", "reasoning", "usage", "http_errors"),
    how=(
        "httpx streams the response and raf.transport.iter_response feeds each read to "
        "raf's pipeline; the user reads collect_agent_response(results): text, "
        "reasoning_text, tool_calls, finish_reason, usage and errors."
    ),
    run=_run,
    module="raf",
)
