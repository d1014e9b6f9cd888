"""``raf pipeline --format NAME``: the results in another message model, framed as its
consumers read them; ``--response --format NAME``: the model's form of the whole response;
usage errors and a model that breaks. The models here are the fake ones of
tests/interop/fake_models.py, so these tests hold whatever the real models do."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from raf import interop
from raf.cli import main
from raf.collect import collect_agent_response
from raf.pipeline import run
from tests import processes
from tests.interop import fake_models

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
EXAMPLE = EXAMPLES / "openai_chat_parallel_tools.sse"
TEXT = "I'll check both cities."


@pytest.fixture(autouse=True)
def _fakes(monkeypatch: pytest.MonkeyPatch) -> None:
    fake_models.install(monkeypatch)


def _sse_items(out: str) -> tuple[list[object], str]:
    """The JSON items of an SSE body ending with ``data: [DONE]``, and what follows them."""
    events = out.split("\n\n")
    assert events[-1] == ""  # every event ends with its blank line
    assert all(event.startswith("data: ") and "\n" not in event for event in events[:-1])
    datas = [event.removeprefix("data: ") for event in events[:-1]]
    assert datas[-1] == "[DONE]"
    return [json.loads(data) for data in datas[:-1]], datas[-1]


def test_an_sse_model_prints_its_events_then_its_trailer(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["pipeline", str(EXAMPLE), "--format", "fake-sse"]) == 0
    items, _ = _sse_items(capsys.readouterr().out)
    assert "".join(str(i["delta"]) for i in items if i["type"] == "text") == TEXT  # type: ignore[index]
    assert items[-1] == {"type": "finish", "reason": "tool_calls"}


def test_the_output_is_the_frame_of_what_the_encoder_makes_of_raf_results(
    capsys: pytest.CaptureFixture[str],
) -> None:
    model = interop.get("fake-sse")
    results = run([EXAMPLE.read_bytes()], "openai_chat")
    expected = b"".join(interop.frame(model, i) for i in interop.encode_all(model, results))
    assert main(["pipeline", str(EXAMPLE), "--format", "fake-sse", "--chunk-size", "3"]) == 0
    assert capsys.readouterr().out.encode() == expected + model.trailer


def test_a_jsonl_model_prints_one_item_per_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["pipeline", str(EXAMPLE), "--format", "fake-jsonl"]) == 0
    out = capsys.readouterr().out
    assert out.endswith("}\n")
    items = [json.loads(line) for line in out.splitlines()]
    results = list(run([EXAMPLE.read_bytes()], "openai_chat"))
    assert [i["n"] for i in items] == list(range(1, len(results) + 1))
    # --results says the same: the model encodes raf's results
    assert main(["pipeline", str(EXAMPLE), "--format", "fake-jsonl", "--results"]) == 0
    assert capsys.readouterr().out == out


@pytest.mark.parametrize("size", ["1", "7"])
def test_the_output_does_not_depend_on_the_chunk_size(
    size: str, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["pipeline", str(EXAMPLE), "--format", "fake-sse"])
    whole = capsys.readouterr().out
    main(["pipeline", str(EXAMPLE), "--format", "fake-sse", "--chunk-size", size])
    assert capsys.readouterr().out == whole


def test_response_prints_the_models_aggregate(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["pipeline", str(EXAMPLE), "--response", "--format", "fake-jsonl"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out) == {"text": TEXT, "errors": 0}
    assert out.startswith("{\n  ")  # indented, as the canonical --response


def test_response_with_a_model_without_aggregate_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["pipeline", str(EXAMPLE), "--response", "--format", "fake-sse"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "Fake SSE (fake-sse) has no form of a whole response" in captured.err
    assert "Traceback" not in captured.err


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--updates"], "drop --updates"),
        (["--meta"], "--meta applies to the canonical output"),
    ],
)
def test_options_that_mean_nothing_for_a_model_are_usage_errors(
    extra: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["pipeline", str(EXAMPLE), "--format", "fake-jsonl", *extra]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert says in captured.err


def test_usage_errors_come_before_the_input_is_read(capsys: pytest.CaptureFixture[str]) -> None:
    missing = str(EXAMPLE.with_name("no_such_file.sse"))
    assert main(["pipeline", missing, "--response", "--format", "fake-sse"]) == 2
    assert "no form of a whole response" in capsys.readouterr().err


def test_an_unknown_format_is_refused_with_the_choices(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["pipeline", str(EXAMPLE), "--format", "nope"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'nope'" in err
    for name in ("canonical", *interop.names()):
        assert name in err


def test_the_choices_are_the_models_raf_interop_names(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["pipeline", "--help"])
    usage = capsys.readouterr().out
    assert "canonical" in usage
    for name in ("tiny-agent", "langchain", "maf", "ag-ui", "ui-message-stream", "fake-sse"):
        assert name in usage


@pytest.mark.parametrize("name", ["fake-broken", fake_models.MISSING])
def test_a_model_that_breaks_is_an_internal_error_without_traceback(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["pipeline", str(EXAMPLE), "--format", name]) == 3
    err = capsys.readouterr().err
    assert err.startswith("raf: internal error: ")
    assert "Traceback" not in err


def test_strict_counts_the_streams_errors_under_a_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.sse"
    broken.write_bytes(b'data: {"choices": [{"delta": {"content": "hi"}}]}\n\ndata: {oops\n\n')
    assert collect_agent_response(list(run([broken.read_bytes()], "openai_chat"))).errors
    assert main(["pipeline", str(broken), "--format", "fake-sse"]) == 0
    items, _ = _sse_items(capsys.readouterr().out)
    assert {"type": "text", "delta": "hi"} in items
    assert any(i["type"] == "error" for i in items)  # type: ignore[index]
    assert main(["pipeline", str(broken), "--format", "fake-sse", "--strict"]) == 1
    capsys.readouterr()
    assert main(["pipeline", str(broken), "--format", "fake-jsonl", "--response", "--strict"]) == 1
    assert json.loads(capsys.readouterr().out) == {"text": "hi", "errors": 2}


def test_the_canonical_format_is_the_default_output() -> None:
    """The real command, in its own process: ``--format canonical`` is what it always printed."""
    body = EXAMPLE.read_bytes()
    plain = processes.run([sys.executable, "-m", "raf", "pipeline", "-"], input=body, check=True)
    canonical = processes.run(
        [sys.executable, "-m", "raf", "pipeline", "-", "--format", "canonical"],
        input=body,
        check=True,
    )
    assert canonical.stdout == plain.stdout
    assert json.loads(canonical.stdout.decode().splitlines()[1]) == {
        "type": "text_delta",
        "delta": "I'll",
    }


REAL = tuple(interop.names())


def _real(name: str) -> interop.Model:
    """The real model ``name``."""
    return interop.get(name)


@pytest.mark.parametrize("name", REAL)
def test_every_model_prints_the_frames_of_its_items_then_its_trailer(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    model = _real(name)
    results = list(run([EXAMPLE.read_bytes()], "openai_chat"))
    items = list(interop.encode_all(model, results))
    assert items
    expected = b"".join(interop.frame(model, item) for item in items) + model.trailer
    assert main(["pipeline", str(EXAMPLE), "--format", name, "--chunk-size", "5"]) == 0
    assert capsys.readouterr().out.encode() == expected
    code = main(["pipeline", str(EXAMPLE), "--format", name, "--response"])
    captured = capsys.readouterr()
    if model.aggregate is None:
        assert code == 2
        assert "has no form of a whole response" in captured.err
    else:
        assert code == 0
        aggregate = model.aggregate(collect_agent_response(results))
        assert json.loads(captured.out) == json.loads(json.dumps(aggregate))
