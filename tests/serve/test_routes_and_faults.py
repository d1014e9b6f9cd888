"""The URL scheme and the fault plans of raf serve: pure functions, no socket."""

from __future__ import annotations

import pytest

from raf.pipeline import respond
from raf.serve.faults import (
    Close,
    FaultError,
    Pause,
    Plan,
    Truncate,
    Write,
    active,
    error_body,
    parse_faults,
    plan,
)
from raf.serve.routes import Route, RouteError, parse, provider_path_problem
from raf.shared.case_paths import case_path

BODY = b'data: {"a":1}\n\ndata: {"b":2}\n\ndata: [DONE]\n\n'


def test_a_case_path_names_dialect_scenario_options_and_the_provider_path() -> None:
    route = parse("/s/openai_chat/plain_text/c/bytes/f/cut-10+stall-5/i/0/v1/chat/completions")
    assert isinstance(route, Route)
    assert (route.dialect, route.scenario, route.chunking, route.interaction) == (
        "openai_chat",
        "plain_text",
        "bytes",
        0,
    )
    assert [f.name for f in route.faults] == ["cut-10", "stall-5"]
    assert route.provider_path == "/v1/chat/completions"
    assert route.prefix == "/s/openai_chat/plain_text/c/bytes/f/cut-10+stall-5/i/0"


def test_options_come_in_any_order_and_case_path_writes_what_parse_reads() -> None:
    path = case_path("gemini", "x", chunking="fixed-7", faults=["garbage"], interaction=2)
    route = parse(path + "/v1beta/models/m:streamGenerateContent")
    assert isinstance(route, Route)
    assert (route.chunking, [f.name for f in route.faults], route.interaction) == (
        "fixed-7",
        ["garbage"],
        2,
    )
    swapped = parse("/s/gemini/x/i/2/c/fixed-7/v1beta/models/m:streamGenerateContent")
    assert isinstance(swapped, Route)
    assert (swapped.chunking, swapped.interaction) == ("fixed-7", 2)


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("/s/openai_chat/../secrets/v1/chat/completions", "refused path segment"),
        ("/s/openai_chat/%2e%2e/v1/chat/completions", "refused path segment"),
        ("/s/openai_chat/a%2Fb/v1/chat/completions", "refused path segment"),
        ("/s/openai_chat/a%5Cb/v1/chat/completions", "refused path segment"),
        ("/s/openai_chat/%ff/v1", "not UTF-8"),
        ("/s/OpenAI/plain_text/v1", "cannot name a cassette"),
        ("/s/openai_chat/plain_text/c/sideways/v1", "unknown chunking"),
        ("/s/openai_chat/plain_text/f/explode/v1", "unknown fault"),
        ("/s/openai_chat/plain_text/f/http-200/v1", "between 400 and 599"),
        ("/s/openai_chat/plain_text/f/cut/v1", "takes a number"),
        ("/s/openai_chat/plain_text/i/x/v1", "interaction number"),
        ("/s/openai_chat/plain_text/c/whole/c/bytes/v1", "given twice"),
        ("/v1/chat/completions", "cases are under /s/"),
        ("/s/" + "a" * 3000, "longer than"),
    ],
)
def test_a_bad_path_is_refused_with_a_message_that_says_why(path: str, says: str) -> None:
    route = parse(path)
    assert isinstance(route, RouteError)
    assert says in route.message
    assert route.status in (404, 414)


def test_provider_paths_are_the_ones_each_dialects_clients_append() -> None:
    assert provider_path_problem("openai_chat", "POST", "/v1/chat/completions") is None
    assert provider_path_problem("openai_chat", "POST", "/chat/completions") is None
    assert (
        provider_path_problem("openai_chat", "POST", "/openai/deployments/d/chat/completions")
        is None
    )
    assert provider_path_problem("anthropic_messages", "POST", "/v1/messages") is None
    assert provider_path_problem("openai_responses", "GET", "/v1/responses/resp_1") is None
    assert provider_path_problem("gemini", "POST", "/v1beta/models/g:streamGenerateContent") is None
    problem = provider_path_problem("openai_chat", "POST", "/v1/messages")
    assert problem is not None
    assert "chat/completions" in problem
    assert provider_path_problem("openai_chat", "GET", "/v1/chat/completions") is not None


def _plan(faults: str, chunks: list[bytes] | None = None, status: int = 200) -> Plan:
    return plan(
        dialect="openai_chat",
        status=status,
        reason="OK",
        headers=[("content-type", "text/event-stream"), ("content-length", "9"), ("x-id", "1")],
        chunks=chunks if chunks is not None else [BODY],
        faults=parse_faults(faults) if faults else (),
    )


def test_without_faults_the_plan_is_the_chunks_and_recorded_headers_without_framing_ones() -> None:
    p = _plan("", chunks=[BODY[:5], BODY[5:]])
    assert p.steps == [Write(BODY[:5]), Write(BODY[5:])]
    assert p.complete
    assert p.headers == [("content-type", "text/event-stream"), ("x-id", "1")]


def test_cut_sends_exactly_n_bytes_then_closes() -> None:
    p = _plan("cut-20", chunks=[BODY[:7], BODY[7:]])
    assert p.body() == BODY[:20]
    assert isinstance(p.steps[-1], Close)
    assert not p.complete
    assert _plan("cut-0").body() == b""
    longer = _plan("cut-100000")
    assert longer.body() == BODY
    assert isinstance(longer.steps[-1], Close)


def test_stall_pauses_after_the_first_chunk_only() -> None:
    p = _plan("stall-250", chunks=[BODY[:5], BODY[5:]])
    assert p.steps == [Write(BODY[:5]), Pause(0.25), Write(BODY[5:])]


def test_http_fault_answers_the_dialects_error_with_retry_after() -> None:
    p = _plan("http-429")
    assert p.status == 429
    assert ("retry-after", "1") in p.headers
    body = p.body()
    assert b'"rate_limit_exceeded"' in body
    assert ("retry-after", "1") not in _plan("http-500").headers
    assert b'"type":"error"' in error_body("anthropic_messages", 529)
    assert b'"RESOURCE_EXHAUSTED"' in error_body("gemini", 429)


def test_truncated_chunked_promises_more_than_it_sends() -> None:
    p = _plan("truncated-chunked")
    last = p.steps[-1]
    assert isinstance(last, Truncate)
    sent_before = b"".join(s.data for s in p.steps if isinstance(s, Write))
    assert sent_before == BODY[: len(BODY) // 2]
    assert last.promised > len(last.data)
    assert BODY.startswith(p.body())


def test_garbage_is_one_bad_event_after_the_first_in_the_bodys_framing() -> None:
    p = _plan("garbage", chunks=[BODY[:3], BODY[3:]])
    body = p.body()
    first = BODY.index(b"\n\n") + 2
    assert body == BODY[:first] + b"data: {raf injected garbage\n\n" + BODY[first:]
    codes = [e.error_code for e in respond([body], "openai_chat").errors]
    # Reported, and the stream goes on (its toy chunks are no chat chunks: raf says so).
    assert codes == ["sse_parse_error", "unrecognised_format"]
    array = plan(
        dialect="gemini",
        status=200,
        reason="OK",
        headers=[],
        chunks=[b'[{"a": "]"}\n,{"b": 1}]'],
        faults=parse_faults("garbage"),
    ).body()
    assert array == b'[{"a": "]"},\r\n{raf injected garbage}\n,{"b": 1}]'


def test_drip_sends_one_byte_per_write_with_pauses() -> None:
    p = _plan("drip-3", chunks=[b"abc"])
    assert p.steps == [Write(b"a"), Pause(0.003), Write(b"b"), Pause(0.003), Write(b"c")]


def test_content_type_faults() -> None:
    wrong = _plan("wrong-content-type").headers
    assert ("content-type", "text/html; charset=utf-8") in wrong
    assert ("content-type", "text/event-stream") not in wrong
    assert all(k != "content-type" for k, _ in _plan("no-content-type").headers)


def test_recorded_delays_become_pauses_and_survive_an_injected_event() -> None:
    p = plan(
        dialect="openai_chat",
        status=200,
        reason="OK",
        headers=[],
        chunks=[BODY[:10], BODY[10:]],
        delays=[0.0, 0.5],
        faults=parse_faults("garbage"),
    )
    assert Pause(0.5) in p.steps
    assert p.body().count(b"garbage") == 1


@pytest.mark.parametrize("name", ["cut-1+cut-2", "stall-700000", "", "http-4291"])
def test_bad_fault_lists_are_refused(name: str) -> None:
    with pytest.raises(FaultError):
        parse_faults(name)


def test_reset_is_a_cut_with_an_rst() -> None:
    p = _plan("reset-20", chunks=[BODY])
    assert p.body() == BODY[:20]
    assert p.steps[-1] == Close(reset=True)
    with pytest.raises(FaultError, match="give one"):
        parse_faults("cut-5+reset-5")


def test_a_fault_with_xn_breaks_only_the_first_n_requests_of_its_case() -> None:
    faults = parse_faults("http-429x2+garbage")
    assert [f.name for f in faults] == ["http-429x2", "garbage"]
    assert [[f.name for f in active(faults, n)] for n in range(3)] == [
        ["http-429x2", "garbage"],
        ["http-429x2", "garbage"],
        ["garbage"],
    ]
    for bad in ("http-429x", "xx2", "garbage-x2", "cut-5x1x1"):
        with pytest.raises(FaultError):
            parse_faults(bad)
