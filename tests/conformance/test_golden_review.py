"""Review of the goldens' ``updates`` level against an independent reader.

Every level of every golden must be checked against something a person reviewed or an
independent reader derived. The aggregated response is checked against the cassette's
reviewed ``expect`` block (tests/test_goldens.py). Here the ``updates`` of every interaction
of every bundled cassette are checked against the independent reader of its dialect
(``tests/conformance/reader_<dialect>.py``, its ``read_updates``; ``openai_chat``'s is
``independent_reader.py``, which also holds what the readers share), which derives them from the recorded status and bytes by the documented rules only (docs/sse.md,
docs/dialects.md, docs/model.md, conformance/schema/update.schema.json) and imports nothing
from raf.

Error messages are for people and are never compared: each error update's ``"message"`` is
replaced by ``""`` on both sides.
"""

from __future__ import annotations

import ast
import importlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from raf import formats
from raf.cassettes import load
from raf.conformance import goldens
from tests.conformance.independent_reader import read_updates

ROOT = Path(__file__).resolve().parents[2]
CASSETTES = ROOT / "cassettes"
GOLDENS = ROOT / "conformance" / "goldens"
UPDATE_SCHEMA = ROOT / "conformance" / "schema" / "update.schema.json"
READER = Path(__file__).resolve().parent / "independent_reader.py"

Reader = Callable[[int, str, bytes], list[dict[str, Any]]]


def readers() -> dict[str, Reader]:
    """The independent reader of each format, each written from that format's section of
    docs/dialects.md: ``tests/conformance/reader_<format>.py``, its ``read_updates``. A format
    without one is left out (tests/test_formats.py and the test below name it)."""
    found: dict[str, Reader] = {}
    for name in formats.names():
        module = f"tests.conformance.reader_{name}"
        try:
            found[name] = importlib.import_module(module).read_updates
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
    return found


READERS = readers()


def bundled_cassettes() -> list[Path]:
    """Every bundled cassette (docs/cassettes.md: `.yaml` or `.yml` files)."""
    return sorted(
        path for path in CASSETTES.rglob("*") if path.suffix in {".yaml", ".yml"} and path.is_file()
    )


def without_messages(updates: list[Any]) -> list[Any]:
    """The updates with every error's message replaced by ``""``."""
    return [
        {**update, "message": ""}
        if isinstance(update, dict) and update.get("type") == "error"
        else update
        for update in updates
    ]


def as_lines(updates: list[Any]) -> list[str]:
    """One canonical JSON line per update; key order is kept, so it is compared too."""
    return [json.dumps(update, ensure_ascii=False, separators=(",", ":")) for update in updates]


def first_difference(expected: list[str], actual: list[str]) -> str:
    """A short description of where two lists of lines first differ."""
    for position, (left, right) in enumerate(zip(expected, actual, strict=False)):
        if left != right:
            return (
                f"update {position} differs:\n"
                f"  independent reader: {left[:600]}\n"
                f"  golden:             {right[:600]}"
            )
    return f"the independent reader has {len(expected)} updates, the golden {len(actual)}"


# ---------------------------------------------------------------------------------------------
# The review itself.
# ---------------------------------------------------------------------------------------------


def test_the_bundled_cassettes_are_found() -> None:
    # Guards against an empty parametrization, which pytest would only report as a skip.
    assert bundled_cassettes(), f"no cassettes under {CASSETTES}"


@pytest.mark.parametrize("path", bundled_cassettes(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_golden_updates_match_the_independent_reader(path: Path) -> None:
    cassette = load(path)
    assert cassette.info is not None, f"{path} has no raf block"
    scenario, dialect = cassette.info.scenario, cassette.info.dialect
    assert scenario == path.stem, f"{path}: raf.scenario is {scenario!r}"
    reader = READERS.get(dialect)
    if reader is None:
        pytest.fail(
            f"{path}: no independent reader for dialect {dialect!r}: its updates are unreviewed"
        )

    golden_file = goldens.golden_path(GOLDENS, dialect, scenario)
    golden = goldens.load(golden_file)
    if golden is None:
        pytest.fail(
            f"{path} has no golden ({golden_file} does not exist): its updates are unreviewed"
        )
    assert len(golden.interactions) == len(cassette.interactions), (
        f"{golden_file} has {len(golden.interactions)} interactions, "
        f"the cassette {len(cassette.interactions)}"
    )

    for number, (interaction, output) in enumerate(
        zip(cassette.interactions, golden.interactions, strict=True)
    ):
        response = interaction.response
        derived = as_lines(
            without_messages(reader(response.status, response.reason, response.body))
        )
        recorded = as_lines(without_messages(output.updates))
        assert derived == recorded, f"{scenario}, interaction {number}: " + first_difference(
            derived, recorded
        )


# ---------------------------------------------------------------------------------------------
# Checks of the reader itself: it is independent, it writes the schema's shapes, and it
# follows the examples the docs give.
# ---------------------------------------------------------------------------------------------


def test_the_reader_imports_only_the_standard_library() -> None:
    tree = ast.parse(READER.read_text(encoding="utf-8"))
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "relative import in the independent reader"
            assert node.module is not None
            imported.add(node.module.split(".")[0])
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}, imported


def schema_fields() -> tuple[dict[str, list[str]], list[str]]:
    """The field names, in order, of each update type, and those of the usage record."""
    schema = json.loads(UPDATE_SCHEMA.read_text(encoding="utf-8"))
    definitions = schema["$defs"]
    by_type = {
        tag: list(definitions[reference.rsplit("/", 1)[1]]["properties"])
        for tag, reference in schema["discriminator"]["mapping"].items()
    }
    return by_type, list(definitions["usage.Usage"]["properties"])


@pytest.mark.parametrize("path", bundled_cassettes(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_the_reader_writes_every_field_in_the_order_of_the_schema(path: Path) -> None:
    by_type, usage_fields = schema_fields()
    cassette = load(path)
    assert cassette.info is not None
    reader = READERS[cassette.info.dialect]
    for interaction in cassette.interactions:
        response = interaction.response
        for update in reader(response.status, response.reason, response.body):
            assert list(update) == by_type[update["type"]], update
            if update["type"] in {"usage", "finish"} and update["usage"] is not None:
                assert list(update["usage"]) == usage_fields, update


def chunk(**fields: Any) -> str:
    """One `data:` event holding a chunk."""
    return f"data: {json.dumps(fields)}\n\n"


STOP = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
FINISH_STOP = {"type": "finish", "finish_reason": "stop", "usage": None}


def truncated() -> dict[str, Any]:
    return {"type": "error", "error_code": "stream_truncated", "message": "", "raw": None}


# Each case: a body (bytes), and the updates the docs say it gives (messages left out).
DOC_EXAMPLES: dict[str, tuple[bytes, list[dict[str, Any]]]] = {
    # docs/dialects.md: "`data: [DONE] ` with a trailing space ... means the same".
    "done_with_trailing_space": (b"data: [DONE] \n\n", []),
    # "any other text around it (`[DONE]x`, ...) is not the marker" (not JSON either).
    "done_with_suffix_is_not_json": (
        b"data: [DONE]x\n\n" + chunk(**STOP).encode(),
        [
            {"type": "error", "error_code": "sse_parse_error", "message": "", "raw": "[DONE]x"},
            FINISH_STOP,
        ],
    ),
    # docs/sse.md: "a CR as the very last byte of the stream ends a line"; the block is then
    # complete but undispatched, so the stream is truncated.
    "final_cr_ends_a_line_but_not_the_block": (
        chunk(**STOP).encode() + b"data: {}\r",
        [FINISH_STOP, truncated()],
    ),
    # "Exactly one leading byte-order mark is removed": a second one makes the field name
    # "\ufeffdata", which is ignored.
    "only_one_bom_removed": (
        b"\xef\xbb\xbf\xef\xbb\xbf" + chunk(**STOP).encode() + chunk(**STOP).encode(),
        [FINISH_STOP],
    ),
    # "Other fields, including differently-cased ones such as `Data`, are ignored."
    "capitalised_data_is_ignored": (b"Data: [DONE]\n\n" + chunk(**STOP).encode(), [FINISH_STOP]),
    # A block with only `id:` and `retry:` dispatches nothing; a keep-alive is no update.
    "blocks_without_data_and_keep_alives": (
        b"id: 1\nretry: 10\n\ndata:\n\ndata:  \t\n\n" + chunk(**STOP).encode(),
        [FINISH_STOP],
    ),
    # Only choice 0; a null index and an empty id are None; an object argument is compact JSON.
    "tool_call_entry_rules": (
        chunk(
            choices=[
                {"index": 1, "delta": {"content": "other choice"}},
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {
                                "index": None,
                                "id": "",
                                "function": {"name": "f", "arguments": {"a": 1}},
                            }
                        ]
                    },
                },
            ]
        ).encode(),
        [
            {
                "type": "tool_call_delta",
                "index": None,
                "id": None,
                "name": "f",
                "arguments_delta": '{"a":1}',
            },
            truncated(),
        ],
    ),
    # The usage table: DeepSeek's top-level cache fields win, a missing total is the sum,
    # a miss count is derived from a known hit count.
    "usage_table": (
        chunk(
            choices=[],
            usage={
                "prompt_tokens": 10,
                "completion_tokens": 5,
                "prompt_tokens_details": {"cached_tokens": 4},
            },
        ).encode()
        + chunk(object="chat.completion.chunk", choices=[], usage=None).encode()
        + b"data: [DONE]\n\n",
        [
            {
                "type": "usage",
                "usage": {
                    "prompt_tokens": 10,
                    "completion_tokens": 5,
                    "total_tokens": 15,
                    "prompt_cache_hit_tokens": 4,
                    "prompt_cache_miss_tokens": 6,
                    "reasoning_tokens": None,
                },
            }
        ],
    ),
    # n > 1: another choice's deltas and finish reason are not read; the usage beside that
    # finish still counts, as a Usage update (the chunk has no finish reason of choice 0).
    "other_choices_finish_and_usage": (
        chunk(choices=[{"index": 0, "delta": {"content": "a"}, "finish_reason": "stop"}]).encode()
        + chunk(
            choices=[{"index": 1, "delta": {"content": "b"}, "finish_reason": "length"}],
            usage={"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7},
        ).encode()
        + b"data: [DONE]\n\n",
        [
            {"type": "text_delta", "delta": "a"},
            FINISH_STOP,
            {
                "type": "usage",
                "usage": {
                    "prompt_tokens": 3,
                    "completion_tokens": 4,
                    "total_tokens": 7,
                    "prompt_cache_hit_tokens": None,
                    "prompt_cache_miss_tokens": None,
                    "reasoning_tokens": None,
                },
            },
        ],
    ),
    # A call's header repeated on a later entry with "type": null is passed on as it came.
    "repeated_header_with_type_null": (
        chunk(
            choices=[
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "call_1",
                                "type": None,
                                "function": {"name": "f", "arguments": "{}"},
                            }
                        ]
                    },
                    "finish_reason": "tool_calls",
                }
            ]
        ).encode(),
        [
            {
                "type": "tool_call_delta",
                "index": 0,
                "id": "call_1",
                "name": "f",
                "arguments_delta": "{}",
            },
            {"type": "finish", "finish_reason": "tool_calls", "usage": None},
        ],
    ),
    # The usage table: a top-level `reasoning_tokens` when the details have none.
    "top_level_reasoning_tokens": (
        chunk(
            choices=[],
            usage={
                "prompt_tokens": 1,
                "completion_tokens": 2,
                "total_tokens": 3,
                "reasoning_tokens": 2,
            },
        ).encode()
        + b"data: [DONE]\n\n",
        [
            {
                "type": "usage",
                "usage": {
                    "prompt_tokens": 1,
                    "completion_tokens": 2,
                    "total_tokens": 3,
                    "prompt_cache_hit_tokens": None,
                    "prompt_cache_miss_tokens": None,
                    "reasoning_tokens": 2,
                },
            }
        ],
    ),
    # A provider error explains the end: no stream_truncated.
    "event_error_explains_the_end": (
        b"event: error\ndata: {}\n\n",
        [{"type": "error", "error_code": "provider_error", "message": "", "raw": "{}"}],
    ),
}


@pytest.mark.parametrize("name", list(DOC_EXAMPLES))
def test_the_reader_follows_the_examples_of_the_docs(name: str) -> None:
    body, expected = DOC_EXAMPLES[name]
    assert without_messages(read_updates(200, "OK", body)) == expected


def test_a_non_2xx_status_is_one_http_error_and_not_a_stream() -> None:
    body = b'data: {"choices":[{"index":0,"delta":{"content":"x"}}]}\n\n'
    assert without_messages(read_updates(503, "Service Unavailable", body)) == [
        {"type": "error", "error_code": "http_error", "message": "", "raw": body.decode()}
    ]
