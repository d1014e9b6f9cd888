"""raf serve against a hostile client on 127.0.0.1: secrets in what it sends never reach the
journal, a huge journal is read in bounded pages, any request body gets a JSON answer, a
method a case path does not take gets 405, and only a reachable address is warned about."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from raf import formats
from raf.cassettes.persister import load
from raf.cli.serve import is_loopback
from raf.conformance.bundled import bundled
from raf.serve.journal import MAX_BODY_BYTES, PAGE_ENTRIES, Journal
from raf.serve.request_check import MAX_BODY_DEPTH, check_request, compared_fields
from raf.serve.server import ReplayServer
from tests import processes

CHAT = "/v1/chat/completions"
LONG_KEY = "sk-proj-" + "A1b2C3d4" * 20  # longer than a mismatch line's excerpt
SHORT_KEY = "sk-proj-" + "Z9y8X7w6" * 4
QUERY_SECRETS = {
    "api_key": "0123456789abcdef0123456789abcdef",
    "key": "fedcba9876543210fedcba9876543210",
    "access_token": "q1w2e3r4t5y6u7i8o9p0",
}
EMOJI_BODY = json.dumps(
    {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "\U0001f600" * 65536}]},
    ensure_ascii=False,
).encode()


@pytest.fixture(scope="module")
def journal_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("journal") / "journal.jsonl"


@pytest.fixture(scope="module")
def server(journal_file: Path) -> Iterator[ReplayServer]:
    with ReplayServer(speed=0, journal_file=journal_file) as running:
        yield running


def _error(response: httpx.Response, status: int) -> str:
    """The message of raf's JSON error ``response``, which must have ``status``."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"}
    assert body["error"]["type"] == "raf_serve"
    message: str = body["error"]["message"]
    return message


def test_item_1_journal_mismatch_lines_and_query_parameters_are_scrubbed(
    server: ReplayServer, journal_file: Path
) -> None:
    mark = server.journal.count
    query = "&".join(f"{name}={value}" for name, value in QUERY_SECRETS.items())
    url = server.case_url("openai_chat", "plain_text") + CHAT + f"?{query}&alt=sse"
    for key in (LONG_KEY, SHORT_KEY):
        sent = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": f"my key {key}"}]}
        assert httpx.post(url, json=sent).status_code == 200
    entries = server.journal.since(mark)
    assert [e["query"] for e in entries] == [
        "api_key=REDACTED&key=REDACTED&access_token=REDACTED&alt=sse"
    ] * 2
    lines = [line for e in entries for line in e["check"]["mismatches"]]
    assert 'messages[0].content: expected "You are a concise science tutor.", got "my key ' in (
        "\n".join(lines)
    )
    assert all("REDACTED" in line for line in lines if line.startswith("messages[0].content"))
    served = httpx.get(server.url + "/_raf/journal").text
    written = journal_file.read_text()
    for text in (served, written, json.dumps(entries)):
        for secret in (LONG_KEY[:20], SHORT_KEY[:20], *QUERY_SECRETS.values()):
            assert secret not in text


def test_item_1_a_credential_member_is_redacted_in_a_mismatch_line() -> None:
    recorded = json.dumps({"model": "m", "messages": [{"role": "user", "password": "old-one"}]})
    sent = json.dumps({"model": "m", "messages": [{"role": "user", "password": "hunter2-xyz"}]})
    check = check_request("openai_chat", recorded, sent.encode())
    assert check.mismatches == ['messages[0].password: expected "REDACTED", got "REDACTED"']


def test_item_2_the_journal_is_capped_in_bytes_and_read_in_pages(server: ReplayServer) -> None:
    url = server.case_url("openai_chat", "plain_text") + CHAT
    mark = server.journal.count
    for _ in range(7):
        assert httpx.post(url, content=EMOJI_BODY).status_code == 200
    entries = server.journal.since(mark)
    assert [e["body_bytes"] for e in entries] == [len(EMOJI_BODY)] * 7
    assert all(len(e["body"].encode()) <= MAX_BODY_BYTES for e in entries)
    assert all(e["body"].endswith("\U0001f600") for e in entries)  # cut between characters

    first = httpx.get(server.url + "/_raf/journal").json()
    assert set(first) == {"entries", "next_since", "more"}
    assert first["next_since"] == first["entries"][-1]["seq"]
    wanted = [e["seq"] for e in server.journal.entries()]
    seen: list[int] = []
    since, more, pages = 0, True, 0
    while more:
        page = httpx.get(server.url + f"/_raf/journal?since={since}&limit=3").json()
        assert 1 <= len(page["entries"]) <= 3
        seen += [e["seq"] for e in page["entries"]]
        since, more, pages = page["next_since"], page["more"], pages + 1
    assert seen == wanted
    assert pages == -(-len(wanted) // 3)
    assert httpx.get(server.url + f"/_raf/journal?since={since}").json() == {
        "entries": [],
        "next_since": since,
        "more": False,
    }
    big = httpx.get(server.url + f"/_raf/journal?limit={PAGE_ENTRIES * 10}")
    assert big.status_code == 200
    for bad in ("since=-1", "since=x", "limit=0", "limit=", "since=1e3"):
        assert "takes" in _error(httpx.get(server.url + f"/_raf/journal?{bad}"), 400)


def test_item_2_the_journal_keeps_entries_within_its_byte_cap_and_pages_within_theirs() -> None:
    journal = Journal(max_bytes=300_000)
    for _ in range(10):
        entry = journal.record(method="POST", path="/p", query="", headers=[], body=EMOJI_BODY)
        journal.finish(entry, status=200, outcome="complete")
    kept = journal.entries()
    assert journal.count == 10
    assert journal.kept_bytes <= 300_000
    assert [e["seq"] for e in kept] == list(range(11 - len(kept), 11))  # the newest
    assert len(kept) == 300_000 // (MAX_BODY_BYTES + 300)
    page = journal.page(0, max_bytes=150_000)
    assert (len(page.entries), page.more) == (2, True)
    one = journal.page(0, max_bytes=1)  # a page always holds an entry
    assert (len(one.entries), one.next_since) == (1, kept[0]["seq"])
    pending = journal.record(method="POST", path="/p", query="", headers=[], body=EMOJI_BODY)
    journal.clear()  # POST /_raf/reset?journal=1 while a response is in progress
    journal.finish(pending, status=200, outcome="complete")
    assert (journal.entries(), journal.kept_bytes) == ([], 0)


def _nested(depth: int) -> bytes:
    return b'{"model": ' + b'{"a": [' * depth + b"1" + b"]}" * depth + b"}"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b'{"messages": ' + b"[" * 600 + b"]" * 600 + b"}", f"deeper than {MAX_BODY_DEPTH}"),
        (b"[" * 600 + b"]" * 600, f"nests deeper than {MAX_BODY_DEPTH} levels"),
        (_nested(300), f"nests deeper than {MAX_BODY_DEPTH} levels"),
        (b"[" * 1_000_000, f"nests deeper than {MAX_BODY_DEPTH} levels"),
        (b"{not json", "is not JSON"),
        (b"\xff\xfe{}", "is not JSON: byte 0 is not UTF-8"),
        (b'{"model": 1e400}', "is not JSON: Number out of range"),
        (b'{"n": ' + b"9" * 5000 + b"}", "is not JSON"),
        (b"[1, 2]", "is not a JSON object"),
        (b'"sk-proj-' + b"Q1" * 20 + b'"', "is not a JSON object"),
        (b"null", "is not a JSON object"),
    ],
)
def test_item_4_any_request_body_gets_a_json_4xx_never_a_500(
    server: ReplayServer, body: bytes, message: str
) -> None:
    url = server.case_url("openai_chat", "tool_loop_follow_up_request") + CHAT
    mark = server.journal.count
    assert message in _error(httpx.post(url, content=body), 400)
    entry = server.journal.since(mark)[0]
    assert (entry["status"], entry["outcome"]) == (400, "refused: bad request body")
    assert "sk-proj" not in json.dumps(entry)
    # A refused request takes no turn: the next one still gets interaction 0.
    follow = load(bundled().cassettes / "openai_chat" / "tool_loop_follow_up_request.yaml")
    recorded = follow.interactions[0].request.body
    assert isinstance(recorded, str)
    assert httpx.post(url, content=recorded.encode()).status_code == 200
    assert server.journal.since(mark)[-1]["interaction"] == 0
    httpx.post(server.url + "/_raf/reset")


def test_item_4_wrong_types_in_a_body_are_mismatches_not_a_500(server: ReplayServer) -> None:
    url = server.case_url("openai_chat", "plain_text") + CHAT
    sent: dict[str, Any]
    for sent in (
        {"messages": [{"role": "user", "content": [{"type": [1], "text": "x"}]}]},
        {"model": ["gpt"], "messages": 5, "tools": "all", "stream": {"a": None}},
        {"messages": [None, 1, "x", [], {"content": {"type": {}}}]},
    ):
        mark = server.journal.count
        assert httpx.post(url, json=sent).status_code == 200
        assert server.journal.since(mark)[0]["check"]["ok"] is False


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=30,
)
_FIELDS = sorted({name for d in formats.names() for name in compared_fields(d)} | {"content"})


@settings(max_examples=300, deadline=None)
@given(
    dialect=st.sampled_from(formats.names()),
    recorded=st.dictionaries(st.sampled_from(_FIELDS), _JSON, max_size=4),
    received=st.dictionaries(st.sampled_from(_FIELDS), _JSON, max_size=4) | _JSON,
)
def test_item_4_the_request_check_reads_any_json_without_raising(
    dialect: str, recorded: dict[str, Any], received: Any
) -> None:
    check = check_request(dialect, json.dumps(recorded), json.dumps(received).encode())
    assert len(check.mismatches) <= 5


def test_item_4_a_body_at_the_depth_limit_is_checked_without_recursing_past_it() -> None:
    recorded = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    deep = "[" * (MAX_BODY_DEPTH - 4) + "]" * (MAX_BODY_DEPTH - 4)
    sent = '{"model": "m", "messages": [{"role": "user", "content": ' + deep + "}]}"
    frames = 0
    frame: FrameType | None = sys._getframe()
    while frame is not None:
        frames, frame = frames + 1, frame.f_back
    previous = sys.getrecursionlimit()
    # Room for the JSON library's own descent (one level a frame, in C) and a few calls:
    # a check that recursed in Python per level would need twice as much.
    sys.setrecursionlimit(frames + MAX_BODY_DEPTH + 60)
    try:
        check = check_request("openai_chat", recorded, sent.encode())
    finally:
        sys.setrecursionlimit(previous)
    assert check.mismatches[0].startswith('messages[0].content: expected "hi", got [[[')


def test_item_7_a_method_a_case_path_does_not_take_gets_405_with_allow(
    server: ReplayServer,
) -> None:
    chat = server.case_url("openai_chat", "plain_text") + CHAT
    for method in ("GET", "PUT", "DELETE", "PATCH"):
        response = httpx.request(method, chat)
        assert "not an endpoint of openai_chat" in _error(response, 405)
        assert response.headers["allow"] == "POST"
    resumed = (
        server.case_url("openai_responses", "background_resume_mid_response")
        + "/v1/responses/resp_1"
    )
    assert httpx.post(resumed).headers["allow"] == "GET"
    assert _error(httpx.get(server.case_url("openai_chat", "plain_text") + "/v1/nope"), 404)
    journal = httpx.post(server.url + "/_raf/journal")
    assert "not allowed" in _error(journal, 405)
    assert "GET" in journal.headers["allow"]


def test_item_7_only_an_address_beyond_this_machine_is_warned_about() -> None:
    for host in ("127.0.0.1", "127.0.0.2", "127.1", "::1", "::ffff:127.0.0.1", "localhost"):
        assert is_loopback(host), host
    for host in ("0.0.0.0", "::", "192.0.2.7", "10.1.2.3", "2001:db8::1"):
        assert not is_loopback(host), host
    # "127.1" and "LOCALHOST" are 127.0.0.1 under other names: no warning.
    for host in ("127.1", "LOCALHOST"):
        process = subprocess.Popen(
            [sys.executable, "-m", "raf", "serve", "--port", "0", "--host", host],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            assert "raf serve: listening on http://" in processes.readline(process)
            process.send_signal(signal.SIGTERM)
            _, err = processes.communicate(process)
        finally:
            processes.kill_group(process)
        assert process.returncode == 0
        assert "any machine" not in err
