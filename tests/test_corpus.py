"""Every real recorded stream of ../shared/corpus runs through the pipeline.

Streams of wire formats raf has no dialect for yet are skipped, with the format named in the
skip reason (``pytest -ra`` prints the counts).
"""

from __future__ import annotations

import json

import pytest

from raf.model import updates
from raf.pipeline import UpdateDecoder, respond
from tests import corpus
from tests.corpus import RecordedStream, recorded_streams
from tests.helpers import feed_all, split

STREAMS = recorded_streams()


@pytest.mark.parametrize("stream", corpus.params(STREAMS), ids=lambda s: s.name)
def test_recorded_stream_runs_through_the_pipeline(stream: RecordedStream) -> None:
    if stream.dialect is None:
        if stream.wire_format == "unknown":
            pytest.skip("not an LLM wire format (e.g. an MCP server's event stream)")
        pytest.skip(f"no raf dialect yet for {stream.wire_format}")
    runs = []
    for how in ("whole", "random"):
        decoder = UpdateDecoder(stream.dialect)
        runs.append(feed_all(decoder.feed, decoder.close, split(stream.body, how)))
    whole = runs[0]
    assert runs[1] == whole
    errors = [u for u in whole if isinstance(u, updates.Error)]
    # Real recordings are well-formed: the only errors are the ones the provider sent.
    assert {e.error_code for e in errors} <= {"provider_error"}, errors
    produced = [
        u
        for u in whole
        if isinstance(
            u,
            updates.TextDelta
            | updates.ReasoningDelta
            | updates.ToolCallDelta
            | updates.ToolCallStart,
        )
    ]
    assert produced or errors, "a recorded answer produced no text, reasoning or tool call"


def test_corpus_has_openai_chat_streams() -> None:
    corpus.require()
    assert sum(s.dialect == "openai_chat" for s in STREAMS) >= 50


def reference_aggregate(body: bytes) -> dict[str, object]:
    """A deliberately simple, independent reading of a recorded Chat Completions stream.

    Line-based (the recordings are LF-framed), json.loads per payload, choice 0 only, tool
    calls keyed by id (an id-less fragment continues the last call with that index), usage and
    finish reason the last ones that are not null.
    """
    text, reasoning = "", ""
    calls: dict[str, dict[str, str]] = {}
    last_id_by_index: dict[object, str] = {}
    finish = usage = None
    for line in body.decode("utf-8").split("\n"):
        if not line.startswith("data:"):
            continue
        payload = line[5:].strip()
        if payload == "[DONE]":
            break
        chunk = json.loads(payload)
        if chunk.get("usage"):
            usage = chunk["usage"]
        elif (chunk.get("x_groq") or {}).get("usage"):
            usage = chunk["x_groq"]["usage"]
        for choice in chunk.get("choices") or []:
            if choice.get("index", 0) not in (0, None):
                continue
            delta = choice.get("delta") or {}
            content = delta.get("content")
            if isinstance(content, str):
                text += content
            elif isinstance(content, list):
                for part in content:
                    if part.get("type") == "text":
                        text += part["text"]
                    elif part.get("type") == "thinking":
                        reasoning += "".join(p["text"] for p in part["thinking"])
            reasoning += delta.get("reasoning_content") or delta.get("reasoning") or ""
            for tc in delta.get("tool_calls") or []:
                index = tc.get("index")
                call_id = tc.get("id") or last_id_by_index[index]
                last_id_by_index[index] = call_id
                call = calls.setdefault(call_id, {"name": "", "arguments": ""})
                function = tc.get("function") or {}
                call["name"] = call["name"] or function.get("name") or ""
                call["arguments"] += function.get("arguments") or ""
            if choice.get("finish_reason"):
                finish = choice["finish_reason"]
    return {
        "text": text,
        "reasoning": reasoning or None,
        "tool_calls": [
            (i, c["name"], json.loads(c["arguments"] or "{}")) for i, c in calls.items()
        ],
        "finish_reason": finish,
        "usage": None
        if usage is None
        else (usage["prompt_tokens"], usage["completion_tokens"], usage["total_tokens"]),
    }


@pytest.mark.parametrize(
    "stream",
    corpus.params([s for s in STREAMS if s.dialect == "openai_chat"]),
    ids=lambda s: s.name,
)
def test_recorded_stream_aggregates_to_the_independent_reading(stream: RecordedStream) -> None:
    expected = reference_aggregate(stream.body)
    response = respond([stream.body], stream.dialect or "openai_chat")
    assert response.text == expected["text"]
    assert response.reasoning_text == expected["reasoning"]
    assert [(c.id, c.name, c.arguments) for c in response.tool_calls] == expected["tool_calls"]
    assert response.finish_reason == expected["finish_reason"]
    usage = response.usage
    assert (
        None
        if usage is None
        else (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens)
    ) == expected["usage"]
    assert {e.error_code for e in response.errors} <= {"provider_error"}


@pytest.mark.parametrize(
    "stream", corpus.params([s for s in STREAMS if s.dialect is None]), ids=lambda s: s.name
)
def test_item_14_a_recorded_stream_raf_does_not_read_is_never_a_silent_empty_answer(
    stream: RecordedStream,
) -> None:
    # --dialect auto on a recording in a format no dialect reads (the corpus has MCP servers'
    # JSON-RPC event streams): one error naming what it is, not an empty, clean response.
    response = respond([stream.body], "auto")
    assert [e.error_code for e in response.errors] == ["unrecognised_format"]
    assert (response.text, response.tool_calls, response.finish_reason) == ("", (), None)
