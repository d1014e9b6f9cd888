"""The streams ``bench/peers.py`` serves to every library, one per format and workload.

One logical response (:func:`logical`: text deltas, then tool calls whose arguments
arrive in 8-byte fragments, then usage) is put on each format's wire as that format's servers
send it. The Chat Completions and Gemini bodies are the plain ones below; Anthropic's is
too, with the full usage in ``message_delta`` as the API sends it now (LangChain reads the
input tokens from there). The Responses body is built here with every event OpenAI sends
(``content_part.added`` before the text deltas, ``response.completed`` carrying the whole
output): the SDK's accumulator indexes into the parts the first events announce and returns
the output of ``response.completed``.

Every contender is reduced to :data:`Summary` (text, each call's name and parsed arguments,
prompt and completion tokens), the one thing all four formats carry, and compared with the
logical response by :func:`diff`.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from typing import Any

CHUNK = 4096
FORMATS = ("openai_chat", "anthropic_messages", "openai_responses", "gemini")

Summary = tuple[str, list[tuple[str, Any]], tuple[int, int] | None]
"""text, [(call name, parsed arguments)], (prompt tokens, completion tokens)."""


def _sse(events: Sequence[tuple[str | None, dict[str, Any]]], done: bool = False) -> bytes:
    out = []
    for name, payload in events:
        head = f"event: {name}\n" if name else ""
        out.append(f"{head}data: {json.dumps(payload, separators=(',', ':'))}\n\n")
    if done:
        out.append("data: [DONE]\n\n")
    return "".join(out).encode()


def logical(deltas: int, calls: int, arg_bytes: int) -> dict[str, Any]:
    words = ["Hel", "lo ", "wor", "ld, ", "this ", "is ", "a ", "stre", "am. "]
    text = [words[n % len(words)] for n in range(deltas)]
    tool_calls = []
    for n in range(calls):
        arguments = {"path": f"/tmp/file_{n}.txt", "content": ("x" * 7 + " ") * (arg_bytes // 8)}
        encoded = json.dumps(arguments, separators=(",", ":"))
        fragments = [encoded[i : i + 8] for i in range(0, len(encoded), 8)]
        tool_calls.append(
            {
                "id": f"call_{n:024d}",
                "name": "write_file",
                "args": arguments,
                "fragments": fragments,
            }
        )
    return {"text": text, "calls": tool_calls, "usage": (120, 4000, 4120)}


def openai_chat(r: dict[str, Any]) -> bytes:
    base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "gpt-4o"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> tuple[None, dict[str, Any]]:
        return None, {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": t}) for t in r["text"]]
    for n, call in enumerate(r["calls"]):
        events.append(
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": n,
                            "id": call["id"],
                            "type": "function",
                            "function": {"name": call["name"], "arguments": ""},
                        }
                    ]
                }
            )
        )
        events += [
            chunk({"tool_calls": [{"index": n, "function": {"arguments": f}}]})
            for f in call["fragments"]
        ]
    events.append(chunk({}, "tool_calls"))
    p, c, t = r["usage"]
    events.append(
        (None, {**base, "choices": [],
                "usage": {"prompt_tokens": p, "completion_tokens": c, "total_tokens": t}})
    )  # fmt: skip
    return _sse(events, done=True)


def _anthropic_messages(r: dict[str, Any]) -> bytes:
    p, c, _ = r["usage"]
    events: list[tuple[str | None, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": {
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [], "usage": {"input_tokens": p, "output_tokens": 1}}}),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": {"type": "text", "text": ""}}),
    ]  # fmt: skip
    events += [
        ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                 "delta": {"type": "text_delta", "text": t}})
        for t in r["text"]
    ]  # fmt: skip
    events.append(("content_block_stop", {"type": "content_block_stop", "index": 0}))
    for n, call in enumerate(r["calls"], 1):
        events.append(
            ("content_block_start", {"type": "content_block_start", "index": n,
             "content_block": {"type": "tool_use", "id": call["id"], "name": call["name"],
                               "input": {}}})
        )  # fmt: skip
        events += [
            ("content_block_delta", {"type": "content_block_delta", "index": n,
                                     "delta": {"type": "input_json_delta", "partial_json": f}})
            for f in call["fragments"]
        ]  # fmt: skip
        events.append(("content_block_stop", {"type": "content_block_stop", "index": n}))
    events.append(
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use"},
                           "usage": {"output_tokens": c}})
    )  # fmt: skip
    events.append(("message_stop", {"type": "message_stop"}))
    return _sse(events)


def _openai_responses(r: dict[str, Any]) -> bytes:
    p, c, t = r["usage"]
    seq = iter(range(10**9))

    def ev(kind: str, **fields: Any) -> tuple[str, dict[str, Any]]:
        return kind, {"type": kind, "sequence_number": next(seq), **fields}

    response = {"id": "resp_1", "object": "response", "model": "gpt-5", "status": "in_progress"}
    events = [ev("response.created", response=response)]
    message = {"type": "message", "id": "msg_1", "role": "assistant", "content": []}
    events.append(ev("response.output_item.added", output_index=0, item=message))
    events += [
        ev("response.output_text.delta", item_id="msg_1", output_index=0, content_index=0,
           delta=d, logprobs=[])
        for d in r["text"]
    ]  # fmt: skip
    text = [{"type": "output_text", "text": "".join(r["text"])}]
    events.append(
        ev("response.output_item.done", output_index=0, item={**message, "content": text})
    )
    for n, call in enumerate(r["calls"], 1):
        item = {"type": "function_call", "id": f"fc_{n}", "call_id": call["id"],
                "name": call["name"], "arguments": ""}  # fmt: skip
        events.append(ev("response.output_item.added", output_index=n, item=item))
        events += [
            ev("response.function_call_arguments.delta", item_id=f"fc_{n}", output_index=n, delta=f)
            for f in call["fragments"]
        ]
        whole = "".join(call["fragments"])
        events.append(ev("response.function_call_arguments.done", item_id=f"fc_{n}",
                         output_index=n, arguments=whole))  # fmt: skip
        events.append(ev("response.output_item.done", output_index=n,
                         item={**item, "arguments": whole, "status": "completed"}))  # fmt: skip
    usage = {"input_tokens": p, "output_tokens": c, "total_tokens": t}
    events.append(ev("response.completed", response={**response, "status": "completed",
                                                     "usage": usage}))  # fmt: skip
    return _sse(events)


def gemini(r: dict[str, Any]) -> bytes:
    p, c, t = r["usage"]

    def chunk(parts: list[dict[str, Any]], **extra: Any) -> tuple[None, dict[str, Any]]:
        candidate = {"content": {"role": "model", "parts": parts}, "index": 0, **extra}
        return None, {"candidates": [candidate], "modelVersion": "gemini-2.5-flash",
                      "responseId": "r1"}  # fmt: skip

    events = [chunk([{"text": d}]) for d in r["text"]]
    events += [chunk([{"functionCall": {"name": call["name"], "args": call["args"]}}])
               for call in r["calls"]]  # fmt: skip
    last = chunk([], finishReason="STOP")
    last[1]["usageMetadata"] = {"promptTokenCount": p, "candidatesTokenCount": c,
                                "totalTokenCount": t}  # fmt: skip
    events.append(last)
    return _sse(events)


_FORMATS: dict[str, Callable[[dict[str, Any]], bytes]] = {
    "openai_chat": openai_chat,
    "anthropic_messages": _anthropic_messages,
    "openai_responses": _openai_responses,
    "gemini": gemini,
}


def openai_responses(r: dict[str, Any]) -> bytes:
    """A Responses API stream of ``r`` with the events OpenAI sends around the deltas."""
    p, c, t = r["usage"]
    seq = iter(range(10**9))

    def ev(kind: str, **fields: Any) -> tuple[str, dict[str, Any]]:
        return kind, {"type": kind, "sequence_number": next(seq), **fields}

    response: dict[str, Any] = {
        "id": "resp_1", "object": "response", "created_at": 1741569952, "status": "in_progress",
        "model": "gpt-5", "output": [], "usage": None,
    }  # fmt: skip
    events = [ev("response.created", response=response)]
    events.append(ev("response.in_progress", response=response))
    output: list[dict[str, Any]] = []
    text = "".join(r["text"])
    if r["text"]:
        message = {
            "type": "message", "id": "msg_1", "status": "in_progress", "role": "assistant",
            "content": [],
        }  # fmt: skip
        part = {"type": "output_text", "text": "", "annotations": []}
        at = {"item_id": "msg_1", "output_index": 0, "content_index": 0}
        events.append(ev("response.output_item.added", output_index=0, item=message))
        events.append(ev("response.content_part.added", **at, part=part))
        events += [ev("response.output_text.delta", **at, delta=d, logprobs=[]) for d in r["text"]]
        events.append(ev("response.output_text.done", **at, text=text, logprobs=[]))
        done_part = {**part, "text": text}
        events.append(ev("response.content_part.done", **at, part=done_part))
        done = {**message, "status": "completed", "content": [done_part]}
        events.append(ev("response.output_item.done", output_index=0, item=done))
        output.append(done)
    for call in r["calls"]:
        n = len(output)
        item = {
            "type": "function_call", "id": f"fc_{n}", "call_id": call["id"], "name": call["name"],
            "arguments": "", "status": "in_progress",
        }  # fmt: skip
        events.append(ev("response.output_item.added", output_index=n, item=item))
        events += [
            ev("response.function_call_arguments.delta", item_id=f"fc_{n}", output_index=n, delta=f)
            for f in call["fragments"]
        ]
        whole = "".join(call["fragments"])
        events.append(ev("response.function_call_arguments.done", item_id=f"fc_{n}",
                         output_index=n, arguments=whole))  # fmt: skip
        done = {**item, "arguments": whole, "status": "completed"}
        events.append(ev("response.output_item.done", output_index=n, item=done))
        output.append(done)
    usage = {"input_tokens": p, "output_tokens": c, "total_tokens": t}
    completed = {**response, "status": "completed", "output": output, "usage": usage}
    events.append(ev("response.completed", response=completed))
    return _sse(events)


def anthropic_messages(r: dict[str, Any]) -> bytes:
    """``_anthropic_messages`` with the usage Anthropic's ``message_delta`` carries
    today: every count, input tokens included (LangChain reads them from there only)."""
    p, c, _ = r["usage"]
    old = f'"usage":{{"output_tokens":{c}}}'
    new = (
        f'"usage":{{"input_tokens":{p},"cache_creation_input_tokens":0,'
        f'"cache_read_input_tokens":0,"output_tokens":{c}}}'
    )
    body = _anthropic_messages(r).decode()
    assert body.count(old) == 1
    return body.replace(old, new).encode()


BUILDERS = {
    **_FORMATS,
    "anthropic_messages": anthropic_messages,
    "openai_responses": openai_responses,
}


@dataclasses.dataclass(frozen=True)
class Workload:
    """One format's body of one logical response, in 4 KiB reads, with the truth."""

    format: str
    name: str
    description: str
    chunks: tuple[bytes, ...]
    truth: Summary

    @property
    def tools(self) -> list[str]:
        """The names of the tools the stream calls (what a client would declare)."""
        return sorted({name for name, _ in self.truth[1]})

    @property
    def kilobytes(self) -> float:
        return sum(map(len, self.chunks)) / 1024


def truth(r: dict[str, Any]) -> Summary:
    p, c, _ = r["usage"]
    return "".join(r["text"]), [(call["name"], call["args"]) for call in r["calls"]], (p, c)


def workloads(
    formats: tuple[str, ...] = FORMATS, *, deltas: int = 3000, calls: int = 4, arg_bytes: int = 8000
) -> list[Workload]:
    """Per format: ``text`` (``deltas`` text deltas) and ``tools`` (a sentence, then
    ``calls`` calls of ``arg_bytes`` of arguments in 8-byte fragments)."""
    logicals = {
        "text": (logical(deltas, 0, 0), f"{deltas:,} text deltas"),
        "tools": (
            logical(9, calls, arg_bytes),
            f"{calls} calls x {arg_bytes:,} B arguments in 8 B fragments",
        ),
    }
    out = []
    for fmt in formats:
        for name, (r, description) in logicals.items():
            body = BUILDERS[fmt](r)
            chunks = tuple(body[i : i + CHUNK] for i in range(0, len(body), CHUNK))
            out.append(Workload(fmt, name, description, chunks, truth(r)))
    return out


def diff(got: Summary, want: Summary) -> str | None:
    """Why ``got`` is not ``want`` (the first difference), or ``None``."""
    text, calls, usage = got
    want_text, want_calls, want_usage = want
    if text != want_text:
        pairs = zip(text, want_text, strict=False)
        at = next((i for i, (a, b) in enumerate(pairs) if a != b), min(len(text), len(want_text)))
        return f"text differs at char {at} (got {len(text)} chars, want {len(want_text)})"
    if len(calls) != len(want_calls):
        return f"{len(calls)} tool calls (want {len(want_calls)})"
    for n, (call, want_call) in enumerate(zip(calls, want_calls, strict=True)):
        if call[0] != want_call[0]:
            return f"call {n}: name {call[0]!r} (want {want_call[0]!r})"
        if call[1] != want_call[1]:
            shown = "not parsed" if isinstance(call[1], str) else "differ"
            return f"call {n}: arguments {shown}"
    if usage != want_usage:
        return f"usage {usage} (want {want_usage})"
    return None


def parsed(text: str | None) -> Any:
    """Arguments text parsed, or the text itself when it is not JSON."""
    try:
        return json.loads(text or "")
    except ValueError:
        return text or ""
