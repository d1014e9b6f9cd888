"""The ``raf_record`` marker and the ``raf_recording`` fixture, used as a user's test suite
uses them: a small test module run by pytester against a local fake provider (127.0.0.1),
recorded once, then replayed with the provider stopped."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import msgspec
import pytest

from raf.cassettes.format import is_file_name
from raf.cassettes.persister import load, save
from raf.testing.recording import scenario_of

pytest_plugins = ["pytester"]

SECRET = "sk-proj-Abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH"

STREAM = (
    b'data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4o","choices":[{"index":0,'
    b'"delta":{"role":"assistant","content":"Hel"},"finish_reason":null}]}\n\n'
    b'data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4o","choices":[{"index":0,'
    b'"delta":{"content":"lo"},"finish_reason":null}]}\n\n'
    b'data: {"id":"c1","object":"chat.completion.chunk","model":"gpt-4o","choices":[{"index":0,'
    b'"delta":{},"finish_reason":"stop"}]}\n\n'
    b"data: [DONE]\n\n"
)

TEST_MODULE = """
import httpx
import pytest

BODY = {"model": "gpt-4o", "stream": True, "messages": [{"role": "user", "content": "hi"}]}


def ask(base_url):
    response = httpx.post(
        base_url + "/v1/chat/completions", json=BODY, headers={"authorization": "Bearer SECRET"}
    )
    assert response.status_code == 200, response.text
    return response.content


@pytest.mark.raf_record(upstream="UPSTREAM", MARKER)
def test_hello(raf_recording, raf_reference):
    assert raf_reference(ask(raf_recording.base_url)).text == "Hello"
    print("cassette_path:", raf_recording.cassette_path)
"""


class Provider:
    """A fake provider on 127.0.0.1: streams STREAM to every POST, counts them."""

    def __init__(self) -> None:
        self.hits = 0
        self.auth: list[str] = []
        self.stream = STREAM
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length") or 0))
                provider.hits += 1
                provider.auth.append(self.headers.get("authorization", ""))
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("content-length", str(len(provider.stream)))
                self.end_headers()
                self.wfile.write(provider.stream)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.running = True

    def stop(self) -> None:
        if self.running:
            self.running = False
            self.server.shutdown()
            self.server.server_close()
            self.thread.join()


@pytest.fixture
def provider() -> Iterator[Provider]:
    running = Provider()
    try:
        yield running
    finally:
        running.stop()


def suite(
    pytester: pytest.Pytester, provider: Provider, marker: str = 'dialect="openai_chat"'
) -> Path:
    source = TEST_MODULE.replace("UPSTREAM", provider.url).replace("MARKER", marker)
    return pytester.makepyfile(test_app=source.replace("SECRET", SECRET))


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest(
        "-p", "no:cacheprovider", "--strict-markers", "-W", "error::pytest.PytestUnknownMarkWarning",
        "-s", *args,
    )  # fmt: skip


CASSETTE = Path("cassettes", "openai_chat", "test_app-test_hello.yaml")


def test_record_once_then_replay_with_the_provider_stopped(
    pytester: pytest.Pytester, provider: Provider
) -> None:
    suite(pytester, provider, marker='dialect="openai_chat", max_age="30d"')
    first = run(pytester, "--raf-record-mode", "once")
    first.assert_outcomes(passed=1)
    assert provider.hits == 1
    assert provider.auth == [f"Bearer {SECRET}"]  # the provider got the real request
    cassette = pytester.path / CASSETTE
    first.stdout.fnmatch_lines(["*raf recordings*", f"recorded {CASSETTE}", "review them*"])
    first.stdout.fnmatch_lines([f"*cassette_path: {cassette}"])
    recorded = load(cassette)
    assert recorded.info is not None
    assert recorded.info.scenario == "test_app-test_hello"
    assert recorded.info.recorded is not None
    assert recorded.info.recorded.max_age == "30d"
    assert SECRET not in cassette.read_text()
    written = cassette.read_bytes()

    provider.stop()
    replayed = run(pytester)  # the default mode, none: replay only
    replayed.assert_outcomes(passed=1)
    assert "raf recordings" not in replayed.stdout.str()
    again = run(pytester, "--raf-record-mode", "once")  # once: the cassette exists
    again.assert_outcomes(passed=1)
    assert provider.hits == 1
    assert cassette.read_bytes() == written


def test_a_missing_cassette_fails_in_none_mode_saying_how_to_record_it(
    pytester: pytest.Pytester, provider: Provider
) -> None:
    suite(pytester, provider)
    result = run(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*raf: no cassette for scenario 'test_app-test_hello' (looked for "
            f"{pytester.path / CASSETTE}), and record mode 'none' (the default) replays only*",
            f"*Record it from {provider.url} once, then commit the cassette:",
            "*    pytest test_app.py::test_hello --raf-record-mode once",
        ]
    )
    assert provider.hits == 0
    assert not (pytester.path / "cassettes").exists()
    # the command it gives records the cassette
    run(pytester, "test_app.py::test_hello", "--raf-record-mode", "once").assert_outcomes(passed=1)
    assert (pytester.path / CASSETTE).is_file()


def test_mode_all_records_again_and_new_episodes_keeps_what_it_has(
    pytester: pytest.Pytester, provider: Provider
) -> None:
    suite(pytester, provider)
    run(pytester, "--raf-record-mode", "all").assert_outcomes(passed=1)
    run(pytester, "--raf-record-mode", "all").assert_outcomes(passed=1)
    assert provider.hits == 2
    run(pytester, "--raf-record-mode", "new_episodes").assert_outcomes(passed=1)
    assert provider.hits == 2


def test_recordings_are_listed_under_xdist_and_in_junit_xml(
    pytester: pytest.Pytester, provider: Provider
) -> None:
    suite(pytester, provider)
    result = run(pytester, "--raf-record-mode", "once", "-n", "2", "--junitxml", "junit.xml")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*raf recordings*", f"recorded {CASSETTE}"])
    junit = (pytester.path / "junit.xml").read_text()
    assert f'<property name="raf_recorded" value="{pytester.path / CASSETTE}"' in junit


TWO_SCENARIOS = """
import httpx
import pytest


@pytest.mark.raf_record(upstream="UPSTREAM", dialect="openai_chat")
def test_two(raf_recording):
    for scenario in ("first", "second"):
        response = httpx.post(raf_recording.url(scenario) + "/v1/chat/completions", json={})
        assert response.status_code == 200
"""


def test_a_test_records_several_scenarios(pytester: pytest.Pytester, provider: Provider) -> None:
    pytester.makepyfile(test_two=TWO_SCENARIOS.replace("UPSTREAM", provider.url))
    recorded = run(pytester, "--raf-record-mode", "once")
    recorded.assert_outcomes(passed=1)
    lines = recorded.stdout.lines
    assert sorted(line for line in lines if line.startswith("recorded ")) == [
        "recorded cassettes/openai_chat/first.yaml",
        "recorded cassettes/openai_chat/second.yaml",
    ]
    (pytester.path / "cassettes" / "openai_chat" / "second.yaml").unlink()
    provider.stop()
    missing = run(pytester)
    missing.assert_outcomes(failed=1)
    missing.stdout.fnmatch_lines(["*raf: no cassette for scenario 'second'*"])


def test_the_cassette_folder_is_an_option(pytester: pytest.Pytester, provider: Provider) -> None:
    suite(pytester, provider)
    where = ["--raf-cassette-dir", "recorded"]
    missing = run(pytester, *where)
    missing.assert_outcomes(failed=1)
    missing.stdout.fnmatch_lines(
        [
            "*pytest test_app.py::test_hello --raf-record-mode once --raf-cassette-dir "
            f"{pytester.path / 'recorded'}"
        ]
    )
    run(pytester, *where, "--raf-record-mode", "once").assert_outcomes(passed=1)
    assert (pytester.path / "recorded" / "openai_chat" / "test_app-test_hello.yaml").is_file()
    assert not (pytester.path / "cassettes").exists()


def test_without_a_dialect_the_recorded_cassette_is_found(
    pytester: pytest.Pytester, provider: Provider
) -> None:
    suite(pytester, provider, marker='scenario="hello"')
    missing = run(pytester)
    missing.assert_outcomes(failed=1)
    missing.stdout.fnmatch_lines(
        [f"*(looked for {pytester.path / 'cassettes' / '*' / 'hello.yaml'})*"]
    )
    run(pytester, "--raf-record-mode", "once").assert_outcomes(passed=1)
    provider.stop()
    replayed = run(pytester)
    replayed.assert_outcomes(passed=1)
    replayed.stdout.fnmatch_lines(
        [f"*cassette_path: {pytester.path / 'cassettes' / 'openai_chat' / 'hello.yaml'}"]
    )


def test_the_drift_recipe_re_records_into_a_scratch_folder(
    pytester: pytest.Pytester, provider: Provider
) -> None:
    """docs/recording.md's scheduled job, its pytest half: the committed cassettes stay as
    they are, the fresh ones show what the provider sends now (here: usage added)."""
    suite(pytester, provider)
    run(pytester, "--raf-record-mode", "once").assert_outcomes(passed=1)
    committed = (pytester.path / CASSETTE).read_bytes()
    provider.stream = STREAM.replace(
        b'"finish_reason":"stop"}]}', b'"finish_reason":"stop"}],"usage":{"total_tokens":3}}'
    )
    fresh = run(pytester, "--raf-record-mode", "all", "--raf-cassette-dir", "fresh")
    fresh.assert_outcomes(passed=1)
    fresh.stdout.fnmatch_lines(["recorded fresh/openai_chat/test_app-test_hello.yaml"])
    assert (pytester.path / CASSETTE).read_bytes() == committed
    again = load(pytester.path / "fresh" / "openai_chat" / "test_app-test_hello.yaml")
    assert b'"usage":{"total_tokens":3}' in again.interactions[0].response.body
    assert b"usage" not in load(pytester.path / CASSETTE).interactions[0].response.body


def expired(pytester: pytest.Pytester, provider: Provider, on_expiry: str) -> None:
    """test_hello's cassette, recorded, then dated long ago and made current for a day."""
    run(pytester, "--raf-record-mode", "once").assert_outcomes(passed=1)
    provider.stop()
    path = pytester.path / CASSETTE
    cassette = load(path)
    assert cassette.info is not None
    assert cassette.info.recorded is not None
    header = msgspec.structs.replace(
        cassette.info.recorded, date="2026-01-05T10:00:00Z", max_age="1d", on_expiry=on_expiry
    )
    cassette.info = msgspec.structs.replace(cassette.info, recorded=header)
    save(cassette, path)


def test_replaying_an_expired_cassette_warns(pytester: pytest.Pytester, provider: Provider) -> None:
    suite(pytester, provider)
    expired(pytester, provider, "warn")
    result = run(pytester)
    result.assert_outcomes(passed=1, warnings=1)
    result.stdout.fnmatch_lines(
        ["*RafCassetteExpired: *test_app-test_hello.yaml: recorded 2026-01-05, * days ago; "
         "max_age 1d: re-record it*"]
    )  # fmt: skip
    strict = run(pytester, "-W", "error::raf.testing.recording.RafCassetteExpired")
    strict.assert_outcomes(failed=1)


def test_replaying_an_expired_cassette_fails_with_on_expiry_fail(
    pytester: pytest.Pytester, provider: Provider
) -> None:
    suite(pytester, provider)
    expired(pytester, provider, "fail")
    result = run(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*raf: *test_app-test_hello.yaml: recorded 2026-01-05, *re-record it*"]
    )


@pytest.mark.parametrize(
    ("marker", "says"),
    [
        (
            'max_age="1 month"',
            "max_age '1 month' is not a whole number and a unit m, h, d or w: 90m, 12h, 30d, 2w",
        ),
        ('on_expiry="ignore"', "on_expiry 'ignore' is not 'warn' or 'fail'"),
        ('scenario="Hello World"', "scenario 'Hello World' cannot name a file"),
        ('dialect="openai_chats"', "unknown dialect 'openai_chats'"),
        ('colour="red"', "unknown keyword(s) colour"),
    ],
)
def test_a_bad_marker_fails_the_test_saying_what_is_wrong(
    pytester: pytest.Pytester, provider: Provider, marker: str, says: str
) -> None:
    suite(pytester, provider, marker=marker)
    result = run(pytester, "--raf-record-mode", "all")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"*test_app.py::test_hello: @pytest.mark.raf_record*{says}*"])
    assert provider.hits == 0


def test_the_marker_and_the_options_are_registered(pytester: pytest.Pytester) -> None:
    markers = pytester.runpytest("--markers")
    markers.stdout.fnmatch_lines(
        [
            "@pytest.mark.raf_record(upstream=URL, scenario=None, *): *(default https://api.openai.com)*"
        ]
    )
    usage = pytester.runpytest("--help")
    usage.stdout.fnmatch_lines(["*--raf-record-mode*", "*--raf-cassette-dir*"])
    bad = pytester.runpytest("--raf-record-mode", "sometimes")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR


@pytest.mark.parametrize(
    ("nodeid", "scenario"),
    [
        ("tests/test_chat.py::test_hello", "test_chat-test_hello"),
        ("tests/test_chat.py::TestChat::test_hi[gpt-4]", "test_chat-testchat-test_hi_gpt-4"),
        ("test_x.py::test_y[a b/c::d]", "test_x-test_y_a_b_c-d"),
        ("t.py::test_" + "é" * 3, "t-test"),
    ],
)
def test_scenarios_are_named_by_the_test(nodeid: str, scenario: str) -> None:
    assert scenario_of(nodeid) == scenario
    assert is_file_name(scenario)


def test_a_long_test_name_still_names_one_file() -> None:
    first = scenario_of("tests/test_chat.py::test_" + "a" * 300 + "[1]")
    second = scenario_of("tests/test_chat.py::test_" + "a" * 300 + "[2]")
    assert is_file_name(first)
    assert is_file_name(second)
    assert first != second
