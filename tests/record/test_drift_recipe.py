"""The drift recipe of docs/recording.md ("Drift in CI"), run as the document has it.

The workflow's two bash steps ("Re-record against the live provider", "Compare with the
committed cassettes") are read out of the document's YAML block and run with bash, as a
runner runs them (``bash -e``), in a scratch folder against the local fake provider. Only
what must change is changed: the provider's URL (the fake's), the port (a free one), the
interpreter (``python`` and ``raf`` are small programs first on PATH that run this checkout)
and the secret (a fake key). The client scripts the recipe names are written where it names
them. Each substitution is asserted to have happened, so an edit of the document that this
test does not follow fails it rather than passing unexamined.

The story: the provider is recorded, the recordings are committed; a week later the job
re-records and finds nothing to fail on; then the provider renames a field in one scenario's
stream, and the job fails, naming the change in its output and in its JSON report, without
touching the committed recordings or writing the key anywhere.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from tests import processes
from tests.record.fake_provider import SECRET_COOKIE, FakeProvider, sse_chunks

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "recording.md"
WORKFLOW = "# .github/workflows/provider-drift.yml"
RECORD_STEP = "Re-record against the live provider"
COMPARE_STEP = "Compare with the committed cassettes"
UPSTREAM = "https://api.openai.com"
PORT = "8766"
KEY = "sk-proj-" + "Dr1ftK3y" * 5  # 40 characters after the prefix
KEY_EXPRESSION = "${{ secrets.OPENAI_API_KEY }}"

# The commands a polling loop runs and runs again (``until grep ...; do sleep 1; done``):
# a new one every second is no progress of the program waited for, nor is the CPU time the
# shell spends starting them.
POLLERS = frozenset({"sleep", "grep"})
SHELL = "bash"

CLIENT = '''\
"""A client under test: one streamed Chat Completions request through $OPENAI_BASE_URL."""
import os
import sys

import httpx

QUESTION = {question!r}
base = os.environ["OPENAI_BASE_URL"]
key = os.environ["OPENAI_API_KEY"]
body = {{
    "model": "gpt-4o-mini",
    "stream": True,
    "messages": [{{"role": "user", "content": QUESTION}}],
}}
with httpx.stream(
    "POST",
    base + "/chat/completions",
    json=body,
    headers={{"authorization": "Bearer " + key}},
    timeout=None,
) as response:
    received = response.read()
if response.status_code != 200:
    sys.exit(f"{{sys.argv[0]}}: HTTP {{response.status_code}}: {{received[:200]!r}}")
print(f"{{sys.argv[0]}}: {{len(received)}} bytes")
'''


def _steps() -> dict[str, dict[str, Any]]:
    """The workflow's steps by name, from the YAML block of docs/recording.md."""
    text = DOC.read_text(encoding="utf-8")
    blocks = re.findall(r"^```yaml\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)
    found = [b for b in blocks if b.startswith(WORKFLOW + "\n")]
    assert len(found) == 1, f"one YAML block starting {WORKFLOW!r} in {DOC}, found {len(found)}"
    workflow = yaml.safe_load(found[0])
    steps = workflow["jobs"]["drift"]["steps"]
    named = {step["name"]: step for step in steps if "name" in step}
    assert RECORD_STEP in named, sorted(named)
    assert COMPARE_STEP in named, sorted(named)
    return named


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _replace(text: str, old: str, new: str) -> str:
    assert old in text, f"the recipe no longer says {old!r}:\n{text}"
    return text.replace(old, new)


def _shims(folder: Path) -> None:
    """``raf`` and ``python`` first on PATH, both this interpreter (``raf`` runs this
    checkout's raf: PYTHONPATH points at it). ``exec``: ``$!`` is raf itself, so the
    recipe's ``kill -TERM`` reaches it."""
    folder.mkdir()
    for name, command in (
        ("raf", f'exec "{sys.executable}" -m raf "$@"'),
        ("python", f'exec "{sys.executable}" "$@"'),
    ):
        shim = folder / name
        shim.write_text(f"#!/bin/sh\n{command}\n", encoding="utf-8")
        shim.chmod(0o755)


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def _without_polling(every: dict[int, processes.Proc], group: int) -> dict[int, processes.Proc]:
    """``every`` as a step's progress is judged: in its process group ``group``, the
    polling commands left out, and the shell kept (its children are found through it) with
    its CPU time and state not counted. What is left is raf and the clients: a step whose
    ``until`` loop waits for a line that never comes is a hang, not progress."""
    judged = {}
    for pid, proc in every.items():
        comm = _comm(pid) if proc.pgid == group else ""
        if comm in POLLERS:
            continue
        judged[pid] = dataclasses.replace(proc, cpu_ticks=0, state="S") if comm == SHELL else proc
    return judged


def _run(
    bash: str,
    script: str,
    where: Path,
    scratch: Path,
    env: dict[str, str],
    *,
    stall: float = processes.STALL,
) -> tuple[int, str]:
    """Run a step's script as a runner does (``bash -e FILE``) in ``where``, in a session
    of its own: its exit status and output (stdout and stderr). Hangs are told by lack of
    progress (tests/processes.py), with the polling loop's ``sleep``/``grep`` not counted
    as progress; the whole process group is killed and reaped on every path."""
    file = scratch / f"step-{len(list(scratch.iterdir()))}.sh"
    file.write_text(script, encoding="utf-8")
    process = subprocess.Popen(
        [bash, "--noprofile", "--norc", "-e", str(file)],
        cwd=where,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        watch = processes.Watch(process.pid, stall=stall, what=f"the step {file.name}")
        pause = 0.02
        while True:
            try:
                out, _ = process.communicate(timeout=pause)
                break
            except subprocess.TimeoutExpired:
                pass
            if processes.proc_supported():
                watch.check(_without_polling(processes.snapshot(), process.pid))
            else:
                watch.check()
            pause = min(pause * 2, 0.5)
    finally:
        processes.kill_group(process)  # the background raf record too, whatever happened
    return process.returncode, out


def _answer(words_field: dict[str, str]) -> Callable[[bytes], list[bytes]]:
    """The fake's answers: the haiku question gets a haiku with its words at
    ``delta.<field>``, any other question a plain Chat Completions answer."""

    def answer(body: bytes) -> list[bytes]:
        if b"haiku" in body:
            return sse_chunks(["Old", " pond,", " frog"], text_field=words_field["haiku"])
        return sse_chunks(["Sunny", ", 21", " C"])

    return answer


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_the_documented_drift_job_passes_on_no_change_and_fails_naming_a_renamed_field(
    tmp_path: Path,
) -> None:
    bash = shutil.which("bash")
    assert bash is not None, "the drift recipe is bash: bash must be on PATH to test it"
    steps = _steps()
    record_step, compare_step = steps[RECORD_STEP], steps[COMPARE_STEP]
    assert compare_step.get("if") == "always()"  # the comparison runs after a failed recording
    assert "env" not in compare_step  # the key is given to the recording step only

    repo, scratch, shims = tmp_path / "repo", tmp_path / "steps", tmp_path / "bin"
    repo.mkdir()
    scratch.mkdir()
    _shims(shims)

    # The client scripts the recipe runs, written where it names them.
    clients = re.findall(r"\bpython (scripts/[\w.-]+\.py)\b", record_step["run"])
    assert clients == ["scripts/haiku.py", "scripts/weather.py"], clients
    (repo / "scripts").mkdir()
    (repo / "scripts" / "haiku.py").write_text(CLIENT.format(question="Write a haiku"))
    (repo / "scripts" / "weather.py").write_text(CLIENT.format(question="Weather in Paris?"))

    # The step's environment, the secret a fake key.
    step_env = dict(record_step["env"])
    assert step_env == {"OPENAI_API_KEY": KEY_EXPRESSION}, step_env
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("OPENAI_", "PYTHON", "RAF_")) or k == processes.MARK
    }
    env |= {
        "OPENAI_API_KEY": KEY,
        "PATH": f"{shims}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONPATH": str(ROOT),
        "NO_COLOR": "1",
    }
    compare_env = {k: v for k, v in env.items() if k != "OPENAI_API_KEY"}
    outputs: list[str] = []  # what the job's log shows

    def step(script: str, step_env: dict[str, str]) -> tuple[int, str]:
        status, out = _run(bash, script, repo, scratch, step_env)
        outputs.append(out)
        return status, out

    fields = {"haiku": "content"}
    with FakeProvider(delay=0.02, answer=_answer(fields)) as fake:
        port = str(_free_port())
        record = record_step["run"]
        # Every mention of the provider and the port is one this test replaces.
        assert record.count(UPSTREAM) == record.count(f"--upstream {UPSTREAM}") == 1, record
        assert record.count(PORT) == (
            record.count(f"--port {PORT}") + record.count(f"127.0.0.1:{PORT}/")
        ), record
        record = _replace(record, f"--upstream {UPSTREAM}", f"--upstream {fake.url}")
        record = _replace(record, f"--port {PORT}", f"--port {port}")
        record = _replace(record, f"127.0.0.1:{PORT}/", f"127.0.0.1:{port}/")
        compare = compare_step["run"]

        # The log of an earlier run is there (each run below leaves one too): the step
        # must wait for this run's proxy, not read that line and send to nothing.
        (repo / "record.log").write_text("raf record: listening on http://127.0.0.1:9 (old)\n")

        # (1) The first recording, committed.
        status, out = step(record, env)
        assert status == 0, out
        assert "raf record: listening on" in out  # what the recipe's `until grep` waits for
        assert "2 cassette(s) saved" in out, out  # the log the recipe shows lists them
        assert "fresh/openai_chat/haiku.yaml" in out, out
        shutil.move(repo / "fresh", repo / "cassettes")
        committed = _tree(repo / "cassettes")
        assert sorted(committed) == ["openai_chat/haiku.yaml", "openai_chat/weather_tools.yaml"]
        # The job runs again, the provider has not changed: nothing fails it.
        status, out = step(record, env)
        assert status == 0, out
        status, out = step(compare, compare_env)
        assert status == 0, out
        for name in ("openai_chat_haiku.yaml.json", "openai_chat_weather_tools.yaml.json"):
            report = json.loads((repo / "drift" / name).read_text(encoding="utf-8"))
            assert report["counts"]["error"] == 0, report
        assert len(re.findall(r"^0 errors, ", out, flags=re.MULTILINE)) == 2, out

        # (2) The provider renames the haiku's text field: the job fails and says where.
        # (fresh/ is left from the last run, as a cache could restore it: --mode all
        # records over it.)
        fields["haiku"] = "text"
        status, out = step(record, env)
        assert status == 0, out
        status, out = step(compare, compare_env)
        assert status == 1, out
        haiku = json.loads((repo / "drift" / "openai_chat_haiku.yaml.json").read_text())
        weather = json.loads((repo / "drift" / "openai_chat_weather_tools.yaml.json").read_text())
        kinds = {(c["severity"], c["kind"]) for c in haiku["changes"]}
        assert ("error", "meaning_changed") in kinds, haiku
        where = {c["kind"]: c["where"] for c in haiku["changes"]}
        assert "choices[].delta.content" in where["field_removed"], haiku
        assert "choices[].delta.text" in where["field_added"], haiku
        assert where["meaning_changed"].endswith("text"), haiku  # raf reads no text now
        assert haiku["worst"] == "error"
        assert weather["counts"]["error"] == 0, weather  # the other scenario did not change
        assert "meaning_changed" in out, out
        assert "field_removed" in out, out
        assert "choices[].delta.content" in out, out

    # (3) No secret the request or the response carried is in what the job wrote.
    assert len(fake.requests) == 6
    assert all(r["headers"]["Authorization"] == f"Bearer {KEY}" for r in fake.requests)
    secrets = [KEY.encode(), SECRET_COOKIE.split("=", 1)[1].encode()]
    written = _tree(repo)  # fresh/, cassettes/, drift/, record.log
    assert any(name.startswith("fresh/") for name in written), sorted(written)
    for name, data in written.items():
        for secret in secrets:
            assert secret not in data, f"{name} holds a secret"
    for out in outputs:
        for secret in secrets:
            assert secret.decode() not in out, out
    # (4) The committed recordings are as they were committed.
    assert _tree(repo / "cassettes") == committed
