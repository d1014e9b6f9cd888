"""A small Chat Completions stream parser, standing in for the client code you want to test.

It reads a whole body, frames it by the SSE rules that matter for Chat Completions (CR, LF
and CRLF line ends, comments, ``data:`` with or without the space, multi-line data, a
leading BOM) and aggregates text and tool calls by index. A call whose arguments never
arrived in a stream that was cut (no finish reason, no ``[DONE]``) is not reported: it may
have been cut before them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Parsed:
    text: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)


def parse(chunks: Iterable[bytes]) -> Parsed:
    text = b"".join(chunks).decode("utf-8", "replace").removeprefix("\ufeff")
    out, calls, data, finished = Parsed(), {}, [], False
    for line in re.split("\r\n|\r|\n", text):
        if line.startswith("data:"):
            data.append(line[6:] if line.startswith("data: ") else line[5:])
        elif line == "" and data:
            payload, data = "\n".join(data), []
            if payload == "[DONE]":
                finished = True
                break
            for choice in json.loads(payload).get("choices") or []:
                finished = finished or bool(choice.get("finish_reason"))
                delta = choice.get("delta") or {}
                out.text += delta.get("content") or ""
                for entry in delta.get("tool_calls") or []:
                    call = calls.setdefault(
                        entry["index"], {"id": entry.get("id"), "name": "", "arguments": ""}
                    )
                    call["name"] += entry.get("function", {}).get("name") or ""
                    call["arguments"] += entry.get("function", {}).get("arguments") or ""
    out.tool_calls = [
        {**c, "arguments": json.loads(c["arguments"] or "{}")}
        for c in calls.values()
        if c["arguments"] or finished
    ]
    return out
