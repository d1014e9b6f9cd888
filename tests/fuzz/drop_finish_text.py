"""A Chat Completions reader with one bug, speaking ``raf-conformance/1``: the text of a chunk
that also carries the finish reason is dropped (it takes such a chunk for a bare end marker).

Everything else is raf's own pipeline, so this is the one difference ``raf fuzz`` has to
find. Run as ``python tests/fuzz/drop_finish_text.py``.
"""

from __future__ import annotations

import base64
import json
import sys
from typing import Any

from raf.conformance.reference import output_for


def broken(body: bytes) -> bytes:
    """``body`` with the text of every chunk that carries a finish reason blanked."""
    lines = body.split(b"\n")
    for n, line in enumerate(lines):
        if not line.startswith(b"data:"):
            continue
        ending = b"\r" if line.endswith(b"\r") else b""
        try:
            chunk = json.loads(line[5:].strip())
        except ValueError:
            continue
        choices = chunk.get("choices") if isinstance(chunk, dict) else None
        changed = False
        for choice in choices if isinstance(choices, list) else []:
            if not isinstance(choice, dict) or not choice.get("finish_reason"):
                continue
            delta = choice.get("delta")
            if isinstance(delta, dict) and delta.get("content"):
                delta["content"] = ""  # the bug
                changed = True
        if changed:
            lines[n] = b"data: " + json.dumps(chunk).encode("utf-8") + ending
    return b"\n".join(lines)


def main() -> int:
    for line in sys.stdin.buffer:
        message = json.loads(line)
        kind = message.get("type")
        reply: dict[str, Any]
        if kind == "hello":
            reply = {
                "type": "hello",
                "protocol": "raf-conformance/1",
                "name": "drop-finish-text",
                "version": "1",
                "dialects": ["openai_chat"],
                "levels": ["response"],
                "capabilities": ["tool_calls", "reasoning", "usage", "error_codes"],
            }
        elif kind == "case":
            body = b"".join(base64.b64decode(c) for c in message["chunks"])
            output = output_for(message["status"], "", [broken(body)], message["dialect"])
            reply = {"type": "result", "id": message["id"], "response": output.response}
        else:
            return 0
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
