"""raf serve over a real loopback socket: chunkings, faults, order, journal, limits."""

from __future__ import annotations

import asyncio
import http.client
import json
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from raf import formats
from raf.cassettes.format import Cassette, Interaction, Request, Response, ScenarioInfo
from raf.cassettes.persister import load, save
from raf.collect import collect_agent_response
from raf.conformance.bundled import bundled
from raf.conformance.goldens import load as load_golden
from raf.conformance.reference import compared_response
from raf.model.response import AgentResponseResult
from raf.pipeline import respond
from raf.serve.server import ReplayServer, bind
from raf.transport import iter_response

SUITE = bundled()
PLAIN = SUITE.cassettes / "openai_chat" / "plain_text.yaml"
CHAT = "/v1/chat/completions"


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    with ReplayServer() as running:
        yield running


def _recorded_body() -> bytes:
    return load(PLAIN).interactions[0].response.body


def _request_body(path: Path = PLAIN) -> bytes:
    body = load(path).interactions[0].request.body
    assert isinstance(body, str)
    return body.encode()


def _golden_response(dialect: str, scenario: str) -> object:
    golden = load_golden(SUITE.goldens / dialect / f"{scenario}.json")
    assert golden is not None
    return golden.interactions[0].response


@pytest.mark.parametrize("chunking", ["whole", "bytes", "fixed-7", "utf8", "crlf", "random"])
def test_a_case_is_served_byte_for_byte_under_every_chunking(
    server: ReplayServer, chunking: str
) -> None:
    url = server.case_url("openai_chat", "plain_text", chunking=chunking) + CHAT
    with httpx.stream("POST", url, content=_request_body()) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        assert response.headers["transfer-encoding"] == "chunked"
        body = b"".join(response.iter_raw())
    assert body == _recorded_body()


def test_what_a_client_gets_through_the_server_is_the_reviewed_golden(
    server: ReplayServer,
) -> None:
    for dialect, scenario, path in [
        ("openai_chat", "parallel_tool_calls_interleaved", CHAT),
        ("anthropic_messages", "thinking_with_signature", "/v1/messages"),
        ("openai_responses", "parallel_calls_interleaved_arguments", "/v1/responses"),
        ("gemini", "json_array_body_without_alt_sse", "/v1beta/models/m:streamGenerateContent"),
    ]:
        url = server.case_url(dialect, scenario, chunking="random") + path
        with httpx.stream("POST", url, content=b"{}") as response:
            results = list(iter_response(response, dialect))
        assert compared_response(collect_agent_response(results)) == _golden_response(
            dialect, scenario
        )


@pytest.mark.parametrize("name", formats.names())
def test_every_format_is_answered_at_its_endpoint_with_its_golden(
    server: ReplayServer, name: str
) -> None:
    # The format's first bundled scenario, at the path of its descriptor's placeholder URI
    # (one of its endpoints): what a client of the format gets is the reviewed golden.
    scenario = sorted((SUITE.cassettes / name).glob("*.yaml"))[0].stem
    path = urlsplit(formats.get(name).placeholder_uri).path
    url = server.case_url(name, scenario, chunking="random") + path
    with httpx.stream("POST", url, content=b"{}") as response:
        assert response.status_code == 200
        results = list(iter_response(response, name))
    assert compared_response(collect_agent_response(results)) == _golden_response(name, scenario)


def test_cut_closes_the_connection_after_n_bytes(server: ReplayServer) -> None:
    url = server.case_url("openai_chat", "plain_text", faults=["cut-300"]) + CHAT
    received = bytearray()
    with httpx.stream("POST", url, content=_request_body()) as response:  # noqa: SIM117
        with pytest.raises(httpx.RemoteProtocolError, match="incomplete chunked read"):
            received.extend(b"".join(_reads_into(response, received)))
    assert bytes(received) == _recorded_body()[:300]


def _reads_into(response: httpx.Response, received: bytearray) -> Iterator[bytes]:
    for read in response.iter_raw():
        received += read
        yield b""


def test_a_cut_stream_through_raf_keeps_what_arrived_and_reports_a_transport_error(
    server: ReplayServer,
) -> None:
    url = server.case_url("openai_chat", "plain_text", faults=["cut-2000"]) + CHAT
    results: list[AgentResponseResult] = []
    with (
        pytest.raises(httpx.RemoteProtocolError),
        httpx.stream("POST", url, content=b"{}") as response,
    ):
        results.extend(iter_response(response, "openai_chat"))
    answer = collect_agent_response(results)
    assert answer.text
    full = _golden_response("openai_chat", "plain_text")
    assert isinstance(full, dict)
    assert full["text"].startswith(answer.text)
    assert [e.error_code for e in answer.errors] == ["transport_error"]


def test_truncated_chunked_encoding_is_an_incomplete_body(server: ReplayServer) -> None:
    url = server.case_url("openai_chat", "plain_text", faults=["truncated-chunked"]) + CHAT
    with pytest.raises(httpx.RemoteProtocolError), httpx.stream("POST", url) as response:
        for _ in response.iter_raw():
            pass


def test_stall_trips_a_read_timeout(server: ReplayServer) -> None:
    # A stall 200 times the read timeout: however slow the machine, the timeout fires first.
    url = server.case_url("openai_chat", "plain_text", faults=["stall-60000"]) + CHAT
    timeout = httpx.Timeout(5.0, read=0.3)
    with (
        pytest.raises(httpx.ReadTimeout),
        httpx.stream("POST", url, timeout=timeout) as response,
    ):
        for _ in response.iter_raw():
            pass


def test_http_fault_answers_the_status_with_retry_after(server: ReplayServer) -> None:
    url = server.case_url("anthropic_messages", "plain_text", faults=["http-429"]) + "/v1/messages"
    response = httpx.post(url, content=b"{}")
    assert response.status_code == 429
    assert response.headers["retry-after"] == "1"
    assert response.json()["error"]["type"] == "rate_limit_error"


def test_garbage_and_content_type_faults(server: ReplayServer) -> None:
    url = server.case_url("openai_chat", "plain_text", faults=["garbage", "wrong-content-type"])
    with httpx.stream("POST", url + CHAT) as response:
        assert response.headers["content-type"] == "text/html; charset=utf-8"
        body = b"".join(response.iter_raw())
    assert b"raf injected garbage" in body
    answer = respond([body], "openai_chat")
    assert [e.error_code for e in answer.errors] == ["sse_parse_error"]
    full = _golden_response("openai_chat", "plain_text")
    assert isinstance(full, dict)
    assert answer.text == full["text"]  # the garbage is reported, nothing is lost


def test_drip_sends_the_body_in_many_small_reads(tmp_path: Path) -> None:
    _two_turns(tmp_path)
    with ReplayServer([tmp_path]) as running:
        url = running.case_url("openai_chat", "two_turns", faults=["drip-2"], interaction=0)
        with httpx.stream("POST", url + CHAT) as response:
            reads = list(response.iter_raw())
    body = load(tmp_path / "openai_chat" / "two_turns.yaml").interactions[0].response.body
    assert b"".join(reads) == body
    assert len(reads) > len(body) // 2  # one byte per write, 2 ms apart: barely coalesced


def _raw_get(server: ReplayServer, path: str) -> tuple[int, dict[str, object]]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    try:
        connection.request("POST", path, body=b"{}")
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("/s/openai_chat/../../../etc/passwd", "refused path segment"),
        ("/s/openai_chat/%2e%2e/%2e%2e/v1/chat/completions", "refused path segment"),
        ("/s/openai_chat/plain_txt/v1/chat/completions", "did you mean openai_chat/plain_text"),
        ("/s/openai_chat/plain_text/i/3/v1/chat/completions", "has 1 interaction(s)"),
        ("/s/openai_chat/plain_text/v1/messages", "not an endpoint of openai_chat"),
        ("/anything/else", "cases are under /s/"),
    ],
)
def test_unknown_or_traversing_paths_get_a_json_404(
    server: ReplayServer, path: str, says: str
) -> None:
    status, document = _raw_get(server, path)
    assert status == 404
    error = document["error"]
    assert isinstance(error, dict)
    assert error["type"] == "raf_serve"
    assert says in error["message"]


def _two_turns(folder: Path) -> None:
    turns = []
    for n in range(2):
        chunk = {
            "choices": [{"index": 0, "delta": {"content": f"turn {n}"}, "finish_reason": "stop"}]
        }
        body = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()
        turns.append(
            Interaction(
                request=Request(
                    uri="https://api.example.com/v1/chat/completions",
                    body=json.dumps(
                        {"model": "m", "messages": [{"role": "user", "content": f"q{n}"}]}
                    ),
                ),
                response=Response(headers={"content-type": ["text/event-stream"]}, body=body),
                timing=[(10, 0.0), (len(body) - 10, 80.0)] if n == 1 else None,
            )
        )
    save(
        Cassette(interactions=turns, info=ScenarioInfo(scenario="two_turns")),
        folder / "openai_chat" / "two_turns.yaml",
    )


def _text(url: str, n: int, headers: dict[str, str] | None = None) -> str:
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": f"q{n}"}]})
    with httpx.stream("POST", url, content=body, headers=headers) as response:
        return respond(response.iter_raw(), "openai_chat").text


def test_interactions_are_answered_in_order_per_prefix_and_session(tmp_path: Path) -> None:
    _two_turns(tmp_path)
    journal_file = tmp_path / "journal.jsonl"
    with ReplayServer([tmp_path], journal_file=journal_file) as running:
        url = running.case_url("openai_chat", "two_turns") + CHAT
        assert [_text(url, 0), _text(url, 1), _text(url, 0)] == ["turn 0", "turn 1", "turn 0"]
        alone = {"x-raf-session": "other"}
        assert _text(url, 0, alone) == "turn 0"  # a session of its own starts at the first
        pinned = running.case_url("openai_chat", "two_turns", interaction=1) + CHAT
        assert _text(pinned, 1) == "turn 1"
        httpx.post(running.url + "/_raf/reset")
        assert _text(url, 0) == "turn 0"
        entries = httpx.get(running.url + "/_raf/journal").json()["entries"]
        checks = [(e["interaction"], e["check"]["ok"]) for e in entries]
        assert checks == [(0, True), (1, True), (0, True), (0, True), (1, True), (0, True)]
    lines = journal_file.read_text().splitlines()
    assert len(lines) == 6
    assert json.loads(lines[1])["outcome"] == "complete"


def test_recorded_timing_is_replayed_read_by_read_and_scaled_by_speed(tmp_path: Path) -> None:
    _two_turns(tmp_path)
    with ReplayServer([tmp_path], speed=1.0) as running:
        url = running.case_url("openai_chat", "two_turns", interaction=1) + CHAT
        with httpx.stream("POST", url) as response:
            reads = list(response.iter_raw())
    assert len(reads) == 2  # the 80 ms pause keeps the two recorded reads apart
    assert len(reads[0]) == 10
    with ReplayServer([tmp_path], speed=0) as instant:
        url = instant.case_url("openai_chat", "two_turns", interaction=1, chunking="whole") + CHAT
        with httpx.stream("POST", url) as response:
            assert len(list(response.iter_raw())) == 1


def test_the_journal_scrubs_secrets_and_keeps_the_request_check(server: ReplayServer) -> None:
    mark = server.journal.count
    url = server.case_url("openai_chat", "plain_text") + CHAT
    secret = "sk-proj-" + "A1b2C3d4" * 6
    httpx.post(url, content=b'{"model": "wrong"}', headers={"authorization": f"Bearer {secret}"})
    entry = server.journal.since(mark)[0]
    assert entry["headers"]["authorization"] == "REDACTED"
    assert secret not in json.dumps(entry)
    assert entry["check"]["ok"] is False
    assert 'model: expected "gpt-4o-mini", got "wrong"' in entry["check"]["mismatches"]


def test_the_request_check_reads_gemini_s_url_and_never_shows_its_key(
    server: ReplayServer,
) -> None:
    recorded = _request_body(SUITE.cassettes / "gemini" / "json_array_cut_mid_element.yaml")
    key = "AIza" + "Sy" + "Q9w8E7r6T5y4U3i2O1p0A9s8D7f6G5h4J"
    base = server.case_url("gemini", "json_array_cut_mid_element")
    checks = []
    for path in (
        "/v1beta/models/gemini-2.0-flash:streamGenerateContent",
        f"/v1beta/models/gemini-2.0-flash:streamGenerateContent?key={key}&alt=sse",
    ):
        mark = server.journal.count
        httpx.post(base + path, content=recorded)
        checks.append(server.journal.since(mark)[0]["check"])
    assert checks[0] == {
        "ok": True,
        "compared": ["url.model", "url.method", "url.alt", "contents"],
        "mismatches": [],
    }
    assert checks[1]["mismatches"] == [
        'url.alt: expected none (a JSON-array body), got "sse" (Server-Sent Events)'
    ]
    assert key not in json.dumps(server.journal.entries())


def test_bodies_over_the_limit_get_413_and_streams_over_the_limit_503(tmp_path: Path) -> None:
    with ReplayServer(max_body=1000, max_streams=1) as running:
        url = running.case_url("openai_chat", "plain_text") + CHAT
        too_big = httpx.post(url, content=b"x" * 5000)
        assert too_big.status_code == 413
        assert "over the limit of 1000 bytes" in too_big.json()["error"]["message"]
        stalled = running.case_url("openai_chat", "plain_text", faults=["stall-3000"]) + CHAT
        with httpx.stream("POST", stalled) as first:
            reads = first.iter_raw()  # kept: a dropped iterator closes the response
            next(reads)  # the first stream is in progress, stalled
            busy = httpx.post(url)
            assert busy.status_code == 503
            assert busy.headers["retry-after"] == "1"


def test_two_hundred_concurrent_streams_all_arrive_whole() -> None:
    expected = _recorded_body()

    async def one(client: httpx.AsyncClient, url: str) -> bytes:
        async with client.stream("POST", url) as response:
            return b"".join([part async for part in response.aiter_raw()])

    async def main(url: str) -> list[bytes]:
        limits = httpx.Limits(max_connections=200)
        async with httpx.AsyncClient(limits=limits, timeout=30) as client:
            return await asyncio.gather(*(one(client, url) for _ in range(200)))

    with ReplayServer() as running:
        # Each stream pauses once, so that they are all in progress together.
        url = running.case_url(
            "openai_chat", "plain_text", chunking="fixed-512", faults=["stall-500"]
        )
        url += CHAT
        bodies = asyncio.run(main(url))
        assert running.config.peak > 1  # they were served at the same time
    assert all(body == expected for body in bodies)


def test_stop_ends_streams_in_progress_and_frees_the_port() -> None:
    running = ReplayServer()
    running.start()
    url = running.case_url("openai_chat", "plain_text", faults=["stall-60000"]) + CHAT
    with httpx.stream("POST", url, timeout=10) as response:
        reads = response.iter_raw()
        next(reads)
        running.stop()
        with pytest.raises(httpx.HTTPError):
            for _ in reads:
                pass
    bind("127.0.0.1", running.port).close()  # the port can be had again


def test_the_server_listens_on_loopback_only_by_default(server: ReplayServer) -> None:
    assert server.host == "127.0.0.1"
    assert server.url.startswith("http://127.0.0.1:")
    health = httpx.get(server.url + "/_raf/health").json()
    assert health["ok"] is True
    assert health["cassettes"] == len(list(SUITE.cassettes.rglob("*.yaml")))


def test_reset_ends_the_connection_with_an_rst_after_n_bytes(server: ReplayServer) -> None:
    url = server.case_url("openai_chat", "plain_text", chunking="fixed-100", faults=["reset-1000"])
    received = bytearray()
    with httpx.stream("POST", url + CHAT) as response:  # noqa: SIM117
        with pytest.raises(httpx.ReadError, match="reset"):
            received.extend(b"".join(_reads_into(response, received)))
    assert _recorded_body().startswith(bytes(received))
    entry = server.journal.entries()[-1]
    assert entry["outcome"] == "reset"


def test_connections_over_the_limit_get_503_and_are_closed() -> None:
    with ReplayServer(max_connections=1) as running:
        url = running.case_url("openai_chat", "plain_text", chunking="fixed-64")
        assert httpx.post(url + CHAT).status_code == 200  # one connection: within the limit
        stalled = running.case_url("openai_chat", "plain_text", faults=["stall-3000"])
        with httpx.Client() as first, first.stream("POST", stalled + "/v1/chat/completions"):
            response = httpx.post(url + CHAT)  # a second connection
            assert response.status_code == 503
            assert "limit of 1 open connections" in response.json()["error"]["message"]
            assert response.headers["connection"] == "close"


def test_http_429_once_then_the_stream_is_what_a_retry_loop_sees(server: ReplayServer) -> None:
    url = server.case_url("openai_chat", "plain_text", faults=["http-429x1"]) + CHAT
    session = {"x-raf-session": "retry-test"}
    first = httpx.post(url, headers=session)
    assert first.status_code == 429
    assert first.headers["retry-after"] == "1"
    second = httpx.post(url, headers=session)
    assert second.status_code == 200
    assert second.content == _recorded_body()
    faults = [e["faults"] for e in server.journal.entries()[-2:]]
    assert faults == [["http-429x1"], []]


def test_a_client_that_leaves_a_stalled_stream_frees_its_slot(server: ReplayServer) -> None:
    url = server.case_url("openai_chat", "plain_text", chunking="fixed-64", faults=["stall-60000"])
    with httpx.stream("POST", url + CHAT) as response:
        reads = response.iter_raw()  # kept: a dropped iterator closes the response
        next(reads)
        assert httpx.get(server.url + "/_raf/health").json()["active"] == 1
    # The server sees the connection close, then cancels the response: polled until it has,
    # with 60 s as the guard against a server that never does (it takes milliseconds).
    end = time.monotonic() + 60
    while time.monotonic() < end:
        if httpx.get(server.url + "/_raf/health").json()["active"] == 0:
            break
        time.sleep(0.05)
    assert httpx.get(server.url + "/_raf/health").json()["active"] == 0
    assert server.journal.entries()[-1]["outcome"] == "client closed the connection"
