"""Hostile input never escapes the byte-fed path as an exception and never costs what arrived.

One named test per repro of the hardening issue: each of these raised (and lost the text
decoded from the same network chunk) before raf checked depth, range and decoding itself.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from raf.collect import ResponseCollector
from raf.converter import AgentResponseConverter
from raf.dialects.templates import Templates
from raf.errors import raw_excerpt
from raf.formats.openai_chat import dialect as openai_chat
from raf.formats.openai_chat.dialect import OpenAIChatDialect
from raf.limits import DEFAULT_MAX_JSON_DEPTH, DEFAULT_MAX_RAW_CHARS
from raf.model import AgentResponse, contents, updates
from raf.model.canonical import from_json, to_json
from raf.pipeline import iter_updates, respond, run
from raf.safe_json import UnusableJSON, decode, too_deep
from tests.helpers import CHUNKINGS, split

HELLO = b'data: {"choices":[{"delta":{"content":"Hello"}}]}\n\n'
WORLD = b'data: {"choices":[{"delta":{"content":" world"},"finish_reason":"stop"}]}\n\n'
DONE = b"data: [DONE]\n\n"


def codes(response: AgentResponse) -> list[str]:
    return [e.error_code for e in response.errors]


def call_chunk(arguments: str, *, name: str | None = "f", index: int = 0) -> bytes:
    function: dict[str, Any] = {"arguments": arguments}
    if name is not None:
        function["name"] = name
    entry = {"index": index, "id": f"call_{index}", "function": function}
    return (
        b"data: " + json.dumps({"choices": [{"delta": {"tool_calls": [entry]}}]}).encode() + b"\n\n"
    )


def deep(levels: int, inner: str = "") -> str:
    return "[" * levels + inner + "]" * levels


# -- the stray exceptions -------------------------------------------------------------------


def test_the_issue_repro_done_with_a_trailing_space_keeps_the_text_of_the_same_chunk() -> None:
    # Both events in ONE network chunk: the text of the first must survive the second.
    response = respond([HELLO + b"data: [DONE] \n\n"])
    assert response.text == "Hello"
    assert codes(response) == []  # "[DONE] " is the end marker (docs/dialects.md)


@pytest.mark.parametrize("marker", ["[DONE] ", " [DONE]", "\t[DONE]\t", "[DONE]\n", "\n[DONE]"])
def test_done_surrounded_by_json_whitespace_ends_the_stream(marker: str) -> None:
    body = HELLO + "".join(f"data: {line}\n" for line in marker.split("\n")).encode() + b"\n"
    body += WORLD  # after the end marker: never read
    for how in CHUNKINGS:
        out = list(iter_updates(split(body, how)))
        assert [u for u in out if isinstance(u, updates.TextDelta)] == [
            updates.TextDelta(delta="Hello")
        ]
        assert not any(isinstance(u, updates.Error) for u in out)


@pytest.mark.parametrize("data", ["[DONE]x", "x[DONE]", '"[DONE]"', "[DONE] [DONE]", "[done]"])
def test_other_text_around_done_is_not_the_end_marker(data: str) -> None:
    response = respond([HELLO + f"data: {data}\n\n".encode() + WORLD + DONE])
    assert response.text == "Hello world"  # reading went on
    assert codes(response) in (["sse_parse_error"], ["invalid_chunk"])


@pytest.mark.parametrize(
    "payload",
    ["[DONE] x", "[1,", "true false", '{"choices":"x"} y', "{", '{"a":1}}', "nul", "[1,]"],
)
def test_malformed_payloads_are_one_parse_error_and_the_stream_goes_on(payload: str) -> None:
    for how in CHUNKINGS:
        response = respond(split(HELLO + f"data: {payload}\n\n".encode() + WORLD + DONE, how))
        assert response.text == "Hello world"
        assert codes(response) == ["sse_parse_error"]
        assert response.errors[0].raw == payload


@pytest.mark.parametrize("number", ["1e400", "-1e400", "1" * 5000, "-" + "9" * 100_000, "1E309"])
def test_numbers_out_of_range_are_read_as_null_and_the_rest_of_the_chunk_is_kept(
    number: str,
) -> None:
    chunk = (
        '{"choices":[{"delta":{"content":"Hi"},"finish_reason":"stop"}],'
        f'"usage":{{"prompt_tokens":{number},"completion_tokens":5}}}}'
    )
    response = respond([f"data: {chunk}\n\n".encode() + DONE])
    assert response.text == "Hi"
    assert response.finish_reason == "stop"
    assert response.usage is not None
    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (0, 5)
    assert codes(response) == ["invalid_chunk"]
    assert "out of range, read as null" in response.errors[0].message


def test_a_number_out_of_range_in_an_ignored_field_costs_nothing() -> None:
    chunk = '{"created":1e999,"choices":[{"delta":{"content":"Hi"}}]}'
    response = respond([f"data: {chunk}\n\n".encode() + DONE])
    assert response.text == "Hi"
    assert codes(response) == []  # the field is skipped unread, as every unknown field
    salvaged = '{"created":1e999,"choices":[{"delta":{"content":"Hi"}}],"id":5}'
    response = respond([f"data: {salvaged}\n\n".encode() + DONE])  # the salvage path
    assert response.text == "Hi"
    assert codes(response) == ["invalid_chunk"]


@pytest.mark.parametrize("where", ["ignored_key", "delta", "top"])
def test_json_nested_past_the_limit_is_json_too_deep_and_the_stream_goes_on(where: str) -> None:
    nested = deep(1000)
    chunk = {
        "ignored_key": f'{{"choices":[],"logprobs":{nested}}}',
        "delta": f'{{"choices":[{{"delta":{{"content":{nested}}}}}]}}',
        "top": nested,
    }[where]
    for how in ("whole", "random"):
        response = respond(split(HELLO + f"data: {chunk}\n\n".encode() + WORLD + DONE, how))
        assert response.text == "Hello world"
        assert codes(response) == ["json_too_deep"]
        assert "max_json_depth" in response.errors[0].message


def test_the_depth_limit_is_configurable_and_exact() -> None:
    at_limit = f'{{"choices":[],"x":{deep(DEFAULT_MAX_JSON_DEPTH - 1)}}}'  # exactly the limit
    past = f'{{"choices":[],"x":{deep(DEFAULT_MAX_JSON_DEPTH)}}}'  # one level more
    assert codes(respond([f"data: {at_limit}\n\n".encode() + DONE])) == []
    assert codes(respond([f"data: {past}\n\n".encode() + DONE])) == ["json_too_deep"]
    shallow = f'{{"choices":[],"x":{deep(3)}}}'
    assert codes(respond([f"data: {shallow}\n\n".encode() + DONE], max_json_depth=3)) == [
        "json_too_deep"
    ]
    assert codes(respond([f"data: {shallow}\n\n".encode() + DONE], max_json_depth=4)) == []


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    text = "[" * 5000 + '\\"]'  # in a JSON string: text, not structure
    chunk = json.dumps({"choices": [{"delta": {"content": text}}]})
    response = respond([f"data: {chunk}\n\n".encode() + DONE])
    assert response.text == text
    assert codes(response) == []


def test_a_lone_surrogate_is_read_as_u_fffd_and_the_rest_is_kept() -> None:
    chunk = r'{"choices":[{"delta":{"content":"a\ud83db"}}]}'
    response = respond([HELLO + f"data: {chunk}\n\n".encode() + DONE])
    assert response.text == "Helloa\ufffdb"
    assert codes(response) == ["invalid_chunk"]
    assert "lone surrogate" in response.errors[0].message
    # an escaped backslash before "ud83d" is not an escape: left alone, no repair
    fine = r'{"choices":[{"delta":{"content":"\\ud83d"}}]}'
    assert respond([f"data: {fine}\n\n".encode() + DONE]).text == "\\ud83d"


@pytest.mark.parametrize("levels", [300, 1000, 100_000])
def test_tool_arguments_nested_past_the_limit_are_json_too_deep_with_the_raw_text(
    levels: int,
) -> None:
    arguments = f'{{"a":{deep(levels)}}}'
    body = (
        call_chunk(arguments)
        + b'data: {"choices":[{"delta":{},"finish_reason":"tool_calls"}]}\n\n'
        + DONE
    )
    results = list(run([body]))
    response = respond([body])
    assert response.tool_calls == ()
    assert codes(response) == ["json_too_deep"]
    assert response.errors[0].call_id == "call_0"
    assert response.errors[0].raw == arguments
    # the incremental parser stopped at the limit instead of recursing
    parsed = [c for r in results for c in r.contents if isinstance(c, contents.ToolCallArgsParsed)]
    assert parsed == []


def test_deep_arguments_within_a_raised_limit_are_encoded_as_canonical_json() -> None:
    arguments = f'{{"a":{deep(500)}}}'  # about half the interpreter's recursion limit
    body = (
        call_chunk(arguments)
        + b'data: {"choices":[{"delta":{},"finish_reason":"tool_calls"}]}\n\n'
        + DONE
    )
    results = list(run([body], max_json_depth=512))
    response = respond([body], max_json_depth=512)
    assert codes(response) == []
    assert json.loads(to_json(response))["tool_calls"][0]["arguments"] == json.loads(arguments)
    for result in results:  # every level of the output encodes and decodes back
        assert from_json(to_json(result, include_meta=True), type(result)) == result
    assert to_json(response, indent=2).count("\n") > 1000


@pytest.mark.parametrize("depth", [0, 513, 10_000])
def test_a_depth_limit_outside_what_can_be_decoded_is_refused(depth: int) -> None:
    with pytest.raises(ValueError, match="max_json_depth"):
        respond([DONE], max_json_depth=depth)


def test_the_argument_parser_reports_values_up_to_the_limit() -> None:
    arguments = f'{{"a":{deep(DEFAULT_MAX_JSON_DEPTH - 1)},"b":1}}'
    body = (
        call_chunk(arguments)
        + b'data: {"choices":[{"delta":{},"finish_reason":"tool_calls"}]}\n\n'
        + DONE
    )
    results = list(run(split(body, "random")))
    parsed = [
        (c.name, c.value)
        for r in results
        for c in r.contents
        if isinstance(c, contents.ToolCallArgsParsed)
    ]
    assert parsed == [("a", json.loads(arguments)["a"]), ("b", 1)]


# -- bounded raw ------------------------------------------------------------------------------


def test_raw_keeps_a_bounded_excerpt_of_a_huge_bad_payload() -> None:
    payload = "{" + "x" * 1_000_000
    response = respond([f"data: {payload}\n\n".encode() + HELLO + DONE])
    assert response.text == "Hello"
    (error,) = response.errors
    assert error.raw is not None
    assert len(error.raw) < DEFAULT_MAX_RAW_CHARS + 100
    assert error.raw.startswith(payload[:2048])
    assert error.raw.endswith(payload[-2048:])
    assert "characters omitted" in error.raw
    small = respond([f"data: {payload}\n\n".encode()], max_raw_chars=10)
    assert small.errors[0].raw == raw_excerpt(payload, 10)
    assert len(small.errors[0].raw or "") < 60


def test_raw_of_a_small_payload_is_exact() -> None:
    assert respond([b"data: {nope\n\n" + DONE]).errors[0].raw == "{nope"


# -- the last line of defence -------------------------------------------------------------


@pytest.mark.parametrize(
    "path", ["the usual chunk's fast path", "the handler table", "the batch of a run"]
)
def test_an_unexpected_failure_in_the_dialect_is_internal_error_and_loses_nothing(
    monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    body = HELLO + b'data: {"choices":[{"delta":{"content":"boom"}}]}\n\n' + WORLD + DONE
    if path == "the batch of a run":  # respond(): runs of usual chunks are batched
        original_match = Templates.match

        def broken_match(self: Templates[Any], payload: bytes) -> Any:
            if b"boom" in payload:
                raise KeyError("boom")
            return original_match(self, payload)

        monkeypatch.setattr(Templates, "match", broken_match)
        response = respond([body])
        assert response.text == "Hello world"
        assert codes(response) == ["internal_error"]
        return
    if path == "the handler table":
        original = OpenAIChatDialect.handlers["chunk"]

        def broken(self: OpenAIChatDialect, chunk: Any, frame: Any) -> None:
            if "boom" in frame.data:
                raise KeyError("boom")
            original(self, chunk, frame)

        monkeypatch.setitem(OpenAIChatDialect.handlers, "chunk", broken)
        # Usage makes the chunk unusual: it is mapped by the handler.
        bad = b'data: {"choices":[{"delta":{"content":"boom"}}],"usage":{}}\n\n'
    else:

        def text_delta(*, delta: str) -> updates.TextDelta:
            if delta == "boom":
                raise KeyError("boom")
            return updates.TextDelta(delta=delta)

        monkeypatch.setattr(openai_chat, "_TextDelta", text_delta)
        bad = b'data: {"choices":[{"delta":{"content":"boom"}}]}\n\n'
    # One chunk: nothing before is lost. (Streamed: respond() batches the usual chunks.)
    response = respond([HELLO + bad + WORLD + DONE], streaming_contents=True)
    assert response.text == "Hello world"
    assert codes(response) == ["internal_error"]
    assert "bug in raf" in response.errors[0].message


class FailingOnBoom(AgentResponseConverter):
    """A converter with a bug on one update: its text handler (a documented hook,
    docs/converter.md "Subclasses") fails on the delta "boom"."""

    def _on_text(self, update: updates.TextDelta) -> Any:
        if update.delta == "boom":
            raise ValueError("boom")
        return super()._on_text(update)


@pytest.mark.parametrize("how", ["whole", "bytewise", "random"])
@pytest.mark.parametrize("streaming_contents", [False, True])
def test_an_unexpected_failure_in_the_converter_is_internal_error_and_loses_nothing(
    streaming_contents: bool, how: str
) -> None:
    # docs/converter.md, "Never raises on input": the update that failed is skipped, with one
    # internal_error; what came before it in the same read and what came after is kept. The
    # same in both modes (aggregate-only: the read's deltas come as one batch).
    thinking = b'data: {"choices":[{"delta":{"reasoning_content":"hmm"}}]}\n\n'
    boom = b'data: {"choices":[{"delta":{"content":"boom"}}]}\n\n'
    body = thinking + HELLO + boom + WORLD + DONE
    converter = FailingOnBoom(streaming_contents=streaming_contents)
    response = respond(split(body, how), converter=converter)
    assert response.text == "Hello world"
    assert response.reasoning_text == "hmm"
    assert codes(response) == ["internal_error"]
    assert "bug in raf" in response.errors[0].message
    assert response.finish_reason == "stop"


@pytest.mark.parametrize("streaming_contents", [False, True])
def test_a_batch_the_converter_fails_on_is_skipped_as_one_update_in_both_modes(
    streaming_contents: bool,
) -> None:
    # A DeltaBatch whose order names a fragment it does not hold (a bug of the dialect that
    # made it): converting it fails, and so does expanding it into updates. It is skipped as
    # one update, with one internal_error; nothing is raised, nothing before or after it is
    # lost, nothing of it is folded in twice; the same in both modes.
    converter = AgentResponseConverter(streaming_contents=streaming_contents)
    collector = ResponseCollector()
    broken = updates.DeltaBatch(reasoning=["hmm"], text=["lost"], arguments={0: ["1"]}, order=[1])
    batches: tuple[list[updates.AgentResponseUpdate | updates.DeltaBatch], ...] = (
        [
            updates.TextDelta(delta="Hello"),
            updates.ToolCallDelta(index=0, id="a", name="f", arguments_delta='{"x": '),
        ],
        [broken],
        [updates.ToolCallDelta(index=0, arguments_delta="2}"), updates.TextDelta(delta="!")],
    )
    for batch in batches:
        converter.collect(batch, collector)
    collector.add(converter.finalize("tool_calls"))
    response = collector.response()
    assert (response.text, response.reasoning_text) == ("Hello!", None)
    assert [(c.id, c.name, c.arguments) for c in response.tool_calls] == [("a", "f", {"x": 2})]
    assert codes(response) == ["internal_error"]


# -- safe_json directly ---------------------------------------------------------------------


def test_safe_json_decode_reports_typed_failures() -> None:
    assert decode('{"a": [1, 2]}').value == {"a": [1, 2]}
    assert decode('{"a": 1e400}').value == {"a": None}
    with pytest.raises(UnusableJSON) as info:
        decode("[1,")
    assert info.value.code == "sse_parse_error"
    with pytest.raises(UnusableJSON) as info:
        decode(deep(300))
    assert info.value.code == "json_too_deep"


def test_too_deep_is_linear_and_does_not_recurse() -> None:
    assert too_deep(deep(10**6), 128)
    assert not too_deep('"' + "[" * 10**6 + '"', 128)
    assert not too_deep("[]" * 10**6, 1)
    assert too_deep("[[]]", 1)


# -- the converter's memory limits ------------------------------------------------------------


def test_the_arguments_of_all_calls_together_are_limited_per_turn() -> None:
    arguments = '{"a": "' + "x" * 40 + '"}'
    size = len(arguments)
    body = b"".join(call_chunk(arguments, index=n) for n in range(5)) + DONE
    response = respond([body], max_total_arguments_chars=3 * size + 10)
    assert len(response.tool_calls) == 3  # three fit, the fourth and fifth do not
    assert [e.error_code for e in response.errors] == ["tool_arguments_too_large"] * 2
    assert "max_total_arguments_chars" in response.errors[0].message
    assert respond([body], max_total_arguments_chars=5 * size).errors == ()


def test_arguments_that_arrive_before_the_name_are_counted_once() -> None:
    head, tail = '{"a": "' + "x" * 40, '"}'
    limit = len(head) + len(tail)
    early = call_chunk(head, name=None)  # no name yet: kept, not emitted
    body = early + call_chunk("", name="f") + call_chunk(tail, name=None) + DONE
    response = respond([body], max_total_arguments_chars=limit)
    assert [c.arguments for c in response.tool_calls] == [{"a": "x" * 40}]
    assert response.errors == ()


def test_other_choices_of_an_n_gt_1_request_are_ignored_not_checked() -> None:
    chunk = '{"choices":[{"index":0,"delta":{"content":"A"}},{"index":1,"delta":{"content":5}}]}'
    response = respond([f"data: {chunk}\n\n".encode() + DONE])
    assert response.text == "A"
    assert codes(response) == []  # choice 1's wrong type is not ours to report


def test_whitespace_means_json_whitespace_everywhere() -> None:
    # data of only JSON whitespace is a keep-alive; other Unicode spaces are not JSON
    assert codes(respond([b"data: \t \t\n\n" + HELLO + DONE])) == []
    ideographic = "\u3000".encode()
    assert codes(respond([b"data: " + ideographic + b"\n\n" + HELLO + DONE])) == ["sse_parse_error"]
    # arguments of only JSON whitespace are no arguments: {}
    body = (
        call_chunk(" \t\r\n")
        + b'data: {"choices":[{"delta":{},"finish_reason":"tool_calls"}]}\n\n'
        + DONE
    )
    assert [c.arguments for c in respond([body]).tool_calls] == [{}]
    body = (
        call_chunk("\u3000")
        + b'data: {"choices":[{"delta":{},"finish_reason":"tool_calls"}]}\n\n'
        + DONE
    )
    assert codes(respond([body])) == ["invalid_tool_arguments"]
