"""`raf record` as users run it: a process on a free port in front of the fake provider,
stopped by a signal, reaped on every path (tests/processes.py)."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from raf.cassettes import load
from tests import processes
from tests.record.fake_provider import FakeProvider

RAF = [sys.executable, "-m", "raf"]
KEY = "sk-proj-" + "Cli123" * 8
GOOGLE_KEY = "AIza" + "Cli4" * 9


@contextmanager
def _started(*args: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """``raf record`` in a session of its own, and its base URL; killed and reaped on the
    way out whatever the test did."""
    process = subprocess.Popen(
        [*RAF, "record", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        line = processes.readline(process)
        assert line.startswith("raf record: listening on http://127.0.0.1:"), line
        assert "/s/my_case/v1) or send x-raf-scenario: NAME" in line
        yield process, line.split(" on ", 1)[1].split(",", 1)[0]
    finally:
        processes.kill_group(process)


def test_record_prints_its_url_records_and_lists_what_it_saved_on_sigint(
    tmp_path: Path,
) -> None:
    out_dir = tmp_path / "recorded"
    with (
        FakeProvider() as fake,
        _started("--upstream", fake.url, "-o", str(out_dir), "--max-age", "2w") as (process, url),
    ):
        try:
            answer = httpx.post(
                url + "/s/cli_case/v1/chat/completions",
                json={"model": "gpt-4o-mini", "messages": [], "stream": True},
                headers={"authorization": f"Bearer {KEY}"},
                timeout=60,
            )
            assert answer.status_code == 200
            assert answer.content == b"".join(fake.chunks)
            refused = httpx.post(url + f"/v1/chat/completions?key={GOOGLE_KEY}", json={})
            assert refused.status_code == 400  # no scenario named
        finally:
            process.send_signal(signal.SIGINT)
            out, err = processes.communicate(process)
    assert process.returncode == 0
    assert "Traceback" not in err
    assert "/v1/chat/completions?key=REDACTED: no scenario" in out
    assert GOOGLE_KEY not in out + err
    saved = out_dir / "openai_chat" / "cli_case.yaml"
    assert "1 cassette(s) saved" in out
    assert str(saved) in out
    assert "openai_chat/cli_case: recorded 200" in out
    assert KEY.encode() not in saved.read_bytes()
    info = load(saved).info
    assert info is not None
    assert info.recorded is not None
    assert info.recorded.max_age == "2w"


def test_sigterm_stops_it_too(tmp_path: Path) -> None:
    with _started("--upstream", "http://127.0.0.1:9", "-o", str(tmp_path)) as (process, _):
        process.send_signal(signal.SIGTERM)
        out, err = processes.communicate(process)
    assert process.returncode == 0
    assert "0 cassette(s) saved" in out
    assert not err.strip()


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    a_file = tmp_path / "file"
    a_file.write_text("x")
    taken = socket_in_use()
    try:
        port = str(taken.getsockname()[1])
        cases = [
            (["--upstream", "not a url", "-o", str(tmp_path)], "raf: --upstream: not an http"),
            (["--upstream", "http://h/?key=AIza" + "x" * 35, "-o", str(tmp_path)], "no query"),
            (["--upstream", "http://h", "-o", str(a_file)], "is a file"),
            (["--upstream", "http://h", "-o", str(tmp_path), "--port", port], "cannot listen"),
            (["--upstream", "http://h", "-o", str(tmp_path), "--scenario", "A/B"], "not a name"),
            (["--upstream", "http://h", "-o", str(tmp_path), "--max-age", "soon"], "max age"),
        ]
        for args, expected in cases:
            result = processes.run([*RAF, "record", *args], text=True)
            assert result.returncode == 2, (args, result.stderr)
            assert expected in result.stderr, (args, result.stderr)
            assert "Traceback" not in result.stderr
            assert "AIza" + "x" * 35 not in result.stderr
    finally:
        taken.close()


def socket_in_use() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(1)
    return sock
