"""How the stdio shell treats a program, with small programs written for each test: a
start-up crash is reported once with its stderr and never retried; a program that cannot be
started again, or times out too many times in a row, is given up with one message; a silent
program gets the flush hint; each case gets exactly the stderr written before its result; a
result that breaks the schema fails its case and the program goes on; no process outlives
the implementation, whether it closes, aborts, or kills a hung program.

No assertion here is on time: a case that must be answered has a generous timeout (a guard
against a hang), and a case that must time out is answered by a program that never answers.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import signal
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from raf.conformance.bundled import bundled
from raf.conformance.cases import Case, load_suite
from raf.conformance.implementation import Outcome
from raf.conformance.stdio import ImplementationFailed, StdioImplementation
from tests.conformance.protocol_lines import RESPONSES, RESULT_FIELDS

SUITE = bundled()
(BASE,) = load_suite(
    SUITE.cassettes,
    SUITE.goldens,
    chunkings=["whole"],
    select=["plain_text"],
    dialects=["openai_chat"],
).cases
FLUSH_HINT = (
    "it wrote nothing on its stdout: if it printed its answer, it did not flush its stdout "
    "(Python: print(..., flush=True); C: fflush(stdout), as stdio buffers a pipe)"
)
NOT_RUN = "not run: raf gave up on the implementation"
GUARD = 30.0  # seconds: only ever reached by a hang
RESULT_SCHEMA = Path(__file__).parents[2] / "conformance" / "schema" / "protocol_result.schema.json"

# What every test program starts with.
PRELUDE = textwrap.dedent(
    """
    import json, os, subprocess, sys

    def say(message):
        sys.stdout.write(json.dumps(message) + "\\n")
        sys.stdout.flush()

    def hello(**more):
        sys.stdin.readline()
        say({"type": "hello", "protocol": "raf-conformance/1", "dialects": ["openai_chat"],
             **more})

    def cases():
        for line in sys.stdin:
            message = json.loads(line)
            if message["type"] == "bye":
                return
            yield message

    def answer(message, **fields):
        say({"type": "result", "id": message["id"], "response": {}, **fields})

    def hang():
        sys.stdin.read()  # raf sends nothing more: blocks until it is killed

    # Buffered as C's stdio buffers a pipe (Python's own sys.stdout is flushed when it reads
    # stdin, so it does not lose an answer that way).
    buffered = os.fdopen(os.dup(1), "w", buffering=8192)
    """
)


def program(tmp_path: Path, body: str, *args: str) -> list[str]:
    path = tmp_path / f"program_{len(list(tmp_path.glob('program_*')))}.py"
    path.write_text(PRELUDE + textwrap.dedent(body), encoding="utf-8")
    return [sys.executable, str(path), *args]


def case(name: str) -> Case:
    return dataclasses.replace(BASE, id=f"test/{name}")


def gone(pid: int) -> bool:
    """Not running: no such process, or a zombie (dead, waiting for init to reap it)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    except OSError:  # pragma: no cover - no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


def wait_gone(pid: int) -> None:
    """Until ``pid`` is gone: a process sent SIGKILL dies when next scheduled."""
    guard = time.monotonic() + GUARD
    while not gone(pid):
        assert time.monotonic() < guard, f"process {pid} still running"
        time.sleep(0.01)


@pytest.fixture
def implementations() -> Iterator[list[StdioImplementation]]:
    """Every implementation a test makes is closed at its end, whatever happened."""
    made: list[StdioImplementation] = []
    yield made
    for implementation in made:
        implementation.close(abort=True)


def test_a_start_up_crash_is_reported_once_with_its_stderr_and_never_retried(
    tmp_path: Path, implementations: list[StdioImplementation]
) -> None:
    implementation = StdioImplementation(program(tmp_path, "import missing_sdk_for_raf"))
    implementations.append(implementation)
    with pytest.raises(ImplementationFailed) as info:
        implementation.hello()
    message = str(info.value)
    assert "exited (status 1) without answering hello; its stderr ends: Traceback" in message
    assert message.count("No module named 'missing_sdk_for_raf'") == 1
    with pytest.raises(ImplementationFailed) as again:
        implementation.hello()
    assert str(again.value) == message
    assert implementation.run(case("a"), "response") == Outcome(failure=NOT_RUN, give_up=message)
    assert implementation.starts == 1


def test_a_program_that_cannot_be_started_again_is_given_up_once(
    tmp_path: Path, implementations: list[StdioImplementation]
) -> None:
    body = """
        if os.path.exists(sys.argv[1]):
            sys.exit("refusing a second start")
        open(sys.argv[1], "w").close()
        hello()
        for message in cases():
            print("crashing in", message["id"], file=sys.stderr, flush=True)
            sys.exit(3)
    """
    implementation = StdioImplementation(program(tmp_path, body, str(tmp_path / "started")))
    implementations.append(implementation)
    implementation.hello()
    crashed = implementation.run(case("a"), "response")
    assert crashed == Outcome(
        failure="the implementation exited (status 3)", stderr="crashing in test/a\n"
    )
    not_started = implementation.run(case("b"), "response")
    assert not_started.failure == "not run: the implementation could not be started again"
    give_up = not_started.give_up
    assert give_up is not None
    assert give_up.startswith("gave up: it could not be started again: ")
    assert give_up.endswith(
        " exited (status 1) without answering hello; its stderr ends: refusing a second start"
    )
    assert implementation.run(case("c"), "response") == Outcome(failure=NOT_RUN, give_up=give_up)
    with pytest.raises(ImplementationFailed, match=r"^gave up: it could not be started again"):
        implementation.hello()
    assert implementation.starts == 2


@pytest.mark.parametrize(
    ("write", "said"),
    [
        (
            "print(json.dumps({'type': 'hello', 'protocol': 'raf-conformance/1'}), file=buffered)",
            FLUSH_HINT,
        ),
        (
            'sys.stdout.write(\'{"type": "hello"\'); sys.stdout.flush()',
            'its stdout ends with \'{"type": "hello"\' and no LF',
        ),
    ],
    ids=["not flushed", "no line end"],
)
def test_a_silent_hello_says_what_is_likely(
    tmp_path: Path, implementations: list[StdioImplementation], write: str, said: str
) -> None:
    command = program(tmp_path, f"sys.stdin.readline()\n{write}\nhang()\n")
    implementation = StdioImplementation(command, hello_timeout=0.3)
    implementations.append(implementation)
    with pytest.raises(ImplementationFailed) as info:
        implementation.hello()
    assert str(info.value) == f"{shlex.join(command)!r} did not answer hello within 0.3 s; {said}"


def test_three_silent_timeouts_in_a_row_give_up_with_one_message(
    tmp_path: Path, implementations: list[StdioImplementation]
) -> None:
    body = """
        hello()
        for message in cases():
            print(json.dumps({"type": "result", "id": message["id"]}), file=buffered)
    """
    implementation = StdioImplementation(program(tmp_path, body), timeout=0.3)
    implementations.append(implementation)
    implementation.hello()
    timeout = f"timeout after 0.3 s; {FLUSH_HINT}"
    assert implementation.run(case("a"), "response") == Outcome(failure=timeout)
    assert implementation.run(case("b"), "response") == Outcome(failure=timeout)
    give_up = (
        "gave up after 3 timeouts in a row: the implementation seems hung (it answered none "
        f"of the last 3 cases within 0.3 s); {FLUSH_HINT}"
    )
    assert implementation.run(case("c"), "response") == Outcome(failure=timeout, give_up=give_up)
    assert implementation.run(case("d"), "response") == Outcome(failure=NOT_RUN, give_up=give_up)
    assert implementation.given_up == give_up
    assert implementation.starts == 3


def test_only_timeouts_in_a_row_count(
    tmp_path: Path, implementations: list[StdioImplementation]
) -> None:
    body = """
        hello()
        for message in cases():
            if message["id"].endswith("answered"):
                answer(message)
            else:
                sys.stdout.write("{"); sys.stdout.flush()
                hang()
    """
    implementation = StdioImplementation(program(tmp_path, body), max_timeouts=3)
    implementations.append(implementation)
    implementation.hello()

    def run(name: str) -> Outcome:
        implementation.timeout = GUARD if name.endswith("answered") else 0.3
        return implementation.run(case(name), "response")

    for name in ("1", "2", "answered", "3", "4"):
        outcome = run(name)
        assert outcome.give_up is None, name
        assert (outcome.result is not None) == name.endswith("answered")
    assert run("5").give_up == (
        "gave up after 3 timeouts in a row: the implementation seems hung (it answered none "
        "of the last 3 cases within 0.3 s)"
    )
    assert run("answered").give_up is not None

    never = StdioImplementation(program(tmp_path, body), timeout=0.3, max_timeouts=0)
    implementations.append(never)
    for name in ("1", "2", "3"):
        outcome = never.run(case(name), "response")
        assert outcome == Outcome(failure="timeout after 0.3 s; its stdout ends with '{' and no LF")
    with pytest.raises(ValueError, match="max_timeouts"):
        StdioImplementation(["x"], max_timeouts=-1)


def test_each_case_gets_exactly_the_stderr_it_wrote_before_its_result(
    tmp_path: Path, implementations: list[StdioImplementation]
) -> None:
    # In several writes, some larger than a pipe holds at once, some by os.write itself.
    body = """
        hello()
        for n, message in enumerate(cases()):
            err = sys.stderr.buffer
            err.write(("<begin %s>" % message["id"]).encode()); err.flush()
            for size in (0, 1, 30000, 5000, 59000)[n % 5], 100 * (n % 3):
                err.write(b"." * size + b"\\n"); err.flush()
            os.write(2, ("<end %s>" % message["id"]).encode())
            answer(message)
    """

    def expected(n: int, name: str) -> str:
        filler = "".join(
            "." * size + "\n" for size in ((0, 1, 30000, 5000, 59000)[n % 5], 100 * (n % 3))
        )
        return f"<begin test/{name}>{filler}<end test/{name}>"

    def drive(implementation: StdioImplementation, prefix: str, wrong: list[str]) -> None:
        for n in range(150):
            name = f"{prefix}{n}"
            outcome = implementation.run(case(name), "response")
            if outcome.result is None or outcome.stderr != expected(n, name):
                wrong.append(f"{name}: {outcome.failure} {outcome.stderr[:40]!r}")

    # Two programs at once, and this process busy beside them.
    busy = threading.Event()

    def spin() -> None:
        while not busy.is_set():
            sum(range(1000))

    wrong: list[str] = []
    workers = []
    for prefix in ("a", "b"):
        implementation = StdioImplementation(program(tmp_path, body), timeout=GUARD)
        implementations.append(implementation)
        implementation.hello()
        workers.append(threading.Thread(target=drive, args=(implementation, prefix, wrong)))
    spinner = threading.Thread(target=spin)
    spinner.start()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    busy.set()
    spinner.join()
    assert wrong == []
    assert [i.starts for i in implementations] == [1, 1]


def test_a_result_that_breaks_the_schema_fails_its_case_and_the_program_goes_on(
    tmp_path: Path, implementations: list[StdioImplementation]
) -> None:
    # The program answers the n-th case with the n-th line of a file, its id filled in.
    lines: list[tuple[dict[str, Any], str | None]] = [
        ({"response": response}, path) for response, path in RESPONSES
    ] + list(RESULT_FIELDS)
    (tmp_path / "lines.json").write_text(json.dumps([fields for fields, _ in lines]))
    body = """
        answers = json.load(open(sys.argv[1]))
        hello()
        for n, message in enumerate(cases()):
            print("case", n, file=sys.stderr, flush=True)
            if n < len(answers):
                say({"type": "result", "id": message["id"], **answers[n]})
            else:  # another id, and a field that breaks the schema: out of step
                say({"type": "result", "id": "other", "response": {"text": None}})
    """
    validator = jsonschema.Draft202012Validator(json.loads(RESULT_SCHEMA.read_text()))
    implementation = StdioImplementation(
        program(tmp_path, body, str(tmp_path / "lines.json")), timeout=GUARD
    )
    implementations.append(implementation)
    for n, (fields, path) in enumerate(lines):
        outcome = implementation.run(case(str(n)), "response")
        assert validator.is_valid({"type": "result", "id": "x", **fields}) == (path is None)
        assert outcome.stderr == f"case {n}\n"
        if path is None:
            assert outcome.failure is None
            assert outcome.result is not None
        else:
            assert outcome.result is None
            assert outcome.failure is not None
            assert outcome.failure.startswith("the result breaks the schema: ")
            assert outcome.failure.endswith(f" - at `{path}`")
    assert implementation.starts == 1
    out_of_step = implementation.run(case("last"), "response")
    assert out_of_step.failure == "wrong id: expected 'test/last', got 'other'"
    assert implementation.run(case("0"), "response").result is not None  # started again
    assert implementation.starts == 2


# A program that starts a grandchild in its own process group (holding its pipes open, as a
# helper process or a shell's child does) and names both in its hello; it records every line
# it reads, and SIGTERM, in the file argv[1].
FAMILY = """
    signal = __import__("signal")
    log = open(sys.argv[1], "a", buffering=1)
    if sys.argv[2] == "ignore":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    else:
        signal.signal(signal.SIGTERM, lambda *_: (log.write("SIGTERM\\n"), sys.exit(143)))
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    log.write(sys.stdin.readline())
    say({"type": "hello", "protocol": "raf-conformance/1", "dialects": ["openai_chat"],
         "name": "%d %d" % (os.getpid(), child.pid)})
    for line in sys.stdin:
        log.write(line if '"bye"' in line else "a case\\n")
        if '"bye"' in line:
            sys.exit(0)
        hang()
"""


def family(
    tmp_path: Path,
    implementations: list[StdioImplementation],
    sigterm: str = "exit",
    **options: Any,
) -> tuple[StdioImplementation, int, int, Path]:
    log = tmp_path / f"log_{len(implementations)}"
    implementation = StdioImplementation(program(tmp_path, FAMILY, str(log), sigterm), **options)
    implementations.append(implementation)
    pid, grandchild = map(int, implementation.hello().name.split())
    assert not gone(pid)
    assert not gone(grandchild)
    return implementation, pid, grandchild, log


def test_a_timeout_leaves_no_process_behind(
    tmp_path: Path, implementations: list[StdioImplementation]
) -> None:
    implementation, pid, grandchild, _ = family(tmp_path, implementations, timeout=0.3)
    outcome = implementation.run(case("a"), "response")
    assert outcome.failure is not None
    assert outcome.failure.startswith("timeout after 0.3 s")
    assert gone(pid)  # reaped before run() returned
    wait_gone(grandchild)  # killed with its group


@pytest.mark.parametrize("sigterm", ["exit", "ignore"])
def test_abort_stops_the_process_group_at_once_without_bye(
    tmp_path: Path, implementations: list[StdioImplementation], sigterm: str
) -> None:
    implementation, pid, grandchild, log = family(tmp_path, implementations, sigterm)
    implementation.close(abort=True)
    assert gone(pid)
    wait_gone(grandchild)
    assert "bye" not in log.read_text()
    assert implementation.run(case("a"), "response") == Outcome(
        failure="not run: the implementation was stopped"
    )
    with pytest.raises(ImplementationFailed, match="was stopped"):
        implementation.hello()


def test_close_says_bye_and_leaves_no_process_behind(
    tmp_path: Path, implementations: list[StdioImplementation]
) -> None:
    implementation, pid, grandchild, log = family(tmp_path, implementations)
    implementation.close()
    assert gone(pid)
    wait_gone(grandchild)
    assert log.read_text().splitlines() == [
        '{"type":"hello","protocol":"raf-conformance/1"}',
        '{"type":"bye"}',
    ]


def test_abort_from_a_signal_handler_during_a_case_ends_the_case(
    tmp_path: Path, implementations: list[StdioImplementation]
) -> None:
    # As a runner does on SIGTERM: the handler aborts while run() waits for the answer.
    body = """
        hello()
        for message in cases():
            os.kill(os.getppid(), __import__("signal").SIGUSR1)
            hang()
    """
    implementation = StdioImplementation(program(tmp_path, body), timeout=GUARD)
    implementations.append(implementation)
    implementation.hello()
    previous = signal.signal(signal.SIGUSR1, lambda *_: implementation.close(abort=True))
    try:
        outcome = implementation.run(case("a"), "response")
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert outcome.failure == "not finished: the implementation was stopped"
    assert implementation.run(case("b"), "response").failure == (
        "not run: the implementation was stopped"
    )
