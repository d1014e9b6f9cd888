"""One tiny hand-written Chat Completions cassette per bug of ``tests/fuzz/broken``: the
provider quirk the bug gets wrong, in as few events as show it, with its reviewed ``expect``
block (what a correct client hands its user, checked by hand against the body and raf's
rules, docs/converter.md) and the kind of difference the bug makes of it.

``write(folder)`` writes them as ``folder/openai_chat/<scenario>.yaml``, the layout
``raf conform --cassettes folder`` reads.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ID = "chatcmpl-quirk"


def chunk(
    delta: dict[str, Any] | None = None, finish: str | None = None, **extra: Any
) -> dict[str, Any]:
    """A chat completion chunk of choice 0 (``choices=[]`` in ``extra`` for none)."""
    body: dict[str, Any] = {
        "id": ID,
        "object": "chat.completion.chunk",
        "created": 1764720000,
        "model": "gpt-4o-mini",
        "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}],
    }
    body.update(extra)
    return body


def call(index: int, call_id: str | None, name: str | None, arguments: str) -> dict[str, Any]:
    """One ``tool_calls`` entry of a delta."""
    entry: dict[str, Any] = {"index": index}
    function: dict[str, Any] = {"arguments": arguments}
    if call_id is not None:
        entry.update(id=call_id, type="function")
    if name is not None:
        function["name"] = name
    entry["function"] = function
    return entry


def sse(*chunks: dict[str, Any], done: bool = True, eol: str = "\n") -> bytes:
    """The SSE body: one ``data:`` event per chunk, then ``[DONE]``; ``eol`` ends each line."""
    events = [f"data: {json.dumps(c, separators=(',', ':'))}{eol}{eol}" for c in chunks]
    if done:
        events.append(f"data: [DONE]{eol}{eol}")
    return "".join(events).encode("utf-8")


USAGE = {"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12}
WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {}}}


def expect(
    *,
    text: str = "",
    tool_calls: tuple[dict[str, Any], ...] = (),
    finish_reason: str | None = "stop",
    usage: dict[str, int] | None = None,
    errors: tuple[str, ...] = (),
) -> dict[str, Any]:
    return {
        "text": text,
        "reasoning": None,
        "tool_calls": list(tool_calls),
        "finish_reason": finish_reason,
        "usage": usage,
        "errors": list(errors),
    }


@dataclass(frozen=True)
class QuirkCassette:
    """A cassette showing one quirk, and what the bug that trips on it does."""

    bug: str  # the --bug of tests/fuzz/broken/chat_client.*
    quirk: str  # the quirk's id in the catalogue (conformance/quirks.yaml)
    title: str
    body: bytes
    expect: dict[str, Any]
    kind: str  # the kind of difference the bug makes: lost, wrong, unreported, invented
    field: str  # the first field it gets wrong (the difference's path starts with it)
    tools: bool = False

    @property
    def scenario(self) -> str:
        return self.quirk

    def document(self) -> dict[str, Any]:
        request: dict[str, Any] = {
            "model": "gpt-4o-mini",
            "messages": [{"role": "user", "content": "Hi"}],
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if self.tools:
            request["tools"] = [WEATHER]
        return {
            "raf": {
                "scenario": self.scenario,
                "dialect": "openai_chat",
                "provider": "OpenAI-compatible server",
                "title": self.title,
                "reproduces": [f"the {self.bug} bug of tests/fuzz/broken"],
                "quirks": [self.quirk],
                "notes": f"Quirk {self.quirk}, in as few events as show it.",
                "expect": self.expect,
            },
            "interactions": [
                {
                    "request": {
                        "body": json.dumps(request, indent=2),
                        "headers": {"content-type": ["application/json"]},
                        "method": "POST",
                        "uri": "https://api.openai.com/v1/chat/completions",
                    },
                    "response": {
                        "body": {"string": self.body.decode("utf-8")},
                        "headers": {"content-type": ["text/event-stream; charset=utf-8"]},
                        "status": {"code": 200, "message": "OK"},
                    },
                }
            ],
            "version": 1,
        }


def weather(call_id: str, city: str) -> dict[str, Any]:
    return {"id": call_id, "name": "get_weather", "arguments": {"city": city}}


CASSETTES: tuple[QuirkCassette, ...] = (
    QuirkCassette(
        bug="index-only",
        quirk="index_always_zero",
        title="Two parallel calls, both at index 0, told apart by their ids",
        body=sse(
            chunk({"tool_calls": [call(0, "call_a", "get_weather", "")]}),
            chunk({"tool_calls": [call(0, None, None, '{"city":"Paris"}')]}),
            chunk({"tool_calls": [call(0, "call_b", "get_weather", "")]}),
            chunk({"tool_calls": [call(0, None, None, '{"city":"Rome"}')]}),
            chunk(finish="tool_calls"),
        ),
        expect=expect(
            tool_calls=(weather("call_a", "Paris"), weather("call_b", "Rome")),
            finish_reason="tool_calls",
        ),
        kind="lost",
        field="tool_calls",
        tools=True,
    ),
    QuirkCassette(
        bug="concat-names",
        quirk="name_every_delta",
        title="Every delta of a call repeats its id and name",
        body=sse(
            chunk({"tool_calls": [call(0, "call_a", "get_weather", '{"city":')]}),
            chunk({"tool_calls": [call(0, "call_a", "get_weather", '"Paris"}')]}),
            chunk(finish="tool_calls"),
        ),
        expect=expect(tool_calls=(weather("call_a", "Paris"),), finish_reason="tool_calls"),
        kind="wrong",
        field="tool_calls[0].name",
        tools=True,
    ),
    QuirkCassette(
        bug="keep-bom",
        quirk="leading_bom",
        title="The body starts with a byte-order mark",
        body=b"\xef\xbb\xbf" + sse(chunk({"content": "Hello"}), chunk(finish="stop")),
        expect=expect(text="Hello"),
        kind="lost",
        field="text",
    ),
    QuirkCassette(
        bug="cr-not-eol",
        quirk="cr_line_ends",
        title="Every line ends with a lone CR",
        body=sse(chunk({"content": "Hello"}), chunk(finish="stop"), eol="\r"),
        expect=expect(text="Hello"),
        kind="lost",
        field="text",
    ),
    QuirkCassette(
        bug="usage-null-erases",
        quirk="later_usage_null",
        title='A chunk after the usage chunk says "usage": null',
        body=sse(
            chunk({"content": "Hello"}, usage=None),
            chunk(finish="stop", usage=None),
            chunk(choices=[], usage=USAGE),
            chunk(choices=[], usage=None),
        ),
        expect=expect(text="Hello", usage=USAGE),
        kind="lost",
        field="usage",
    ),
    QuirkCassette(
        bug="partial-json",
        quirk="cut_in_arguments",
        title="The stream ends inside a call's arguments: no finish reason, no [DONE]",
        body=sse(
            chunk({"tool_calls": [call(0, "call_a", "get_weather", '{"city":"Pa')]}),
            done=False,
        ),
        expect=expect(finish_reason=None, errors=("stream_truncated", "tool_call_incomplete")),
        kind="invented",
        field="tool_calls",
        tools=True,
    ),
    QuirkCassette(
        bug="done-substring",
        quirk="done_in_text",
        title='The text itself says "[DONE]"',
        body=sse(chunk({"content": "Streams end with [DONE]."}), chunk(finish="stop")),
        expect=expect(text="Streams end with [DONE]."),
        kind="lost",
        field="text",
    ),
    QuirkCassette(
        bug="drop-finish-text",
        quirk="finish_with_text",
        title="The last text comes in the chunk that carries the finish reason",
        body=sse(chunk({"content": "Hel"}), chunk({"content": "lo"}, "stop")),
        expect=expect(text="Hello"),
        kind="lost",
        field="text",
    ),
)

BY_BUG = {c.bug: c for c in CASSETTES}


def write(folder: Path, cassettes: tuple[QuirkCassette, ...] = CASSETTES) -> Path:
    """Write the cassettes into ``folder/openai_chat/``; returns ``folder``."""
    target = folder / "openai_chat"
    target.mkdir(parents=True, exist_ok=True)
    for cassette in cassettes:
        text = yaml.safe_dump(cassette.document(), sort_keys=False, allow_unicode=False, width=100)
        (target / f"{cassette.scenario}.yaml").write_text(text, encoding="utf-8")
    return folder
