"""Review of the goldens' ``updates`` and ``results`` levels against independent readers.

Every level of every golden must be checked against something a person reviewed or an
independent reader derived. All three are:

* ``response`` (the aggregated response): against the cassette's reviewed ``expect`` block
  (tests/test_goldens.py);
* ``updates``: here, against the independent reader of the interaction's format
  (``tests/conformance/reader_<dialect>.py``, its ``read_updates``; ``openai_chat``'s is
  ``independent_reader.py``, which also holds what the readers share), which derives them from
  the recorded status and bytes by the documented rules only (docs/sse.md, docs/dialects.md,
  docs/model.md, conformance/schema/update.schema.json);
* ``results`` (the converter's ``AgentResponseResult`` list): here, against the independent
  reader of the converter (``tests/conformance/reader_converter.py``, its ``read_results``),
  which derives them from the golden's ``updates`` by the rules of docs/converter.md (the
  converter, its tool calls, ``finalize`` and its own incremental argument parser) and
  conformance/schema/agent_response_result.schema.json.

No reader imports anything from raf: only the standard library.

Error messages are for people and are never compared: each error's ``"message"`` is replaced
by ``""`` on both sides; every other field, and the order of the keys, is compared.
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
from tests.conformance.reader_converter import read_results

ROOT = Path(__file__).resolve().parents[2]
CASSETTES = ROOT / "cassettes"
GOLDENS = ROOT / "conformance" / "goldens"
UPDATE_SCHEMA = ROOT / "conformance" / "schema" / "update.schema.json"
HERE = Path(__file__).resolve().parent
READER = HERE / "independent_reader.py"

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


def results_without_messages(results: list[Any]) -> list[Any]:
    """The results with every error content's message replaced by ``""``."""
    return [
        {**result, "contents": without_messages(result["contents"])}
        if isinstance(result, dict) and isinstance(result.get("contents"), list)
        else result
        for result in results
    ]


def as_line(value: Any) -> str:
    """One canonical JSON line; key order is kept, so it is compared too."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def results_difference(derived: list[Any], recorded: list[Any]) -> str | None:
    """Where the reader's results and the golden's first differ (messages blanked), naming
    the result and the content, or ``None`` when they are the same."""
    derived, recorded = results_without_messages(derived), results_without_messages(recorded)
    for position, (left, right) in enumerate(zip(derived, recorded, strict=False)):
        if as_line(left) == as_line(right):
            continue
        if not isinstance(left, dict) or not isinstance(right, dict):
            return (
                f"result {position} differs:\n"
                f"  reader: {as_line(left)[:600]}\n"
                f"  golden: {as_line(right)[:600]}"
            )
        lefts, rights = left.get("contents", []), right.get("contents", [])
        for index in range(max(len(lefts), len(rights))):
            mine = as_line(lefts[index]) if index < len(lefts) else "(none)"
            theirs = as_line(rights[index]) if index < len(rights) else "(none)"
            if mine != theirs:
                return (
                    f"result {position}, content {index} differs:\n"
                    f"  reader: {mine[:600]}\n"
                    f"  golden: {theirs[:600]}"
                )
        header = {key: value for key, value in left.items() if key != "contents"}
        golden_header = {key: value for key, value in right.items() if key != "contents"}
        return (
            f"result {position} differs outside its contents:\n"
            f"  reader: {as_line(header)[:600]}\n"
            f"  golden: {as_line(golden_header)[:600]}"
        )
    if len(derived) != len(recorded):
        return f"the reader has {len(derived)} results, the golden {len(recorded)}"
    return None


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


def golden_of_cassette(path: Path) -> goldens.Golden:
    """The golden of the bundled cassette at ``path`` (cassettes/<dialect>/<scenario>.yaml),
    which must exist."""
    golden_file = goldens.golden_path(GOLDENS, path.parent.name, path.stem)
    golden = goldens.load(golden_file)
    if golden is None:
        pytest.fail(
            f"{path} has no golden ({golden_file} does not exist): its results are unreviewed"
        )
    return golden


@pytest.mark.parametrize("path", bundled_cassettes(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_golden_results_match_the_reader_of_the_converter(path: Path) -> None:
    golden = golden_of_cassette(path)
    assert (golden.dialect, golden.scenario) == (path.parent.name, path.stem), (
        f"{path}: its golden names {golden.dialect}/{golden.scenario}"
    )
    assert golden.interactions, f"{path}: its golden has no interactions"
    for number, output in enumerate(golden.interactions):
        difference = results_difference(read_results(output.updates), output.results)
        assert difference is None, f"{golden.scenario}, interaction {number}: {difference}"


# ---------------------------------------------------------------------------------------------
# Checks of the reader itself: it is independent, it writes the schema's shapes, and it
# follows the examples the docs give.
# ---------------------------------------------------------------------------------------------


def independent_readers() -> list[Path]:
    """Every independent reader: ``independent_reader.py`` and each ``reader_*.py``."""
    return [READER, *sorted(HERE.glob("reader_*.py"))]


def test_every_reader_is_found() -> None:
    names = {path.name for path in independent_readers()}
    assert {"independent_reader.py", "reader_converter.py"} <= names, names
    assert all(f"reader_{name}.py" in names for name in READERS), names


@pytest.mark.parametrize("reader", independent_readers(), ids=lambda p: p.stem)
def test_the_reader_imports_only_the_standard_library(reader: Path) -> None:
    """Each reader imports the standard library and, for what the readers share, the other
    readers; nothing of raf and nothing else of the tests."""
    readers = {f"tests.conformance.{path.stem}" for path in independent_readers()}
    tree = ast.parse(reader.read_text(encoding="utf-8"))
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"relative import in {reader.name}"
            assert node.module is not None
            imported.add(node.module)
    allowed = set(sys.stdlib_module_names) | {"__future__"}
    outside = {name for name in imported if name not in readers}
    assert {name.split(".")[0] for name in outside} <= allowed, (reader.name, outside)


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


# ---------------------------------------------------------------------------------------------
# The reader of the converter: the examples of docs/converter.md, every update type of the
# schema, and a wrong converter is caught at the entry it changed.
# ---------------------------------------------------------------------------------------------

RESULT_SCHEMA = ROOT / "conformance" / "schema" / "agent_response_result.schema.json"


def delta(
    arguments: str = "", *, index: int | None = 0, id: str | None = None, name: str | None = None
) -> dict[str, Any]:
    """A legacy ``ToolCallDelta`` update."""
    return {
        "type": "tool_call_delta",
        "index": index,
        "id": id,
        "name": name,
        "arguments_delta": arguments,
    }


def finish(reason: str = "tool_calls") -> dict[str, Any]:
    return {"type": "finish", "finish_reason": reason, "usage": None}


def contents_of(results: list[dict[str, Any]], kind: str | None = None) -> list[dict[str, Any]]:
    """Every content of ``results`` in order (of one type when ``kind`` is given), messages
    blanked."""
    return [
        content
        for result in results_without_messages(results)
        for content in result["contents"]
        if kind is None or content["type"] == kind
    ]


def call_of(*fragments: str, reason: str | None = "tool_calls") -> list[dict[str, Any]]:
    """One call ``f`` with id ``c1`` whose arguments arrive in ``fragments``."""
    updates = [delta(id="c1", name="f"), *(delta(fragment) for fragment in fragments)]
    return updates + ([finish(reason)] if reason is not None else [])


def test_progress_values_joined_are_a_prefix_of_the_final_value() -> None:
    # docs/converter.md: "the values of an argument's progress contents, joined, are a prefix
    # of its final value, and each `received` is the length of that prefix"; "A push that ends
    # inside an escape sequence or between the two halves of a surrogate pair reports only
    # complete characters".
    fragments = ['{"t":"Caf', "\\u00", "e9 \\ud8", "3d", "\\ude00 x", 'y\\"', '"}']
    results = read_results(call_of(*fragments))
    progress = contents_of(results, "tool_call_args_progress")
    (parsed,) = contents_of(results, "tool_call_args_parsed")
    assert parsed["value"] == 'Café \U0001f600 xy"'
    assert [(p["value"], p["received"]) for p in progress] == [
        ("Caf", 3),
        ("é ", 5),
        ("\U0001f600 x", 8),
        ('y"', 10),
    ]
    joined = ""
    for content in progress:
        joined += content["value"]
        assert parsed["value"].startswith(joined)
        assert content["received"] == len(joined)


def test_at_most_one_progress_per_fragment_and_none_for_a_string_closed_in_it() -> None:
    # "at most one `ToolCallArgsProgress` per argument whose string value the fragment left
    # open": a value opened and closed in one fragment gets only its ToolCallArgsParsed.
    results = read_results(call_of('{"a":"xy","b":"z', "w", '"}'))
    assert [(c["type"], c.get("name")) for c in contents_of(results)[1:-2]] == [
        ("tool_call_args", None),
        ("tool_call_args_parsed", "a"),
        ("tool_call_args_progress", "b"),
        ("tool_call_args", None),
        ("tool_call_args_progress", "b"),
        ("tool_call_args", None),
        ("tool_call_args_parsed", "b"),
    ]


def test_a_key_that_appears_twice_is_reported_twice_and_the_last_wins() -> None:
    # "a key that appears twice is reported twice and the last report wins, as in the final
    # parse. Keys are decoded (`{"a\"b": 1}` has the key `a"b`)."
    results = read_results(call_of('{"a":1,"a\\"b":2,"a":3}'))
    parsed = [(c["name"], c["value"]) for c in contents_of(results, "tool_call_args_parsed")]
    assert parsed == [("a", 1), ('a"b', 2), ("a", 3)]
    (calling,) = contents_of(results, "tool_calling")
    assert calling["arguments"] == {"a": 3, 'a"b': 2}


def test_a_number_or_literal_is_complete_when_the_character_after_it_arrives() -> None:
    # "a number or `true`/`false`/`null` is complete when the character after it arrives".
    results = read_results(call_of('{"n":42', ',"t":true', "}"))
    by_fragment = [
        [(c["name"], c["value"]) for c in result["contents"][1:]]
        for result in results
        if result["contents"] and result["contents"][0]["type"] == "tool_call_args"
    ]
    assert by_fragment == [[], [("n", 42)], [("t", True)]]


def test_the_parser_is_strict_and_stops() -> None:
    # "Strict: a raw control character, a lone surrogate, a bad escape, ... stops the parser
    # ...; the final parse rejects the same text."
    for text in ['{"a":"x\ny","b":1}', '{"a":"\\ud83d","b":1}', '{"a":01,"b":1}']:
        results = read_results(call_of(text))
        assert contents_of(results, "tool_call_args_parsed") == [], text
        (error,) = contents_of(results, "error")
        assert (error["error_code"], error["raw"]) == ("invalid_tool_arguments", text)
    # "Text that is not an object (`"x"`, `[1]`) yields no events."
    results = read_results(call_of("[1]"))
    assert contents_of(results, "tool_call_args_parsed") == []
    assert contents_of(results, "tool_calling")[0]["arguments"] == [1]


def test_a_raw_lone_surrogate_stops_the_parser_before_any_progress() -> None:
    # "A raw lone surrogate in a `str` fragment stops the parser with an error"; progress
    # holds only complete characters.
    results = read_results(call_of('{"a":"x', "y\ud800", 'z"}'))
    assert [c["value"] for c in contents_of(results, "tool_call_args_progress")] == ["x"]


def test_calls_without_an_id_are_numbered_in_first_seen_order() -> None:
    # "else `__tc_<n>`, where `n` counts this converter's calls from 0 in first-seen order
    # (for a stream without ids and indices 0, 1, 2 this is RAF's `__tc_<index>`; counting
    # calls instead of indices keeps ids unique ...)".
    results = read_results(
        [
            delta(index=0, name="f"),
            delta(index=1, name="g"),
            delta("{}", index=0),
            delta("{}", index=1),
            delta(index=5, id="call_x", name="h"),
            delta(index=0, id=None, name="k"),
            finish(),
        ]
    )
    starts = [(c["call_id"], c["name"]) for c in contents_of(results, "tool_call_start")]
    assert starts == [("__tc_0", "f"), ("__tc_1", "g"), ("call_x", "h"), ("__tc_3", "k")]


def test_a_provider_id_after_the_start_is_bound_to_the_call() -> None:
    # "If the provider's id arrives after the start, the call keeps its id, the provider's id
    # is bound to it (later fragments carrying it still arrive at the right call) and the
    # event `Custom("tool_call_provider_id", {call_id, provider_id})` records it."
    results = read_results(
        [
            delta(name="f"),
            delta('{"a"', id="call_9"),
            delta(":1}", index=None, id="call_9"),
            finish(),
        ]
    )
    events = [event for result in results for event in result["events"]]
    assert events == [
        {
            "type": "custom",
            "event_type": "tool_call_provider_id",
            "payload": {"call_id": "__tc_0", "provider_id": "call_9"},
        }
    ]
    (calling,) = contents_of(results, "tool_calling")
    assert (calling["call_id"], calling["arguments"]) == ("__tc_0", {"a": 1})


def test_fragments_before_the_name_are_emitted_as_one_when_it_comes() -> None:
    # "Argument fragments that arrive before the name are kept; when the name comes, they are
    # emitted as one `ToolCallArgs` and parsed."
    results = read_results(
        [delta('{"a":', id="c1"), delta('"x"'), delta(",", name="f"), delta('"b":2}'), finish()]
    )
    assert results[0]["contents"] == [
        {"type": "tool_call_start", "call_id": "c1", "name": "f"},
        {"type": "tool_call_args", "call_id": "c1", "args_delta": '{"a":"x"'},
        {"type": "tool_call_args_parsed", "call_id": "c1", "name": "a", "value": "x"},
        {"type": "tool_call_args", "call_id": "c1", "args_delta": ","},
    ]


def test_empty_arguments_are_an_empty_object() -> None:
    # "(empty text, or only JSON whitespace: space, tab, CR, LF, is `{}`)".
    for fragments in [(), (" \t\r\n",)]:
        (calling,) = contents_of(read_results(call_of(*fragments)), "tool_calling")
        assert calling["arguments"] == {}


def test_an_interrupted_turn_reports_the_calls_still_streaming() -> None:
    # "If no finish reason had arrived, a call that was not explicitly ended (`ToolCallEnd`)
    # and whose arguments are not one complete JSON document was still streaming: it gets
    # `tool_call_incomplete` ... Empty arguments count as incomplete here ... A call whose
    # arguments are complete (the JSON object closed) is reported as usual".
    truncated = {"type": "error", "error_code": "stream_truncated", "message": "", "raw": None}
    results = read_results(
        [
            delta('{"a":1}', index=0, id="done", name="f"),
            delta('{"a":', index=1, id="cut", name="f"),
            delta(index=2, id="empty", name="f"),
            truncated,
        ]
    )
    final = results[-1]
    assert final["finish_reason"] is None
    assert [(c["type"], c["call_id"], c.get("error_code")) for c in final["contents"][3:]] == [
        ("tool_calling", "done", None),
        ("error", "cut", "tool_call_incomplete"),
        ("error", "empty", "tool_call_incomplete"),
    ]
    assert [c["raw"] for c in final["contents"][4:]] == ['{"a":', ""]
    # With a finish reason the same text is an invalid call, not an incomplete one.
    with_finish = read_results([*call_of('{"a":', reason="length"), truncated])
    assert [c["error_code"] for c in contents_of(with_finish, "error")] == [
        "stream_truncated",
        "invalid_tool_arguments",
    ]


def test_a_tool_called_closes_its_call_under_the_id_it_is_reported_under() -> None:
    # "`ToolCalled(id, result, error)` | the call's `ToolCallEnd` and `ToolCalling` if not yet
    # emitted, then `ToolCalled`", under the id the converter reports the call under.
    results = read_results(
        [
            delta(name="f"),
            delta("{}", id="prov"),
            {"type": "tool_called", "id": "prov", "result": "ok", "error": None},
            finish("stop"),
        ]
    )
    assert results[-2]["contents"] == [
        {"type": "tool_call_end", "call_id": "__tc_0"},
        {"type": "tool_calling", "call_id": "__tc_0", "name": "f", "arguments": {}},
        {"type": "tool_called", "call_id": "__tc_0", "result": "ok", "error": None},
    ]
    assert results[-1]["contents"] == []


def test_a_round_finished_closes_the_round_and_carries_its_id_and_model() -> None:
    # docs/agent.md: "the converter turns each `RoundFinished` update into the round's closed
    # calls and a `RoundFinished` content"; its result carries the round's response id and
    # model.
    metadata = {"type": "response_metadata", "id": "r1", "model": "m"}
    round_finished = {"type": "round_finished", "round": 0, "finish_reason": "tool_calls"}
    results = read_results(
        [
            metadata,
            delta("{}", id="c1", name="f"),
            {**round_finished, "usage": None},
            {"type": "tool_called", "id": "c1", "result": "ok", "error": None},
            {**metadata, "id": "r2"},
            {"type": "text_delta", "delta": "done"},
            finish("stop"),
        ]
    )
    closing = results[1]
    assert (closing["id"], closing["model"], closing["finish_reason"]) == ("r1", "m", None)
    assert [c["type"] for c in closing["contents"]] == [
        "tool_call_end",
        "tool_calling",
        "round_finished",
    ]
    assert results[2]["contents"] == [
        {"type": "tool_called", "call_id": "c1", "result": "ok", "error": None}
    ]
    assert (results[-1]["id"], results[-1]["model"], results[-1]["finish_reason"]) == (
        "r2",
        "m",
        "stop",
    )


def sample_update(kind: str, definition: dict[str, Any]) -> dict[str, Any]:
    """An update of type ``kind`` with every field of its schema definition."""
    samples: dict[str, Any] = {
        "index": 0,
        "round": 0,
        "usage": None,
        "arguments": {"a": 1},
        "summary": [],
        "item": {"type": "x"},
        "output": [1],
        "error": None,
        "result": "ok",
        "raw": None,
        "finish_reason": "stop",
    }
    return {
        field: kind if field == "type" else samples.get(field, f"{field}-value")
        for field in definition["properties"]
    }


def test_every_update_type_of_the_schema_is_read_into_the_shapes_of_the_result_schema() -> None:
    updates_schema = json.loads(UPDATE_SCHEMA.read_text(encoding="utf-8"))
    results_schema = json.loads(RESULT_SCHEMA.read_text(encoding="utf-8"))["$defs"]
    content_fields = {
        tag: [
            field
            for field in results_schema[reference.rsplit("/", 1)[1]]["properties"]
            if field != "meta"
        ]
        for tag, reference in results_schema["AgentResponseResult"]["properties"]["contents"][
            "items"
        ]["discriminator"]["mapping"].items()
    }
    result_fields = list(results_schema["AgentResponseResult"]["properties"])
    for kind, reference in updates_schema["discriminator"]["mapping"].items():
        definition = updates_schema["$defs"][reference.rsplit("/", 1)[1]]
        update = sample_update(kind, definition)
        if kind == "tool_call_delta":
            update["name"] = "f"
        if kind == "usage":
            update["usage"] = dict.fromkeys(updates_schema["$defs"]["usage.Usage"]["properties"], 1)
        results = read_results([update])
        for result in results:
            assert list(result) == result_fields, (kind, result)
            for content in result["contents"]:
                assert list(content) == content_fields[content["type"]], (kind, content)
            for event in result["events"]:
                assert list(event) == ["type", "event_type", "payload"], (kind, event)
        produced = [c["type"] for r in results for c in r["contents"]] + [
            e["event_type"] for r in results for e in r["events"]
        ]
        # Alone, these produce nothing: metadata goes into the final result, a finish without
        # usage only records its reason, an end of a call that never started is not emitted.
        assert bool(produced) != (kind in {"response_metadata", "finish", "tool_call_end"}), kind


def golden_results(dialect: str, scenario: str) -> tuple[list[Any], list[Any]]:
    """The updates and results of the first interaction of a bundled golden."""
    golden = goldens.load(goldens.golden_path(GOLDENS, dialect, scenario))
    assert golden is not None
    output = golden.interactions[0]
    return output.updates, output.results


def test_a_converter_that_swaps_parsed_and_progress_is_caught_at_that_entry() -> None:
    updates, results = golden_results("anthropic_messages", "max_tokens_inside_tool_arguments")
    wrong = json.loads(json.dumps(results))
    contents = wrong[2]["contents"]
    assert [c["type"] for c in contents] == [
        "tool_call_args",
        "tool_call_args_parsed",
        "tool_call_args_progress",
    ]
    contents[1], contents[2] = contents[2], contents[1]
    assert results_difference(read_results(updates), results) is None
    assert results_difference(read_results(updates), wrong) == (
        "result 2, content 1 differs:\n"
        f"  reader: {as_line(results[2]['contents'][1])}\n"
        f"  golden: {as_line(results[2]['contents'][2])}"
    )


def test_a_converter_that_counts_received_in_utf8_bytes_is_caught_at_that_entry() -> None:
    updates, results = golden_results("openai_chat", "arguments_unicode_escapes_surrogates")
    wrong = json.loads(json.dumps(results))
    joined: dict[tuple[str, str], str] = {}
    first: tuple[int, int] | None = None
    for position, result in enumerate(wrong):
        for index, content in enumerate(result["contents"]):
            if content["type"] == "tool_call_args_parsed":
                joined.pop((content["call_id"], content["name"]), None)
            if content["type"] != "tool_call_args_progress":
                continue
            key = (content["call_id"], content["name"])
            joined[key] = joined.get(key, "") + content["value"]
            in_bytes = len(joined[key].encode("utf-8"))
            if in_bytes != content["received"] and first is None:
                first = (position, index)
            content["received"] = in_bytes
    assert first is not None, "the golden has no progress past a non-ASCII character"
    difference = results_difference(read_results(updates), wrong)
    assert difference is not None
    assert difference.startswith(f"result {first[0]}, content {first[1]} differs:\n")
    assert f'"received":{results[first[0]]["contents"][first[1]]["received"]},' in difference


def test_a_result_that_differs_outside_its_contents_or_a_missing_result_is_named() -> None:
    updates, results = golden_results("anthropic_messages", "max_tokens_inside_tool_arguments")
    derived = read_results(updates)
    wrong = json.loads(json.dumps(results))
    wrong[-1]["finish_reason"] = "stop"
    difference = results_difference(derived, wrong)
    assert difference is not None
    assert difference.startswith(f"result {len(results) - 1} differs outside its contents:")
    assert results_difference(derived, results[:-1]) == (
        f"the reader has {len(results)} results, the golden {len(results) - 1}"
    )
