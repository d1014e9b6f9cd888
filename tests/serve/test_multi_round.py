"""Multi-round replay and the request rules, over a real loopback socket: a tool loop's
follow-ups get the round after the calls they answer (in any order, two runs interleaved),
a follow-up that breaks a rule the provider refuses gets the provider's error, and
``--rules report``/``off`` answer as recorded."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

import httpx
import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from raf.cassettes.format import Cassette
from raf.cassettes.persister import load
from raf.formats.request_rules import Broken, Prior, ProviderError, RequestRule
from raf.serve import verdicts
from raf.serve.server import ReplayServer
from raf.shared.bundled import bundled
from tests import processes
from tests.serve.test_rounds import BODIES, FORMATS

CHAT = "/chat/completions"
RAF = [sys.executable, "-m", "raf"]
RULE = "chat.tool_calls_answered"


def _loop(dialect: str = "openai_chat") -> Cassette:
    return load(bundled().tool_loops / dialect / "two_tools.yaml")


LOOP = _loop()


def _sent(n: int) -> bytes:
    """The recorded request of round ``n``, as a client sends it."""
    body = LOOP.interactions[n].request.body
    assert isinstance(body, str)
    return body.encode()


def _broken_follow_up() -> dict[str, Any]:
    """Round 1's follow-up with one of the two calls left unanswered."""
    body = msgspec.json.decode(_sent(1))
    body["messages"] = body["messages"][:-1]
    return dict(body)


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    tool_loops = bundled().tool_loops
    with ReplayServer([tool_loops, bundled().cassettes], speed=0) as running:
        yield running


@pytest.fixture
def url(server: ReplayServer) -> Iterator[str]:
    httpx.post(server.url + "/_raf/reset")
    yield server.case_url("openai_chat", "two_tools") + CHAT
    httpx.post(server.url + "/_raf/reset")


def _answers(server: ReplayServer, url: str, rounds: Sequence[int], **headers: str) -> list[int]:
    """Send the recorded request of each round in ``rounds``; the interaction whose recorded
    answer came back for each (read from the bytes, not the journal)."""
    recorded = [i.response.content() for i in LOOP.interactions]
    out = []
    for n in rounds:
        response = httpx.post(url, content=_sent(n), headers=headers)
        assert response.status_code == 200
        out.append(recorded.index(response.content))
    return out


def test_rounds_sent_out_of_order_each_get_the_answer_after_the_calls_they_answer(
    server: ReplayServer, url: str
) -> None:
    mark = server.journal.count
    assert _answers(server, url, [3, 1, 0, 2, 2, 0]) == [3, 1, 0, 2, 2, 0]
    entries = server.journal.since(mark)
    assert [(e["interaction"], e["matched"]) for e in entries] == [
        (3, "call_ids"),
        (1, "call_ids"),
        (0, "order"),
        (2, "call_ids"),
        (2, "call_ids"),
        (0, "order"),
    ]
    assert all(e["check"]["ok"] and e["rules"] == [] for e in entries)


def test_two_runs_interleaved_on_one_prefix_without_a_session_each_get_their_rounds(
    server: ReplayServer, url: str
) -> None:
    # Run A and run B, turn by turn: A0 B0 A1 B1 B2 A2 A3 B3.
    assert _answers(server, url, [0, 0, 1, 1, 2, 2, 3, 3]) == [0, 0, 1, 1, 2, 2, 3, 3]
    # And each under a run of its own (/r/<run>), the journal marking which is which.
    mark = server.journal.count
    runs = {run: server.case_url("openai_chat", "two_tools", run=run) + CHAT for run in "ab"}
    assert runs["a"] == server.url + "/s/openai_chat/two_tools/r/a" + CHAT
    for run, n in [("a", 0), ("b", 0), ("b", 1), ("a", 1), ("a", 2), ("b", 2)]:
        assert _answers(server, runs[run], [n]) == [n]
    assert [(e["run"], e["interaction"]) for e in server.journal.since(mark)] == [
        ("a", 0),
        ("b", 0),
        ("b", 1),
        ("a", 1),
        ("a", 2),
        ("b", 2),
    ]


@pytest.mark.parametrize("dialect", FORMATS)
def test_every_format_s_follow_ups_are_matched_by_what_they_answer(
    server: ReplayServer, dialect: str
) -> None:
    cassette = _loop(dialect)
    mark = server.journal.count
    for n in (2, 0, 3, 1):
        recorded = cassette.interactions[n].request
        assert isinstance(recorded.body, str)
        parts = urlsplit(recorded.uri)
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        response = httpx.post(
            server.case_url(dialect, "two_tools") + path,
            content=recorded.body.encode(),
            headers={"x-raf-session": f"every-format-{dialect}"},
        )
        assert response.status_code == 200
        assert response.content == cassette.interactions[n].response.content()
    by = "call_names" if dialect in {"gemini", "ollama_chat"} else "call_ids"
    assert [(e["interaction"], e["matched"]) for e in server.journal.since(mark)] == [
        (2, by),
        (0, "order"),
        (3, by),
        (1, by),
    ]
    # Two runs interleaved on one prefix, without a session: A0 B0 A1 B1 B2 A2 A3 B3.
    httpx.post(server.url + "/_raf/reset")
    mark = server.journal.count
    for n in (0, 0, 1, 1, 2, 2, 3, 3):
        recorded = cassette.interactions[n].request
        assert isinstance(recorded.body, str)
        parts = urlsplit(recorded.uri)
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        response = httpx.post(server.case_url(dialect, "two_tools") + path, content=recorded.body)
        assert response.content == cassette.interactions[n].response.content()
    assert [e["interaction"] for e in server.journal.since(mark)] == [0, 0, 1, 1, 2, 2, 3, 3]


def test_a_follow_up_that_leaves_a_call_unanswered_gets_openai_s_400(
    server: ReplayServer, url: str
) -> None:
    mark = server.journal.count
    response = httpx.post(url, json=_broken_follow_up())
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert "must be followed by tool messages responding to each 'tool_call_id'" in error["message"]
    assert response.headers["x-raf-rules"] == f"{RULE} messages[1].tool_calls"
    (entry,) = server.journal.since(mark)
    assert entry["status"] == 400
    assert entry["outcome"] == f"refused: breaks rule {RULE}"
    assert entry["matched"] == "call_ids"
    assert entry["interaction"] == 1
    assert [(r["rule"], r["field"]) for r in entry["rules"]] == [(RULE, "messages[1].tool_calls")]
    assert "call_01_Ve3Jn6RqA9tKw2MxZ8pLc4Fg" in entry["rules"][0]["message"]


@pytest.mark.parametrize("mode", ["report", "off"])
def test_report_and_off_answer_as_recorded(mode: Any) -> None:
    with ReplayServer([bundled().tool_loops], speed=0, rules=mode) as running:
        url = running.case_url("openai_chat", "two_tools") + CHAT
        response = httpx.post(url, json=_broken_follow_up())
        assert response.status_code == 200
        assert response.content == LOOP.interactions[1].response.content()
    (entry,) = running.journal.entries()  # the server stopped: its response has ended
    assert entry["outcome"] == "complete"
    if mode == "report":
        assert response.headers["x-raf-rules"] == f"{RULE} messages[1].tool_calls"
        assert [r["rule"] for r in entry["rules"]] == [RULE]
    else:
        assert "x-raf-rules" not in response.headers
        assert entry["rules"] is None


def test_rules_default_to_reject_and_a_mode_is_checked() -> None:
    assert ReplayServer().config.rules == "reject"
    with pytest.raises(ValueError, match="reject, report, off"):
        ReplayServer(rules="loud")  # type: ignore[arg-type]


def _fake_refused_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = RequestRule(
        id="fake.rule",
        formats=FORMATS,
        statement="",
        docs=(),
        bugs=(),
        severity="rejected",
        error=ProviderError(400, "the provider's own words"),
    )

    def broken(dialect: str, body: Mapping[str, Any], prior: Sequence[Prior] = ()) -> list[Broken]:
        return [Broken("fake.rule", "messages[0]", "always")]

    monkeypatch.setattr(verdicts, "check_rules", broken)
    monkeypatch.setattr(verdicts, "rule", lambda rule_id: fake if rule_id == "fake.rule" else None)


@pytest.mark.parametrize("dialect", FORMATS)
def test_each_format_refuses_in_the_document_its_clients_parse(
    server: ReplayServer, monkeypatch: pytest.MonkeyPatch, dialect: str
) -> None:
    _fake_refused_rule(monkeypatch)
    first = _loop(dialect).interactions[0].request
    path = urlsplit(first.uri).path
    response = httpx.post(server.case_url(dialect, "two_tools") + path, content=first.body or "")
    assert response.status_code == 400
    assert response.headers["content-type"].startswith("application/json")
    assert response.headers["x-raf-rules"] == "fake.rule messages[0]"
    document = response.json()
    message = {
        "openai_chat": lambda d: d["error"]["message"],
        "openai_responses": lambda d: d["error"]["message"],
        "anthropic_messages": lambda d: d["type"] == "error" and d["error"]["message"],
        "gemini": lambda d: d["error"]["status"] == "INVALID_ARGUMENT" and d["error"]["message"],
        "ollama_chat": lambda d: d["error"],
        "cohere_v2": lambda d: d["message"],
        "gemini_interactions": lambda d: (
            d["error"]["status"] == "INVALID_ARGUMENT" and d["error"]["message"]
        ),
        "bedrock_converse": lambda d: d["message"],
    }[dialect](document)
    assert message == "the provider's own words"


SECRET = "sk-proj-" + "Q1" * 20


def test_the_rules_a_journal_entry_and_the_header_list_are_scrubbed(
    server: ReplayServer, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def quoting(dialect: str, body: Mapping[str, Any], prior: Sequence[Prior] = ()) -> list[Broken]:
        return [Broken("fake.rule", f"messages.{SECRET}", f"the key {SECRET} is not answered")]

    monkeypatch.setattr(verdicts, "check_rules", quoting)
    mark = server.journal.count
    response = httpx.post(url, content=_sent(0))
    assert response.status_code == 200  # not a rule the catalogue has: nothing refused
    assert SECRET not in response.headers["x-raf-rules"]
    assert response.headers["x-raf-rules"].startswith("fake.rule messages.")
    (entry,) = server.journal.since(mark)
    assert SECRET not in json.dumps(entry)
    assert entry["rules"][0]["message"].startswith("the key ")


def test_a_check_that_raises_is_logged_and_journaled_and_the_request_answered(
    server: ReplayServer, url: str, monkeypatch: pytest.MonkeyPatch, capfd: Any
) -> None:
    def raises(dialect: str, body: Mapping[str, Any], prior: Sequence[Prior] = ()) -> list[Broken]:
        raise RuntimeError("a bug in a check")

    monkeypatch.setattr(verdicts, "check_rules", raises)
    monkeypatch.setattr(verdicts, "_isolated", lambda *a: ([], ["x.rule: RuntimeError: bug"]))
    mark = server.journal.count
    response = httpx.post(url, content=_sent(1))
    assert response.status_code == 200
    (entry,) = server.journal.since(mark)
    assert entry["rules_problems"] == ["x.rule: RuntimeError: bug"]
    assert (entry["status"], entry["rules"]) == (200, [])
    err = capfd.readouterr().err
    assert "raf serve: openai_chat: a request rule's check raised: x.rule" in err
    assert "Traceback" not in err


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.sampled_from(FORMATS), BODIES)
def test_no_json_body_makes_the_server_answer_500(
    server: ReplayServer, dialect: str, body: Any
) -> None:
    first = _loop(dialect).interactions[0].request
    path = urlsplit(first.uri).path
    response = httpx.post(server.case_url(dialect, "two_tools") + path, content=json.dumps(body))
    assert response.status_code in {200, 400}
    if response.status_code == 400:  # a body that is not an object, or a rule refused
        assert isinstance(response.json(), dict)


def _serve(*args: str) -> tuple[int, list[str], str | None]:
    """``raf serve --port 0 ARGS`` over the tool loops: the status of the broken follow-up, the
    rules its journal entry lists and, when refused, its outcome; the process is stopped and
    reaped whatever happens."""
    process = subprocess.Popen(
        [*RAF, "serve", "--port", "0", "--cassettes", str(bundled().tool_loops), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        line = processes.readline(process)
        base = line.split(" on ", 1)[1].split(" ", 1)[0]
        response = httpx.post(base + "/s/openai_chat/two_tools" + CHAT, json=_broken_follow_up())
        (entry,) = httpx.get(base + "/_raf/journal").json()["entries"]
        refused = entry["outcome"] if response.status_code != 200 else None
        return response.status_code, [r["rule"] for r in entry["rules"]], refused
    finally:
        processes.kill_group(process)


def test_the_cli_switch_chooses_what_a_broken_follow_up_gets() -> None:
    assert _serve() == (400, [RULE], f"refused: breaks rule {RULE}")
    assert _serve("--rules", "report") == (200, [RULE], None)
    bad = processes.run([*RAF, "serve", "--rules", "loud"], text=True)
    assert bad.returncode == 2
    assert "invalid choice: 'loud'" in bad.stderr
