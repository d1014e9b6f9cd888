"""The ``cohere`` SDK's adapter against ``raf serve`` on the bundled ``cohere_v2`` cassettes:
``ClientV2.chat_stream`` reaches ``POST /v2/chat`` under the case's prefix and sends the
recorded request; text, thinking, the tool plan, parallel calls kept apart by their index,
an ``ERROR`` end and the usage pass; a stream cut before ``message-end`` and a call whose
arguments are ``""`` are the cells it fails, each for a reason of its own.

A missing library skips these tests; with ``RAF_REQUIRE_CLIENTS=1`` it fails them instead.
"""

from __future__ import annotations

import json

import pytest

from raf.cassettes import load
from raf.client_matrix.run import Cell, run_client
from raf.clients import adapter
from raf.clients.base import ClientCase, ClientRaised
from raf.conformance.bundled import bundled
from raf.serve import ReplayServer
from tests.clients.support import assert_fails_with, library, require

CHUNKINGS = ("whole", "random")


def cells(server: ReplayServer, scenario: str) -> list[Cell]:
    require("cohere")
    b = bundled()
    found = run_client(
        adapter("cohere"),
        server,
        cassettes=b.cassettes,
        goldens=b.goldens,
        chunkings=CHUNKINGS,
        select=[scenario],
    )
    return [cell for cell in found if cell.scenario == scenario]


@pytest.mark.parametrize(
    "scenario",
    [
        "plain_text",
        "thinking_then_text",
        "tool_plan_then_parallel_calls",
        "citation_after_text",
        "message_end_error_after_tool_plan",
        "vision_usage_with_image_and_cached_tokens",
    ],
)
def test_cell_passes_and_request_matches(server: ReplayServer, scenario: str) -> None:
    found = cells(server, scenario)
    assert len(found) == len(CHUNKINGS)
    for cell in found:
        assert cell.status == "pass", (cell.chunkings, cell.reason, cell.details, cell.raised)
        assert cell.request == [], cell.request


def test_a_stream_ended_by_done_before_message_end_is_not_reported(
    server: ReplayServer,
) -> None:
    # cohere/v2/raw_client.py RawV2Client.chat_stream's _iter returns at `data: [DONE]` (and
    # at the end of the body) without asking whether message-end came: the user's loop ends
    # with the text so far and no word of the cut.
    for cell in cells(server, "done_without_message_end"):
        assert_fails_with(cell, "stream_truncated")
        assert cell.reason == "unreported: error", cell.details
        assert cell.request == []


def test_a_call_without_arguments_is_handed_over_as_an_empty_string(
    server: ReplayServer,
) -> None:
    # types/tool_call_v2function.py ToolCallV2Function.arguments is Optional[str], handed on
    # as the wire's "": the call itself (id, name) is whole, its arguments are not JSON.
    for cell in cells(server, "tool_call_without_arguments"):
        assert_fails_with(cell, 'tool_calls[0].arguments: expected {}, got ""')
        assert cell.reason == "wrong: arguments", cell.details


def test_a_429_is_raised_with_cohere_s_error_body_after_one_request(server: ReplayServer) -> None:
    # The adapter turns the SDK's retries off (cohere/core/http_client.py retries a 429 twice
    # by default): the user's loop gets TooManyRequestsError at once, with raf serve's error
    # document in Cohere's shape, and nothing was streamed.
    cohere = library("cohere")
    cassette = load(bundled().cassettes / "cohere_v2" / "plain_text.yaml")
    request = json.loads(cassette.interactions[0].request.body or "")
    url = server.case_url("cohere_v2", "plain_text", faults=["http-429"])
    case = ClientCase(
        dialect="cohere_v2",
        scenario="plain_text",
        server=server.url,
        prefix=url.removeprefix(server.url),
        request=request,
        path="/v2/chat",
    )
    mark = server.journal.count
    with pytest.raises(ClientRaised) as raised:
        adapter("cohere").run(case)
    error = raised.value.error
    assert isinstance(error, cohere.errors.TooManyRequestsError)
    assert error.body == {"message": "raf serve: injected fault http-429"}
    assert raised.value.partial.text == ""
    assert [e["status"] for e in server.journal.since(mark)] == [429]
