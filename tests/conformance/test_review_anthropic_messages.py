"""The independent reader of ``anthropic_messages`` (tests/conformance/reader_anthropic_messages.py) on its own, and
against raf on real recordings.

The reader derives the updates of a recorded response by the rules of the ``anthropic_messages`` section of
docs/dialects.md and the generic documents only, and imports nothing from raf. The goldens'
``updates`` are compared with it in tests/conformance/test_golden_review.py, with the readers
of the other dialects. Here: the reader's own checks (its imports, the examples of the spec),
and its simple ``aggregate`` of every anthropic_messages stream of the shared corpus compared with
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

from raf.model.canonical import to_json
from raf.pipeline import iter_updates, respond
from tests import corpus
from tests.conformance.reader_anthropic_messages import aggregate, read_updates
from tests.corpus import RecordedStream, recorded_streams
from tests.helpers import CHUNKINGS, split

DIALECT = "anthropic_messages"
ROOT = Path(__file__).resolve().parents[2]
CASSETTES = ROOT / "cassettes" / DIALECT
GOLDENS = ROOT / "conformance" / "goldens"
UPDATE_SCHEMA = ROOT / "conformance" / "schema" / "update.schema.json"
READER = Path(__file__).resolve().parent / "reader_anthropic_messages.py"
HELPERS = Path(__file__).resolve().parent / "independent_reader.py"

# Scenario or corpus stream name -> why raf disagrees with the spec (the spec sentence).
KNOWN_DISAGREEMENTS: dict[str, str] = {}


def cassettes() -> list[Path]:
    return sorted(
        path for path in CASSETTES.rglob("*") if path.suffix in {".yaml", ".yml"} and path.is_file()
    )


def streams() -> list[RecordedStream]:
    return [stream for stream in recorded_streams() if stream.wire_format == DIALECT]


def without_messages(updates: list[Any]) -> list[Any]:
    """The updates with every error's message replaced by ``""``."""
    return [
        {**update, "message": ""}
        if isinstance(update, dict) and update.get("type") == "error"
        else update
        for update in updates
    ]


def reviewed(name: str, *values: Any) -> Any:
    """A parameter named ``name``; a known disagreement is a strict xfail, so it shows in
    every run and fails as soon as raf agrees (then remove it from the dict)."""
    marks = []
    if name in KNOWN_DISAGREEMENTS:
        marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_DISAGREEMENTS[name]))
    return pytest.param(*values, id=name, marks=marks)


# ---------------------------------------------------------------------------------------------
# 1. The goldens' updates.
# ---------------------------------------------------------------------------------------------


def test_the_cassettes_are_found() -> None:
    assert cassettes(), f"no cassettes under {CASSETTES}"


# ---------------------------------------------------------------------------------------------
# 2. Real recordings of the shared corpus.
# ---------------------------------------------------------------------------------------------


def raf_reading(body: bytes, how: str) -> dict[str, Any]:
    response = respond(split(body, how), DIALECT)
    usage = response.usage
    return {
        "text": response.text,
        "reasoning": response.reasoning_text,
        "tool_calls": [(call.id, call.name, call.arguments) for call in response.tool_calls],
        "finish_reason": None if response.finish_reason is None else str(response.finish_reason),
        "usage": None
        if usage is None
        else (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens),
    }


CORPUS = streams()


def test_the_corpus_has_streams_of_the_format() -> None:
    corpus.require()
    assert CORPUS, "no anthropic_messages stream in the shared corpus"


@pytest.mark.parametrize("how", CHUNKINGS)
@pytest.mark.parametrize(
    "stream", corpus.params([reviewed(stream.name, stream) for stream in CORPUS])
)
def test_raf_reads_real_recordings_as_the_independent_reader(
    stream: RecordedStream, how: str
) -> None:
    expected = aggregate(stream.body)
    actual = raf_reading(stream.body, how)
    assert expected == actual


# ---------------------------------------------------------------------------------------------
# 3. Checks of the reader itself.
# ---------------------------------------------------------------------------------------------


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"relative import in {path}"
            assert node.module is not None
            imported.add(node.module)
    return imported


def test_the_reader_imports_only_the_standard_library_and_the_shared_helpers() -> None:
    allowed = set(sys.stdlib_module_names) | {"__future__"}
    for path, extra in ((READER, {"tests.conformance.independent_reader"}), (HELPERS, set())):
        for module in imports_of(path):
            assert module in extra or module.split(".")[0] in allowed, (path, module)


def schema_fields() -> tuple[dict[str, list[str]], list[str]]:
    schema = json.loads(UPDATE_SCHEMA.read_text(encoding="utf-8"))
    definitions = schema["$defs"]
    by_type = {
        tag: list(definitions[reference.rsplit("/", 1)[1]]["properties"])
        for tag, reference in schema["discriminator"]["mapping"].items()
    }
    return by_type, list(definitions["usage.Usage"]["properties"])


def check_shapes(updates: list[dict[str, Any]]) -> None:
    by_type, usage_fields = schema_fields()
    for update in updates:
        assert list(update) == by_type[update["type"]], update
        if update["type"] in {"usage", "finish"} and update["usage"] is not None:
            assert list(update["usage"]) == usage_fields, update


def event(payload: dict[str, Any], name: str | None = None) -> str:
    head = f"event: {name or payload['type']}\n"
    return head + f"data: {json.dumps(payload)}\n\n"


START = event(
    {
        "type": "message_start",
        "message": {"id": "m", "model": "x", "usage": {"input_tokens": 3, "output_tokens": 1}},
    }
)
STOP = event({"type": "message_stop"})


def usage(prompt: int, completion: int, hit: int | None = None) -> dict[str, Any]:
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_cache_hit_tokens": hit,
        "prompt_cache_miss_tokens": None if hit is None else prompt - hit,
        "reasoning_tokens": None,
    }


META = {"type": "response_metadata", "id": "m", "model": "x"}
START_USAGE = {"type": "usage", "usage": usage(3, 1)}


def err(code: str, raw: str | None) -> dict[str, Any]:
    return {"type": "error", "error_code": code, "message": "", "raw": raw}


def block_start(index: int, block: dict[str, Any]) -> str:
    return event({"type": "content_block_start", "index": index, "content_block": block})


def block_delta(index: int, delta: dict[str, Any]) -> str:
    return event({"type": "content_block_delta", "index": index, "delta": delta})


def block_stop(index: int) -> str:
    return event({"type": "content_block_stop", "index": index})


def data_of(text: str) -> str:
    """The data of one event written by ``event``."""
    return text.split("data: ", 1)[1].removesuffix("\n\n")


NO_INDEX_DELTA = event(
    {"type": "content_block_delta", "delta": {"type": "text_delta", "text": "a"}}
)
WRONG_INDEX_DELTA = event(
    {"type": "content_block_delta", "index": "0", "delta": {"type": "text_delta", "text": "k"}}
)

# Each case: a body, and the updates the spec says it gives (messages left out).
SPEC_EXAMPLES: dict[str, tuple[str, list[dict[str, Any]]]] = {
    # "tool_use ... input only in the start": ToolCallArgs at the stop, then ToolCallEnd.
    "start_input_at_stop": (
        START
        + block_start(0, {"type": "tool_use", "id": "t", "name": "f", "input": {"a": 1}})
        + block_stop(0)
        + STOP,
        [
            META,
            START_USAGE,
            {"type": "tool_call_start", "id": "t", "name": "f"},
            {"type": "tool_call_args", "id": "t", "args_delta": '{"a":1}'},
            {"type": "tool_call_end", "id": "t"},
        ],
    ),
    # The start signature is emitted at the stop only without a signature_delta.
    "thinking_start_signature": (
        START
        + block_start(0, {"type": "thinking", "thinking": "hm", "signature": "S"})
        + block_stop(0)
        + block_start(1, {"type": "thinking", "thinking": "", "signature": "S2"})
        + block_delta(1, {"type": "signature_delta", "signature": "D"})
        + block_stop(1)
        + STOP,
        [
            META,
            START_USAGE,
            {"type": "reasoning_delta", "delta": "hm"},
            {"type": "reasoning_signature", "signature": "S"},
            {"type": "reasoning_signature", "signature": "D"},
        ],
    ),
    # Legacy tool_use without an id: ToolCallDelta by block index, invalid_chunk after it.
    "legacy_tool_without_id": (
        START
        + block_start(2, {"type": "tool_use", "name": "f", "input": {}})
        + block_delta(2, {"type": "input_json_delta", "partial_json": "{}"})
        + block_stop(2)
        + STOP,
        [
            META,
            START_USAGE,
            {"type": "tool_call_delta", "index": 2, "id": None, "name": "f", "arguments_delta": ""},
            err(
                "invalid_chunk",
                json.dumps(
                    {
                        "type": "content_block_start",
                        "index": 2,
                        "content_block": {"type": "tool_use", "name": "f", "input": {}},
                    }
                ),
            ),
            {
                "type": "tool_call_delta",
                "index": 2,
                "id": None,
                "name": None,
                "arguments_delta": "{}",
            },
        ],
    ),
    # message_delta without a stop reason: Usage with the merged counts; null never erases.
    "message_delta_usage_merges": (
        START
        + event({"type": "message_delta", "delta": {}, "usage": {"output_tokens": 7}})
        + event(
            {
                "type": "message_delta",
                "delta": {"stop_reason": "weird"},
                "usage": {"input_tokens": None, "cache_read_input_tokens": 2},
            }
        )
        + STOP,
        [
            META,
            START_USAGE,
            {"type": "usage", "usage": usage(3, 7)},
            {"type": "finish", "finish_reason": "weird", "usage": usage(5, 7, hit=2)},
        ],
    ),
    # No message_start at all: no error; no count ever seen: Finish with null usage.
    "no_message_start": (
        block_start(0, {"type": "text", "text": "hi"})
        + event({"type": "message_delta", "delta": {"stop_reason": "max_tokens"}}),
        [
            {"type": "text_delta", "delta": "hi"},
            {"type": "finish", "finish_reason": "length", "usage": None},
        ],
    ),
    # A delta without an index and no block started: the never-started index -1.
    "delta_without_index_and_block": (
        START + NO_INDEX_DELTA + STOP,
        [
            META,
            START_USAGE,
            err("protocol_violation", data_of(NO_INDEX_DELTA)),
            {"type": "text_delta", "delta": "a"},
            err("invalid_chunk", data_of(NO_INDEX_DELTA)),
        ],
    ),
    # A non-integer index reads as absent: the event goes to the most recently started block.
    "wrong_typed_index_goes_to_the_last_block": (
        START + block_start(4, {"type": "text", "text": ""}) + WRONG_INDEX_DELTA + STOP,
        [
            META,
            START_USAGE,
            {"type": "text_delta", "delta": "k"},
            err("invalid_chunk", data_of(WRONG_INDEX_DELTA)),
        ],
    ),
    # A cut stream: stream_truncated, raw null.
    "cut_stream": (START, [META, START_USAGE, err("stream_truncated", None)]),
    # [DONE] ends the stream: nothing after it is read, no truncation.
    "done_marker": (
        START + "data: [DONE]\n\n" + STOP,
        [META, START_USAGE],
    ),
}


@pytest.mark.parametrize("name", list(SPEC_EXAMPLES))
def test_the_reader_follows_the_examples_of_the_spec(name: str) -> None:
    body, expected = SPEC_EXAMPLES[name]
    updates = read_updates(200, "OK", body.encode())
    check_shapes(updates)
    assert without_messages(updates) == expected


@pytest.mark.parametrize("name", list(SPEC_EXAMPLES))
def test_raf_gives_the_updates_of_the_spec_examples(name: str) -> None:
    # The same examples, read by raf's dialect (no golden covers them).
    body, expected = SPEC_EXAMPLES[name]
    produced = [json.loads(to_json(update)) for update in iter_updates([body.encode()], DIALECT)]
    assert without_messages(produced) == expected


def test_a_non_2xx_status_is_one_http_error_and_not_a_stream() -> None:
    body = START.encode()
    assert without_messages(read_updates(529, "Overloaded", body)) == [
        err("http_error", body.decode())
    ]
