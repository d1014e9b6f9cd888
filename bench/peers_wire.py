"""The streams ``bench/peers.py`` serves to every library, one per format and workload.

One logical response (``dialects.logical``: text deltas, then tool calls whose arguments
arrive in 8-byte fragments, then usage) is put on each format's wire as that format's servers
send it. The Chat Completions and Gemini bodies are ``bench/dialects.py``'s; Anthropic's is
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
from typing import Any

import dialects

CHUNK = 4096
FORMATS = ("openai_chat", "anthropic_messages", "openai_responses", "gemini")

Summary = tuple[str, list[tuple[str, Any]], tuple[int, int] | None]
"""text, [(call name, parsed arguments)], (prompt tokens, completion tokens)."""


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
    return dialects._sse(events)


def anthropic_messages(r: dict[str, Any]) -> bytes:
    """``dialects.anthropic_messages`` with the usage Anthropic's ``message_delta`` carries
    today: every count, input tokens included (LangChain reads them from there only)."""
    p, c, _ = r["usage"]
    old = f'"usage":{{"output_tokens":{c}}}'
    new = (
        f'"usage":{{"input_tokens":{p},"cache_creation_input_tokens":0,'
        f'"cache_read_input_tokens":0,"output_tokens":{c}}}'
    )
    body = dialects.anthropic_messages(r).decode()
    assert body.count(old) == 1
    return body.replace(old, new).encode()


BUILDERS = {
    **dialects.FORMATS,
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
        "text": (dialects.logical(deltas, 0, 0), f"{deltas:,} text deltas"),
        "tools": (
            dialects.logical(9, calls, arg_bytes),
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
