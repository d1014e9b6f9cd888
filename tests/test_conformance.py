"""The conformance runner and ``raf conform``: pass, difference, missing golden, a golden
that contradicts its reviewed expectation, and an implementation that fails."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from raf.cassettes import Cassette, Expectation, Interaction, Request, Response, ScenarioInfo, save
from raf.chunking import STANDARD_CHUNKINGS
from raf.cli import main
from raf.conformance import goldens
from raf.conformance.cases import Suite, load_suite
from raf.conformance.goldens import InteractionOutput
from raf.conformance.implementation import FunctionImplementation, ReferenceImplementation
from raf.conformance.reference import golden_of, run_interaction
from raf.conformance.runner import run_suite

BODY = (
    b'data: {"id":"r1","model":"m","choices":[{"index":0,"delta":{"content":"Hel"}}]}\n\n'
    b'data: {"id":"r1","model":"m","choices":[{"index":0,"delta":{"content":"lo \xc3\xa9"},"finish_reason":"stop"}]}\n\n'
    b"data: [DONE]\n\n"
)


def make(tmp_path: Path, expect_text: str = "Hello é", *, status: int = 200) -> tuple[Path, Path]:
    cassette = Cassette(
        info=ScenarioInfo(
            scenario="hello", expect=Expectation(text=expect_text, finish_reason="stop")
        ),
        interactions=[
            Interaction(
                request=Request(uri="https://x/v1/chat/completions"),
                response=Response(status=status, body=BODY),
            )
        ],
    )
    path = save(cassette, tmp_path / "cassettes" / "openai_chat" / "hello.yaml")
    golden = goldens.golden_path(tmp_path / "goldens", "openai_chat", "hello")
    golden.parent.mkdir(parents=True)
    golden.write_text(goldens.dumps(golden_of(cassette, "hello")))
    return path, golden


def test_golden_format_round_trips_and_puts_one_update_per_line(tmp_path: Path) -> None:
    _, golden = make(tmp_path)
    text = golden.read_text()
    assert '        {"type":"text_delta","delta":"Hel"},\n' in text
    loaded = goldens.loads(text)
    assert goldens.dumps(loaded) == text
    assert json.loads(text)["interactions"][0]["response"]["text"] == "Hello é"


def suite_of(tmp_path: Path, **options: Any) -> Suite:
    return load_suite(tmp_path / "cassettes", tmp_path / "goldens", **options)


def test_conforming_implementation_passes_every_chunking_at_every_level(tmp_path: Path) -> None:
    make(tmp_path)
    suite = suite_of(tmp_path)
    assert [c.chunking for c in suite.cases] == list(STANDARD_CHUNKINGS)
    for level in ("response", "lifecycle", "updates"):
        report = run_suite(suite, ReferenceImplementation(), level=level)
        assert report.ok, [r.reason for r in report.results]
        assert report.counts()["pass"] == 6


def test_a_difference_is_reported_with_a_diff(tmp_path: Path) -> None:
    make(tmp_path)

    def drops_the_first_delta(
        interaction: Interaction, dialect: str, chunking: str
    ) -> InteractionOutput:
        output = run_interaction(interaction, dialect, chunking)
        return InteractionOutput(
            output.updates[:1] + output.updates[2:], output.results, output.response
        )

    report = run_suite(
        suite_of(tmp_path, chunkings=["whole", "bytes"]),
        FunctionImplementation(drops_the_first_delta),
        level="updates",
    )
    assert [r.status for r in report.results] == ["fail", "fail"]
    assert report.results[0].reason.startswith("updates[1]: expected")
    assert '-{"type":"text_delta","delta":"Hel"}' in report.results[0].diff
    # at the response level, the same implementation conforms
    assert run_suite(
        suite_of(tmp_path), FunctionImplementation(drops_the_first_delta), level="response"
    ).ok


def test_an_implementation_that_raises_is_judged_not_a_crash(tmp_path: Path) -> None:
    make(tmp_path)

    def broken(interaction: Interaction, dialect: str, chunking: str) -> InteractionOutput:
        raise RuntimeError("boom")

    report = run_suite(suite_of(tmp_path, chunkings=["whole"]), FunctionImplementation(broken))
    (result,) = report.results
    assert result.status == "fail"
    assert "errors: expected no error, got" in result.diff
    assert "RuntimeError: boom" in result.diff
    assert "RuntimeError: boom" in result.stderr  # its traceback


def test_a_golden_that_contradicts_the_expectation_is_an_error(tmp_path: Path) -> None:
    make(tmp_path, expect_text="Goodbye")
    suite = suite_of(tmp_path)
    assert suite.cases == []
    assert [p.message for p in suite.problems] == [
        "golden contradicts expect: text: expected 'Goodbye', got 'Hello é'"
    ]
    report = run_suite(suite, ReferenceImplementation())
    assert [(r.id, r.status) for r in report.results] == [("openai_chat/hello", "error")]


def test_missing_golden(tmp_path: Path) -> None:
    _, golden = make(tmp_path)
    golden.unlink()
    (problem,) = suite_of(tmp_path).problems
    assert problem.message.startswith("no golden file")


def test_http_error_cassettes_give_one_http_error(tmp_path: Path) -> None:
    _path, golden = make(tmp_path, status=429)
    output = goldens.loads(golden.read_text()).interactions[0]
    assert [u["error_code"] for u in output.updates] == ["http_error"]
    assert output.response["text"] == ""


def test_cli_conform_exit_codes_and_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, golden = make(tmp_path)
    args = [
        "conform",
        "--cassettes",
        str(tmp_path / "cassettes"),
        "--goldens",
        str(tmp_path / "goldens"),
    ]
    assert main(args) == 0
    assert "6 cases: 6 passed, 0 failed, 0 skipped, 0 errors" in capsys.readouterr().out
    golden.write_text(golden.read_text().replace('"delta":"Hel"', '"delta":"Help"', 1))
    assert main([*args, "--chunking", "utf8"]) == 1  # the reference at level updates
    out = capsys.readouterr().out
    assert "✗ wrong" in out
    assert '+{"type":"text_delta","delta":"Hel"}' in out
    assert main([*args, "--level", "response"]) == 0  # the response did not change
    capsys.readouterr()
    assert main([*args, "-k", "nothing*"]) == 1
    assert "no cases matched" in capsys.readouterr().out


def test_cli_conform_rejects_an_unknown_chunking(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["conform", "--chunking", "halves"])
    assert info.value.code == 2
    assert "unknown chunking" in capsys.readouterr().err
