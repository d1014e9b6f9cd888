"""The independent reader of ``openai_responses`` (tests/conformance/reader_openai_responses.py) on its own, and
against raf on real recordings.

The reader derives the updates of a recorded response by the rules of the ``openai_responses`` section of
docs/dialects.md and the generic documents only, and imports nothing from raf. The goldens'
``updates`` are compared with it in tests/conformance/test_golden_review.py, with the readers
of the other dialects. Here: the reader's own checks (its imports, the examples of the spec),
and its simple ``aggregate`` of every openai_responses stream of the shared corpus compared with
``raf.pipeline.respond`` under whole, one-byte and random chunking.

A case where the reader follows a clear sentence of the spec and raf does not is listed in
``KNOWN_DISAGREEMENTS`` and fails visibly as a strict xfail (none at present).
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from raf.pipeline import respond
from tests import corpus
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


def test_the_cassettes_are_found() -> None:
    assert cassettes(), f"no cassettes under {CASSETTES}"


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
@pytest.mark.parametrize("stream", corpus.params(STREAMS), ids=lambda stream: stream.name)
def test_corpus_stream_aggregates_to_the_independent_reading(
    stream: RecordedStream, how: str
) -> None:
    if stream.name in KNOWN_DISAGREEMENTS:
        pytest.xfail(KNOWN_DISAGREEMENTS[stream.name])
    assert raf_aggregate(stream, how) == aggregate(stream.body)


def test_the_corpus_has_responses_streams() -> None:
    corpus.require()
    assert STREAMS
