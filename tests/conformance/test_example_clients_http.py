"""The example clients over the ``http`` transport: they declare the ``http`` capability and,
given an ``http`` case, make the request themselves on raf's replay server, read the body as
it arrives and answer as for a chunks case.

The cases here are built by hand (the recorded request of the cassette, sent to the case's
prefix on a :class:`raf.serve.ReplayServer`) and the answers compared with the goldens; a
cut connection must give a result with an error and the part of the text that arrived,
never a crash. The last tests run the whole bundled suite through ``raf conform --transport
http``.
"""

from __future__ import annotations

import base64
import json
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from raf.cassettes.persister import load
from raf.chunking import STANDARD_CHUNKINGS
from raf.cli import main as raf_main
from raf.conformance.bundled import bundled
from raf.conformance.cases import load_suite
from raf.conformance.tool_loop import load_tool_loop_cases
from raf.serve import ReplayServer
from tests import processes

from .clients.example import load_example
from .test_example_clients import node

# Processes and servers end to end: the same in both builds (the compiled job in CI leaves
# these out, `-m 'not processes'`; the pure-Python run has them).
pytestmark = pytest.mark.processes

ROOT = Path(__file__).resolve().parents[2]
SUITE = bundled()
PYTHON_CLIENT = ROOT / "examples" / "clients" / "python" / "client.py"
NODE_CLIENT = ROOT / "examples" / "clients" / "node" / "client.js"
DIALECT = "openai_chat"

# (scenario, chunking): what the hand-built cases cover.
CASES = [
    (scenario, chunking)
    for scenario in (
        "plain_text",
        "parallel_tool_calls_interleaved",
        "leading_bom",
        "http_429_json_error",
        "crlf_framing",
    )
    for chunking in ("whole", "bytes")
]


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    # speed=0: no recorded delays, whatever the chunking.
    with ReplayServer(speed=0) as replay:
        yield replay


def command(client: str) -> list[str]:
    if client == "python":
        return [sys.executable, str(PYTHON_CLIENT)]
    return [node(), str(NODE_CLIENT)]


def recorded(scenario: str) -> tuple[str, str, Any]:
    """The recorded request of the scenario's first interaction: method, path, JSON body."""
    cassette = load(SUITE.cassettes / DIALECT / f"{scenario}.yaml")
    request = cassette.interactions[0].request
    body = json.loads(request.body) if request.body else None
    return request.method or "POST", urlsplit(request.uri).path, body


def golden(scenario: str) -> dict[str, Any]:
    document = json.loads((SUITE.goldens / DIALECT / f"{scenario}.json").read_text("utf-8"))
    response: dict[str, Any] = document["interactions"][0]["response"]
    return response


def http_case(
    server: ReplayServer,
    scenario: str,
    chunking: str | None,
    *,
    faults: tuple[str, ...] = (),
    case_id: str | None = None,
) -> dict[str, Any]:
    """An ``http`` case message, as ``raf conform --transport http`` sends it."""
    method, path, body = recorded(scenario)
    base_url = server.case_url(DIALECT, scenario, chunking=chunking, faults=faults, interaction=0)
    return {
        "type": "case",
        "id": case_id or f"{DIALECT}/{scenario}#0@{chunking or 'whole'}",
        "dialect": DIALECT,
        "level": "response",
        "status": 200,
        "headers": {"content-type": "text/event-stream"},
        "chunks": [],
        "transport": "http",
        "request": {
            "method": method,
            "url": base_url + path,
            "base_url": base_url,
            "path": path,
            "headers": {"content-type": "application/json", "accept": "text/event-stream"},
            "body": body,
        },
    }


def converse(client: str, cases: list[dict[str, Any]]) -> tuple[dict[str, Any], list[Any], int]:
    """Start the client, send hello, every case and bye at once (the client must take them in
    order), and return its hello, its results and its exit status."""
    lines = [{"type": "hello", "protocol": "raf-conformance/1"}, *cases, {"type": "bye"}]
    stdin = "".join(json.dumps(line) + "\n" for line in lines)
    finished = processes.run(command(client), input=stdin, text=True)
    answers = [json.loads(line) for line in finished.stdout.splitlines()]
    assert answers, f"no answer at all; stderr:\n{finished.stderr}"
    return answers[0], answers[1:], finished.returncode


def calls(response: dict[str, Any]) -> list[tuple[str, Any]]:
    return [(call["name"], call["arguments"]) for call in response.get("tool_calls") or []]


def assert_like_golden(response: dict[str, Any], expected: dict[str, Any]) -> None:
    assert response.get("text", "") == (expected.get("text") or "")
    assert calls(response) == calls(expected)
    assert response.get("finish_reason") == expected.get("finish_reason")
    want_usage = expected.get("usage")
    got_usage = response.get("usage")
    if want_usage is None:
        assert got_usage is None
    else:
        assert got_usage is not None
        for count in ("prompt_tokens", "completion_tokens", "total_tokens"):
            assert got_usage[count] == want_usage[count], count
    assert bool(response.get("errors")) == bool(expected.get("errors"))


@pytest.mark.parametrize("client", ["python", "node"])
def test_the_example_clients_answer_http_cases_like_the_goldens(
    server: ReplayServer, client: str
) -> None:
    cases = [http_case(server, scenario, chunking) for scenario, chunking in CASES]
    hello, results, status = converse(client, cases)
    assert "http" in hello["capabilities"]
    assert status == 0  # bye: it exits
    assert [r["id"] for r in results] == [c["id"] for c in cases]  # in order, one each
    for (scenario, chunking), result in zip(CASES, results, strict=True):
        assert "raised" not in result, (scenario, chunking, result)
        assert_like_golden(result["response"], golden(scenario))
    # the 429 came from the network: the client read the status there, not from the case
    rate_limited = [r for r in results if r["id"].startswith(f"{DIALECT}/http_429_json_error#")]
    assert len(rate_limited) == 2
    for result in rate_limited:
        assert result["response"]["errors"][0]["message"].startswith("HTTP 429")
    # every case made exactly its request, and it was the recorded one
    made = [e for e in server.journal.entries() if e.get("case")]
    for case in cases:
        path = urlsplit(case["request"]["url"]).path
        entries = [e for e in made if e["path"] == path]
        assert entries, path
        assert entries[-1]["check"]["ok"], entries[-1]["check"]


@pytest.mark.parametrize("client", ["python", "node"])
def test_chunks_and_http_cases_mix_in_one_conversation(server: ReplayServer, client: str) -> None:
    chunks_case = {
        "type": "case",
        "id": "by-chunks",
        "dialect": DIALECT,
        "level": "response",
        "status": 200,
        "headers": {"content-type": "text/event-stream"},
        "transport": "chunks",
        "chunks": [
            base64.b64encode(piece).decode("ascii")
            for piece in (
                b'data: {"choices":[{"delta":{"content":"h',
                b'i"}}]}\n\ndata: [DONE]\n\n',
            )
        ],
    }
    legacy_case = {**chunks_case, "id": "no-transport-field"}
    del legacy_case["transport"]
    cases = [
        chunks_case,
        http_case(server, "plain_text", "bytes", case_id="over-http"),
        legacy_case,
    ]
    _, results, _ = converse(client, cases)
    assert [r["id"] for r in results] == ["by-chunks", "over-http", "no-transport-field"]
    assert results[0]["response"]["text"] == "hi"
    assert results[2]["response"]["text"] == "hi"
    assert results[1]["response"]["text"] == golden("plain_text")["text"]


@pytest.mark.parametrize("client", ["python", "node"])
@pytest.mark.parametrize(
    ("faults", "chunking"),
    [(("cut-300",), None), (("cut-2000",), "bytes"), (("truncated-chunked",), "fixed-7")],
)
def test_a_connection_cut_mid_stream_is_an_error_with_the_text_so_far(
    server: ReplayServer, client: str, faults: tuple[str, ...], chunking: str | None
) -> None:
    cases = [
        http_case(server, "plain_text", chunking, faults=faults, case_id="cut"),
        http_case(server, "plain_text", "whole", case_id="after"),  # and it goes on
    ]
    _, results, status = converse(client, cases)
    assert status == 0
    cut, after = results
    assert cut["id"] == "cut"
    assert "raised" not in cut
    response = cut["response"]
    full = golden("plain_text")["text"]
    assert response["errors"]
    assert any("connection closed mid-stream" in e["message"] for e in response["errors"])
    assert full.startswith(response["text"])
    assert response["text"] != full
    if faults != ("cut-300",):  # far enough into the body for some text to have arrived
        assert response["text"]
    assert after["response"]["text"] == full
    assert after["response"]["errors"] == []


def test_the_python_client_hands_each_network_read_to_its_parser(server: ReplayServer) -> None:
    client = load_example()
    base = http_case(server, "plain_text", "bytes")["request"]
    status, headers, reads = client.fetch(base)
    assert status == 200
    assert headers["content-type"].startswith("text/event-stream")
    pieces = list(reads)
    body = b"".join(pieces)
    # Under the chunked encoding, read1 never spans two chunks: the server's one-byte writes
    # reach the parser one byte at a time, as the chunking wants.
    assert len(pieces) == len(body)
    assert body.count(b"data: ") > 10


def test_the_node_client_hands_each_network_read_to_its_parser(server: ReplayServer) -> None:
    request = http_case(server, "plain_text", "bytes")["request"]
    script = (
        f"const client = require({json.dumps(str(NODE_CLIENT))});"
        "(async () => {"
        f"  const {{ status, reads }} = await client.fetchCase({json.dumps(request)});"
        "  let count = 0, bytes = 0;"
        "  for await (const chunk of reads) { count += 1; bytes += chunk.length; }"
        "  console.log(JSON.stringify({ status, count, bytes }));"
        "})();"
    )
    finished = processes.run([node(), "-e", script], text=True, check=True)
    seen = json.loads(finished.stdout)
    assert seen["status"] == 200
    assert seen["bytes"] > 1000
    assert seen["count"] == seen["bytes"]  # one `data` event per chunk of the encoding


# -- The whole bundled suite through `raf conform --transport http` ----------------------


@pytest.mark.parametrize("client", ["python", "node"])
def test_the_example_clients_pass_every_bundled_case_over_http(client: str, tmp_path: Path) -> None:
    suite = load_suite(SUITE.cassettes, SUITE.goldens, dialects=[DIALECT])
    loops = load_tool_loop_cases(
        [SUITE.tool_loops], chunkings=STANDARD_CHUNKINGS, dialects=[DIALECT]
    )
    report_file = tmp_path / "report.json"
    status = raf_main(
        [
            "conform",
            "--impl",
            shlex.join(command(client)),
            "--transport",
            "http",
            "--dialect",
            DIALECT,
            "--json",
            str(report_file),
        ]
    )
    report = json.loads(report_file.read_text("utf-8"))
    failures = {c["id"]: c["reason"] for c in report["cases"] if not c["ok"]}
    assert failures == {}
    assert loops.cases  # their tool loops too (at level response: the final answer)
    assert report["summary"] == {
        "pass": len(suite.cases) + len(loops.cases),
        "fail": 0,
        "skip": 0,
        "error": 0,
        "known": 0,
        "notices": 0,
    }
    assert report["implementation"]["name"] == f"example-{client}"
    assert status == 0


@pytest.mark.parametrize("client", ["python", "node"])
def test_the_example_clients_pass_every_chat_tool_loop_at_level_requests(
    client: str, tmp_path: Path
) -> None:
    loops = load_tool_loop_cases(
        [SUITE.tool_loops], chunkings=STANDARD_CHUNKINGS, dialects=[DIALECT]
    )
    report_file = tmp_path / "report.json"
    status = raf_main(
        [
            "conform",
            "--impl",
            shlex.join(command(client)),
            "--transport",
            "http",
            "--level",
            "requests",
            "--dialect",
            DIALECT,
            "-k",
            "#loop@",
            "--json",
            str(report_file),
        ]
    )
    report = json.loads(report_file.read_text("utf-8"))
    assert {c["id"]: c["reason"] for c in report["cases"] if not c["ok"]} == {}
    assert [c["id"] for c in report["cases"]] == [c.id for c in loops.cases]
    assert report["summary"]["pass"] == len(loops.cases) > 0
    assert report["level"] == "requests"
    assert status == 0
