"""The AI SDK UI message stream: what raf writes is what the ``ai`` package reads.

Every bundled stream under every chunking and every agent run, encoded, goes through the AI
SDK's own reading of a response body (``parseJsonEventStream`` with ``uiMessageChunkSchema``,
then ``readUIMessageStream``) in one Node.js process (ui_message_stream_check.mjs); the
UIMessage it builds must hold raf's response: its text, reasoning and signatures, each tool
call with its input, output, error or approval, the provider's tools, the metadata. The same
bytes answer a chat (``AbstractChat``, what ``useChat`` runs, with ``DefaultChatTransport``),
which must hold the same message, in error exactly when the run had errors. Without
Node.js or the npm libraries these tests skip; with RAF_REQUIRE_CLIENTS=1 they fail instead
(and without Node.js, with RAF_REQUIRE_NODE=1 too).

The rest needs no Node.js: the chunks carry only the protocol's fields, the decoder reads
another server's stream and never raises on a bad one.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

import raf.clients
from raf.collect import collect_agent_response
from raf.interop import decode_all, encode_all, frame, get
from raf.interop.ui_message_stream import (
    DATA_ERROR,
    DENIED,
    PROVIDER_KEY,
    UIMessageStreamDecoder,
    UIMessageStreamEncoder,
    usage_from_json,
    usage_to_json,
)
from raf.model import blocks, contents, events
from raf.model.canonical import to_canonical
from raf.model.codes import ErrorCode
from raf.model.response import AgentResponseResult
from raf.model.usage import Usage
from tests.interop.support import (
    Stream,
    agent_runs,
    bundled_streams,
    distinct_results,
    stream_id,
)

MODEL = get("ui-message-stream")
CHECK = Path(__file__).with_name("ui_message_stream_check.mjs")
NODE_MODULES = raf.clients.NODE_FOLDER / "node_modules"

# The fields of each chunk type (ai 6's UIMessageChunk). The schema itself accepts more
# (its objects are loose), so raf holds its chunks to these.
FIELDS: dict[str, frozenset[str]] = {
    kind: frozenset({"type", *fields.split()})
    for kind, fields in {
        "start": "messageId messageMetadata",
        "start-step": "",
        "finish-step": "",
        "finish": "finishReason messageMetadata",
        "message-metadata": "messageMetadata",
        "error": "errorText",
        "abort": "reason",
        "text-start": "id providerMetadata",
        "text-delta": "id delta providerMetadata",
        "text-end": "id providerMetadata",
        "reasoning-start": "id providerMetadata",
        "reasoning-delta": "id delta providerMetadata",
        "reasoning-end": "id providerMetadata",
        "tool-input-start": "toolCallId toolName providerExecuted providerMetadata",
        "tool-input-delta": "toolCallId inputTextDelta",
        "tool-input-available": "toolCallId toolName input providerExecuted providerMetadata",
        "tool-input-error": "toolCallId toolName input errorText providerMetadata",
        "tool-approval-request": "approvalId toolCallId approvalDescriptor",
        "tool-output-available": "toolCallId output providerExecuted providerMetadata",
        "tool-output-error": "toolCallId errorText providerExecuted providerMetadata",
        "source-url": "sourceId url title",
    }.items()
}
DATA_FIELDS = frozenset({"type", "data", "transient"})


def _sse(items: list[Any]) -> str:
    return (b"".join(frame(MODEL, item) for item in items) + MODEL.trailer).decode()


def _node() -> str:
    """The ``node`` program, or the skip (the failure, where required) that says what is
    missing: Node.js (required with RAF_REQUIRE_NODE=1 or RAF_REQUIRE_CLIENTS=1) or the npm
    libraries (required with RAF_REQUIRE_CLIENTS=1, which installs them)."""
    node = shutil.which("node")
    clients = os.environ.get("RAF_REQUIRE_CLIENTS") == "1"
    if node is None:
        if clients or os.environ.get("RAF_REQUIRE_NODE") == "1":
            pytest.fail("Node.js is required here but `node` is missing")
        pytest.skip("Node.js is not installed (no node on the PATH)")
    if not (NODE_MODULES / "ai").is_dir():
        if clients:
            pytest.fail(f"the npm libraries are required (RAF_REQUIRE_CLIENTS=1): {NODE_MODULES}")
        pytest.skip(f"the npm libraries are not installed: (cd {NODE_MODULES.parent} && npm ci)")
    return node


def _check(request: dict[str, Any]) -> dict[str, Any]:
    """The answer of ui_message_stream_check.mjs to ``request``."""
    done = subprocess.run(
        [_node(), str(CHECK), str(NODE_MODULES)],
        input=json.dumps(request).encode(),
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


@functools.cache
def _pending_calls() -> dict[str, tuple[str, Any]]:
    """Every client call of the agent runs (name and arguments by id): the calls a resumed
    run answers were made by the run before it."""
    calls: dict[str, tuple[str, Any]] = {}
    for _, results in agent_runs():
        for result in results:
            for content in result.contents:
                if isinstance(content, contents.ToolCalling):
                    calls[content.call_id] = (content.name, content.arguments)
    return calls


def _prior(results: tuple[AgentResponseResult, ...]) -> list[dict[str, Any]]:
    """The tool parts of the message a run continues: those of the calls it answers but did
    not make (what useChat holds when it sends an approval back)."""
    made = {
        c.call_id
        for r in results
        for c in r.contents
        if isinstance(c, (contents.ToolCallStart, contents.ToolCalling))
    }
    calls = _pending_calls()
    parts = []
    for result in results:
        for content in result.contents:
            if isinstance(content, contents.ToolCalled) and content.call_id not in made:
                name, arguments = calls[content.call_id]
                parts.append(
                    {
                        "type": f"tool-{name}",
                        "toolCallId": content.call_id,
                        "state": "input-available",
                        "input": arguments,
                    }
                )
                made.add(content.call_id)
    return parts


def _runs() -> list[tuple[str, tuple[AgentResponseResult, ...]]]:
    runs = [
        (f"{s.name}#{n}", results)
        for s in bundled_streams()
        for n, results in enumerate(distinct_results(s))
    ]
    return runs + [(name, results) for name, results in agent_runs()]


@functools.cache
def _answers() -> dict[str, dict[str, Any]]:
    """readUIMessageStream's answer for every run's stream, by its SSE text (the streams of
    one recording under its chunkings are mostly the same bytes: each is checked once)."""
    _node()  # skips (or fails) before any work when Node.js or the libraries are missing
    streams: dict[str, dict[str, Any]] = {}
    for name, results in _runs():
        sse = _sse(list(encode_all(MODEL, results)))
        streams.setdefault(sse, {"name": name, "sse": sse, "prior": _prior(results)})
    answer = _check({"streams": list(streams.values()), "chat": True})
    return dict(zip(streams, answer["streams"], strict=True))


def _parts(message: dict[str, Any] | None) -> list[dict[str, Any]]:
    return [] if message is None else list(message["parts"])


def _tool_parts(message: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    """The message's tool parts by call id (the last of an id)."""
    return {
        part["toolCallId"]: part
        for part in _parts(message)
        if part["type"].startswith("tool-") or part["type"] == "dynamic-tool"
    }


def _assert_holds(results: tuple[AgentResponseResult, ...], got: dict[str, Any]) -> None:
    """The UIMessage readUIMessageStream built holds the response of ``results``."""
    response = collect_agent_response(results)
    assert got["invalid"] == [], "uiMessageChunkSchema rejected a chunk"
    message = got["message"]
    parts = _parts(message)
    text = "".join(p["text"] for p in parts if p["type"] == "text")
    reasoning = "".join(p["text"] for p in parts if p["type"] == "reasoning")
    assert text == response.text
    assert reasoning == (response.reasoning_text or "")
    # Every signature of the turn's reasoning, on a reasoning part, in order.
    signed = [
        b.signature
        for m in response.turn_transcript
        for b in m.blocks
        if isinstance(b, blocks.Reasoning) and b.signature is not None
    ]
    signatures = [
        p["providerMetadata"][PROVIDER_KEY]["signature"]
        for p in parts
        if p["type"] == "reasoning"
        and "signature" in p.get("providerMetadata", {}).get(PROVIDER_KEY, {})
    ]
    assert signatures == signed
    tools = _tool_parts(message)
    failed = {e.call_id for e in response.errors if e.call_id is not None and e.call_id in tools}
    for call in response.tool_calls:
        part = tools[call.id]
        assert part["type"] == f"tool-{call.name}"
        assert part["input"] == call.arguments
    for hosted in response.hosted_tool_calls:
        part = tools[hosted.id]
        assert part["providerExecuted"] is True
        if hosted.error is not None:
            assert (part["state"], part["errorText"]) == ("output-error", hosted.error)
        elif hosted.output is not None:
            assert (part["state"], part["output"]) == ("output-available", hosted.output)
    for answer in response.tool_messages:
        part = tools[answer.tool_call_id or ""]
        (result,) = answer.blocks
        assert isinstance(result, blocks.ToolResult)
        if result.is_error:
            assert (part["state"], part["errorText"]) == ("output-error", answer.content)
        else:
            output = part.get("output")
            assert part["state"] == "output-available"
            assert output == answer.content or (output is None and answer.content == "")
    for request in response.approval_requests:
        part = tools[request.call_id]
        assert part["state"] == "approval-requested"
        assert part["approval"]["id"] == request.call_id
    for error in response.errors:
        part = tools.get(error.call_id or "", {})
        if error.call_id in failed and part.get("errorText") == error.message:
            # A call whose arguments failed: its part says so, with the text that came.
            assert (part["state"], part.get("rawInput")) == ("output-error", error.raw)
            continue
        if error.error_code == ErrorCode.CANCELLED:
            continue  # an abort chunk: the AI SDK's reader takes it as no error
        assert error.message in got["errors"]
    assert len(got["errors"]) <= len(response.errors)
    metadata = (message or {}).get("metadata") or {}
    assert metadata.get("id") == response.id
    assert metadata.get("model") == response.model
    assert metadata.get("finishReason") == response.finish_reason
    # The usage the metadata shows is the last one reported (merged over the earlier ones).
    usages = [c.usage for r in results for c in r.contents if isinstance(c, contents.Usage)]
    assert metadata.get("usage") == (usage_to_json(usages[-1]) if usages else None)
    # A chat (what useChat runs) holds the same message, and ends in error exactly when raf's
    # run had an error chunk (they come last: the message is whole).
    if "chat" in got:
        chat = got["chat"]
        assert chat["status"] == ("error" if got["errors"] else "ready")
        assert chat["error"] == (got["errors"][0] if got["errors"] else None)
        if message is None:
            assert chat["message"] is None
        else:
            assert {**chat["message"], "id": ""} == {**message, "id": ""}


@pytest.mark.parametrize("stream", bundled_streams(), ids=stream_id)
def test_the_ai_sdk_reads_a_bundled_stream_under_every_chunking_into_the_response(
    stream: Stream,
) -> None:
    for results in distinct_results(stream):
        got = _answers()[_sse(list(encode_all(MODEL, results)))]
        _assert_holds(results, got)


def test_the_ai_sdk_reads_every_agent_run_into_the_response() -> None:
    for name, results in agent_runs():
        got = _answers()[_sse(list(encode_all(MODEL, results)))]
        try:
            _assert_holds(results, got)
        except AssertionError as exc:
            raise AssertionError(f"{name}: {exc}") from exc


def test_the_schema_check_has_teeth() -> None:
    """uiMessageChunkSchema rejects a chunk without its id, of a field's wrong type, of an
    unknown type or finish reason; readUIMessageStream reports a delta of a part never
    started. (Its objects are loose: an extra field passes; FIELDS holds raf to the
    protocol's.)"""
    chunks = [
        {"type": "text-delta", "id": "t", "delta": "x"},
        {"type": "text-delta", "delta": "x"},
        {"type": "text-delta", "id": "t", "delta": 5},
        {"type": "tool-input-start", "toolCallId": "c"},
        {"type": "finish", "finishReason": "tool_calls"},
        {"type": "text-middle", "id": "t"},
        {"type": "text-start", "id": "t", "extra": 1},
    ]
    stray = [{"type": "start"}, {"type": "text-delta", "id": "t", "delta": "x"}]
    bad_sse = "data: {not json}\n\ndata: [DONE]\n\n"
    answer = _check(
        {
            "chunks": chunks,
            "streams": [
                {"name": "stray", "sse": _sse(stray)},
                {"name": "bad", "sse": bad_sse},
            ],
        }
    )
    assert answer["chunks"] == [True, False, False, False, False, False, True]
    stray_answer, bad_answer = answer["streams"]
    assert any("text-delta" in error for error in stray_answer["errors"])
    assert len(bad_answer["invalid"]) == 1


# -- without Node.js ---------------------------------------------------------------------------


def test_every_chunk_carries_only_the_protocol_fields() -> None:
    for name, results in _runs():
        for item in encode_all(MODEL, results):
            kind = item["type"]
            allowed = DATA_FIELDS if kind.startswith("data-") else FIELDS[kind]
            assert set(item) <= allowed, f"{name}: {item}"
            meta = item.get("providerMetadata")
            if meta is not None:
                assert all(isinstance(v, dict) for v in meta.values()), f"{name}: {item}"


def test_a_run_is_one_message_whose_errors_come_last() -> None:
    """start first, finish last, steps balanced; the error chunks (useChat stops reading at
    one) after everything else."""
    for name, results in _runs():
        items = list(encode_all(MODEL, results))
        kinds = [item["type"] for item in items]
        assert kinds[0] == "start", name
        assert kinds[-1] == "finish", name
        assert kinds.count("start") == kinds.count("finish") == 1, name
        assert kinds.count("start-step") == kinds.count("finish-step"), name
        errors = [i for i, kind in enumerate(kinds) if kind in ("error", "abort")]
        if errors:
            assert errors == list(range(errors[0], len(kinds) - 1)), name
        raf_errors = [
            c
            for r in results
            for c in r.contents
            if isinstance(c, contents.Error) and c.error_code not in ("protocol_notice",)
        ]
        assert len(errors) <= len(raf_errors), name


def test_parallel_calls_interleaved_stay_apart() -> None:
    results = [
        AgentResponseResult(contents=(contents.ToolCallStart(call_id="a", name="f"),)),
        AgentResponseResult(contents=(contents.ToolCallStart(call_id="b", name="g"),)),
        AgentResponseResult(contents=(contents.ToolCallArgs(call_id="a", args_delta='{"x":'),)),
        AgentResponseResult(contents=(contents.ToolCallArgs(call_id="b", args_delta='{"y":2}'),)),
        AgentResponseResult(contents=(contents.ToolCallArgs(call_id="a", args_delta="1}"),)),
        AgentResponseResult(
            finish_reason="tool_calls",
            contents=(
                contents.ToolCalling(call_id="a", name="f", arguments={"x": 1}),
                contents.ToolCalling(call_id="b", name="g", arguments={"y": 2}),
            ),
        ),
    ]
    items = list(encode_all(MODEL, results))
    deltas = [
        (i["toolCallId"], i["inputTextDelta"]) for i in items if i["type"] == "tool-input-delta"
    ]
    assert deltas == [("a", '{"x":'), ("b", '{"y":2}'), ("a", "1}")]
    assert items[-1] == {"type": "finish", "finishReason": "tool-calls"}
    back = collect_agent_response(list(decode_all(MODEL, items)))
    assert [(c.id, c.arguments) for c in back.tool_calls] == [("a", {"x": 1}), ("b", {"y": 2})]


def test_invalid_arguments_are_a_tool_input_error_with_the_text_that_came() -> None:
    error = contents.Error(
        error_code=ErrorCode.INVALID_TOOL_ARGUMENTS, message="not JSON", call_id="a", raw="{x"
    )
    results = [
        AgentResponseResult(contents=(contents.ToolCallStart(call_id="a", name="f"),)),
        AgentResponseResult(contents=(contents.ToolCallArgs(call_id="a", args_delta="{x"),)),
        AgentResponseResult(finish_reason="tool_calls", contents=(error,)),
    ]
    items = list(encode_all(MODEL, results))
    (failed,) = [i for i in items if i["type"] == "tool-input-error"]
    assert (failed["input"], failed["errorText"]) == ("{x", "not JSON")
    assert not [i for i in items if i["type"] == "error"]  # a tool part's error, not the run's
    assert collect_agent_response(list(decode_all(MODEL, items))).errors == (error,)


def test_the_message_id_is_the_callers() -> None:
    encoder = UIMessageStreamEncoder(message_id="msg-1")
    assert encoder.close()[0] == {"type": "start", "messageId": "msg-1"}
    assert next(iter(encode_all(MODEL, []))) == {"type": "start"}


def test_usage_is_the_ai_sdks_language_model_usage() -> None:
    usage = Usage(
        prompt_tokens=10,
        completion_tokens=5,
        total_tokens=15,
        prompt_cache_hit_tokens=4,
        reasoning_tokens=2,
    )
    assert usage_to_json(usage) == {
        "inputTokens": 10,
        "inputTokenDetails": {"noCacheTokens": None, "cacheReadTokens": 4},
        "outputTokens": 5,
        "outputTokenDetails": {"reasoningTokens": 2},
        "totalTokens": 15,
    }
    assert usage_from_json(usage_to_json(usage)) == usage
    assert usage_from_json({"inputTokens": "10"}) is None


def test_another_servers_stream_is_read() -> None:
    """A stream as the AI SDK's streamText writes one: no raf data chunks, usage and the
    finish reason where an application puts them."""
    items = [
        {"type": "start", "messageId": "m1"},
        {"type": "start-step"},
        {"type": "reasoning-start", "id": "r"},
        {"type": "reasoning-delta", "id": "r", "delta": "Hmm."},
        {"type": "reasoning-end", "id": "r"},
        {"type": "tool-input-start", "toolCallId": "c1", "toolName": "weather"},
        {"type": "tool-input-delta", "toolCallId": "c1", "inputTextDelta": '{"city":"Paris"}'},
        {
            "type": "tool-input-available",
            "toolCallId": "c1",
            "toolName": "weather",
            "input": {"city": "Paris"},
        },
        {"type": "tool-output-available", "toolCallId": "c1", "output": {"temp": 18}},
        {"type": "finish-step"},
        {"type": "start-step"},
        {"type": "text-start", "id": "t"},
        {"type": "text-delta", "id": "t", "delta": "18 degrees."},
        {"type": "text-end", "id": "t"},
        {"type": "finish-step"},
        {
            "type": "finish",
            "finishReason": "stop",
            "messageMetadata": {"usage": {"inputTokens": 3, "outputTokens": 4, "totalTokens": 7}},
        },
    ]
    response = collect_agent_response(list(decode_all(MODEL, items)))
    assert response.id == "m1"
    assert (response.text, response.reasoning_text) == ("18 degrees.", "Hmm.")
    assert [(c.id, c.name, c.arguments) for c in response.tool_calls] == [
        ("c1", "weather", {"city": "Paris"})
    ]
    assert [m.content for m in response.tool_messages] == ['{"temp":18}']
    assert response.finish_reason == "stop"
    assert response.usage == Usage(prompt_tokens=3, completion_tokens=4, total_tokens=7)
    assert len(response.rounds) == 2  # two steps: a tool round and the last
    assert not response.errors
    assert not response.notices


def test_a_denied_call_reads_as_rejected() -> None:
    items = [
        {"type": "start"},
        {"type": "tool-input-available", "toolCallId": "c", "toolName": "f", "input": {}},
        {"type": "tool-output-denied", "toolCallId": "c"},
        {"type": "finish"},
    ]
    response = collect_agent_response(list(decode_all(MODEL, items)))
    assert [m.content for m in response.tool_messages] == [DENIED]


def test_the_decoder_never_raises_and_keeps_what_it_can_read() -> None:
    items: list[Any] = [
        {"type": "start"},
        {"type": "text-start", "id": "t"},
        {"type": "text-delta", "id": "t", "delta": "Hello"},
        "not an object",
        {"no": "type"},
        {"type": "text-delta", "id": "t"},
        {"type": "tool-input-start", "toolCallId": 7, "toolName": "f"},
        {"type": "text-delta", "id": "other", "delta": "!"},
        {"type": "file", "url": "https://x", "mediaType": "image/png"},
        {"type": "data-weather", "data": {"t": 1}},
        {"type": "something-new"},
        {"type": "message-metadata", "messageMetadata": {"usage": {"inputTokens": "many"}}},
        {"type": DATA_ERROR, "data": {"errorCode": 5}},
        {"type": "text-delta", "id": "t", "delta": " world"},
        {"type": "text-end", "id": "t"},
        {"type": "finish"},
    ]
    decoder = UIMessageStreamDecoder()
    results = [r for item in items for r in decoder.feed(item)] + decoder.close()
    response = collect_agent_response(results)
    assert response.text == "Hello! world"
    invalid = [e.message for e in response.errors if e.error_code == ErrorCode.INVALID_CHUNK]
    assert [m.split(":")[0] for m in invalid] == [
        "chunk 4",
        "chunk 5",
        "chunk 6",
        "chunk 7",
        "chunk 8",
        "chunk 12",
        "chunk 13",
    ]
    (notice,) = response.notices
    assert notice.error_code == ErrorCode.UNRECOGNISED_CHUNKS
    assert notice.message.startswith("3 chunk(s)")


def test_a_stream_without_its_finish_is_truncated_and_its_open_call_incomplete() -> None:
    items = [
        {"type": "start"},
        {"type": "tool-input-start", "toolCallId": "c", "toolName": "f"},
        {"type": "tool-input-delta", "toolCallId": "c", "inputTextDelta": '{"a":'},
    ]
    response = collect_agent_response(list(decode_all(MODEL, items)))
    codes = [(e.error_code, e.call_id, e.raw) for e in response.errors]
    assert codes == [
        (ErrorCode.TOOL_CALL_INCOMPLETE, "c", '{"a":'),
        (ErrorCode.STREAM_TRUNCATED, None, None),
    ]


def test_no_chunk_of_any_shape_makes_the_decoder_raise() -> None:
    """Each field of each chunk of a few rich runs, replaced by a value of every JSON kind:
    the decoder answers, never raises."""
    mine = dict.fromkeys(("signature", "itemId", "summary", "redacted", "errorCode", "item"), 5)
    odd: list[Any] = [None, 5, -1.5, True, "", "x", [], {}, {"raf": 1}, {"raf": mine}, [{}]]
    names = ("gemini/", "anthropic_messages/thinking", "openai_responses/mcp", "approval#1")
    runs = [(n, r) for n, r in _runs() if n.endswith("@whole") or "#" in n]
    picked = [r for n, r in runs if any(word in n for word in names)][:8]
    assert picked
    for results in picked:
        items = list(encode_all(MODEL, results))
        for index, item in enumerate(items):
            for key in item:
                for value in odd:
                    broken = [*items[:index], {**item, key: value}, *items[index + 1 :]]
                    decoder = UIMessageStreamDecoder()
                    for each in broken:
                        decoder.feed(each)
                    decoder.close()


def _custom(kind: str, **payload: Any) -> AgentResponseResult:
    return AgentResponseResult(events=(events.Custom(event_type=kind, payload=payload),))


def _rich_run() -> tuple[AgentResponseResult, ...]:
    """A run with every part of a turn a provider requires back, a provider's tool with no
    call, an approval of a call never streamed, and a cancellation."""
    return (
        _custom("reasoning_item", item_id="rs_1", encrypted_content=None, summary=[]),
        AgentResponseResult(contents=(contents.Reasoning(delta="Think."),)),
        _custom("reasoning_item", item_id="rs_1", encrypted_content="ENC", summary=["Think."]),
        AgentResponseResult(contents=(contents.Reasoning(delta="More."),)),
        _custom("reasoning_signature", signature="SIG"),
        _custom("redacted_reasoning", data="REDACTED"),
        AgentResponseResult(contents=(contents.Text(delta="Hi"),)),
        _custom("part_signature", signature="TSIG", part="text"),
        _custom("part_signature", signature="ESIG", part="empty"),
        AgentResponseResult(contents=(contents.ToolCallStart(call_id="c", name="f"),)),
        _custom("part_signature", signature="CSIG", part="tool_call"),
        _custom("raw_item", item={"type": "compaction", "data": "x"}),
        AgentResponseResult(
            contents=(
                contents.ToolCalling(call_id="c", name="f", arguments={"a": 1}),
                contents.HostedToolResult(call_id="h", name="web_search", output={"n": 1}),
                contents.ToolApprovalRequest(
                    call_id="m", name="mcp", arguments={"q": 1}, description="Run it?"
                ),
                contents.Error(error_code=ErrorCode.CANCELLED, message="cancelled by the caller"),
            )
        ),
    )


def test_what_a_provider_requires_back_rides_on_the_parts() -> None:
    """Signatures, redacted reasoning and reasoning items are on the parts' providerMetadata;
    a signed tool call's signature, a compaction item, a provider's tool with no call, an
    approval of a call never streamed and a cancelled run all come back whole."""
    results = _rich_run()
    items = list(encode_all(MODEL, results))
    ends = [(i["type"], i.get("providerMetadata")) for i in items if i["type"].endswith("-end")]
    assert ends == [
        (
            "reasoning-end",
            {PROVIDER_KEY: {"itemId": "rs_1", "encryptedContent": "ENC", "summary": ["Think."]}},
        ),
        ("reasoning-end", {PROVIDER_KEY: {"signature": "SIG"}}),
        ("reasoning-end", {PROVIDER_KEY: {"redacted": "REDACTED"}}),
        ("text-end", {PROVIDER_KEY: {"signature": "TSIG"}}),
        ("text-end", {PROVIDER_KEY: {"signature": "ESIG"}}),
    ]
    (approval,) = [i for i in items if i["type"] == "tool-approval-request"]
    assert approval == {
        "type": "tool-approval-request",
        "approvalId": "m",
        "toolCallId": "m",
        "approvalDescriptor": {"description": "Run it?"},
    }
    assert items[-2:] == [
        {"type": "abort", "reason": "cancelled by the caller"},
        {"type": "finish", "finishReason": "error"},
    ]
    original = collect_agent_response(results)
    back = collect_agent_response(list(decode_all(MODEL, items)))
    assert to_canonical(back) == to_canonical(original)


def test_the_ai_sdk_reads_what_rides_on_the_parts() -> None:
    results = _rich_run()
    sse = _sse(list(encode_all(MODEL, results)))
    (got,) = _check({"streams": [{"name": "rich", "sse": sse}], "chat": True})["streams"]
    _assert_holds(results, got)
    parts = {p["toolCallId"]: p for p in got["message"]["parts"] if "toolCallId" in p}
    assert parts["m"]["approval"] == {"id": "m", "descriptor": {"description": "Run it?"}}
    assert (parts["h"]["state"], parts["h"]["output"]) == ("output-available", {"n": 1})


def _without_raf(value: Any) -> Any:
    """``value`` with every ``providerMetadata`` lacking raf's key (what native() removes)."""
    if isinstance(value, dict):
        out = {k: _without_raf(v) for k, v in value.items()}
        meta = out.get("providerMetadata")
        if isinstance(meta, dict):
            meta.pop(PROVIDER_KEY, None)
            if not meta:
                del out["providerMetadata"]
        return out
    return value


def test_a_front_end_that_knows_only_the_protocol_reads_the_turn_without_raf_s_data() -> None:
    """native() removes raf's data and nothing else: what is left is what a plain front end
    reads, and it still holds the text, the reasoning, the calls, the approval and the
    provider's tool; each text and reasoning part is a block (an empty part an empty one)."""
    results = _rich_run()
    items = list(encode_all(MODEL, results))
    assert MODEL.native is not None
    native = [n for n in (MODEL.native(i) for i in items) if n is not None]
    assert native == [
        _without_raf(i)
        for i in items
        if not i["type"].startswith("data-raf-") and i["type"] != "message-metadata"
    ]
    assert all(PROVIDER_KEY not in i.get("providerMetadata", {}) for i in native)
    original = collect_agent_response(results)
    back = collect_agent_response(list(decode_all(MODEL, native)))
    assert (back.text, back.reasoning_text) == (original.text, original.reasoning_text)
    assert back.tool_calls == original.tool_calls
    assert back.approval_requests == original.approval_requests
    assert [(h.id, h.name, h.output) for h in back.hosted_tool_calls] == [
        (h.id, h.name, h.output) for h in original.hosted_tool_calls
    ]
    # The reasoning parts: the item's, the signed one, the redacted (empty) one.
    (message,) = back.turn_transcript
    reasoning = [b for b in message.blocks if isinstance(b, blocks.Reasoning)]
    assert [(b.text, b.signature, b.redacted) for b in reasoning] == [
        ("Think.", None, None),
        ("More.", None, None),
        ("", None, None),
    ]
    assert [e.message for e in back.errors] == [e.message for e in original.errors]


def test_a_call_that_only_awaits_approval_is_told_apart_without_raf_s_data() -> None:
    """A tool part that did not stream and asks for approval at once is a request only (an
    MCP approval); a call that streamed, or did not but has its output, was made."""
    items = [
        {"type": "start"},
        {"type": "start-step"},
        {"type": "tool-input-available", "toolCallId": "m", "toolName": "mcp", "input": {}},
        {"type": "tool-approval-request", "approvalId": "m", "toolCallId": "m"},
        {"type": "tool-input-start", "toolCallId": "c", "toolName": "f"},
        {"type": "tool-input-available", "toolCallId": "c", "toolName": "f", "input": {}},
        {"type": "tool-approval-request", "approvalId": "c", "toolCallId": "c"},
        {"type": "tool-input-available", "toolCallId": "d", "toolName": "g", "input": {"x": 1}},
        {"type": "tool-output-available", "toolCallId": "d", "output": "ok"},
        {"type": "text-start", "id": "t"},
        {"type": "text-end", "id": "t"},
        {"type": "finish-step"},
        {"type": "finish", "finishReason": "tool-calls"},
    ]
    response = collect_agent_response(list(decode_all(MODEL, items)))
    assert [c.id for c in response.tool_calls] == ["c", "d"]
    assert [a.call_id for a in response.approval_requests] == ["m", "c"]
    (message, _) = response.turn_transcript
    assert message.blocks[-1] == blocks.Text(text="")
