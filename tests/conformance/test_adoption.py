"""``raf conform`` adopted by a team, as the three stories of issue 20 go: a hand-written
client with two planted bugs, judged, baselined, fixed; recordings of one's own turned into
goldens that never touch raf's own; and a run that a CI system can stop, rerun and read.

The client under test is the example Python client (a correct one) with bugs planted in its
source: it keeps a leading byte-order mark (the first event of ``leading_bom`` is lost), and
it drops the usage a chunk carries beside its finish reason."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from raf.cassettes import load as load_cassette
from raf.cli import main
from raf.conformance import baseline as baselines
from raf.conformance.bundled import bundled, owned_by_raf
from tests import processes

# Processes and servers end to end: the same in both builds (the compiled job in CI leaves
# these out, `-m 'not processes'`; the pure-Python run has them).
pytestmark = pytest.mark.processes

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "clients" / "python" / "client.py"
BOM_FIX = 'text = text.removeprefix("\\ufeff")'
USAGE = """        if usage is not None:
            self.on_usage(usage)"""
USAGE_BUG = """        finishing = any(
            isinstance(c, dict) and c.get("finish_reason") for c in chunk.get("choices") or []
        )
        if usage is not None and not finishing:  # planted: usage beside a finish is dropped
            self.on_usage(usage)"""
CHAT = ["--dialect", "openai_chat", "--chunking", "whole", "--chunking", "bytes"]


def client_source(*, bom: bool = True, usage: bool = True) -> str:
    """The example client's source with the planted bugs asked for."""
    source = EXAMPLE.read_text(encoding="utf-8")
    assert BOM_FIX in source
    assert USAGE in source
    if bom:
        source = source.replace(BOM_FIX, "pass  # planted: the BOM is kept")
    if usage:
        source = source.replace(USAGE, USAGE_BUG)
    return source


def client(tmp_path: Path, *, bom: bool = True, usage: bool = True) -> str:
    """The example client with the planted bugs asked for, as an ``--impl`` command."""
    path = tmp_path / f"client_{int(bom)}{int(usage)}.py"
    path.write_text(client_source(bom=bom, usage=usage), encoding="utf-8")
    return shlex.join([sys.executable, str(path)])


def conform(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["conform", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_planted_bug_fails_with_its_kind_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = conform(capsys, "--impl", client(tmp_path), *CHAT)
    assert code == 1
    assert "raf: " in err
    assert "do not conform" in err
    # Each bug is named once per scenario, with the chunkings it occurs under.
    assert re.search(r"✗ lost text: expected \"Sure! 5 miles.*\(under every chunking\)", out)
    assert re.search(r"✗ lost usage: expected \{.*got null \(under every chunking\)", out)
    assert out.count("✗ lost text:") == 1
    # Rows are keyed by format and scenario, failures first.
    rows = [line for line in out.splitlines() if line.startswith("│")]
    first = [cell.strip() for cell in rows[0].strip("│").split("│")]
    assert first[0] == "openai_chat"
    assert first[-1].startswith("✗ lost")


def test_a_baseline_makes_the_run_pass_and_catches_new_and_fixed_bugs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    buggy = client(tmp_path)
    known = tmp_path / "known.yaml"
    code, _, err = conform(capsys, "--impl", buggy, *CHAT, "--write-baseline", str(known))
    assert code == 0
    assert f"to {known}" in err
    document = yaml.safe_load(known.read_text(encoding="utf-8"))
    entries = {(e["scenario"], e["field"], e["kind"]) for e in document["failures"]}
    assert ("leading_bom", "text", "lost") in entries
    assert ("usage_beside_finish_reason", "usage", "lost") in entries
    assert all(e["reason"] == "" and e["level"] == "response" for e in document["failures"])

    # The right baseline: exit 0, the failures counted as known.
    code, out, _ = conform(capsys, "--impl", buggy, *CHAT, "--baseline", str(known))
    assert code == 0, out
    assert "0 failed" in out
    assert " known" in out

    # A stale baseline (the leading_bom entry missing): exit 1, the new failure named.
    stale = tmp_path / "stale.yaml"
    stale.write_text(
        "\n".join(line for line in known.read_text().splitlines() if "leading_bom" not in line)
        + "\n"
    )
    code, out, _ = conform(capsys, "--impl", buggy, *CHAT, "--baseline", str(stale))
    assert code == 1
    assert "openai_chat/leading_bom" in out.split("Failures", 1)[1]

    # The BOM bug fixed: its entry is stale, and the run fails until it is removed.
    fixed = client(tmp_path, bom=False)
    code, out, err = conform(capsys, "--impl", fixed, *CHAT, "--baseline", str(known))
    assert code == 1
    assert "Stale baseline entries" in out
    assert "openai_chat/leading_bom response text lost" in out
    assert f"1 baseline entry no longer fails: remove it from {known}" in err

    # Written again, the file shrinks and keeps the reasons a person filled in.
    known.write_text(known.read_text().replace("reason: ''", "reason: tracked in ISSUE-7"))
    code, _, err = conform(capsys, "--impl", fixed, *CHAT, "--write-baseline", str(known))
    assert code == 0
    assert "1 dropped" in err
    again = baselines.load(known)
    assert {e.scenario for e in again.entries} == {s for s, _, _ in entries} - {"leading_bom"}
    assert {e.reason for e in again.entries} == {"tracked in ISSUE-7"}


def test_a_baseline_entry_can_name_the_chunkings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    known = tmp_path / "known.yaml"
    known.write_text(
        "raf-baseline: 1\nfailures:\n"
        "- {format: openai_chat, scenario: leading_bom, level: response, field: text,"
        " kind: lost, chunkings: [bytes], reason: ''}\n"
    )
    code, out, _ = conform(
        capsys, "--impl", client(tmp_path, usage=False), *CHAT, "-k", "leading_bom",
        "--baseline", str(known),
    )  # fmt: skip
    assert code == 1  # known under bytes, a new failure under whole
    assert "1 failed" in out
    assert "1 known" in out


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("raf-baseline: 2\nfailures: []\n", "is not a baseline version raf reads"),
        ("raf-baseline: 1\nfailures: [{format: x}]\n", "failures[0].scenario: missing"),
        (
            "raf-baseline: 1\nfailures:\n- {format: a, scenario: b, level: response,"
            " field: text, kind: gone}\n",
            "'gone' is not one of lost, wrong",
        ),
        ("raf-baseline: 1\nfailures: !!python/object:os.system {}\n", "tag"),
        ("- a\n- &x b\n- *x\n", "an anchor (&x): raf's files never need anchors"),
    ],
)
def test_a_bad_baseline_is_refused_before_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    known = tmp_path / "known.yaml"
    known.write_text(text)
    started = tmp_path / "started"
    code, out, err = conform(
        capsys, "--impl", f"{sys.executable} -c 'open({str(started)!r}, \"w\")'",
        "--baseline", str(known),
    )  # fmt: skip
    assert code == 2
    assert message in err
    assert "Traceback" not in out + err
    assert not started.exists()  # refused before anything ran


def test_notices_are_shown_and_counted_and_fail_only_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A client that reports reasoning_tokens 0 where the provider sent no such count, and
    # makes up ids of its own for calls that came without one.
    script = tmp_path / "detail.py"
    script.write_text(
        "import io, json, sys\n"
        "from raf.conformance.stdio_reference import serve\n"
        "for line in sys.stdin.buffer:\n"
        "    out = io.BytesIO()\n"
        "    serve(io.BytesIO(line), out)\n"
        "    if not out.getvalue():\n"
        "        break\n"
        "    message = json.loads(out.getvalue())\n"
        "    response = message.get('response') or {}\n"
        "    if response.get('usage') and response['usage'].get('reasoning_tokens') is None:\n"
        "        response['usage']['reasoning_tokens'] = 0\n"
        "    for n, call in enumerate(response.get('tool_calls') or []):\n"
        "        if call['id'].startswith('__tc_'):\n"
        "            call['id'] = f'mine-{n}'\n"
        "    print(json.dumps(message), flush=True)\n"
    )
    impl = shlex.join([sys.executable, str(script)])
    code, out, _ = conform(
        capsys, "--impl", impl, *CHAT, "-k", "missing_id", "-k", "usage_beside_finish_reason"
    )
    assert code == 0, out
    assert "◐ detail" in out
    assert "Notices" in out
    assert "usage.reasoning_tokens: expected none (the provider did not send it), got 0" in out
    assert "tool_calls[0].id: expected any unique id" in out
    assert re.search(r"passed \(\d+ with notices\)", out)
    code, out, _ = conform(
        capsys, "--impl", impl, *CHAT, "-k", "missing_id", "-k", "usage_beside_finish_reason",
        "--fail-on", "notice",
    )  # fmt: skip
    assert code == 1
    assert "✗ detail" in out
    code, _, _ = conform(
        capsys, "--impl", impl, *CHAT, "-k", "missing_id", "--severity", "detail=error"
    )
    assert code == 1
    code, _, err = conform(capsys, "--impl", impl, "--severity", "detail=fatal")
    assert code == 2
    assert "KIND=SEVERITY" in err


# -- goldens are the user's, never the package's ----------------------------------------------


def digest(folder: Path) -> str:
    sha = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            sha.update(path.relative_to(folder).as_posix().encode() + path.read_bytes())
    return sha.hexdigest()


def test_no_command_writes_a_golden_of_the_package(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = bundled()
    before = digest(suite.goldens)
    mine = tmp_path / "mine"
    (mine / "openai_chat").mkdir(parents=True)
    # One of the user's own is named like a bundled one.
    (mine / "openai_chat" / "plain_text.yaml").write_bytes(
        (suite.cassettes / "openai_chat" / "plain_text.yaml").read_bytes()
    )
    monkeypatch.chdir(tmp_path)
    code, out, err = conform(capsys, "--cassettes", "mine", "--update")
    assert code == 0
    written = tmp_path / "mine_goldens" / "openai_chat" / "plain_text.json"
    assert written.is_file()
    assert f"new {written}" in out
    assert "1 golden(s) written under" in err
    # The user's suite then runs against the user's goldens.
    code, out, _ = conform(capsys, "--cassettes", "mine")
    assert code == 0
    assert "all conform" in out
    # Every way of pointing a write at raf's own goldens is refused.
    link = tmp_path / "link"
    link.symlink_to(suite.goldens)
    for args in (
        ["--update"],
        ["--cassettes", "mine", "--goldens", str(suite.goldens), "--update"],
        ["--cassettes", "mine", "--goldens", str(link), "--update"],
        ["--cassettes", str(suite.cassettes), "--update"],
        ["--json", str(suite.goldens / "report.json")],
    ):
        code, _, err = conform(capsys, *args)
        assert code == 2, args
        assert err.startswith("raf: ")
        assert "Traceback" not in err
    assert main(["cassette", "import", str(mine), "-o", str(suite.goldens)]) == 2
    assert main(["cassette", "expect", "--write", str(suite.goldens / "x.yaml")]) == 2
    package = Path(sys.modules["raf"].__file__ or "").parent
    assert main(["schema", "--write", str(package / "_schemas")]) == 2
    assert owned_by_raf(package / "anything") is not None
    assert owned_by_raf(tmp_path) is None
    capsys.readouterr()
    assert digest(suite.goldens) == before
    assert not (package / "_schemas").exists()


def test_a_recording_of_ones_own_becomes_a_test(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = tmp_path / "mine" / "openai_chat"
    mine.mkdir(parents=True)
    cassette = mine / "refund.yaml"
    recorded = yaml.safe_load(
        (bundled().cassettes / "openai_chat" / "text_then_tool_call.yaml").read_text()
    )
    recorded["raf"] = {"scenario": "refund", "dialect": "openai_chat"}  # no expect block
    cassette.write_text(yaml.safe_dump(recorded, sort_keys=False, allow_unicode=True))
    folder = str(tmp_path / "mine")

    code, out, _ = conform(capsys, "--cassettes", folder, "--update")
    assert code == 1
    assert "not blessed" in out
    assert "raf cassette expect" in out

    assert main(["cassette", "expect", str(cassette)]) == 0
    printed = capsys.readouterr().out
    draft = yaml.safe_load(printed)["expect"]
    assert draft["reviewed"] is False
    assert draft["tool_calls"][0]["name"] == "get_weather"
    assert draft["tool_calls"][0]["id"].startswith("call_")  # the stream carried it
    assert cassette.read_text() == yaml.safe_dump(recorded, sort_keys=False, allow_unicode=True)

    assert main(["cassette", "expect", "--write", str(cassette)]) == 0
    capsys.readouterr()
    assert load_cassette(cassette).info.expect.reviewed is False  # type: ignore[union-attr]
    code, out, _ = conform(capsys, "--cassettes", folder, "--update")
    assert code == 1
    assert "unreviewed draft" in out
    code, out, _ = conform(capsys, "--cassettes", folder)
    assert code == 1
    assert "1 cassette(s) not blessed" in out
    assert "openai_chat/refund" in out

    # A person reads it and blesses it by deleting the line.
    cassette.write_text(
        "".join(line for line in cassette.read_text().splitlines(True) if "reviewed:" not in line)
    )
    code, _, _ = conform(capsys, "--cassettes", folder, "--update")
    assert code == 0
    code, out, _ = conform(capsys, "--cassettes", folder)
    assert code == 0
    assert "all conform" in out
    # A reviewed expect block is never replaced.
    assert main(["cassette", "expect", "--write", str(cassette)]) == 2
    assert "never replaces one" in capsys.readouterr().err


# -- a runner that behaves like pytest ----------------------------------------------------------


def test_piped_output_keeps_every_name_whole(tmp_path: Path) -> None:
    run = processes.run(
        [sys.executable, "-m", "raf", "conform", "--impl", client(tmp_path), *CHAT],
        text=True, env={**os.environ, "COLUMNS": "80"},
    )  # fmt: skip
    assert run.returncode == 1
    assert "openai_chat │ openrouter_reasoning_with_processing_comments " in run.stdout
    assert "…" not in run.stdout
    rerun = next(line for line in run.stdout.splitlines() if "rerun:" in line)
    command = rerun.split("rerun:", 1)[1].strip()
    assert command.startswith("raf conform --impl ")
    # The rerun command runs the failing cases again, and only them.
    again = processes.run([sys.executable, "-m", "raf", *shlex.split(command)[1:]], text=True)
    assert again.returncode == 1
    assert re.search(r"^\d+ cases: 0 passed, \d+ failed", again.stdout, re.MULTILINE)


def test_every_format_of_a_scenario_is_its_own_row(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = conform(capsys, "-k", "plain_text", "--chunking", "whole")
    assert code == 0
    rows = [
        [c.strip() for c in line.strip("│").split("│")] for line in out.splitlines()
        if line.startswith("│")
    ]  # fmt: skip
    having = sorted(p.parent.name for p in (ROOT / "cassettes").glob("*/plain_text.yaml"))
    assert len(having) >= 2  # the same name in more than one format
    assert sorted((r[0], r[1]) for r in rows if r[1] == "plain_text") == [
        (name, "plain_text") for name in having
    ]


def test_x_stops_at_the_first_failure_and_lf_ff_replay_the_failures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    impl = client(tmp_path)
    code, out, _ = conform(capsys, "--impl", impl, *CHAT, "-x")
    assert code == 1
    assert re.search(r"stopped at the first failure \(-x\): \d+ of \d+ judged", out)
    code, out, _ = conform(capsys, "--impl", impl, *CHAT)
    failed = int(re.search(r"(\d+) failed", out).group(1))  # type: ignore[union-attr]
    assert (tmp_path / ".raf_cache" / "CACHEDIR.TAG").is_file()
    code, out, err = conform(capsys, "--impl", impl, *CHAT, "--lf")
    assert code == 1
    assert f"running the {failed} case(s) that failed the last time (--lf)" in err
    assert re.search(rf"^{failed} cases: 0 passed, {failed} failed", out, re.MULTILINE)
    code, out, err = conform(capsys, "--impl", impl, *CHAT, "--ff")
    assert "first (--ff)" in err
    # The same cases, the failures first.
    rows = [line for line in out.splitlines() if line.startswith("│")]
    assert rows[0].rstrip("│ ").split("│")[-1].strip().startswith("✗")
    # A fixed client: --lf runs the old failures, which pass, and the cache forgets them.
    # Fixed, the client passes the cases --lf runs, and the cache forgets them.
    source = Path(shlex.split(impl)[1])
    source.write_text(client_source(bom=False, usage=False), encoding="utf-8")
    code, out, _ = conform(capsys, "--impl", impl, *CHAT, "--lf")
    assert code == 0
    assert re.search(rf"^{failed} cases: {failed} passed", out, re.MULTILINE)
    code, _, err = conform(capsys, "--impl", impl, *CHAT, "--lf")
    assert code == 0
    assert "no failures recorded for these cases: running them all" in err


def test_output_paths_are_checked_before_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    started = tmp_path / "started"
    impl = f"{sys.executable} -c 'open({str(started)!r}, \"w\")'"
    for option, path, message in (
        ("--json", tmp_path, "is a folder"),
        ("--html", tmp_path / "missing" / "r.html", "no folder"),
        ("--junit", tmp_path, "is a folder"),
        ("--write-baseline", tmp_path, "is a folder"),
    ):
        code, _, err = conform(capsys, "--impl", impl, option, str(path))
        assert code == 2, option
        assert message in err
    assert not started.exists()


# -- stopping: SIGTERM and Ctrl-C ----------------------------------------------------------------

BLOCKS_ON_THE_THIRD = """
import io, json, os, sys
from raf.conformance.stdio_reference import serve
marks = sys.argv[1]
with open(marks + ".pid", "w") as f:
    f.write(str(os.getpid()))
answered = 0
for line in sys.stdin.buffer:
    if json.loads(line).get("type") == "case" and answered == 2:
        open(marks + ".blocked", "w").close()
        sys.stdin.read()  # never answers: raf waits, and is stopped while it waits
    out = io.BytesIO()
    serve(io.BytesIO(line), out)
    if not out.getvalue():
        break
    if json.loads(line).get("type") == "case":
        answered += 1
    sys.stdout.buffer.write(out.getvalue())
    sys.stdout.flush()
"""


def wait_for(path: Path, child: subprocess.Popen[bytes]) -> None:
    """Until ``path`` exists (the child has got that far); a hang is the child and what it
    started making no progress (tests/processes.py), never a wall-clock bound."""
    watch = processes.Watch(child.pid, what="raf conform")
    while not path.exists():
        assert child.poll() is None, "raf ended before the implementation blocked"
        watch.check()
        time.sleep(0.02)


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_stops_the_implementation_and_writes_the_partial_report(
    tmp_path: Path, signum: int, status: int
) -> None:
    script = tmp_path / "blocks.py"
    script.write_text(BLOCKS_ON_THE_THIRD)
    marks = tmp_path / "impl"
    report = tmp_path / "report.json"
    child = subprocess.Popen(
        [*processes.with_default_sigint(sys.executable, "-m", "raf"), "conform", "--impl",
         shlex.join([sys.executable, str(script), str(marks)]), "--dialect", "openai_chat",
         "--chunking", "whole", "--json", str(report), "--timeout", "600"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip
    try:
        wait_for(marks.with_suffix(".blocked"), child)
        child.send_signal(signum)
        out, err = processes.communicate(child, what="raf conform after the signal")
    finally:
        processes.kill_group(child)
    assert child.returncode == status, err
    assert b"Traceback" not in out + err
    document = json.loads(report.read_text())
    assert document["stopped"] == ("terminated" if status == 143 else "interrupted")
    assert len(document["cases"]) == 2  # the two answered; the one in progress is not judged
    assert all(c["status"] == "pass" for c in document["cases"])
    assert gone(int(marks.with_suffix(".pid").read_text()))
    assert b"2 of " in out


def test_a_start_up_crash_is_reported_once_with_its_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    crash = tmp_path / "crash.py"
    crash.write_text("raise SystemExit('boom: cannot read my config')\n")
    code, out, _ = conform(capsys, "--impl", f"{sys.executable} {crash}", *CHAT)
    assert code == 1
    assert out.count("boom: cannot read my config") == 1
    assert "The implementation could not be started" in out
    assert re.search(r"\d+ not run", out)


# -- the pytest items and the reports ------------------------------------------------------------

PYTEST = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--raf-only"]


def test_the_pytest_items_honour_the_baseline_as_strict_xfails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    buggy = client(tmp_path)
    known = tmp_path / "known.yaml"
    selection = ["-k", "leading_bom or usage_beside"]
    code, _, _ = conform(
        capsys, "--impl", buggy, *CHAT, "-k", "leading_bom", "-k", "usage_beside",
        "--write-baseline", str(known),
    )  # fmt: skip
    assert code == 0

    def pytest_run(impl: str, baseline: Path) -> subprocess.CompletedProcess[str]:
        return processes.run(
            [*PYTEST, "--raf-impl", impl, "--raf-baseline", str(baseline),
             "--raf-chunking", "whole", "--raf-chunking", "bytes", *selection],
            cwd=tmp_path, text=True,
        )  # fmt: skip

    run = pytest_run(buggy, known)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "4 xfailed" in run.stdout
    # One bug fixed: its cases pass, which a strict xfail reports as a failure.
    run = pytest_run(client(tmp_path, bom=False), known)
    assert run.returncode == 1
    assert "2 failed" in run.stdout
    assert "baseline entry no longer fails" in run.stdout
    # A new bug on a case the baseline covers fails it, xfail or not.
    other = tmp_path / "other.yaml"
    other.write_text(
        "raf-baseline: 1\nfailures:\n"
        "- {format: openai_chat, scenario: leading_bom, level: response, field: finish_reason,"
        " kind: lost, reason: ''}\n"
    )
    run = pytest_run(buggy, other)
    assert run.returncode == 1
    assert "lost (error): text:" in run.stdout


def test_the_reports_carry_kinds_severities_and_known_failures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    buggy = client(tmp_path)
    known = tmp_path / "known.yaml"
    known.write_text(
        "raf-baseline: 1\nfailures:\n"
        "- {format: openai_chat, scenario: leading_bom, level: response, field: text,"
        " kind: lost, reason: BOM}\n"
    )
    paths = {kind: tmp_path / f"report.{kind}" for kind in ("json", "junit", "html")}
    conform(
        capsys, "--impl", buggy, *CHAT, "-k", "leading_bom", "-k", "usage_beside",
        "--baseline", str(known), *(f"--{k}={p}" for k, p in paths.items()),
    )  # fmt: skip
    document = json.loads(paths["json"].read_text())
    assert document["summary"]["known"] == 2
    assert document["summary"]["fail"] == 2
    assert document["policy"]["severities"]["detail"] == "notice"
    assert document["baseline"] == str(known)
    usage = next(c for c in document["cases"] if "usage_beside" in c["id"])
    assert usage["differences"][0] | {"expected": "", "actual": ""} == {
        "where": "usage", "field": "usage", "level": "response", "kind": "lost",
        "severity": "error", "fails": True, "known": False, "expected": "", "actual": "",
    }  # fmt: skip
    junit = paths["junit"].read_text()
    assert 'type="known"' in junit
    assert "lost (error, known): text:" in junit
    page = paths["html"].read_text()
    assert 'data-kind="lost"' in page
    assert 'id="count-known" data-count="2"' in page
    # Failures first: the failing scenario's row comes before the known one.
    assert page.index('data-scenario="usage_beside_finish_reason"') < page.index(
        'data-scenario="leading_bom"'
    )


def test_a_hung_or_silent_implementation_is_given_up_on_once_with_a_hint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Answers hello, then never answers a case: after --max-timeouts timeouts in a row, one
    # message, and the other cases are not run (not 30 s each).
    hangs = tmp_path / "hangs.py"
    hangs.write_text(
        "import json, sys\n"
        "sys.stdin.readline()\n"
        "print(json.dumps({'type': 'hello', 'protocol': 'raf-conformance/1',"
        " 'dialects': ['openai_chat']}), flush=True)\n"
        "sys.stdin.read()\n"
    )
    code, out, _ = conform(
        capsys, "--impl", f"{sys.executable} {hangs}", *CHAT, "--timeout", "0.5",
        "--max-timeouts", "2",
    )  # fmt: skip
    assert code == 1
    assert "The implementation gave up" in out
    assert out.count("timeouts in a row") == 1
    assert re.search(r"2 failed, \d+ skipped, 0 errors, \d+ not run", out)
    # Writes its hello without flushing it: the hint says so, once.
    silent = tmp_path / "silent.py"
    silent.write_text(
        "import io, json, sys, time\n"
        "out = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, 'w'), 65536))\n"
        "sys.stdin.readline()\n"
        "out.write(json.dumps({'type': 'hello', 'protocol': 'raf-conformance/1'}) + '\\n')\n"
        "sys.stdin.read()\n"
    )
    code, out, _ = conform(capsys, "--impl", f"{sys.executable} {silent}", "-k", "plain_text")
    assert code == 1
    assert out.count("did not flush its stdout") == 1
