"""Throughput of each dialect relative to the Chat Completions path, on comparable streams.

One logical response (text in small deltas, then parallel tool calls whose arguments arrive
in small fragments, then usage) is put on the wire in each of the four formats, the way each
format's servers send it (Chat Completions chunks; Anthropic block events; Responses item
events; Gemini chunks, whose calls arrive whole). Each body is fed in 4 KiB network reads to
``raf.pipeline.run`` (every result consumed) and to ``respond``. Timing is the harness's
(bench/harness.py): thread CPU time, paired rounds in which every format runs once, back to
back, the order rotating; the median of the per-round ratios is printed (the Chat
Completions time divided by the dialect's time: 1.0 means as fast, 0.5 half as fast), with
its min-max. Every format's response is first checked against the logical one.

Run: ``python bench/dialects.py`` (``--rounds N``, ``--deltas N``, ``--calls N``,
``--arg-bytes N``).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from typing import Any

from harness import Contender, Settings, compare, metered, print_environment, table

from raf.collect import collect_agent_response
from raf.model import AgentResponse
from raf.pipeline import respond, run

CHUNK = 4096


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


Summary = tuple[str, tuple[tuple[str, str], ...], int | None]


def summary(response: AgentResponse) -> Summary:
    """Text, calls (name, canonical arguments) and prompt tokens: what every format carries."""
    calls = tuple((c.name, json.dumps(c.arguments, sort_keys=True)) for c in response.tool_calls)
    return response.text, calls, response.usage.prompt_tokens if response.usage else None


def expected(r: dict[str, Any]) -> Summary:
    calls = tuple((c["name"], json.dumps(c["args"], sort_keys=True)) for c in r["calls"])
    return "".join(r["text"]), calls, r["usage"][0]


def _checked(response: AgentResponse, want: Summary) -> str | None:
    if response.errors:
        return f"{len(response.errors)} error(s), first {response.errors[0].error_code}"
    return None if summary(response) == want else "its response differs from the logical one"


def contender(stage: str, name: str, body: list[bytes], want: Summary) -> Contender[Any]:
    """Format ``name`` through ``stage``: ``run()`` counts the results and drops them (its
    check collects an untimed pass), ``respond()`` aggregates."""
    if stage == "run()":

        def count() -> int:
            return sum(1 for _ in run(metered(body), name))

        def collected(_: int) -> str | None:
            return _checked(collect_agent_response(run(body, name)), want)

        return Contender(name, count, collected)

    def aggregate() -> AgentResponse:
        return respond(metered(body), name)

    def checked(response: AgentResponse) -> str | None:
        return _checked(response, want)

    return Contender(name, aggregate, checked)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--deltas", type=int, default=3000)
    parser.add_argument("--calls", type=int, default=4)
    parser.add_argument("--arg-bytes", type=int, default=8000)
    args = parser.parse_args()
    r = logical(args.deltas, args.calls, args.arg_bytes)
    bodies = {name: chunks(render(r)) for name, render in FORMATS.items()}
    settings = Settings()
    print_environment(settings=settings)
    print(
        f"{args.deltas} text deltas, {args.calls} calls x {args.arg_bytes} B arguments in "
        f"8-byte fragments; 4 KiB reads; {args.rounds} paired rounds"
    )
    for stage in ("run()", "respond()"):
        comparison = compare(
            [contender(stage, name, body, expected(r)) for name, body in bodies.items()],
            rounds=args.rounds,
            settings=settings,
        )
        rows = []
        for name, body in bodies.items():
            seconds = comparison.seconds(name)
            speed = comparison.speed(name)
            rows.append(
                [
                    name,
                    f"{sum(map(len, body)) / 1024:.0f}",
                    f"{seconds.median * 1000:.1f}" if seconds else "-",
                    speed.format() if speed else comparison.outcomes[name].verdict,
                ]
            )
        print(f"\n{stage}")
        print(table(["dialect", "body KB", "ms", "vs openai_chat"], rows))


if __name__ == "__main__":
    main()
