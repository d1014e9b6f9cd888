"""The independent reader of ``gemini`` (tests/conformance/reader_gemini.py) on its own, and
against raf on real recordings.

The reader derives the updates of a recorded response by the rules of the ``gemini`` section of
docs/dialects.md and the generic documents only, and imports nothing from raf. The goldens'
``updates`` are compared with it in tests/conformance/test_golden_review.py, with the readers
of the other dialects. Here: the reader's own checks (its imports, the examples of the spec),
and its simple ``aggregate`` of every gemini stream of the shared corpus compared with
``raf.pipeline.respond`` under whole, one-byte and random chunking.

A case where the reader follows a clear sentence of the spec and raf does not is listed in
``KNOWN_DISAGREEMENTS`` and fails visibly as a strict xfail (none at present).
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from raf.pipeline import respond
from tests import corpus
from tests.conformance.reader_gemini import aggregate, read_updates
from tests.corpus import RecordedStream, recorded_streams
from tests.helpers import CHUNKINGS, split

ROOT = Path(__file__).resolve().parents[2]
CASSETTES = ROOT / "cassettes" / "gemini"
GOLDENS = ROOT / "conformance" / "goldens"
UPDATE_SCHEMA = ROOT / "conformance" / "schema" / "update.schema.json"
READER = Path(__file__).resolve().parent / "reader_gemini.py"

# Scenario or corpus stream name -> why the golden (or raf) is wrong, citing the spec.
KNOWN_DISAGREEMENTS: dict[str, str] = {}


def gemini_cassettes() -> list[Path]:
    return sorted(
        path for path in CASSETTES.rglob("*") if path.suffix in {".yaml", ".yml"} and path.is_file()
    )


def without_messages(updates: list[Any]) -> list[Any]:
    return [
        {**update, "message": ""}
        if isinstance(update, dict) and update.get("type") == "error"
        else update
        for update in updates
    ]


def test_the_gemini_cassettes_are_found() -> None:
    assert gemini_cassettes(), f"no cassettes under {CASSETTES}"


def known(name: str, value: Any) -> Any:
    """``value`` as a parameter, marked as a strict xfail when ``name`` is a known
    disagreement (so it fails loudly once the golden is fixed)."""
    if name in KNOWN_DISAGREEMENTS:
        return pytest.param(
            value, marks=pytest.mark.xfail(strict=True, reason=KNOWN_DISAGREEMENTS[name])
        )
    return value


# ---------------------------------------------------------------------------------------------
# The shared corpus: the reader's simple aggregate against raf's respond.
# ---------------------------------------------------------------------------------------------

CORPUS = [stream for stream in recorded_streams() if stream.wire_format == "gemini"]


def test_the_corpus_has_gemini_streams() -> None:
    corpus.require()
    assert CORPUS


@pytest.mark.parametrize("how", CHUNKINGS)
@pytest.mark.parametrize(
    "stream",
    corpus.params([known(stream.name, stream) for stream in CORPUS]),
    ids=lambda stream: stream.name,
)
def test_corpus_stream_aggregates_to_the_independent_reading(
    stream: RecordedStream, how: str
) -> None:
    expected = aggregate(stream.body)
    response = respond(split(stream.body, how), "gemini")
    assert response.text == expected["text"]
    assert response.reasoning_text == expected["reasoning"]
    # Gemini calls often have no id: where the wire has one (functionCall.id) it is compared;
    # where it has none, raf names the call `__tc_<n>` (n: the call's number in the stream).
    got = [(c.id, c.name, c.arguments) for c in response.tool_calls]
    assert [(name, args) for _, name, args in got] == [
        (name, args) for _, name, args in expected["tool_calls"]
    ]
    for number, ((raf_id, _, _), (wire_id, _, _)) in enumerate(
        zip(got, expected["tool_calls"], strict=True)
    ):
        if wire_id is None:
            assert raf_id == f"__tc_{number}", raf_id
        else:
            assert raf_id == wire_id
    # The tools Google ran itself: hosted calls, each answered or not (ids compared where
    # the wire has them, in the dialect's tests and the goldens).
    assert [
        [h.name, h.arguments, h.output is not None or h.error is not None]
        for h in response.hosted_tool_calls
    ] == expected["hosted"]
    assert response.finish_reason == expected["finish_reason"]
    usage = response.usage
    assert (
        None
        if usage is None
        else (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens)
    ) == expected["usage"]


# ---------------------------------------------------------------------------------------------
# Checks of the reader itself.
# ---------------------------------------------------------------------------------------------


def test_the_reader_imports_only_the_standard_library_and_the_shared_helpers() -> None:
    tree = ast.parse(READER.read_text(encoding="utf-8"))
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0
            assert node.module is not None
            imported.add(node.module)
    allowed = {"tests.conformance.independent_reader", "__future__"}
    outside = {name for name in imported if name not in allowed}
    assert {name.split(".")[0] for name in outside} <= set(sys.stdlib_module_names), outside
    assert not any(re.match(r"raf(\.|$)", name) for name in imported)


def sse(*objects: Any) -> bytes:
    return b"".join(f"data: {json.dumps(obj)}\n\n".encode() for obj in objects)


def parts(*items: Any, finish_reason: str | None = None, **candidate: Any) -> dict[str, Any]:
    cand: dict[str, Any] = {"content": {"parts": list(items), "role": "model"}, **candidate}
    if finish_reason is not None:
        cand["finishReason"] = finish_reason
    return {"candidates": [cand]}


def err(code: str, raw: str | None = None) -> dict[str, Any]:
    return {"type": "error", "error_code": code, "message": "", "raw": raw}


def call(index: int, name: str | None, args: str, call_id: str | None = None) -> dict[str, Any]:
    return {
        "type": "tool_call_delta",
        "index": index,
        "id": call_id,
        "name": name,
        "arguments_delta": args,
    }


STOP = {"type": "finish", "finish_reason": "stop", "usage": None}
TRUNCATED = err("stream_truncated")
TOOL_STOP = {"type": "finish", "finish_reason": "tool_calls", "usage": None}
STOP_OBJ = parts({"text": ""}, finish_reason="STOP")

# Each case: a body and the updates the spec says it gives (messages left out).
DOC_EXAMPLES: dict[str, tuple[bytes, list[dict[str, Any]]]] = {
    # "`data: [DONE]` (sent by some proxies) is not JSON and is Error(sse_parse_error)".
    "done_is_not_json": (
        sse(STOP_OBJ) + b"data: [DONE]\n\n",
        [STOP, err("sse_parse_error", "[DONE]")],
    ),
    # "JSON that is not an object ... `[...]` nested inside the outer array: invalid_chunk".
    "nested_array_element": (
        b'[[1],\r\n{"candidates":[{"finishReason":"STOP"}]}]',
        [err("invalid_chunk", "[1]"), STOP],
    ),
    # Stray text between elements is sse_parse_error; a missing `]` is truncation.
    "stray_text_and_missing_bracket": (
        b'[{"candidates":[{"finishReason":"STOP"}]}, oops',
        [STOP, err("sse_parse_error", "oops"), TRUNCATED],
    ),
    # `{` first: JSON lines; the three framings give the same updates.
    "json_lines": (
        b'{"candidates":[{"content":{"parts":[{"text":"a"}]}}]}\r\n\n'
        b'{"candidates":[{"finishReason":"MAX_TOKENS"}]}\n',
        [
            {"type": "text_delta", "delta": "a"},
            {"type": "finish", "finish_reason": "length", "usage": None},
        ],
    ),
    # Other candidates are ignored; `"thought": "yes"` is not a thought and not an error;
    # a signature comes right after its part's updates.
    "candidate_zero_and_thoughts": (
        sse(
            {
                "candidates": [
                    {"index": 1, "content": {"parts": [{"text": "other"}]}},
                    {
                        "content": {
                            "parts": [
                                {"text": "t", "thought": True, "thoughtSignature": "s1"},
                                {"text": "x", "thought": "yes"},
                                {"thoughtSignature": "s2"},
                            ]
                        },
                        "finishReason": "SAFETY",
                    },
                ]
            }
        ),
        [
            {"type": "reasoning_delta", "delta": "t"},
            {"type": "reasoning_signature", "signature": "s1"},
            {"type": "text_delta", "delta": "x"},
            {"type": "part_signature", "signature": "s2", "part": "empty"},
            {"type": "finish", "finish_reason": "content_filter", "usage": None},
        ],
    ),
    # A whole call with string args, one without args, and a nameless one with args.
    "whole_calls": (
        sse(
            parts(
                {"functionCall": {"name": "f", "args": '{"a":1}', "id": "c1"}},
                {"functionCall": {"name": "g"}},
                {"functionCall": {"args": {"b": 2}}},
                finish_reason="STOP",
            )
        ),
        [
            call(0, "f", '{"a":1}', "c1"),
            call(1, "g", ""),
            call(2, None, '{"b":2}'),
            TOOL_STOP,
        ],
    ),
    # partialArgs: paths of every form, nullValue, padding, a string appended, ended by the
    # finishReason; then an empty functionCall with no open call.
    "partial_args_paths": (
        sse(
            parts({"functionCall": {"name": "f", "willContinue": True, "id": "i"}}),
            parts(
                {
                    "functionCall": {
                        "partialArgs": [
                            {"jsonPath": "a['b c'][2]", "stringValue": "x", "willContinue": True},
                            {"jsonPath": "a['b c'][2]", "stringValue": "y"},
                            {"jsonPath": '$["q\\""]', "nullValue": "NULL_VALUE"},
                            {"jsonPath": "$.n", "boolValue": False},
                            {"jsonPath": "$.n.x", "stringValue": "crosses"},
                        ],
                        "willContinue": True,
                    }
                }
            ),
            parts({"text": "hi"}, finish_reason="STOP"),
            parts({"functionCall": {}}),
        ),
        [
            call(0, "f", "", "i"),
            err("invalid_chunk", None),  # raw filled in below
            {"type": "text_delta", "delta": "hi"},
            call(0, None, '{"a":{"b c":[null,null,"xy"]},"q\\"":null,"n":false}'),
            TOOL_STOP,
            err("protocol_violation", None),
        ],
    ),
    # A streamed call still open at the end: its text without the final `}`, then truncation.
    "open_call_at_end": (
        sse(
            parts(
                {
                    "functionCall": {
                        "name": "f",
                        "willContinue": True,
                        "partialArgs": [{"jsonPath": "$.a", "numberValue": 1}],
                    }
                }
            )
        ),
        [call(0, "f", ""), call(0, None, '{"a":1'), TRUNCATED],
    ),
    # Usage merged field by field; Usage after a Finish when it changed; a blocked prompt.
    "usage_merge_and_after_finish": (
        sse(
            {"usageMetadata": {"promptTokenCount": 10, "cachedContentTokenCount": 4}},
            {**STOP_OBJ, "usageMetadata": {"candidatesTokenCount": 3, "thoughtsTokenCount": 2}},
            {"usageMetadata": {"cachedContentTokenCount": 4}},
            {"usageMetadata": {"totalTokenCount": 99}},
        ),
        [
            {
                "type": "finish",
                "finish_reason": "stop",
                "usage": {
                    "prompt_tokens": 10,
                    "completion_tokens": 5,
                    "total_tokens": 15,
                    "prompt_cache_hit_tokens": 4,
                    "prompt_cache_miss_tokens": 6,
                    "reasoning_tokens": 2,
                },
            },
            {
                "type": "usage",
                "usage": {
                    "prompt_tokens": 10,
                    "completion_tokens": 5,
                    "total_tokens": 99,
                    "prompt_cache_hit_tokens": 4,
                    "prompt_cache_miss_tokens": 6,
                    "reasoning_tokens": 2,
                },
            },
        ],
    ),
    # Hosted tools: code without an id answered by the result after it (an empty output left
    # out), a result with no call before it, a server-side toolCall and its toolResponse
    # without a response; never a tool call, STOP stays stop.
    "hosted_parts": (
        sse(
            parts(
                {"executableCode": {"language": "PYTHON", "code": "x"}, "thoughtSignature": "s"},
                {"codeExecutionResult": {"outcome": "OUTCOME_OK"}},
                {"codeExecutionResult": {"outcome": "OUTCOME_FAILED", "output": "e"}},
            ),
            parts(
                {"toolCall": {"toolType": "FILE_SEARCH", "id": "t1"}},
                {"toolResponse": {"toolType": "FILE_SEARCH", "id": "t1"}},
                finish_reason="STOP",
            ),
        ),
        [
            {
                "type": "hosted_tool_call",
                "call_id": "code_execution_0",
                "name": "code_execution",
                "arguments": {"language": "PYTHON", "code": "x"},
                "item": {"executableCode": {}},
            },
            {"type": "part_signature", "signature": "s", "part": "hosted"},
            {
                "type": "hosted_tool_result",
                "call_id": "code_execution_0",
                "name": "code_execution_result",
                "output": "",
                "error": None,
                "item": {"codeExecutionResult": {"outcome": "OUTCOME_OK"}},
            },
            {
                "type": "hosted_tool_result",
                "call_id": "code_execution_result_1",
                "name": "code_execution_result",
                "output": "e",
                "error": "OUTCOME_FAILED",
                "item": {"codeExecutionResult": {"outcome": "OUTCOME_FAILED"}},
            },
            {
                "type": "hosted_tool_call",
                "call_id": "t1",
                "name": "file_search",
                "arguments": None,
                "item": {"toolCall": {"toolType": "FILE_SEARCH", "id": "t1"}},
            },
            {
                "type": "hosted_tool_result",
                "call_id": "t1",
                "name": "tool_response",
                "output": {},
                "error": None,
                "item": {"toolResponse": {"toolType": "FILE_SEARCH", "id": "t1"}},
            },
            STOP,
        ],
    ),
    # An empty body: no finishReason, no provider error.
    "empty_body": (b"", [TRUNCATED]),
}


def _fill_raws() -> None:
    """The raw of the errors whose raw is the frame's data."""
    body, expected = DOC_EXAMPLES["partial_args_paths"]
    frames = body.decode().split("\n\n")
    expected[1] = err("invalid_chunk", frames[1][len("data: ") :])
    expected[5] = err("protocol_violation", frames[3][len("data: ") :])


_fill_raws()


@pytest.mark.parametrize("name", list(DOC_EXAMPLES))
def test_the_reader_follows_the_examples_of_the_docs(name: str) -> None:
    body, expected = DOC_EXAMPLES[name]
    assert without_messages(read_updates(200, "OK", body)) == expected


def test_the_three_framings_give_the_same_updates() -> None:
    objects = [
        parts({"text": "a"}),
        {"error": {"code": 429, "message": "m", "status": "RESOURCE_EXHAUSTED"}},
    ]
    as_sse = read_updates(200, "OK", sse(*objects))
    texts = [json.dumps(obj) for obj in objects]
    as_array = read_updates(200, "OK", ("[" + "\r\n,".join(texts) + "]").encode())
    as_lines_ = read_updates(200, "OK", ("\n".join(texts) + "\n").encode())
    assert as_sse == as_array == as_lines_
    assert [u["type"] for u in as_sse] == ["text_delta", "error"]


def test_a_non_2xx_status_is_one_http_error() -> None:
    body = b'{"error": {"code": 400}}'
    assert without_messages(read_updates(400, "Bad Request", body)) == [
        err("http_error", body.decode())
    ]
