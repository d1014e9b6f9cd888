"""The conformance runner and ``raf conform``: pass, difference, missing golden, a golden
that contradicts its reviewed expectation, and an implementation that fails."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from raf.cassettes import Cassette, Expectation, Interaction, Request, Response, ScenarioInfo, save
from raf.cli import main
from raf.conformance import goldens
from raf.conformance.goldens import InteractionOutput
from raf.conformance.reference import golden_of, run_interaction
from raf.conformance.runner import run_case

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


def test_conforming_implementation_passes_every_chunking(tmp_path: Path) -> None:
    path, _ = make(tmp_path)
    report = run_case(path, tmp_path / "goldens")
    assert report.ok, (report.problems, report.differences)
    assert report.passed == report.chunkings
    assert len(report.chunkings) == 6


def test_a_difference_is_reported_with_a_diff(tmp_path: Path) -> None:
    path, _ = make(tmp_path)

    def drops_the_first_delta(
        interaction: Interaction, dialect: str, chunking: str
    ) -> InteractionOutput:
        output = run_interaction(interaction, dialect, chunking)
        return InteractionOutput(
            output.updates[:1] + output.updates[2:], output.results, output.response
        )

    report = run_case(
        path,
        tmp_path / "goldens",
        chunkings=["whole", "bytes"],
        implementation=drops_the_first_delta,
    )
    assert not report.ok
    assert report.passed == []
    assert {(d.chunking, d.part) for d in report.differences} == {
        ("whole", "updates"),
        ("bytes", "updates"),
    }
    assert '-{"type":"text_delta","delta":"Hel"}' in report.differences[0].diff


def test_an_implementation_that_raises_is_a_failure_not_a_crash(tmp_path: Path) -> None:
    path, _ = make(tmp_path)

    def broken(interaction: Interaction, dialect: str, chunking: str) -> InteractionOutput:
        raise RuntimeError("boom")

    report = run_case(path, tmp_path / "goldens", chunkings=["whole"], implementation=broken)
    assert not report.ok
    assert "boom" in report.problems[0]


def test_a_golden_that_contradicts_the_expectation_fails(tmp_path: Path) -> None:
    path, _ = make(tmp_path, expect_text="Goodbye")
    report = run_case(path, tmp_path / "goldens", chunkings=["whole"])
    assert report.problems == ["golden contradicts expect: text: expected 'Goodbye', got 'Hello é'"]


def test_missing_golden(tmp_path: Path) -> None:
    path, golden = make(tmp_path)
    golden.unlink()
    report = run_case(path, tmp_path / "goldens", chunkings=["whole"])
    assert report.missing_golden
    assert report.status == "no golden"


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
    assert "all conform" in capsys.readouterr().out
    golden.write_text(golden.read_text().replace('"delta":"Hel"', '"delta":"Help"', 1))
    assert main([*args, "--chunking", "utf8"]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out
    assert '+{"type":"text_delta","delta":"Hel"}' in out
    assert main([*args, "-k", "nothing*"]) == 1


def test_cli_conform_rejects_an_unknown_chunking(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["conform", "--chunking", "halves"])
    assert info.value.code == 2
    assert "unknown chunking" in capsys.readouterr().err
