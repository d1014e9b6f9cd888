"""Review of the ``openai_responses`` goldens and of raf's reading of real Responses streams.

- The ``updates`` of every interaction of every cassette in ``cassettes/openai_responses/``
  are checked against ``reader_openai_responses.read_updates``, which derives them from the
  recorded status and bytes by the documented rules only
  (docs/_fragments/dialect_openai_responses.md and the generic docs) and imports nothing from
  raf. Error messages are for people: each error's ``"message"`` is replaced by ``""`` on
  both sides. Key order is compared too (the lines are compared as JSON text).
- Every Responses stream of the shared corpus is aggregated by
  ``reader_openai_responses.aggregate`` and compared with ``raf.pipeline.respond`` under
  whole, one-byte and random chunking.

A case where the reader follows a clear sentence of the spec and the golden does not is listed
in ``KNOWN_DISAGREEMENTS`` and expected to fail (``xfail(strict=True)``), so it stays visible
until the golden (or the spec) is fixed.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from raf.cassettes import load
from raf.conformance import goldens
from raf.pipeline import respond
from tests.conformance.reader_openai_responses import aggregate, read_updates
from tests.corpus import RecordedStream, recorded_streams
from tests.helpers import split

DIALECT = "openai_responses"
ROOT = Path(__file__).resolve().parents[2]
CASSETTES = ROOT / "cassettes" / DIALECT
GOLDENS = ROOT / "conformance" / "goldens"
UPDATE_SCHEMA = ROOT / "conformance" / "schema" / "update.schema.json"
READER = Path(__file__).resolve().parent / "reader_openai_responses.py"

# Scenario (or corpus stream name) -> why the golden (or raf) is wrong, citing the spec.
KNOWN_DISAGREEMENTS: dict[str, str] = {}


def cassettes() -> list[Path]:
    return sorted(path for path in CASSETTES.glob("*.y*ml") if path.is_file())


def without_messages(updates: list[Any]) -> list[Any]:
    return [
        {**update, "message": ""}
        if isinstance(update, dict) and update.get("type") == "error"
        else update
        for update in updates
    ]


def as_lines(updates: list[Any]) -> list[str]:
    return [json.dumps(update, ensure_ascii=False, separators=(",", ":")) for update in updates]


def first_difference(expected: list[str], actual: list[str]) -> str:
    for position, (left, right) in enumerate(zip(expected, actual, strict=False)):
        if left != right:
            return (
                f"update {position} differs:\n"
                f"  independent reader: {left[:600]}\n"
                f"  golden:             {right[:600]}"
            )
    return f"the independent reader has {len(expected)} updates, the golden {len(actual)}"


def test_the_cassettes_are_found() -> None:
    assert cassettes(), f"no cassettes under {CASSETTES}"


@pytest.mark.parametrize("path", cassettes(), ids=lambda path: path.stem)
def test_golden_updates_match_the_independent_reader(path: Path) -> None:
    if path.stem in KNOWN_DISAGREEMENTS:
        pytest.xfail(KNOWN_DISAGREEMENTS[path.stem])
    cassette = load(path)
    assert cassette.info is not None, f"{path} has no raf block"
    assert cassette.info.dialect == DIALECT
    scenario = cassette.info.scenario
    golden_file = goldens.golden_path(GOLDENS, DIALECT, scenario)
    golden = goldens.load(golden_file)
    if golden is None:
        pytest.fail(f"{path} has no golden ({golden_file}): its updates are unreviewed")
    assert len(golden.interactions) == len(cassette.interactions)
    for number, (interaction, output) in enumerate(
        zip(cassette.interactions, golden.interactions, strict=True)
    ):
        response = interaction.response
        derived = as_lines(
            without_messages(read_updates(response.status, response.reason, response.body))
        )
        recorded = as_lines(without_messages(output.updates))
        assert derived == recorded, f"{scenario}, interaction {number}: " + first_difference(
            derived, recorded
        )


def test_the_reader_imports_only_the_standard_library_and_the_shared_helpers() -> None:
    tree = ast.parse(READER.read_text(encoding="utf-8"))
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "relative import in the independent reader"
            assert node.module is not None
            imported.add(node.module)
    allowed = set(sys.stdlib_module_names) | {"__future__", "tests.conformance.independent_reader"}
    assert {name if name.startswith("tests.") else name.split(".")[0] for name in imported} <= (
        allowed
    ), imported


@pytest.mark.parametrize("path", cassettes(), ids=lambda path: path.stem)
def test_the_reader_writes_every_field_in_the_order_of_the_schema(path: Path) -> None:
    schema = json.loads(UPDATE_SCHEMA.read_text(encoding="utf-8"))
    definitions = schema["$defs"]
    by_type = {
        tag: list(definitions[reference.rsplit("/", 1)[1]]["properties"])
        for tag, reference in schema["discriminator"]["mapping"].items()
    }
    usage_fields = list(definitions["usage.Usage"]["properties"])
    for interaction in load(path).interactions:
        response = interaction.response
        for update in read_updates(response.status, response.reason, response.body):
            assert list(update) == by_type[update["type"]], update
            if update["type"] in {"usage", "finish"} and update["usage"] is not None:
                assert list(update["usage"]) == usage_fields, update


# ---------------------------------------------------------------------------------------------
# Examples the spec gives, checked on the reader itself.
# ---------------------------------------------------------------------------------------------


def sse(*payloads: dict[str, Any]) -> bytes:
    return b"".join(f"data: {json.dumps(p)}\n\n".encode() for p in payloads)


CREATED = {"type": "response.created", "response": {"id": "r1", "model": "m"}}
COMPLETED = {"type": "response.completed", "response": {"id": "r1", "model": "m", "usage": None}}


def test_done_without_a_terminal_event_is_truncated() -> None:
    body = sse(CREATED) + b"data: [DONE]\n\n"
    assert [u["error_code"] for u in read_updates(200, "OK", body) if u["type"] == "error"] == [
        "stream_truncated"
    ]


def test_reused_call_id_inside_one_response_is_a_violation_and_renamed() -> None:
    call = {"type": "function_call", "call_id": "c", "name": "f", "arguments": ""}
    body = sse(
        CREATED,
        {"type": "response.output_item.added", "output_index": 0, "item": {**call, "id": "a"}},
        {"type": "response.output_item.added", "output_index": 1, "item": {**call, "id": "b"}},
        COMPLETED,
    )
    updates = read_updates(200, "OK", body)
    starts = [u["id"] for u in updates if u["type"] == "tool_call_start"]
    assert starts == ["c", "c#2"]
    assert [u["error_code"] for u in updates if u["type"] == "error"] == ["protocol_violation"]


def test_sequence_number_going_back_is_a_violation_before_the_event() -> None:
    body = sse(
        {**CREATED, "sequence_number": 0},
        {"type": "response.output_text.delta", "sequence_number": 5, "delta": "a"},
        {"type": "response.output_text.delta", "sequence_number": 5, "delta": "b"},
        {**COMPLETED, "sequence_number": 6},
    )
    kinds = [u["type"] for u in read_updates(200, "OK", body)]
    assert kinds == ["response_metadata", "text_delta", "error", "text_delta", "finish"]


# ---------------------------------------------------------------------------------------------
# The shared corpus: raf's aggregate against the simple independent reading.
# ---------------------------------------------------------------------------------------------

STREAMS = [stream for stream in recorded_streams() if stream.wire_format == DIALECT]


def raf_aggregate(stream: RecordedStream, how: str) -> dict[str, Any]:
    response = respond(split(stream.body, how), DIALECT)
    usage = response.usage
    return {
        "text": response.text,
        "reasoning": response.reasoning_text or None,
        "tool_calls": [(c.id, c.name, c.arguments) for c in response.tool_calls],
        "finish_reason": response.finish_reason,
        "usage": None
        if usage is None
        else (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens),
    }


@pytest.mark.parametrize("how", ["whole", "bytewise", "random"])
@pytest.mark.parametrize("stream", STREAMS, ids=lambda stream: stream.name)
def test_corpus_stream_aggregates_to_the_independent_reading(
    stream: RecordedStream, how: str
) -> None:
    if stream.name in KNOWN_DISAGREEMENTS:
        pytest.xfail(KNOWN_DISAGREEMENTS[stream.name])
    assert raf_aggregate(stream, how) == aggregate(stream.body)


def test_the_corpus_has_responses_streams() -> None:
    if not recorded_streams():
        pytest.skip("shared corpus not found")
    assert STREAMS
