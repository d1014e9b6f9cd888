"""Formats raf recognises but does not read: a table, and how a body is matched against it.
No IO.

A body in one of these formats is no stream of any raf dialect: read as one (``--dialect
auto`` falls back to Chat Completions) none of its chunks is recognised, and the dialect ends
the stream with ``unrecognised_format`` naming the format from this table
(:func:`guess`). ``--dialect auto`` names it the same way (:func:`raf.dialects.sniff.unread`).
docs/dialects.md ("Formats raf recognises but does not read") shows the table; a test checks
that the document and :data:`UNREAD_FORMATS` agree.

Patterns are regular expressions over the raw bytes of the body (or of a chunk's JSON text),
like the ``sniff`` patterns of the dialects.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

__all__ = ["UNREAD_FORMATS", "UnreadFormat", "guess", "table"]


@dataclass(frozen=True)
class UnreadFormat:
    """One format raf recognises but does not read.

    Attributes:
        name: a short stable name (``legacy_completions``).
        title: what the format is, for people (``OpenAI legacy Completions``).
        looks_like: the shape that marks it, as the documentation shows it.
        patterns: regular expressions over the body's bytes; any match names the format.
    """

    name: str
    title: str
    looks_like: str
    patterns: tuple[bytes, ...]


UNREAD_FORMATS: tuple[UnreadFormat, ...] = (
    UnreadFormat(
        "assistants_runs",
        "the Assistants API's runs (/v1/threads/.../runs)",
        '`event: thread.run.created`, `"object": "thread.run"`, `thread.message.delta`',
        (
            rb'"object"\s*:\s*"thread\.(?:run|message|run\.step)(?:\.delta)?"',
            rb"event:\s*thread\.(?:run|message)",
        ),
    ),
    UnreadFormat(
        "writer",
        "Writer's completions stream",
        '`{"value": "..."}` chunks',
        (rb'(?:^|\n)(?:data:[ \t]*)?\{\s*"value"\s*:',),
    ),
    UnreadFormat(
        "bedrock_events",
        "Amazon Bedrock's InvokeModelWithResponseStream chunks, and ConverseStream decoded to "
        "JSON text (bedrock_converse reads ConverseStream's binary event stream)",
        '`{"bytes": "<base64>"}` (or `{"chunk": {"bytes": ...}}`), '
        '`{"contentBlockDelta": {...}}` or `{"messageStart": ...}` as text',
        (
            rb'"(?:messageStart|contentBlockStart|contentBlockDelta|contentBlockStop|'
            rb'messageStop)"\s*:\s*\{',
            rb'(?:^|\n|\{)\s*"(?:chunk"\s*:\s*\{\s*")?bytes"\s*:\s*"',
        ),
    ),
    UnreadFormat(
        "ollama_generate",
        "Ollama's native /api/generate (JSON lines; /api/chat is ollama_chat)",
        '`{"model": ..., "created_at": ..., "response": "...", "done": false}` lines',
        (
            rb'"created_at"\s*:\s*"[^"]*"\s*,\s*"response"\s*:',
            rb'"response"\s*:\s*"(?:[^"\\]|\\.)*"\s*,\s*"(?:thinking|done)"\s*:',
        ),
    ),
    UnreadFormat(
        "interactions_outputs",
        "Google's Interactions API in its removed outputs schema (gemini_interactions reads "
        "the steps schema)",
        '`"event_type": "interaction.start"`, `content.start` / `content.delta`, '
        "`interaction.complete`",
        (
            rb'"event_type"\s*:\s*"(?:interaction\.start|interaction\.complete|'
            rb'content\.(?:start|delta|stop))"',
            rb"event:\s*(?:interaction\.start|content\.(?:start|delta))",
        ),
    ),
    UnreadFormat(
        "json_rpc",
        "JSON-RPC messages (an MCP server's event stream), not a model's response",
        '`{"jsonrpc": "2.0", ...}`',
        (rb'"jsonrpc"\s*:\s*"2\.0"',),
    ),
)
"""Every format raf recognises but does not read, in the order they are tried."""


@cache
def _compiled() -> tuple[tuple[UnreadFormat, re.Pattern[bytes]], ...]:
    return tuple((f, re.compile(p)) for f in UNREAD_FORMATS for p in f.patterns)


def guess(body: bytes) -> UnreadFormat | None:
    """The format of :data:`UNREAD_FORMATS` whose pattern matches earliest in ``body``, or
    ``None`` when none does."""
    best: tuple[int, UnreadFormat] | None = None
    for found, pattern in _compiled():
        match = pattern.search(body)
        if match is not None and (best is None or match.start() < best[0]):
            best = (match.start(), found)
    return None if best is None else best[1]


def table() -> str:
    """The Markdown table of :data:`UNREAD_FORMATS` that docs/dialects.md holds (a test
    checks that the document has exactly this table)."""
    lines = ["| name | format | what marks it |", "|---|---|---|"]
    lines += [f"| `{f.name}` | {f.title} | {f.looks_like} |" for f in UNREAD_FORMATS]
    return "\n".join(lines) + "\n"
