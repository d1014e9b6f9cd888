"""``openai_completions``: legacy Completions streams (``POST .../completions``: OpenAI,
Azure OpenAI, vLLM, llama.cpp, SGLang and the servers that keep the format) -> updates.
Sans-IO.

The rules are docs/dialects.md's section ``openai_completions``; in short:

* ``data: [DONE]`` ends the stream (with JSON whitespace around it, as for Chat Completions).
* A chunk is a ``text_completion``: a non-empty ``object`` that starts with
  ``text_completion``, or, without one, ``choices`` that are empty or hold a choice with
  ``text`` and no ``delta``, or a ``usage`` or ``error``. Any other JSON object (a chat
  completion chunk, another format's) gives nothing and is counted as unrecognised.
* Only choice 0 (or a choice without an index) is the response; other choices of an
  ``n > 1`` request are ignored, as in ``openai_chat``.
* ``choices[0].text`` -> ``TextDelta`` (nothing when empty); a non-empty ``finish_reason``
  -> ``Finish`` with the chunk's usage; a ``usage`` without a finish -> ``Usage``.
  ``logprobs`` and vLLM's ``stop_reason`` (the stop string or token id that ended the text)
  are not read: raf has no place for them, and the finish reason says the choice stopped.
* ``{"error": ...}`` in a chunk -> ``provider_error`` (the rest of the chunk is still read).
* A stream that ends without ``[DONE]`` and without a finish reason (and no provider error
  explained it), or inside an unfinished event -> ``stream_truncated``.

Everything generic (keep-alives, the depth limit, decoding repairs, ``event: error``,
metadata, unrecognised chunks, the internal-error guard) is the shared
:class:`raf.dialects.base.JSONEventDialect`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import msgspec

from raf._mypyc import mypyc_attr
from raf.dialects.base import Frame, Handler, JSONEventDialect
from raf.dialects.tables import UsageTable, finish_reason
from raf.formats.openai_completions._wire import _Chunk
from raf.framing.sse import ServerSentEvent
from raf.model import updates
from raf.model.updates import AgentResponseUpdate

__all__ = ["DONE", "FINISH_REASONS", "USAGE", "OpenAICompletionsDialect"]

DONE = "[DONE]"
"""The data value that ends a legacy Completions stream."""

USAGE = UsageTable(
    prompt_tokens=(("prompt_tokens",),),
    completion_tokens=(("completion_tokens",),),
    total_tokens=(("total_tokens",),),
    cache_hit=(("prompt_tokens_details.cached_tokens",),),
    reasoning=(("completion_tokens_details.reasoning_tokens",),),
)
"""The OpenAI usage object as the Completions API and vLLM send it (docs/dialects.md)."""

FINISH_REASONS: dict[str, str] = {}
"""The format's finish reasons (``stop``, ``length``, ``content_filter``) are raf's own; any
other value (vLLM's ``abort``) is kept verbatim."""

OBJECT = "text_completion"
"""The ``object`` of a legacy Completions chunk."""

_decode_chunk = msgspec.json.Decoder(_Chunk).decode


def _is_completion(payload: Mapping[str, Any]) -> bool:
    """Whether a JSON object is a legacy Completions chunk (see the module docstring)."""
    kind = payload.get("object")
    if isinstance(kind, str) and kind:
        return kind.startswith(OBJECT)
    choices = payload.get("choices")
    if isinstance(choices, list) and (
        not choices
        or any(isinstance(c, dict) and "text" in c and "delta" not in c for c in choices)
    ):
        return True
    return any(payload.get(key) is not None for key in ("usage", "error"))


def _chunk(dialect: OpenAICompletionsDialect, payload: dict[str, Any], frame: Frame) -> None:
    if not _is_completion(payload):
        dialect.unrecognised(frame)  # a chat completion chunk, another format's...
        return
    dialect.recognise()
    out = frame.out
    dialect.metadata(frame.str(payload, "id"), frame.str(payload, "model"), out)

    error = payload.get("error")
    if error is not None:
        out.append(dialect.provider_error_update(error, frame.data))

    raw_usage = frame.dict(payload, "usage")
    usage = None if raw_usage is None else USAGE.parse(raw_usage)

    finished = False
    for number, choice in enumerate(frame.list(payload, "choices") or ()):
        where = f"choices[{number}]."
        if not isinstance(choice, dict):
            frame.problem(f"{where[:-1]} is {type(choice).__name__}")
            continue
        index = choice.get("index")
        if type(index) is int and index != 0:
            continue  # n > 1: only the first choice is the response, the others unchecked
        frame.int(choice, "index", where)  # of a wrong type: named, and read as choice 0
        text = frame.str(choice, "text", where)
        if text:
            out.append(updates.TextDelta(delta=text))
        reason = frame.str(choice, "finish_reason", where)
        if reason:
            dialect.finished = True
            finished = True
            out.append(
                updates.Finish(finish_reason=finish_reason(FINISH_REASONS, reason), usage=usage)
            )

    if usage is not None and not finished:
        out.append(updates.Usage(usage=usage))


@mypyc_attr(allow_interpreted_subclasses=True)
class OpenAICompletionsDialect(JSONEventDialect):
    """Sans-IO state of one legacy Completions stream. See the module docstring for the rules.

    Args:
        max_json_depth: deepest nesting accepted in a payload (``json_too_deep`` past it).
        max_raw_chars: longest ``raw`` excerpt an error keeps of an offending payload.
    """

    name = "openai_completions"
    framing = "sse"
    end_markers = frozenset({DONE})
    payload_name = "text completion chunk"
    sniff = (
        rb'"object"\s*:\s*"text_completion"',
        # A chunk that opens with choices whose first has "text" (servers that write "object"
        # after "choices"): matched from its "{", before Chat Completions' "choices" marker.
        rb'\{\s*"choices"\s*:\s*\[\s*\{\s*(?:"(?:index|logprobs|finish_reason|stop_reason)"'
        rb'\s*:\s*(?:null|-?\d+|"[^"\\]*")\s*,\s*)*"text"\s*:',
    )
    truncation_message = "stream ended without [DONE] and without a finish_reason"
    recognises_by_type = False  # every payload is a "chunk": _chunk tells (_is_completion)

    def kind_of(self, event: ServerSentEvent, payload: dict[str, Any]) -> str:
        """Every payload is a chunk (the format has no type field)."""
        return "chunk"

    def usual(self, event: ServerSentEvent, out: list[AgentResponseUpdate]) -> bool:
        """The usual chunk, mapped as the shared path maps it: one that decodes typed
        (:class:`_Chunk`) as a ``text_completion`` with one choice (index 0 or none) and no
        finish reason, usage or error. Any other frame returns ``False`` having done nothing,
        and takes the shared path."""
        chunk = self.typed_usual(event, _decode_chunk)
        if chunk is None or chunk.error is not None or chunk.usage is not None:
            return False
        kind, choices = chunk.object, chunk.choices
        if not kind or not kind.startswith(OBJECT) or choices is None or len(choices) != 1:
            return False
        choice = choices[0]
        if choice.index or choice.finish_reason is not None:
            return False
        self.fast_stats["typed"] += 1
        self.recognised = True
        self.metadata(chunk.id, chunk.model, out)
        if choice.text:
            out.append(updates.TextDelta(delta=choice.text))
        return True

    handlers: ClassVar[Mapping[str, Handler]] = {"chunk": _chunk}
