"""The raf command line: output, chunk-size independence, errors and exit codes."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from raf.cli import main
from tests import processes

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "openai_chat_parallel_tools.sse"


def lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def test_pipeline_prints_canonical_updates(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["pipeline", str(EXAMPLE)]) == 0
    out = lines(capsys.readouterr().out)
    assert out[0] == {
        "type": "response_metadata",
        "id": "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
        "model": "gpt-4o-2024-08-06",
    }
    assert (
        "".join(str(u["delta"]) for u in out if u["type"] == "text_delta")
        == "I'll check both cities."
    )
    args = {0: "", 1: ""}
    for u in out:
        if u["type"] == "tool_call_delta":
            args[u["index"]] += u["arguments_delta"]
    assert json.loads(args[0]) == {"location": "Paris, France"}
    assert json.loads(args[1]) == {"location": "São Paulo", "unit": "c"}
    assert out[-2] == {"type": "finish", "finish_reason": "tool_calls", "usage": None}
    assert out[-1]["type"] == "usage"


@pytest.mark.parametrize("mode", ["--updates", "--results", "--response"])
@pytest.mark.parametrize("size", [1, 2, 3, 7, 4096])
def test_pipeline_output_does_not_depend_on_chunk_size(
    mode: str, size: int, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["pipeline", str(EXAMPLE), mode])
    expected = capsys.readouterr().out
    main(["pipeline", str(EXAMPLE), mode, "--chunk-size", str(size)])
    assert capsys.readouterr().out == expected


def test_pipeline_response(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["pipeline", str(EXAMPLE), "--response"]) == 0
    response = json.loads(capsys.readouterr().out)
    assert response["type"] == "agent_response"
    assert response["text"] == "I'll check both cities."
    assert [(c["name"], c["arguments"]) for c in response["tool_calls"]] == [
        ("get_weather", {"location": "Paris, France"}),
        ("get_weather", {"location": "São Paulo", "unit": "c"}),
    ]
    assert response["finish_reason"] == "tool_calls"
    assert response["usage"]["total_tokens"] == 146
    assert response["errors"] == []


def test_pipeline_results_with_and_without_metadata(capsys: pytest.CaptureFixture[str]) -> None:
    main(["pipeline", str(EXAMPLE), "--results"])
    plain = lines(capsys.readouterr().out)
    assert plain[-1]["finish_reason"] == "tool_calls"
    assert all("meta" not in c for r in plain for c in r["contents"])
    main(["pipeline", str(EXAMPLE), "--results", "--meta"])
    with_meta = lines(capsys.readouterr().out)
    assert all(
        c["meta"]["model_id"] == "gpt-4o-2024-08-06" for r in with_meta for c in r["contents"]
    )


def test_sse_prints_events(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "s.sse"
    path.write_bytes(b"event: ping\nid: 4\nretry: 10\ndata: a\ndata: b\n\n: c\n\ndata: tail")
    assert main(["sse", str(path)]) == 0
    captured = capsys.readouterr()
    assert lines(captured.out) == [{"event": "ping", "data": "a\nb", "id": "4", "retry": 10}]
    assert "unfinished event" in captured.err


def test_strict_exits_1_on_error_updates(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "bad.sse"
    path.write_bytes(b"data: {nope\n\n")
    assert main(["pipeline", str(path)]) == 0
    assert main(["pipeline", str(path), "--strict"]) == 1
    codes = [u["error_code"] for u in lines(capsys.readouterr().out) if u["type"] == "error"]
    assert codes == ["sse_parse_error", "stream_truncated"] * 2
    assert main(["pipeline", str(path), "--strict", "--response"]) == 1
    response = json.loads(capsys.readouterr().out)
    assert [e["error_code"] for e in response["errors"]] == ["sse_parse_error", "stream_truncated"]


def test_limits_are_configurable(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "big.sse"
    path.write_bytes(b"data: " + b"x" * 100 + b"\n\n")
    main(["pipeline", str(path), "--max-line-bytes", "50"])
    out = lines(capsys.readouterr().out)
    assert [u["error_code"] for u in out] == ["sse_limit_exceeded"]
    assert "max_line_bytes" in str(out[0]["message"])


def test_unreadable_input_exits_2_with_a_message(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["pipeline", str(tmp_path / "missing.sse")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_bad_arguments_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["pipeline", str(EXAMPLE), "--chunk-size", "0"])
    assert info.value.code == 2
    assert "at least 1" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["pipeline", str(EXAMPLE), "--dialect", "nope"])


def test_stdin_and_console_script() -> None:
    result = processes.run(
        [sys.executable, "-m", "raf", "pipeline", "-"], input=EXAMPLE.read_bytes(), check=True
    )
    assert lines(result.stdout.decode())[1] == {"type": "text_delta", "delta": "I'll"}


def test_schema_check_detects_stale_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["schema", "--write", str(tmp_path)]) == 0
    assert main(["schema", "--check", str(tmp_path)]) == 0
    (tmp_path / "update.schema.json").write_text("{}")
    assert main(["schema", "--check", str(tmp_path)]) == 1
    assert "update.schema.json" in capsys.readouterr().err


@pytest.mark.parametrize("mode", ["--updates", "--results", "--response"])
def test_deeply_nested_input_prints_without_a_traceback(
    mode: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deep = "[" * 1000 + "]" * 1000
    arguments = json.dumps('{"a":' + deep + "}")
    path = tmp_path / "deep.sse"
    path.write_text(
        f'data: {{"choices":[],"x":{deep}}}\n\n'
        f'data: {{"choices":[{{"delta":{{"tool_calls":[{{"index":0,"id":"c","function":'
        f'{{"name":"f","arguments":{arguments}}}}}]}},"finish_reason":"tool_calls"}}]}}\n\n'
        "data: [DONE]\n\n"
    )
    assert main(["pipeline", str(path), mode, "--strict"]) == 1  # errors, reported
    out = capsys.readouterr().out
    assert "json_too_deep" in out


def test_pipeline_reads_every_dialect_and_auto_recognises_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = tmp_path / "gemini.json"
    body.write_bytes(
        b'[{"candidates":[{"content":{"parts":[{"text":"Hel"}]}}]},\r\n'
        b'{"candidates":[{"content":{"parts":[{"text":"lo"}]},"finishReason":"STOP"}]}]'
    )
    for dialect in ("gemini", "auto"):
        for size in ("1", "4096"):
            args = ["pipeline", str(body), "--dialect", dialect, "--response", "--chunk-size", size]
            assert main(args) == 0
            response = json.loads(capsys.readouterr().out)
            assert (response["text"], response["finish_reason"]) == ("Hello", "stop")


def test_pipeline_framing_can_be_chosen(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = tmp_path / "lines.jsonl"
    body.write_bytes(
        b'{"candidates":[{"content":{"parts":[{"text":"Hi"}]},"finishReason":"STOP"}]}\n'
    )
    assert (
        main(
            ["pipeline", str(body), "--dialect", "gemini", "--framing", "json_lines", "--response"]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["text"] == "Hi"
    with pytest.raises(SystemExit) as exited:
        main(["pipeline", str(body), "--dialect", "gemini", "--framing", "xml"])
    assert exited.value.code == 2
    assert "invalid choice" in capsys.readouterr().err
