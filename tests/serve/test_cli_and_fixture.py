"""`raf serve` as users run it (a process on a free port, stopped by a signal) and the
pytest fixture. The processes are waited for by their progress, not the clock, and reaped on
every path (tests/processes.py)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from raf.serve.server import bind
from tests import processes

RAF = [sys.executable, "-m", "raf"]


@contextmanager
def _started(*args: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """``raf serve`` in a session of its own, and its URL; killed and reaped on the way out,
    whatever the test did (it is meant to have stopped it already)."""
    process = subprocess.Popen(
        [*RAF, "serve", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        line = processes.readline(process)
        assert line.startswith("raf serve: listening on http://127.0.0.1:"), line
        yield process, line.split(" on ", 1)[1].split(" ", 1)[0]
    finally:
        processes.kill_group(process)


def test_serve_prints_its_port_serves_and_stops_cleanly_on_sigint(tmp_path: Path) -> None:
    journal = tmp_path / "journal.jsonl"
    with _started("--journal", str(journal), "--speed", "0") as (process, url):
        try:
            answer = httpx.post(
                url + "/s/openai_chat/plain_text/c/bytes/v1/chat/completions",
                json={"model": "gpt-4o-mini"},
                headers={"x-api-key": "sk-ant-api03-" + "x1Y2" * 20},
            )
            assert answer.status_code == 200
            assert b"[DONE]" in answer.content
            listing = httpx.get(url + "/_raf/scenarios").json()["scenarios"]
            assert {
                "dialect": "gemini",
                "scenario": "code_execution_parts",
                "path": "/s/gemini/code_execution_parts",
            } in listing
        finally:
            process.send_signal(signal.SIGINT)
            out, err = processes.communicate(process)
    assert process.returncode == 0
    assert "Traceback" not in err
    assert "stopped after 1 request(s)" in out  # cases only, not /_raf/
    entries = [json.loads(line) for line in journal.read_text().splitlines()]
    assert entries[0]["headers"]["x-api-key"] == "REDACTED"
    assert entries[0]["check"]["ok"] is False  # the recorded request had messages


def test_sigterm_stops_it_too() -> None:
    with _started() as (process, _):
        process.send_signal(signal.SIGTERM)
        out, err = processes.communicate(process)
    assert process.returncode == 0
    assert "stopped after 0 request(s)" in out
    assert not err.strip()


def test_a_port_in_use_or_a_missing_folder_is_a_usage_error_without_traceback(
    tmp_path: Path,
) -> None:
    taken = bind("127.0.0.1", 0)
    try:
        port = str(taken.getsockname()[1])
        result = processes.run([*RAF, "serve", "--port", port], text=True)
    finally:
        taken.close()
    assert result.returncode == 2
    assert result.stderr.startswith(f"raf: cannot listen on 127.0.0.1:{port}")
    assert "Traceback" not in result.stderr
    missing = processes.run([*RAF, "serve", "--cassettes", str(tmp_path / "nope")], text=True)
    assert missing.returncode == 2
    assert "no cassette folder" in missing.stderr
    bad = processes.run([*RAF, "serve", "--speed", "-1"], text=True)
    assert bad.returncode == 2
    assert "not a speed" in bad.stderr
    for option in ("--header-timeout", "--body-timeout"):
        for value in ("0", "soon"):
            bad = processes.run([*RAF, "serve", option, value], text=True)
            assert bad.returncode == 2
            assert "not a number of seconds" in bad.stderr


def test_the_fixture_hands_a_running_server_reset_for_each_test(raf_server: Any) -> None:
    assert raf_server.journal.entries() == []
    url = raf_server.case_url("openai_chat", "plain_text", faults=["http-503"])
    response = httpx.post(url + "/v1/chat/completions", json={})
    assert response.status_code == 503
    assert response.headers["retry-after"] == "1"
    assert [e["status"] for e in raf_server.journal.entries()] == [503]


def test_the_fixture_journal_and_order_start_empty_again(raf_server: Any) -> None:
    # The test above left a request in the module's server; this one must not see it.
    assert raf_server.journal.entries() == []
