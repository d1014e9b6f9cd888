"""A deliberately slow Chat Completions client speaking raf-conformance/1 (standard library).

Its answers are right; its framing is not linear: on every network read it appends the read to
its buffer (a new copy of the whole buffer) and splits the whole buffer again to look for the
end of an event. While one long event arrives in pieces of a few bytes, every read costs the
length of what has arrived so far: N bytes in pieces of k cost about N²/2k bytes of work, the
way slow SSE framing under fragmented input behaved in real SDKs. ``raf cost`` must report it
(kind ``performance``); ``raf conform`` passes it.
"""

from __future__ import annotations

import base64
import json
import sys
from typing import Any

HELLO = {
    "type": "hello",
    "protocol": "raf-conformance/1",
    "name": "quadratic-client",
    "version": "1.0",
    "dialects": ["openai_chat"],
    "levels": ["response"],
    "capabilities": ["tool_calls"],
}


class SlowEventStream:
    """Bytes -> the ``data`` of each event, rescanning the whole buffer on every read."""

    def __init__(self) -> None:
        self.buffer = b""

    def feed(self, piece: bytes) -> list[str]:
        self.buffer += piece  # copies the whole buffer
        blocks = self.buffer.replace(b"\r\n", b"\n").split(b"\n\n")  # scans it all again
        self.buffer = blocks.pop()
        out = []
        for block in blocks:
            data = [
                line[5:].removeprefix(b" ")
                for line in block.split(b"\n")
                if line.startswith(b"data:")
            ]
            if data:
                out.append(b"\n".join(data).decode("utf-8", "replace"))
        return out


def answer(chunks: list[bytes]) -> dict[str, Any]:
    parser = SlowEventStream()
    text: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    finish = None
    for piece in chunks:
        for data in parser.feed(piece):
            if data == "[DONE]":
                continue
            chunk = json.loads(data)
            for choice in chunk.get("choices") or []:
                delta = choice.get("delta") or {}
                if delta.get("content"):
                    text.append(delta["content"])
                for call in delta.get("tool_calls") or []:
                    slot = calls.setdefault(call.get("index", 0), {"args": []})
                    slot.setdefault("id", call.get("id"))
                    function = call.get("function") or {}
                    if function.get("name"):
                        slot["name"] = function["name"]
                    slot["args"].append(function.get("arguments") or "")
                finish = choice.get("finish_reason") or finish
    tool_calls = [
        {
            "id": c.get("id"),
            "name": c.get("name"),
            "arguments": json.loads("".join(c["args"]) or "{}"),
        }
        for _, c in sorted(calls.items())
    ]
    return {"text": "".join(text), "tool_calls": tool_calls, "finish_reason": finish}


def main() -> int:
    for line in sys.stdin.buffer:
        message = json.loads(line)
        if message.get("type") == "hello":
            reply: dict[str, Any] = HELLO
        elif message.get("type") == "case":
            chunks = [base64.b64decode(c) for c in message.get("chunks") or []]
            reply = {"type": "result", "id": message["id"], "response": answer(chunks)}
        elif message.get("type") == "bye":
            return 0
        else:
            continue
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
