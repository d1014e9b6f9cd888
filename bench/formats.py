"""Every format raf reads, every workload, compact and spaced JSON: raf against that format's floor.

For each format (``raf.formats.names()``; Gemini twice: over SSE, and as ``gemini_array`` the
JSON array it streams without ``alt=sse``), the same logical responses are put on that
format's wire the way its servers send them, in two JSON styles:

* ``compact``: ``separators=(",", ":")``, non-ASCII as UTF-8 (what most servers send);
* ``spaced``: Python's ``json`` defaults, ``", "`` and ``": "``, non-ASCII as ``\\uXXXX``
  escapes (what a server that serialises with the defaults of Python and many other
  libraries sends).

Workloads (each checked against its ground truth before it is timed):

* ``text``: short text deltas, words of every UTF-8 length (1 to 4 bytes a character);
* ``tools``: 4 parallel calls of ~20 KB of JSON arguments each (a path, prose with escapes, a
  list of numbers) in 1-12 character fragments: interleaved at random where the format
  numbers the calls of one message (Chat Completions' ``index``), one after another where it
  streams one block or item at a time (Anthropic, Responses), each call whole in one frame
  where the format sends calls whole (Gemini, Ollama);
* ``big200`` and ``big50``: one call with one 200 KB (50 KB) string argument in 3-8 character
  fragments (the pair measures linearity);
* ``escapes``: one call whose 50 KB of argument text is about half ``\\n``, ``\\"`` and ``\\\\``
  escapes, in 3-8 character fragments.

A format without tool calls (legacy Completions) carries the long strings as text: ``big``
and ``escapes`` are then text deltas, ``tools`` does not apply.

Contenders, on the same bytes fed in 4 KiB reads (through ``harness.metered``):

* ``floor``: split the body into frames (SSE: events on blank lines, ``event:`` lines
  skipped, ``data: `` stripped, stop at ``[DONE]``; JSON lines: lines; a JSON array: its
  elements, split where Google's servers separate them, ``"\\r\\n,"``) and ``orjson.loads``
  each payload. Nothing else: the cheapest thing that still touches every byte and every
  JSON value of the format;
* ``run()``: ``raf.pipeline.run(chunks, format)`` iterated to the end, each result dropped;
  its check collects a separate, untimed pass;
* ``respond()``: ``raf.pipeline.respond(chunks, format)``.

All three run back to back in every paired round (bench/harness.py: thread CPU time, the
order rotating); the ratios are the floor's time over raf's, median (min-max) of rounds.
The 50 KB and 200 KB versions of ``big`` run in the same rounds, so their time ratio is
paired too.

Targets (PASS/FAIL per format; the exit status is 1 when any is missed):

* ``respond()`` >= 1.0x the floor (>= 1.3x for the compiled build), every workload and style;
* ``run()`` >= 0.5x the floor (>= 0.65x compiled), every workload and style;
* time(big200) / time(big50) <= 4.5 for ``run()`` and ``respond()`` (linear is 4);
* peak heap of ``respond()`` (tracemalloc) <= 2.2x the response's own size: what it carries,
  each value counted once, as the Python objects a caller reads (``sys.getsizeof`` of its
  text, and of each call's id, name and parsed arguments with all they hold). A copy of a
  value the response keeps besides (in its transcript) is not part of its own size.

Run: ``python bench/formats.py`` (``--format F`` repeatable, ``--style compact|spaced``,
``--quick`` for quarter-size workloads and 3 rounds, ``--rounds N``, ``--budget S``).
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import io
import json
import random
import struct
import sys
import time
import zlib
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import orjson
from harness import (
    Comparison,
    Contender,
    Settings,
    Targets,
    compare,
    metered,
    peak_heap,
    print_environment,
    raf_compiled,
    table,
)

import raf.formats
from raf.collect import collect_agent_response
from raf.dialects import Dialect
from raf.framing import aws_eventstream_encode as encode
from raf.model import AgentResponse, AgentResponseResult
from raf.pipeline import respond, run

CHUNK = 4096
_PRELUDE = struct.Struct(">II")  # an AWS event stream message's total and headers lengths
STYLES = ("compact", "spaced")
RESPOND_TARGET = {False: 1.0, True: 1.3}  # by raf_compiled()
RUN_TARGET = {False: 0.5, True: 0.65}
LINEARITY_TARGET = 4.5
HEAP_TARGET = 2.2
USAGE = (311, 4017)  # prompt and completion tokens of every workload

# Words of every UTF-8 length: 1 byte (ASCII), 2 (Latin, Cyrillic), 3 (CJK, kana, dashes),
# 4 (emoji).
_VOCABULARY = (
    "the quick brown fox jumps over a lazy dog while tokens stream in order parser buffer "
    "chunk event delta value result tool call argument json string café naïve résumé über "
    "straße façade año"
)
_WORDS = _VOCABULARY.split()
_TEXT_WORDS = [*_WORDS, "日本語", "テキスト", "中文", "данные", "🚀", "✓", "—"]


# -- the logical responses -----------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Call:
    """A tool call: its id, name, arguments, and its argument text (JSON) in fragments."""

    id: str
    name: str
    arguments: dict[str, Any]
    fragments: tuple[str, ...]

    @property
    def text(self) -> str:
        return "".join(self.fragments)


@dataclasses.dataclass(frozen=True)
class Logical:
    """One response, before it is put on a wire.

    Attributes:
        text: the text deltas, in order.
        calls: the tool calls.
        order: the call of each argument fragment, in the order a format that interleaves
            calls sends them (each call's fragments in their order; call n starts only
            after call n - 1 has, so a call's index is its rank of first appearance).
    """

    text: tuple[str, ...] = ()
    calls: tuple[Call, ...] = ()
    order: tuple[int, ...] = ()

    @property
    def finish(self) -> str:
        """raf's finish reason of the response."""
        return "tool_calls" if self.calls else "stop"


def _cut(rng: random.Random, text: str, lo: int, hi: int) -> tuple[str, ...]:
    """``text`` in pieces of ``lo`` to ``hi`` characters."""
    out, i = [], 0
    while i < len(text):
        n = rng.randint(lo, hi)
        out.append(text[i : i + n])
        i += n
    return tuple(out)


def _interleave(rng: random.Random, counts: Sequence[int]) -> tuple[int, ...]:
    """The calls of each fragment, interleaved at random: call n's fragments in order, call n
    starting only after call n - 1 has."""
    left = list(counts)
    started = 0
    out: list[int] = []
    while any(left):
        allowed = [n for n in range(min(started + 1, len(left))) if left[n]]
        n = rng.choice(allowed)
        started += n == started
        out.append(n)
        left[n] -= 1
    return tuple(out)


def _prose(rng: random.Random, chars: int) -> str:
    """Latin-1 prose of ``chars`` characters with newlines, tabs, quotes and backslashes (a
    few escapes in its JSON text)."""
    out: list[str] = []
    size = 0
    while size < chars:
        roll = rng.random()
        if roll < 0.06:
            piece = "\n"
        elif roll < 0.08:
            piece = "\t"
        elif roll < 0.10:
            piece = f' "{rng.choice(_WORDS)}"'
        elif roll < 0.11:
            piece = f" C:\\path\\{rng.choice(_WORDS)}"
        else:
            piece = " " + rng.choice(_WORDS)
        out.append(piece)
        size += len(piece)
    return "".join(out)[:chars]


def _escaped(rng: random.Random, chars: int) -> str:
    """A string whose JSON text (``chars`` characters) is about half escapes: ``\\n``, ``\\"``
    and ``\\\\`` between words of 1-3 letters."""
    out: list[str] = []
    size = 0
    while size < chars:
        if rng.random() < 0.45:
            out.append(rng.choice('\n"\\'))
            size += 2
        else:
            word = "".join(rng.choices("abcdefghij", k=rng.randint(1, 3)))
            out.append(word)
            size += len(word)
    return "".join(out)


def call_id(rng: random.Random) -> str:
    return "call_" + "".join(
        rng.choices("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop0123456789", k=24)
    )


def _calls(
    rng: random.Random, specs: Sequence[tuple[str, dict[str, Any]]], lo: int, hi: int
) -> Logical:
    """Calls ``(name, arguments)``, their argument text (as models write it: JSON with
    Python's separators, UTF-8) in ``lo``-``hi`` character fragments."""
    calls = tuple(
        Call(
            call_id(rng),
            name,
            arguments,
            _cut(rng, json.dumps(arguments, ensure_ascii=False), lo, hi),
        )
        for name, arguments in specs
    )
    return Logical(calls=calls, order=_interleave(rng, [len(c.fragments) for c in calls]))


def text_logical(deltas: int, seed: int = 1) -> Logical:
    rng = random.Random(seed)
    return Logical(text=tuple((" " if i else "") + rng.choice(_TEXT_WORDS) for i in range(deltas)))


def tools_logical(calls: int, argument_bytes: int, seed: int = 2) -> Logical:
    rng = random.Random(seed)
    specs: list[tuple[str, dict[str, Any]]] = []
    for i in range(calls):
        numbers = [rng.randrange(100_000) for _ in range(argument_bytes // 28)]
        content = _prose(rng, argument_bytes - len(json.dumps(numbers)) - 60)
        path = f"src/{rng.choice(['core', 'io', 'café', 'データ'])}/module_{i}.py"
        specs.append(("write_file", {"path": path, "content": content, "lines": numbers}))
    return _calls(rng, specs, 1, 12)


def big_logical(
    chars: int, *, escapes: bool = False, as_text: bool = False, seed: int = 3
) -> Logical:
    """One call with one long string argument (or, ``as_text``, that string as text deltas),
    in 3-8 character fragments; ``escapes``: the string of :func:`_escaped`."""
    rng = random.Random(seed + escapes)
    value = _escaped(rng, chars) if escapes else _prose(rng, chars)
    if as_text:
        return Logical(text=_cut(rng, value, 3, 8))
    return _calls(rng, [("save_document", {"content": value})], 3, 8)


# -- the wires -------------------------------------------------------------------------------

Dumps = Callable[[Any], str]
Frames = list[tuple[str | None, str, bool]]
"""A body's frames: (SSE event type or ``None``, payload, whether it is a usual delta frame:
a text delta or an argument fragment, or a whole call where the format sends calls whole)."""

DUMPS: dict[str, Dumps] = {
    "compact": lambda value: json.dumps(value, separators=(",", ":"), ensure_ascii=False),
    "spaced": json.dumps,
}


def openai_chat(r: Logical, dumps: Dumps) -> Frames:
    base = {
        "id": "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
        "object": "chat.completion.chunk",
        "created": 1741569952,
        "model": "gpt-4o-2024-08-06",
        "service_tier": "default",
        "system_fingerprint": "fp_f9f4fb6dbf",
    }

    def chunk(
        delta: dict[str, Any], finish: str | None = None, usual: bool = True
    ) -> tuple[None, str, bool]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return None, dumps({**base, "choices": [choice], "usage": None}), usual

    frames: Frames = [chunk({"role": "assistant", "content": "", "refusal": None}, usual=False)]
    frames += [chunk({"content": t}) for t in r.text]
    cursor = [0] * len(r.calls)
    for n in r.order:
        call = r.calls[n]
        if cursor[n] == 0:
            opening = {"index": n, "id": call.id, "type": "function",
                       "function": {"name": call.name, "arguments": ""}}  # fmt: skip
            frames.append(chunk({"tool_calls": [opening]}, usual=False))
        fragment = call.fragments[cursor[n]]
        cursor[n] += 1
        frames.append(chunk({"tool_calls": [{"index": n, "function": {"arguments": fragment}}]}))
    frames.append(chunk({}, r.finish, usual=False))
    p, c = USAGE
    usage = {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}
    frames.append((None, dumps({**base, "choices": [], "usage": usage}), False))
    frames.append((None, "[DONE]", False))
    return frames


def anthropic_messages(r: Logical, dumps: Dumps) -> Frames:
    p, c = USAGE

    def ev(kind: str, usual: bool = False, **fields: Any) -> tuple[str, str, bool]:
        return kind, dumps({"type": kind, **fields}), usual

    message = {"id": "msg_01XFDUDYJgAACzvnptvVoYEL", "type": "message", "role": "assistant",
               "model": "claude-sonnet-4-5-20250929", "content": [], "stop_reason": None,
               "stop_sequence": None, "usage": {"input_tokens": p, "output_tokens": 1}}  # fmt: skip
    frames: Frames = [ev("message_start", message=message), ev("ping")]
    block = 0
    if r.text:
        frames.append(
            ev("content_block_start", index=0, content_block={"type": "text", "text": ""})
        )
        frames += [
            ev("content_block_delta", True, index=0, delta={"type": "text_delta", "text": t})
            for t in r.text
        ]
        frames.append(ev("content_block_stop", index=0))
        block = 1
    for n, call in enumerate(r.calls, block):
        start = {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}
        frames.append(ev("content_block_start", index=n, content_block=start))
        frames += [
            ev("content_block_delta", True, index=n,
               delta={"type": "input_json_delta", "partial_json": f})
            for f in call.fragments
        ]  # fmt: skip
        frames.append(ev("content_block_stop", index=n))
    stop = "tool_use" if r.calls else "end_turn"
    frames.append(ev("message_delta", delta={"stop_reason": stop, "stop_sequence": None},
                     usage={"output_tokens": c}))  # fmt: skip
    frames.append(ev("message_stop"))
    return frames


def openai_responses(r: Logical, dumps: Dumps) -> Frames:
    p, c = USAGE
    seq = iter(range(10**9))

    def ev(kind: str, usual: bool = False, **fields: Any) -> tuple[str, str, bool]:
        return kind, dumps({"type": kind, "sequence_number": next(seq), **fields}), usual

    response = {"id": "resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b",
                "object": "response", "created_at": 1741476542, "status": "in_progress",
                "model": "gpt-5-2025-08-07", "output": [], "usage": None}  # fmt: skip
    frames: Frames = [ev("response.created", response=response),
                      ev("response.in_progress", response=response)]  # fmt: skip
    output = 0
    if r.text:
        item_id = "msg_67ccd2bf17f0819081ff3bb2cf6508e60bb6a6b452d3795b"
        message = {"id": item_id, "type": "message", "status": "in_progress", "content": [],
                   "role": "assistant"}  # fmt: skip
        part = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
        frames.append(ev("response.output_item.added", output_index=0, item=message))
        frames.append(ev("response.content_part.added", item_id=item_id, output_index=0,
                         content_index=0, part=part))  # fmt: skip
        frames += [
            ev("response.output_text.delta", True, item_id=item_id, output_index=0,
               content_index=0, delta=d, logprobs=[])
            for d in r.text
        ]  # fmt: skip
        whole = "".join(r.text)
        frames.append(ev("response.output_text.done", item_id=item_id, output_index=0,
                         content_index=0, text=whole, logprobs=[]))  # fmt: skip
        done_part = {**part, "text": whole}
        frames.append(ev("response.content_part.done", item_id=item_id, output_index=0,
                         content_index=0, part=done_part))  # fmt: skip
        finished = {**message, "status": "completed", "content": [done_part]}
        frames.append(ev("response.output_item.done", output_index=0, item=finished))
        output = 1
    for n, call in enumerate(r.calls, output):
        item_id = f"fc_{n:048d}"
        item = {"id": item_id, "type": "function_call", "status": "in_progress",
                "arguments": "", "call_id": call.id, "name": call.name}  # fmt: skip
        frames.append(ev("response.output_item.added", output_index=n, item=item))
        frames += [
            ev("response.function_call_arguments.delta", True, item_id=item_id, output_index=n,
               delta=f)
            for f in call.fragments
        ]  # fmt: skip
        frames.append(ev("response.function_call_arguments.done", item_id=item_id,
                         output_index=n, arguments=call.text))  # fmt: skip
        frames.append(ev("response.output_item.done", output_index=n,
                         item={**item, "status": "completed", "arguments": call.text}))  # fmt: skip
    usage = {"input_tokens": p, "input_tokens_details": {"cached_tokens": 0},
             "output_tokens": c, "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": p + c}  # fmt: skip
    frames.append(ev("response.completed",
                     response={**response, "status": "completed", "usage": usage}))  # fmt: skip
    return frames


def gemini(r: Logical, dumps: Dumps) -> Frames:
    p, c = USAGE

    def chunk(parts: list[dict[str, Any]], usual: bool, finish: str | None = None,
              candidates: int = 1) -> tuple[None, str, bool]:  # fmt: skip
        candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
        if finish:
            candidate["finishReason"] = finish
        usage = {"promptTokenCount": p, "candidatesTokenCount": candidates,
                 "totalTokenCount": p + candidates}  # fmt: skip
        payload = {"candidates": [candidate], "usageMetadata": usage,
                   "modelVersion": "gemini-2.5-flash",
                   "responseId": "mCnWaK2lBM2NqtsPiN7h4QU"}  # fmt: skip
        return None, dumps(payload), usual

    frames: Frames = [chunk([{"text": t}], True, candidates=n) for n, t in enumerate(r.text, 1)]
    frames += [
        chunk([{"functionCall": {"name": call.name, "args": call.arguments}}], True, candidates=n)
        for n, call in enumerate(r.calls, 1)
    ]
    frames.append(chunk([{"text": ""}], False, "STOP", candidates=c))
    return frames


def ollama_chat(r: Logical, dumps: Dumps) -> Frames:
    p, c = USAGE
    base = {"model": "qwen3:8b", "created_at": "2025-08-20T14:02:11.482163Z"}

    def line(message: dict[str, Any], usual: bool = True, **done: Any) -> tuple[None, str, bool]:
        return None, dumps({**base, "message": {"role": "assistant", **message},
                            "done": bool(done), **done}), usual  # fmt: skip

    frames: Frames = [line({"content": t}) for t in r.text]
    frames += [
        line({"content": "", "tool_calls": [{"id": call.id, "function": {
            "index": n, "name": call.name, "arguments": call.arguments}}]})
        for n, call in enumerate(r.calls)
    ]  # fmt: skip
    frames.append(line({"content": ""}, False, done_reason="stop", total_duration=4883583458,
                       load_duration=1334875, prompt_eval_count=p, prompt_eval_duration=8243000,
                       eval_count=c, eval_duration=4872000000))  # fmt: skip
    return frames


def openai_completions(r: Logical, dumps: Dumps) -> Frames:
    base = {"id": "cmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT", "object": "text_completion",
            "created": 1741569952, "model": "gpt-3.5-turbo-instruct"}  # fmt: skip

    def chunk(text: str, finish: str | None = None, usual: bool = True) -> tuple[None, str, bool]:
        choice = {"text": text, "index": 0, "logprobs": None, "finish_reason": finish}
        return None, dumps({**base, "choices": [choice], "usage": None}), usual

    frames: Frames = [chunk(t) for t in r.text]
    frames.append(chunk("", r.finish, usual=False))
    p, c = USAGE
    usage = {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}
    frames.append((None, dumps({**base, "choices": [], "usage": usage}), False))
    frames.append((None, "[DONE]", False))
    return frames


def cohere_v2(r: Logical, dumps: Dumps) -> Frames:
    p, c = USAGE

    def ev(kind: str, usual: bool = False, **fields: Any) -> tuple[str, str, bool]:
        return kind, dumps({"type": kind, **fields}), usual

    start = {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": [],
             "citations": []}  # fmt: skip
    frames: Frames = [
        (
            "message-start",
            dumps({"id": "3ec845ed-ebb1-4223-9648-4e5632d5c6b5", "type": "message-start",
                   "delta": {"message": start}}),
            False,
        )
    ]  # fmt: skip
    if r.text:
        frames.append(ev("content-start", index=0,
                         delta={"message": {"content": {"type": "text", "text": ""}}}))  # fmt: skip
        frames += [
            ev("content-delta", True, index=0, delta={"message": {"content": {"text": t}}})
            for t in r.text
        ]
        frames.append(ev("content-end", index=0))
    for n, call in enumerate(r.calls):
        function = {"name": call.name, "arguments": ""}
        opened = {"id": call.id, "type": "function", "function": function}
        frames.append(ev("tool-call-start", index=n, delta={"message": {"tool_calls": opened}}))
        frames += [
            ev("tool-call-delta", True, index=n,
               delta={"message": {"tool_calls": {"function": {"arguments": f}}}})
            for f in call.fragments
        ]  # fmt: skip
        frames.append(ev("tool-call-end", index=n))
    usage = {"billed_units": {"input_tokens": p, "output_tokens": c},
             "tokens": {"input_tokens": p, "output_tokens": c}}  # fmt: skip
    finish = "TOOL_CALL" if r.calls else "COMPLETE"
    frames.append(ev("message-end", delta={"finish_reason": finish, "usage": usage}))
    frames.append((None, "[DONE]", False))
    return frames


def bedrock_converse(r: Logical, dumps: Dumps) -> Frames:
    """ConverseStream as Bedrock streams it: text without ``contentBlockStart``, each call a
    block of its own (start, input fragments, stop), ``messageStop``, then ``metadata``; each
    payload one event stream message named by its event type (:func:`frame`)."""
    p, c = USAGE

    def ev(kind: str, usual: bool = False, **fields: Any) -> tuple[str, str, bool]:
        return kind, dumps(fields), usual

    frames: Frames = [ev("messageStart", role="assistant")]
    block = 0
    if r.text:
        frames += [
            ev("contentBlockDelta", True, contentBlockIndex=0, delta={"text": t}) for t in r.text
        ]
        frames.append(ev("contentBlockStop", contentBlockIndex=0))
        block = 1
    for n, call in enumerate(r.calls, block):
        tool = {"toolUse": {"toolUseId": call.id, "name": call.name}}
        frames.append(ev("contentBlockStart", contentBlockIndex=n, start=tool))
        frames += [
            ev("contentBlockDelta", True, contentBlockIndex=n, delta={"toolUse": {"input": f}})
            for f in call.fragments
        ]
        frames.append(ev("contentBlockStop", contentBlockIndex=n))
    frames.append(ev("messageStop", stopReason="tool_use" if r.calls else "end_turn"))
    usage = {"inputTokens": p, "outputTokens": c, "totalTokens": p + c}
    frames.append(ev("metadata", usage=usage, metrics={"latencyMs": 1754}))
    return frames


def gemini_interactions(r: Logical, dumps: Dumps) -> Frames:
    """The Interactions API's steps stream: ``interaction.created``, a ``model_output`` step
    of text deltas, a ``function_call`` step per call with its ``arguments_delta`` fragments,
    ``interaction.completed`` with the usage, then ``event: done`` / ``[DONE]``."""
    p, c = USAGE
    interaction_id = "v1_ChdUR3NIYXVyQkFlYVA2ZGtQajZERThBVRIXVEdzSGF1ckJBZWFQNmRrUGo2REU4QVU"
    interaction = {"id": interaction_id, "status": "in_progress", "object": "interaction"}

    def ev(kind: str, usual: bool = False, **fields: Any) -> tuple[str, str, bool]:
        return kind, dumps({**fields, "event_type": kind}), usual

    frames: Frames = [
        ev("interaction.created", interaction={**interaction, "model": "gemini-2.5-flash"}),
        ev("interaction.status_update", interaction_id=interaction_id, status="in_progress"),
    ]
    step = 0
    if r.text:
        frames.append(ev("step.start", index=0, step={"type": "model_output"}))
        frames += [
            ev("step.delta", True, index=0, delta={"text": t, "type": "text"}) for t in r.text
        ]
        frames.append(ev("step.stop", index=0))
        step = 1
    for n, call in enumerate(r.calls, step):
        opened = {"id": call.id, "signature": "", "type": "function_call", "name": call.name,
                  "arguments": {}}  # fmt: skip
        frames.append(ev("step.start", index=n, step=opened))
        frames += [
            ev("step.delta", True, index=n, delta={"arguments": f, "type": "arguments_delta"})
            for f in call.fragments
        ]
        frames.append(ev("step.stop", index=n))
    usage = {"total_tokens": p + c, "total_input_tokens": p, "total_output_tokens": c}
    status = "requires_action" if r.calls else "completed"
    done = {**interaction, "status": status, "model": "gemini-2.5-flash", "usage": usage}
    frames.append(ev("interaction.completed", interaction=done))
    frames.append(("done", "[DONE]", False))
    return frames


@dataclasses.dataclass(frozen=True)
class Wire:
    """How a format is put on the wire: its frames, and its framing (``sse``, ``json_lines``,
    or ``json_array``: Gemini without ``alt=sse``, elements joined with ``"\\r\\n,"``)."""

    render: Callable[[Logical, Dumps], Frames]
    framing: str = "sse"  # or "json_lines"
    tools: bool = True  # whether the format has tool calls
    ids: bool = True  # whether its calls carry ids
    whole_calls: bool = False  # whether a call arrives whole, in one frame
    # Whether its usual frames differ only in one string, so that templates can read them;
    # Gemini's carry usage counts that grow with every chunk, as Google sends them: there
    # the typed decoder is the fast path.
    templated: bool = True
    end: bytes | None = None  # the data that ends the stream (the floor stops there)
    dialect: str = ""  # the format raf reads it as, when not the wire's own name
    # Whether raf's dialect has fast paths (templates, a typed decoder) for the usual frames;
    # without, every payload takes the shared path's full decode, once.
    fast_paths: bool = True


WIRES: dict[str, Wire] = {
    "openai_chat": Wire(openai_chat, end=b"[DONE]"),
    "anthropic_messages": Wire(anthropic_messages),
    "openai_responses": Wire(openai_responses),
    "gemini": Wire(gemini, ids=False, whole_calls=True, templated=False),
    "gemini_array": Wire(
        gemini,
        framing="json_array",
        ids=False,
        whole_calls=True,
        dialect="gemini",
        templated=False,
    ),
    "ollama_chat": Wire(ollama_chat, framing="json_lines", whole_calls=True),
    "openai_completions": Wire(openai_completions, tools=False, end=b"[DONE]"),
    "cohere_v2": Wire(cohere_v2, end=b"[DONE]"),
    "bedrock_converse": Wire(bedrock_converse, framing="aws_eventstream", fast_paths=False),
    "gemini_interactions": Wire(gemini_interactions, end=b"[DONE]", fast_paths=False),
}


def frame(frames: Frames, framing: str) -> bytes:
    """The body of ``frames``: SSE blocks (``event:`` line when typed), JSON lines, or AWS
    event stream messages (each named by its type, as Bedrock sends them)."""
    if framing == "aws_eventstream":
        return b"".join(encode.event(kind or "", payload.encode()) for kind, payload, _ in frames)
    if framing == "json_lines":
        return "".join(f"{payload}\n" for _, payload, _ in frames).encode()
    if framing == "json_array":  # as Google sends it: "[", elements joined by "\r\n,", "\r\n]"
        return ("[" + "\r\n,".join(payload for _, payload, _ in frames) + "\r\n]").encode()
    return "".join(
        (f"event: {kind}\n" if kind else "") + f"data: {payload}\n\n" for kind, payload, _ in frames
    ).encode()


# -- workloads -------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Workload:
    """One logical response on one format's wire, in one style.

    Attributes:
        format, name, style: what it is.
        truth: the logical response (the ground truth).
        body: the bytes; ``chunks`` the 4 KiB reads.
        frames: the payloads the floor decodes (an end marker excluded).
        usual: how many of them are the format's usual delta frames (text deltas, argument
            fragments, whole calls): the ones the fast paths are for.
    """

    format: str
    name: str
    style: str
    truth: Logical
    body: bytes
    chunks: tuple[bytes, ...]
    frames: int
    usual: int

    @property
    def label(self) -> str:
        return f"{self.format} {self.name} {self.style}"

    @property
    def dialect(self) -> str:
        """The name raf reads the body with."""
        return WIRES[self.format].dialect or self.format

    @property
    def megabytes(self) -> float:
        return len(self.body) / 1e6


def make(name: str, logical: Logical, fmt: str, style: str) -> Workload:
    wire = WIRES[fmt]
    frames = wire.render(logical, DUMPS[style])
    body = frame(frames, wire.framing)
    ends = {b"[DONE]"} if wire.end else set()
    payloads = sum(payload.encode() not in ends for _, payload, _ in frames)
    usual = sum(u for _, _, u in frames)
    chunks = tuple(body[i : i + CHUNK] for i in range(0, len(body), CHUNK))
    return Workload(fmt, name, style, logical, body, chunks, payloads, usual)


WORKLOADS = ("text", "tools", "big200", "big50", "escapes")


@functools.cache
def logicals(scale: int = 1, *, tools: bool = True) -> dict[str, Logical]:
    """The logical responses by workload name (``scale`` 4: a quarter of the size); without
    ``tools``, the long strings as text and no ``tools`` workload."""
    out = {"text": text_logical(5000 // scale)}
    if tools:
        out["tools"] = tools_logical(4, 20_000 // scale)
    out["big200"] = big_logical(200_000 // scale, as_text=not tools)
    out["big50"] = big_logical(50_000 // scale, as_text=not tools)
    out["escapes"] = big_logical(50_000 // scale, escapes=True, as_text=not tools)
    return out


def workloads(fmt: str, style: str, scale: int = 1) -> dict[str, Workload]:
    """Every workload of ``fmt`` in ``style``, by name."""
    return {
        name: make(name, logical, fmt, style)
        for name, logical in logicals(scale, tools=WIRES[fmt].tools).items()
    }


# -- checks ----------------------------------------------------------------------------------


def check(response: AgentResponse, w: Workload) -> str | None:
    """Why raf's ``response`` is not ``w``'s truth (the first difference), or ``None``: text,
    each call's name, id (where the format has ids) and parsed arguments, the finish reason
    and the usage."""
    truth = w.truth
    if response.errors:
        first = response.errors[0]
        return f"{len(response.errors)} error(s), first {first.error_code}: {first.message[:120]}"
    want_text = "".join(truth.text)
    if response.text != want_text:
        pairs = zip(response.text, want_text, strict=False)
        at = next(
            (i for i, (a, b) in enumerate(pairs) if a != b), min(len(response.text), len(want_text))
        )
        return f"text differs at char {at} (got {len(response.text)} chars, want {len(want_text)})"
    if len(response.tool_calls) != len(truth.calls):
        return f"{len(response.tool_calls)} tool calls (want {len(truth.calls)})"
    for n, (got, want) in enumerate(zip(response.tool_calls, truth.calls, strict=True)):
        if got.name != want.name:
            return f"call {n}: name {got.name!r} (want {want.name!r})"
        if WIRES[w.format].ids and got.id != want.id:
            return f"call {n}: id {got.id!r} (want {want.id!r})"
        if got.arguments != want.arguments:
            if isinstance(got.arguments, str):
                return f"call {n}: arguments not parsed ({len(got.arguments)} characters of text)"
            wrong = [k for k, v in want.arguments.items() if got.arguments.get(k) != v]
            return f"call {n}: arguments differ (wrong values for {wrong})"
    if response.finish_reason != truth.finish:
        return f"finish_reason {response.finish_reason!r} (want {truth.finish!r})"
    usage = response.usage
    counts = (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) if usage else None
    p, c = USAGE
    if counts != (p, c, p + c):
        return f"usage {counts} (want {(p, c, p + c)})"
    return None


# -- contenders ------------------------------------------------------------------------------


def _sse_floor(chunks: Iterable[bytes], end: bytes | None) -> int:
    """Split SSE events on blank lines, skip an ``event:`` line, strip ``data: ``, stop at
    ``end``, ``orjson.loads`` each payload; the number decoded. An event that spans reads is
    joined once, when its end arrives, so a long event costs no more than its bytes."""
    loads = orjson.loads
    count = 0
    pending: list[bytes] = []  # the reads of an unfinished event
    for chunk in chunks:
        if b"\n\n" not in chunk and not (
            pending and chunk[:1] == b"\n" and pending[-1][-1:] == b"\n"
        ):
            pending.append(chunk)
            continue
        data = b"".join((*pending, chunk)) if pending else chunk
        *events, rest = data.split(b"\n\n")
        pending = [rest] if rest else []
        for event in events:
            # "event: <type>" then "data: ...", or "data: ..." alone
            payload = event[event.index(b"\n") + 7 :] if event[:1] == b"e" else event[6:]
            if payload == end:
                return count
            loads(payload)
            count += 1
    return count


def _lines_floor(chunks: Iterable[bytes]) -> int:
    """Split JSON lines, ``orjson.loads`` each; the number decoded."""
    loads = orjson.loads
    count = 0
    pending: list[bytes] = []
    for chunk in chunks:
        if b"\n" not in chunk:
            pending.append(chunk)
            continue
        data = b"".join((*pending, chunk)) if pending else chunk
        *lines, rest = data.split(b"\n")
        pending = [rest] if rest else []
        for line in lines:
            loads(line)
            count += 1
    return count


def _array_floor(chunks: Iterable[bytes]) -> int:
    """Split a JSON array of objects where Google's servers separate them (``"\\r\\n,"``),
    drop the brackets, ``orjson.loads`` each element; the number decoded."""
    loads = orjson.loads
    count = 0
    pending: list[bytes] = []
    tail = b""  # the last two bytes of pending: a separator may span reads
    start = True
    for chunk in chunks:
        if b"\r\n," not in chunk and b"\r\n," not in tail + chunk[:2]:
            pending.append(chunk)
            tail = (tail + chunk)[-2:]
            continue
        data = b"".join((*pending, chunk)) if pending else chunk
        *items, rest = data.split(b"\r\n,")
        pending = [rest] if rest else []
        tail = rest[-2:]
        for item in items:
            loads(item[1:] if start else item)  # the first after "["
            start = False
            count += 1
    last = b"".join(pending)
    loads(last[1 if start else 0 : -3])  # before "\r\n]"
    return count + 1


def _eventstream_floor(chunks: Iterable[bytes]) -> int:
    """Split AWS event stream messages by their lengths, check each message's CRC (what makes
    the bytes trustworthy, as the prelude CRC is, which is 8 bytes), ``orjson.loads`` each
    payload; the number decoded."""
    loads = orjson.loads
    crc32 = zlib.crc32
    count = 0
    held = b""
    for chunk in chunks:
        data = held + chunk if held else chunk
        pos = 0
        end = len(data)
        while end - pos >= 12:
            total, headers = _PRELUDE.unpack_from(data, pos)
            if end - pos < total:
                break
            crc_at = pos + total - 4
            if crc32(data[pos:crc_at]) != int.from_bytes(data[crc_at : crc_at + 4], "big"):
                raise ValueError(f"message CRC at byte {pos}")
            loads(data[pos + 12 + headers : crc_at])
            count += 1
            pos += total
        held = data[pos:]
    return count


def floor(w: Workload, name: str = "floor") -> Contender[int]:
    """The format's floor: frames split, each payload decoded by orjson, nothing else."""
    wire = WIRES[w.format]

    def go() -> int:
        if wire.framing == "json_lines":
            return _lines_floor(metered(w.chunks))
        if wire.framing == "json_array":
            return _array_floor(metered(w.chunks))
        if wire.framing == "aws_eventstream":
            return _eventstream_floor(metered(w.chunks))
        return _sse_floor(metered(w.chunks), wire.end)

    def checked(count: int) -> str | None:
        return None if count == w.frames else f"decoded {count} payloads (want {w.frames})"

    return Contender(name, go, checked)


def run_contender(
    w: Workload, name: str = "run()", *, join: bool = False
) -> Contender[tuple[int, AgentResponseResult]]:
    """``run()``: every result handled and dropped; returns the count and the last one.
    ``join``: with ``join_fragments=True`` (one ``ToolCallArgs`` per read and call)."""

    def go() -> tuple[int, AgentResponseResult]:
        count = 0
        for last in run(metered(w.chunks), w.dialect, join_fragments=join):  # noqa: B007
            count += 1
        return count, last

    def checked(got: tuple[int, AgentResponseResult]) -> str | None:
        results = list(run(w.chunks, w.dialect, join_fragments=join))  # the untimed pass
        problem = check(collect_agent_response(results), w)
        count, last = got
        if problem is None and (
            count != len(results) or last.finish_reason != results[-1].finish_reason
        ):
            problem = "the timed pass yielded other results than the checked pass"
        return problem

    return Contender(name, go, checked)


def respond_contender(
    w: Workload, name: str = "respond()", dialect: Callable[[], str | Dialect] | None = None
) -> Contender[AgentResponse]:
    """``respond()``: the aggregated response (``dialect``: a factory of the dialect object
    to read with, so that a test can look at it afterwards)."""

    def go() -> AgentResponse:
        return respond(metered(w.chunks), w.dialect if dialect is None else dialect())

    return Contender(name, go, lambda response: check(response, w))


# -- the report ------------------------------------------------------------------------------


@dataclasses.dataclass
class Cell:
    """One workload in one style of one format: its comparison and its heap."""

    workload: Workload
    comparison: Comparison
    heap: Memory | None  # respond()'s peak heap and its response's sizes (None: it failed)
    suffix: str = ""  # the contenders' name suffix in the comparison ("" or " 50")


def measure(ws: dict[str, Workload], rounds: int, settings: Settings) -> dict[str, Cell]:
    """Every workload of one format and style timed (``big50`` in the rounds of ``big200``)
    and its heap measured."""
    cells: dict[str, Cell] = {}
    for name, w in ws.items():
        if name == "big50":
            continue
        contenders: list[Contender[Any]] = [
            floor(w),
            run_contender(w),
            run_contender(w, "run(joined)", join=True),
            respond_contender(w),
        ]
        small = ws.get("big50") if name == "big200" else None
        if small is not None:
            contenders += [
                floor(small, "floor 50"),
                run_contender(small, "run() 50"),
                respond_contender(small, "respond() 50"),
            ]
        comparison = compare(contenders, rounds=rounds, settings=settings)
        cells[name] = Cell(w, comparison, respond_heap(w))
        if small is not None:
            cells["big50"] = Cell(small, comparison, respond_heap(small), " 50")
    return cells


def deep_size(value: Any) -> int:
    """The bytes ``value`` takes as Python objects (``sys.getsizeof``), with what it holds:
    the strings, numbers, lists and dicts of parsed JSON."""
    size = sys.getsizeof(value)
    if isinstance(value, dict):
        size += sum(deep_size(k) + deep_size(v) for k, v in value.items())
    elif isinstance(value, list | tuple):
        size += sum(deep_size(v) for v in value)
    return size


def own_size(response: AgentResponse) -> int:
    """The response's own size: what it carries, each value counted once, as the Python
    objects a caller reads: its text and reasoning strings, and each call's id, name and
    parsed arguments (:func:`deep_size`)."""
    size = sys.getsizeof(response.text) + sys.getsizeof(response.reasoning_text or "")
    for call in response.tool_calls:
        size += sys.getsizeof(call.id) + sys.getsizeof(call.name) + deep_size(call.arguments)
    return size


@dataclasses.dataclass(frozen=True)
class Memory:
    """One ``respond()`` under tracemalloc: its peak heap; the response's own size
    (:func:`own_size`); what the returned ``AgentResponse`` holds in all (its own size, and
    any copy of a value it keeps besides, in its transcript...)."""

    peak: int
    own: int
    held: int

    @property
    def ratio(self) -> float:
        """The peak heap over the response's own size."""
        return self.peak / self.own


def respond_heap(w: Workload) -> Memory | None:
    """:class:`Memory` of one ``respond()`` of ``w``; ``None`` when it failed."""
    try:
        heap, response = peak_heap(respond_contender(w).run)
    except Exception:
        return None
    if check(response, w) is not None:
        return None
    return Memory(heap.peak, own_size(response), heap.kept)


def _ratio(comparison: Comparison, name: str, relative_to: str) -> str:
    spread = comparison.speed(name, relative_to)
    return spread.format(unit="x") if spread else comparison.outcomes[name].verdict


def report(
    fmt: str, cells: dict[tuple[str, str], Cell], targets: Targets, compiled: bool
) -> list[str]:
    """Print the table of one format and record its targets; returns the table in
    Markdown (for ``--markdown``)."""
    rows = []
    for (style, name), cell in cells.items():
        c, s, w = cell.comparison, cell.suffix, cell.workload
        floor_s = c.seconds("floor" + s)
        heap = None if cell.heap is None else cell.heap.ratio
        rows.append([
            name, style, f"{w.megabytes:.2f}", f"{w.frames:,}",
            f"{floor_s.median * 1000:.1f}" if floor_s else "-",
            _ratio(c, "run()" + s, "floor" + s),
            _ratio(c, "run(joined)", "floor") if not s else "-",
            _ratio(c, "respond()" + s, "floor" + s),
            "-" if cell.heap is None else f"{cell.heap.own / 1000:,.0f}",
            "-" if cell.heap is None else f"{cell.heap.held / 1000:,.0f}",
            "-" if heap is None else f"{heap:.2f}x",
        ])  # fmt: skip
        for label, bound in (
            ("run()", RUN_TARGET[compiled]),
            ("respond()", RESPOND_TARGET[compiled]),
        ):
            outcome = c.outcomes[label + s]
            targets.expect(
                f"{fmt} {name} {style} {label} / floor",
                c.speed(label + s, "floor" + s),
                at_least=bound,
                unit="x",
                problem="" if outcome.ok else outcome.verdict,
            )
        targets.expect(
            f"{fmt} {name} {style} respond() peak heap / response",
            heap,
            at_most=HEAP_TARGET,
            unit="x",
        )
    print()
    print(
        f"{fmt}: floor time / raf time, median (min-max) of paired rounds; response KB: the "
        "size of its text and parsed arguments; held KB: what the AgentResponse holds in all; "
        "heap: respond()'s peak heap / response KB"
    )
    headers = ["workload", "style", "MB", "payloads", "floor ms", "run() / floor"]
    headers += ["run(joined) / floor", "respond() / floor", "response KB", "held KB", "heap"]
    print(table(headers, rows, align="llrrrrrrrrr"))
    lines = []
    for style in dict.fromkeys(style for style, _ in cells):
        cell = cells.get((style, "big200"))
        if cell is None:
            continue
        c = cell.comparison
        shown = []
        for label in ("floor", "run()", "respond()"):
            spread = c.slowdown(label, label + " 50")
            shown.append(f"{label} {spread.format() if spread else '-'}")
            if label != "floor":
                targets.expect(
                    f"{fmt} {style} {label} time(big200) / time(big50)",
                    spread,
                    at_most=LINEARITY_TARGET,
                )
        lines.append(f"  {style}: " + ", ".join(shown))
    if lines:
        print("linearity, time(big200) / time(big50), paired (linear is 4):")
        print("\n".join(lines))
    markdown = [f"`{fmt}`:", "", "| " + " | ".join(headers) + " |"]
    markdown.append("|" + "---|" * len(headers))
    markdown += ["| " + " | ".join(row) + " |" for row in rows]
    if lines:
        markdown += [
            "",
            "Linearity, time(`big200`) / time(`big50`): "
            + "; ".join(line.strip() for line in lines)
            + ".",
        ]
    return [*markdown, ""]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--format", action="append", choices=sorted(WIRES), help="only this format (repeatable)"
    )
    parser.add_argument("--style", choices=STYLES, help="only this JSON style")
    parser.add_argument("--quick", action="store_true", help="quarter-size workloads, 3 rounds")
    parser.add_argument("--rounds", type=int, help="paired rounds per ratio (9; --quick 3)")
    parser.add_argument("--budget", type=float, help="wall s per run before it is stopped (120)")
    parser.add_argument(
        "--markdown", metavar="FILE", help="also write the tables in Markdown to FILE (new file)"
    )
    args = parser.parse_args(argv)
    if args.markdown and Path(args.markdown).exists():
        parser.error(f"{args.markdown} exists: the tables are written to a new file only")
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(line_buffering=True)  # each table appears when it is done
    missing = sorted(set(raf.formats.names()) - {w.dialect or n for n, w in WIRES.items()})
    rounds = args.rounds or (3 if args.quick else 9)
    settings = Settings(budget=args.budget or (30.0 if args.quick else 120.0))
    styles = [args.style] if args.style else list(STYLES)
    began = time.perf_counter()
    print_environment(("orjson",), settings)
    print(
        f"{rounds} paired rounds; the input is fed in {CHUNK} B reads; styles: {', '.join(styles)}"
    )
    if missing:
        print(f"formats with no workload here (not measured): {', '.join(missing)}")
    compiled = raf_compiled()
    targets = Targets()
    markdown: list[str] = []
    for fmt in args.format or list(WIRES):
        cells: dict[tuple[str, str], Cell] = {}
        for style in styles:
            for name, cell in measure(
                workloads(fmt, style, 4 if args.quick else 1), rounds, settings
            ).items():
                cells[style, name] = cell
        ordered = {(s, n): cells[s, n] for n in WORKLOADS for s in styles if (s, n) in cells}
        markdown += report(fmt, ordered, targets, compiled)
    if args.markdown:
        markdown.append(f"Targets met: {targets.report().splitlines()[-1].strip()}")
        Path(args.markdown).write_text("\n".join(markdown) + "\n", encoding="utf-8")
    print()
    print(f"targets (raf is the {'compiled' if compiled else 'interpreted'} build)")
    print(targets.report())
    if missing:
        print(f"  FAIL  no workload for {', '.join(missing)}")
    print(f"total runtime {time.perf_counter() - began:.0f} s")
    return 1 if missing else targets.exit_status()


if __name__ == "__main__":
    sys.exit(main())
