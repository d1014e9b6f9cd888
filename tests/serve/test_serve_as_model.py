"""raf serve's ``/as/<model>``: a recorded answer re-encoded in a message model of raf.interop,
as a front end reads it from an agent backend. The models are the fake ones of
tests/interop/fake_models.py (registered in-process; the server is a thread of this process),
so these tests hold whatever the real models do."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from raf import interop
from raf.cassettes.format import Cassette, Interaction, Request, Response, ScenarioInfo
from raf.cassettes.persister import load, save
from raf.chunking import chunk
from raf.pipeline import run
from raf.serve.as_model import reencode
from raf.serve.routes import Route, RouteError, parse
from raf.serve.server import ReplayServer
from tests.interop import fake_models

FRONT_END = {"threadId": "t", "runId": "r", "messages": [{"role": "user", "content": "hi"}]}
"""What a front end posts (AG-UI's RunAgentInput): not a provider's request."""


def _chunk(n: int, text: str, finish: str | None = None) -> bytes:
    delta = {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": finish}]}
    return f"data: {json.dumps(delta)}\n\n".encode()


PIECES = [_chunk(0, "Hel"), _chunk(1, "lo"), _chunk(2, " there", "stop"), b"data: [DONE]\n\n"]
BODY = b"".join(PIECES)


def _interaction(
    body: bytes = BODY, *, status: int = 200, timing: list[tuple[int, float]] | None = None
) -> Interaction:
    return Interaction(
        request=Request(
            uri="https://api.example.com/v1/chat/completions",
            body=json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}),
        ),
        response=Response(
            status=status,
            headers={
                "content-type": ["text/event-stream" if status == 200 else "application/json"]
            },
            body=body,
        ),
        timing=timing,
    )


def _write(folder: Path, scenario: str, *interactions: Interaction) -> None:
    save(
        Cassette(interactions=list(interactions), info=ScenarioInfo(scenario=scenario)),
        folder / "openai_chat" / f"{scenario}.yaml",
    )


def _expected(name: str, body: bytes = BODY) -> bytes:
    model = interop.get(name)
    items = interop.encode_all(model, run([body], "openai_chat"))
    return b"".join(interop.frame(model, item) for item in items) + model.trailer


TIMING = [(len(piece), 5.0 * n) for n, piece in enumerate(PIECES)]


@pytest.fixture(autouse=True)
def _fakes(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_models.install(monkeypatch)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ReplayServer]:
    folder = tmp_path_factory.mktemp("as_model")
    _write(folder, "hello", _interaction())
    _write(folder, "timed", _interaction(timing=TIMING))
    _write(folder, "two_rounds", _interaction(_chunk(0, "one", "stop")), _interaction())
    refused = b'{"error": {"message": "Rate limit reached", "type": "rate_limit_error"}}'
    _write(folder, "rate_limited", _interaction(refused, status=429))
    with pytest.MonkeyPatch.context() as patch:
        fake_models.install(patch)
        with ReplayServer([folder], speed=0) as running:
            yield running


def _post(url: str) -> tuple[httpx.Response, bytes, list[bytes]]:
    with httpx.stream("POST", url, json=FRONT_END) as response:
        reads = list(response.iter_raw())
    return response, b"".join(reads), reads


def test_a_case_asked_as_an_sse_model_is_its_events_then_its_trailer(
    server: ReplayServer,
) -> None:
    response, body, _ = _post(server.case_url("openai_chat", "hello", model="fake-sse"))
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/event-stream"
    assert body == _expected("fake-sse")
    assert body.startswith(b'data: {"type":"text","delta":"Hel"}\n\n')
    assert body.endswith(b'data: {"type":"finish","reason":"stop"}\n\ndata: [DONE]\n\n')


def test_a_jsonl_model_is_served_as_json_lines(server: ReplayServer) -> None:
    url = server.case_url("openai_chat", "hello", model="fake-jsonl") + "/api/agent"
    response, body, _ = _post(url)
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/x-ndjson"
    assert body == _expected("fake-jsonl")
    assert all(json.loads(line)["n"] for line in body.splitlines())


@pytest.mark.parametrize("chunking", ["whole", "bytes", "fixed-7", "random"])
def test_every_chunking_cuts_the_re_encoded_body(server: ReplayServer, chunking: str) -> None:
    url = server.case_url("openai_chat", "hello", chunking=chunking, model="fake-sse")
    _, body, reads = _post(url)
    assert body == _expected("fake-sse")
    if chunking == "bytes":  # a read is one server write or several joined, never less
        assert len(reads) > 1
    if chunking == "whole":
        assert len(reads) == 1


def test_recorded_timing_sends_each_reads_events_after_its_delay() -> None:
    model = fake_models.SSE
    pieces, delays = reencode(model, "openai_chat", _interaction(timing=TIMING), "recorded")
    assert b"".join(pieces) == _expected("fake-sse")
    assert pieces[:3] == [
        b'data: {"type":"text","delta":"Hel"}\n\n',
        b'data: {"type":"text","delta":"lo"}\n\n',
        b'data: {"type":"text","delta":" there"}\n\n',
    ]
    # the [DONE] read makes nothing until the stream ends: its delay moves to the end
    assert delays == [0.0, 0.005, 0.010, 0.015]
    assert pieces[3].endswith(b"data: [DONE]\n\n")


def test_a_read_that_completes_nothing_gives_its_delay_to_the_next_that_does() -> None:
    cut = [BODY[:10], BODY[10:]]  # the first read ends inside the first event
    timing = [(len(cut[0]), 100.0), (len(cut[1]), 20.0)]
    pieces, delays = reencode(
        fake_models.JSONL, "openai_chat", _interaction(timing=timing), "recorded"
    )
    assert delays is not None
    assert b"".join(pieces) == _expected("fake-jsonl")
    assert delays[0] == pytest.approx(0.12)
    assert sum(delays) == pytest.approx(0.12)


def test_other_chunkings_and_no_timing_are_the_whole_body_cut_without_delays() -> None:
    timed = _interaction(timing=TIMING)
    assert reencode(fake_models.SSE, "openai_chat", timed, "fixed-5") == (
        chunk(_expected("fake-sse"), "fixed-5"),
        None,
    )
    assert reencode(fake_models.SSE, "openai_chat", _interaction(), "recorded") == (
        [_expected("fake-sse")],
        None,
    )


def test_the_timed_case_over_the_socket_is_the_same_body(server: ReplayServer) -> None:
    _, body, _ = _post(server.case_url("openai_chat", "timed", model="fake-sse"))
    assert body == _expected("fake-sse")


def test_a_recorded_http_error_is_the_runs_error_in_the_stream(server: ReplayServer) -> None:
    response, body, _ = _post(server.case_url("openai_chat", "rate_limited", model="fake-sse"))
    assert response.status_code == 200  # the backend streams the failure of its provider call
    events = [json.loads(e[6:]) for e in body.decode().split("\n\n")[:-2]]
    assert {"type": "error", "code": "http_error"} in events
    assert body.endswith(b"data: [DONE]\n\n")


def test_front_end_requests_are_answered_in_order_unjudged(server: ReplayServer) -> None:
    mark = server.journal.count
    url = server.case_url("openai_chat", "two_rounds", run="ui", model="fake-sse") + "/chat"
    texts = []
    for _ in range(3):
        _, body, _ = _post(url)
        texts.append(body.split(b"\n\n")[0])
    one, hello = b'data: {"type":"text","delta":"one"}', b'data: {"type":"text","delta":"Hel"}'
    assert texts == [one, hello, one]
    entries = server.journal.since(mark)
    assert [e["interaction"] for e in entries] == [0, 1, 0]
    first = entries[0]
    assert (first["model"], first["matched"], first["rules"], first["check"]) == (
        "fake-sse",
        "order",
        None,
        None,
    )
    assert (first["status"], first["outcome"]) == (200, "complete")
    pinned = server.case_url("openai_chat", "two_rounds", interaction=1, model="fake-sse")
    assert _post(pinned)[1].split(b"\n\n")[0] == hello


def test_faults_break_the_re_encoded_body(server: ReplayServer) -> None:
    url = server.case_url("openai_chat", "hello", faults=["cut-20"], model="fake-sse")
    with pytest.raises(httpx.RemoteProtocolError), httpx.stream("POST", url) as response:
        b"".join(response.iter_raw())
    garbage = server.case_url("openai_chat", "hello", faults=["garbage"], model="fake-sse")
    _, body, _ = _post(garbage)
    first = b'data: {"type":"text","delta":"Hel"}\n\n'
    assert body.startswith(first + b"data: {raf injected garbage\n\n")
    refused = server.case_url("openai_chat", "hello", faults=["http-503"], model="fake-sse")
    assert httpx.post(refused, json=FRONT_END).status_code == 503


@pytest.mark.parametrize("name", ["fake-broken", fake_models.MISSING])
def test_a_model_that_breaks_is_a_500_in_the_journal_and_the_server_goes_on(
    server: ReplayServer, name: str
) -> None:
    mark = server.journal.count
    response = httpx.post(server.case_url("openai_chat", "hello", model=name), json=FRONT_END)
    assert response.status_code == 500
    error = response.json()["error"]
    assert error["type"] == "raf_serve"
    assert f"cannot be replayed as {name}" in error["message"]
    entry = server.journal.since(mark)[0]
    assert (entry["status"], entry["model"]) == (500, name)
    assert entry["outcome"].startswith("server error: ")
    _, body, _ = _post(server.case_url("openai_chat", "hello", model="fake-sse"))
    assert body == _expected("fake-sse")


def test_an_unknown_model_is_a_404_that_lists_the_models(server: ReplayServer) -> None:
    response = httpx.post(server.url + "/s/openai_chat/hello/as/nope/chat", json=FRONT_END)
    assert response.status_code == 404
    message = response.json()["error"]["message"]
    assert "/as/ takes a message model" in message
    assert all(name in message for name in interop.names())


def test_the_route_names_the_model_in_any_order_of_options() -> None:
    route = parse("/s/openai_chat/hello/as/ag-ui/c/bytes/api/agent")
    assert isinstance(route, Route)
    assert (route.model, route.chunking, route.provider_path) == ("ag-ui", "bytes", "/api/agent")
    assert route.prefix == "/s/openai_chat/hello/as/ag-ui/c/bytes"
    plain = parse("/s/openai_chat/hello/v1/chat/completions")
    assert isinstance(plain, Route)
    assert plain.model is None
    twice = parse("/s/openai_chat/hello/as/ag-ui/as/maf/x")
    assert isinstance(twice, RouteError)
    assert "given twice" in twice.message


def test_without_as_the_case_is_served_as_recorded(server: ReplayServer) -> None:
    url = server.case_url("openai_chat", "hello") + "/v1/chat/completions"
    body = load(server.config.folders[0] / "openai_chat" / "hello.yaml").interactions[0]
    with httpx.stream("POST", url, content=body.request.body) as response:
        assert b"".join(response.iter_raw()) == BODY
    assert httpx.post(server.case_url("openai_chat", "hello") + "/chat").status_code == 404


@pytest.mark.parametrize("name", tuple(interop.names()))
def test_every_model_is_served_as_raf_pipeline_format_prints_it(
    server: ReplayServer, name: str
) -> None:
    model = interop.get(name)
    response, body, _ = _post(
        server.case_url("openai_chat", "hello", model=name, chunking="random")
    )
    assert response.status_code == 200
    assert response.headers["content-type"] == model.media_type
    for header, value in model.headers:
        assert response.headers[header] == value
    assert body == _expected(name)


def test_the_ui_message_stream_is_served_with_the_header_the_ai_sdk_sends() -> None:
    assert ("x-vercel-ai-ui-message-stream", "v1") in interop.get("ui-message-stream").headers
