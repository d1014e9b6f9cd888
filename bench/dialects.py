"""Throughput of each dialect relative to the Chat Completions path, on comparable streams.

One logical response (text in small deltas, then parallel tool calls whose arguments arrive
in small fragments, then usage) is put on the wire in each of the four formats, the way each
format's servers send it (Chat Completions chunks; Anthropic block events; Responses item
events; Gemini chunks, whose calls arrive whole). Each body is fed in 4 KiB network reads to
``raf.pipeline.run`` (every result consumed) and to ``respond``. Rounds are paired: in each
round every format runs once, in turn, so drift in machine speed hits all alike; the median
of the per-round ratios is printed (the Chat Completions time divided by the dialect's time:
1.0 means as fast, 0.5 half as fast). Every format's response is checked to be the same.

Run: ``python bench/dialects.py`` (``--rounds N``, ``--deltas N``, ``--calls N``,
``--arg-bytes N``).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from collections.abc import Callable
from typing import Any

from raf.pipeline import respond, run

CHUNK = 4096


def _sse(events: list[tuple[str | None, dict[str, Any]]], done: bool = False) -> bytes:
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


def anthropic_messages(r: dict[str, Any]) -> bytes:
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


def openai_responses(r: dict[str, Any]) -> bytes:
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


FORMATS: dict[str, Callable[[dict[str, Any]], bytes]] = {
    "openai_chat": openai_chat,
    "anthropic_messages": anthropic_messages,
    "openai_responses": openai_responses,
    "gemini": gemini,
}


def chunks(body: bytes) -> list[bytes]:
    return [body[i : i + CHUNK] for i in range(0, len(body), CHUNK)]


def timed(fn: Callable[[], object]) -> float:
    start = time.thread_time()
    fn()
    return time.thread_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--deltas", type=int, default=3000)
    parser.add_argument("--calls", type=int, default=4)
    parser.add_argument("--arg-bytes", type=int, default=8000)
    args = parser.parse_args()
    r = logical(args.deltas, args.calls, args.arg_bytes)
    bodies = {name: chunks(render(r)) for name, render in FORMATS.items()}
    summaries = set()
    for name, body in bodies.items():
        response = respond(body, name)
        assert not response.errors, (name, response.errors)
        calls = tuple(
            (c.name, json.dumps(c.arguments, sort_keys=True)) for c in response.tool_calls
        )
        summaries.add(
            (response.text, calls, response.usage.prompt_tokens if response.usage else None)
        )
    assert len(summaries) == 1, "the formats disagree"
    print(
        f"Python {platform.python_version()}; {args.deltas} text deltas, {args.calls} calls x "
        f"{args.arg_bytes} B arguments in 8-byte fragments; 4 KiB reads; "
        f"median of {args.rounds} paired rounds (thread CPU time)"
    )
    stages: list[tuple[str, Callable[[list[bytes], str], object]]] = [
        ("run()", lambda body, name: sum(1 for _ in run(body, name))),
        ("respond()", respond),
    ]
    for stage, fn in stages:
        ratios: dict[str, list[float]] = {name: [] for name in FORMATS}
        seconds: dict[str, list[float]] = {name: [] for name in FORMATS}
        for _ in range(args.rounds):
            times = {
                name: timed(lambda b=body, n=name, f=fn: f(b, n))  # type: ignore[misc]
                for name, body in bodies.items()
            }
            for name in FORMATS:
                ratios[name].append(times["openai_chat"] / times[name])
                seconds[name].append(times[name])
        print(f"\n{stage}")
        print(f"  {'dialect':20} {'body KB':>8} {'ms':>8} {'vs openai_chat':>15}")
        for name in FORMATS:
            size = sum(len(c) for c in bodies[name]) / 1024
            print(
                f"  {name:20} {size:8.0f} {statistics.median(seconds[name]) * 1000:8.1f} "
                f"{statistics.median(ratios[name]):15.2f}"
            )


if __name__ == "__main__":
    main()
