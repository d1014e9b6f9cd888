"""The cost probe: its streams are what they say, its judge on synthetic timings, and on real
runs a quadratic client is reported while raf's reference is not. Every timing assertion is a
ratio measured in one run (repeats, minimum kept), never a wall-clock bound."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from raf.cli import main
from raf.conformance.implementation import ReferenceImplementation
from raf.conformance.reference import output_for
from raf.conformance.stdio import StdioImplementation
from raf.fuzz import cost
from raf.fuzz.cost_run import implementation_runner
from tests import processes

QUADRATIC = Path(__file__).parent / "broken" / "quadratic_client.py"
QUADRATIC_CMD = [sys.executable, str(QUADRATIC)]
KiB = 1024


# -- the streams ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("format", "what"), [(f, w) for f, framing in cost.FORMATS.items() for w in framing.whats]
)
def test_every_stream_gives_back_its_text_whole_under_both_cuts(format: str, what: str) -> None:
    plan = cost.deliveries(format, 20_000, what)  # type: ignore[arg-type]
    run = implementation_runner(ReferenceImplementation())
    for delivery in plan.values():
        assert b"".join(delivery.reads) == delivery.stream.body
        assert run(delivery, 10.0) == cost.Answer(got=delivery.stream.expected)
    long_tiny = plan[("long", "tiny")]
    assert {len(r) for r in long_tiny.reads} <= set(range(1, 8))
    assert max(len(r) for r in plan[("long", "large")].reads) == cost.LARGE_PIECE
    # The long stream carries its text in one event; the short one in 1 KiB events.
    response = output_for(200, "", [plan[("short", "large")].stream.body], format)
    assert response.response["finish_reason"] in ("stop", "tool_calls")


def test_the_cut_is_seeded() -> None:
    body = cost.stream("openai_chat", 2000, "long").body
    assert cost.pieces(body, "tiny", 1) == cost.pieces(body, "tiny", 1)
    assert cost.pieces(body, "tiny", 1) != cost.pieces(body, "tiny", 2)


def test_sizes_parse_and_show() -> None:
    assert cost.parse_size("8MiB") == 8 << 20
    assert cost.parse_size("512KiB") == 512 * KiB
    assert cost.parse_size("65536") == 64 * KiB
    assert cost.shown_size(256 * KiB) == "256 KiB"
    for bad in ("", "big", "-1MiB", "10", "3XB"):
        with pytest.raises(ValueError, match=r"size|small"):
            cost.parse_size(bad)


# -- the judge, on synthetic timings ----------------------------------------------------------


def synthetic(seconds_of: dict[str, object], **options: object) -> cost.Probe:
    """A probe measured with a fake clock: each run takes ``seconds_of[shape@cut](size)``."""
    now = [0.0]

    def clock() -> float:
        return now[0]

    def runner(delivery: cost.Delivery, timeout: float) -> cost.Answer:
        took = seconds_of[delivery.name](delivery.stream.size)  # type: ignore[operator]
        if took > timeout:
            now[0] += timeout
            return cost.Answer(failure="timeout", timed_out=True)
        now[0] += took
        return cost.Answer(got=delivery.stream.expected)

    return cost.measure("openai_chat", runner, clock, sizes=(KiB, 4 * KiB, 16 * KiB), **options)  # type: ignore[arg-type]


def per_read(size: float) -> float:
    return size * 1e-6  # what every implementation pays per byte in tiny reads


def test_a_linear_implementation_is_not_reported() -> None:
    probe = synthetic(
        {
            "long@tiny": per_read,
            "short@tiny": lambda n: per_read(n) * 1.1,
            "long@large": lambda n: n * 1e-8,
            "short@large": lambda n: n * 1e-8,
        }
    )
    verdict = cost.judge(probe)
    assert verdict.findings == ()
    assert verdict.ratio == pytest.approx(1 / 1.1)
    assert verdict.exponent == pytest.approx(1.0)
    assert verdict.size == 16 * KiB


def test_a_quadratic_implementation_is_reported_with_its_ratio_and_exponent() -> None:
    probe = synthetic(
        {
            "long@tiny": lambda n: per_read(n) + (n / KiB) ** 2 * 1e-3,
            "short@tiny": per_read,
            "long@large": lambda n: n * 1e-8,
            "short@large": lambda n: n * 1e-8,
        }
    )
    verdict = cost.judge(probe)
    assert verdict.performance
    assert verdict.ratio is not None
    assert verdict.ratio > 10
    assert verdict.exponent is not None
    assert verdict.exponent > 1.5
    assert [k for k, _ in verdict.findings] == ["performance", "performance"]
    assert cost.judge(probe, factor=1000).findings[0][1].startswith("its time grows")


def test_growth_the_short_events_show_too_is_not_the_long_events() -> None:
    # A transport or server that slows down with the body's size: both streams grow alike.
    def slow_transport(n: float) -> float:
        return float((n / KiB) ** 1.8 * 1e-3)

    probe = synthetic(
        {
            "long@tiny": slow_transport,
            "short@tiny": slow_transport,
            "long@large": lambda n: n * 1e-8,
            "short@large": lambda n: n * 1e-8,
        }
    )
    verdict = cost.judge(probe)
    assert verdict.exponent == pytest.approx(1.8)
    assert verdict.baseline_exponent == pytest.approx(1.8)
    assert verdict.findings == ()


def test_noise_in_single_runs_is_taken_out_by_the_minimum() -> None:
    # Two runs in three are slowed tenfold (a loaded machine); each delivery has one fast run
    # among its three repeats, and the minimum keeps it.
    slow = iter([10, 10, 1] * 100)

    def noisy(n: float) -> float:
        return per_read(n) * next(slow)

    probe = synthetic(
        {"long@tiny": noisy, "short@tiny": noisy, "long@large": noisy, "short@large": noisy},
        repeats=3,
    )
    assert all(max(m.runs) == pytest.approx(10 * m.seconds) for m in probe.measurements)
    verdict = cost.judge(probe)
    assert verdict.findings == ()
    assert verdict.ratio == pytest.approx(1.0)


def test_a_run_past_the_budget_stops_the_growth_and_bounds_the_ratio() -> None:
    probe = synthetic(
        {
            "long@tiny": lambda n: (n / KiB) ** 2,  # 16 s at 4 KiB: past the budget
            "short@tiny": lambda n: n * 1e-4,
            "long@large": lambda n: n * 1e-8,
            "short@large": lambda n: n * 1e-8,
        },
        budget=5.0,
    )
    assert probe.sizes == [KiB, 4 * KiB]
    assert "16 KiB not measured" in probe.stopped
    stopped = probe.get(4 * KiB, "long", "tiny")
    assert stopped is not None
    assert stopped.stopped
    assert stopped.runs == (5.0,)
    verdict = cost.judge(probe)
    assert verdict.ratio_is_lower_bound
    assert verdict.shown_ratio().startswith(">")
    assert verdict.ratio == pytest.approx(5.0 / 0.4096)
    assert "more than" in verdict.findings[0][1]


def test_an_answer_that_is_not_whole_is_reported() -> None:
    now = [0.0]

    def clock() -> float:
        now[0] += 0.01
        return now[0]

    def runner(delivery: cost.Delivery, timeout: float) -> cost.Answer:
        del timeout
        return cost.Answer(got=delivery.stream.expected[:-5])

    probe = cost.measure("openai_chat", runner, clock, sizes=(KiB,), repeats=1)
    kinds = {k for k, _ in cost.judge(probe).findings}
    assert kinds == {"lost"}


# -- real runs ---------------------------------------------------------------------------------


def test_the_quadratic_client_is_reported_and_the_reference_is_not() -> None:
    sizes = (64 * KiB, 128 * KiB)
    with StdioImplementation(QUADRATIC_CMD, timeout=1.5, max_timeouts=0) as slow:
        probe = cost.measure(
            "openai_chat",
            implementation_runner(slow),
            __import__("time").perf_counter,
            sizes=sizes,
            repeats=2,
            budget=1.5,
        )
    verdict = cost.judge(probe)
    assert verdict.performance, verdict
    assert verdict.ratio is not None
    assert verdict.ratio > 3 * cost.DEFAULT_FACTOR
    assert not [k for k, _ in verdict.findings if k != "performance"]  # its answers are right

    reference = cost.measure(
        "openai_chat",
        implementation_runner(ReferenceImplementation()),
        __import__("time").perf_counter,
        sizes=sizes,
        repeats=3,
    )
    verdict = cost.judge(reference)
    assert verdict.findings == (), verdict
    assert verdict.ratio is not None
    assert verdict.ratio < cost.DEFAULT_FACTOR


def exit_status(argv: list[str]) -> int | str | None:
    """``main``'s status, or argparse's (which exits)."""
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


# -- the command -------------------------------------------------------------------------------


def test_raf_cost_exits_1_on_the_quadratic_client_and_writes_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "cost.json"
    impl = f"{sys.executable} {QUADRATIC}"
    args = ["cost", "--impl", impl, "--max-size", "64KiB", "--budget", "1", "--repeats", "1"]
    assert main([*args, "--json", str(out)]) == 1
    shown = capsys.readouterr()
    assert "✗ performance" in shown.out
    assert "Traceback" not in shown.out + shown.err
    document = json.loads(out.read_text())
    (result,) = document["results"]
    assert result["verdict"]["findings"][0]["kind"] == "performance"
    assert result["verdict"]["ratio"] > cost.DEFAULT_FACTOR
    assert {(m["shape"], m["cut"]) for m in result["measurements"]} == {
        ("long", "tiny"),
        ("short", "tiny"),
        ("long", "large"),
        ("short", "large"),
    }


def test_raf_cost_passes_raf_itself(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["cost", "--max-size", "64KiB", "--repeats", "2", "--what", "arguments"]
    assert main(args) == 0
    shown = capsys.readouterr().out
    assert "raf reference (in process)" in shown
    assert "raf reference (stdio)" in shown
    assert shown.count("✓ linear") == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--max-size", "huge"], "not a size"),
        (["--factor", "0.5"], "more than 1"),
        (["--min-size", "1MiB", "--max-size", "64KiB"], "larger than"),
        (["--format", "gemini", "--what", "arguments"], "no long arguments"),
        (["--impl", "no-such-program-raf"], "cannot start"),
        (["--client", "no-such-library"], "no library"),
        (["--impl", f"{sys.executable} -c pass", "--client", "openai"], "not allowed"),
    ],
)
def test_usage_errors_exit_2_in_one_line(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert exit_status(["cost", *args]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_json_output_is_not_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cost", "--max-size", "64KiB", "--json", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err


BLOCKS = """
import json, os, sys, time
marks = sys.argv[1]
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "hello", "protocol": "raf-conformance/1", "name": "blocks",
                          "version": "1", "dialects": ["openai_chat"], "levels": ["response"],
                          "capabilities": []}), flush=True)
    elif message["type"] == "case":
        with open(marks + ".pid", "w") as f:
            f.write(str(os.getpid()))
        os.rename(marks + ".pid", marks + ".blocked")
        time.sleep(3600)
"""


def test_ctrl_c_stops_the_implementation_and_exits_130(tmp_path: Path) -> None:
    script = tmp_path / "blocks.py"
    script.write_text(BLOCKS)
    marks = tmp_path / "impl"
    child = subprocess.Popen(
        [*processes.with_default_sigint(sys.executable, "-m", "raf"), "cost", "--impl",
         shlex.join([sys.executable, str(script), str(marks)]), "--budget", "600"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip
    try:
        watch = processes.Watch(child.pid, what="raf cost")
        while not marks.with_suffix(".blocked").exists():
            assert child.poll() is None, "raf cost ended before the implementation blocked"
            watch.check()
            time.sleep(0.02)
        child.send_signal(signal.SIGINT)
        out, err = processes.communicate(child, what="raf cost after Ctrl-C")
    finally:
        processes.kill_group(child)
    assert child.returncode == 130, err
    assert b"Traceback" not in out + err
    assert b"interrupted" in err
    pid = int(marks.with_suffix(".blocked").read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
