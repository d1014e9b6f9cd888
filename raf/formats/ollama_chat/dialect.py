"""``ollama_chat``: Ollama's native ``/api/chat`` streams (JSON lines) -> updates. Sans-IO.

docs/dialects.md (section ``ollama_chat``) is the specification; in short:

* Framing ``json_lines``: one ``ChatResponse`` object per line,
  ``{"model", "created_at", "message": {"role", "content", "thinking", "tool_calls"},
  "done": false}``, and a last line with ``"done": true``, ``done_reason`` and the counts.
* A line is one of the format's when it has ``message`` or ``error``, or ``done`` without
  ``response`` (``/api/generate``'s field); any other is counted as unrecognised.
* ``model`` -> ``ResponseMetadata`` (Ollama sends no response id); ``message.thinking`` ->
  ``ReasoningDelta``; ``message.content`` -> ``TextDelta``; each ``message.tool_calls`` entry is
  a whole call -> one ``ToolCallDelta`` with an index the dialect counts (so no two calls
  merge, whatever ``function.index`` says), the entry's ``id`` when it has one, and the compact
  JSON of its ``arguments`` object.
* ``"done": true`` -> ``Finish``: ``done_reason`` as raf's (``stop`` becomes ``tool_calls`` when
  the stream had a call; missing is ``stop``; ``load``, ``unload`` and others verbatim), usage
  from ``prompt_eval_count`` / ``eval_count``.
* ``{"error": "..."}`` (also after a 200) -> ``provider_error``; no end marker: a stream without
  a ``done: true`` line and without an error is ``stream_truncated``.
"""

from __future__ import annotations

from typing import Any

import msgspec

from raf._mypyc import mypyc_attr
from raf.dialects.base import Frame, JSONEventDialect
from raf.dialects.tables import UsageTable, finish_reason
from raf.formats.ollama_chat._wire import _Line
from raf.framing.sse import ServerSentEvent
from raf.limits import DEFAULT_MAX_JSON_DEPTH, DEFAULT_MAX_RAW_CHARS
from raf.model import updates
from raf.model.updates import AgentResponseUpdate

__all__ = ["FINISH_REASONS", "USAGE", "OllamaChatDialect"]

USAGE = UsageTable(
    prompt_tokens=(("prompt_eval_count",),),
    completion_tokens=(("eval_count",),),
)
"""The counts of the ``done`` line: ``prompt_eval_count`` (the prompt tokens evaluated;
Ollama leaves it out when the whole prompt came from its cache) and ``eval_count`` (the tokens
generated, thinking included)."""

FINISH_REASONS: dict[str, str] = {}
"""Wire ``done_reason`` -> raf: ``stop`` and ``length`` are raf's own names; ``stop`` becomes
``tool_calls`` when the stream had a call (in the dialect); every other value (``load``,
``unload``) is kept verbatim."""

_encode = msgspec.json.encode


def _arguments_text(arguments: Any) -> str:
    """A call's arguments as the converter reads them: the compact JSON of an object (wire
    key order), a string as it is (a proxy that sends JSON text), ``""`` when absent."""
    if arguments is None:
        return ""
    if isinstance(arguments, str):
        return arguments
    return _encode(arguments).decode()


_decode_line = msgspec.json.Decoder(_Line).decode


def _typed_calls(entries: list[Any]) -> list[tuple[str | None, str | None, Any]] | None:
    """Each whole call of a usual line (id, name, arguments), as :meth:`_message` reads it,
    or ``None`` when one has a field of another type than it expects (the shared path then
    reports it)."""
    calls: list[tuple[str | None, str | None, Any]] = []
    for entry in entries:
        if type(entry) is not dict:
            return None
        function = entry.get("function")
        if type(function) is not dict:
            return None
        call_id = entry.get("id")
        name = function.get("name")
        if (call_id is not None and type(call_id) is not str) or (
            name is not None and type(name) is not str
        ):
            return None
        calls.append((call_id, name, function.get("arguments")))
    return calls


_DECODE_ERRORS = (msgspec.ValidationError, msgspec.DecodeError)


@mypyc_attr(allow_interpreted_subclasses=True)
class OllamaChatDialect(JSONEventDialect):
    """Sans-IO state of one Ollama ``/api/chat`` stream. See docs/dialects.md for the rules.

    Args:
        max_json_depth: deepest nesting accepted in a payload (``json_too_deep`` past it).
        max_raw_chars: longest ``raw`` excerpt an error keeps of an offending payload.
    """

    name = "ollama_chat"
    framing = "json_lines"
    payload_name = "ChatResponse"
    sniff = (rb'"created_at"\s*:\s*"[^"\\]*"\s*,\s*"message"\s*:\s*\{',)
    truncation_message = 'stream ended without a "done": true line'
    recognises_by_type = False  # every line is a ChatResponse: _line tells

    def __init__(
        self,
        *,
        max_json_depth: int = DEFAULT_MAX_JSON_DEPTH,
        max_raw_chars: int = DEFAULT_MAX_RAW_CHARS,
    ) -> None:
        # (Named, not **limits: the compiled build passes **limits on wrongly.)
        super().__init__(max_json_depth=max_json_depth, max_raw_chars=max_raw_chars)
        self._calls = 0

    def kind_of(self, event: Any, payload: dict[str, Any]) -> str:
        """Every line is a ``ChatResponse`` (the format has no event types)."""
        return "line"

    def _line(self, payload: dict[str, Any], frame: Frame) -> None:
        out = frame.out
        if not (
            "message" in payload
            or "error" in payload
            or ("done" in payload and "response" not in payload)
        ):
            self.unrecognised(frame)  # /api/generate's lines, or another format's
            return
        self.recognise()
        self.metadata(None, frame.str(payload, "model"), out)
        if payload.get("error") is not None:
            out.append(self.provider_error_update(payload["error"], frame.data))
        message = frame.dict(payload, "message")
        if message is not None:
            self._message(message, frame)
        done = payload.get("done")
        if done is not None and not isinstance(done, bool):
            frame.problem(f"done is {type(done).__name__}")
        elif done:
            reason = frame.str(payload, "done_reason") or "stop"
            mapped = FINISH_REASONS.get(reason, reason)
            if mapped == "stop" and self._calls:
                mapped = "tool_calls"
            self.finished = True
            out.append(
                updates.Finish(
                    finish_reason=finish_reason({}, mapped),
                    usage=USAGE.parse(payload) if USAGE.has_any(payload) else None,
                )
            )

    def usual(self, event: ServerSentEvent, out: list[AgentResponseUpdate]) -> bool:
        """The usual line, mapped as :meth:`_line` maps it: one that decodes typed
        (:class:`_Line`) with a ``message`` of text, thinking or whole calls (each with a
        ``function`` object, its id and name strings if present), no error and not done.
        Any other line (or one that may nest deeper than ``max_json_depth``) returns
        ``False`` having done nothing, and takes the shared path."""
        data = event.data
        depth = self.max_json_depth
        if event.event != "message" or (
            len(data) > 2 * depth + 1 and data.count("{") + data.count("[") > depth
        ):
            return False
        try:
            line = _decode_line(data)
        except _DECODE_ERRORS:
            return False
        message = line.message
        if message is None or line.error is not None or line.done:
            return False
        calls = _typed_calls(message.tool_calls) if message.tool_calls else ()
        if calls is None:
            return False
        self.fast_stats["typed"] += 1
        self.recognised = True
        model = line.model
        if model and model != self._last_model:
            self.metadata(None, model, out)
        if message.thinking:
            out.append(updates.ReasoningDelta(delta=message.thinking))
        if message.content:
            out.append(updates.TextDelta(delta=message.content))
        for call_id, name, arguments in calls:
            index = self._calls
            self._calls += 1
            out.append(
                updates.ToolCallDelta(
                    index=index,
                    id=call_id or None,
                    name=name or None,
                    arguments_delta=_arguments_text(arguments),
                )
            )
        return True

    def _message(self, message: dict[str, Any], frame: Frame) -> None:
        out = frame.out
        thinking = frame.str(message, "thinking", "message.")
        if thinking:
            out.append(updates.ReasoningDelta(delta=thinking))
        content = frame.str(message, "content", "message.")
        if content:
            out.append(updates.TextDelta(delta=content))
        for i, entry in enumerate(frame.list(message, "tool_calls", "message.") or ()):
            where = f"message.tool_calls[{i}]"
            if not isinstance(entry, dict):
                frame.problem(f"{where} is {type(entry).__name__}")
                continue
            function = frame.dict(entry, "function", where + ".")
            if function is None:
                function = {}
            index = self._calls
            self._calls += 1
            out.append(
                updates.ToolCallDelta(
                    index=index,
                    id=frame.str(entry, "id", where + ".") or None,
                    name=frame.str(function, "name", where + ".function.") or None,
                    arguments_delta=_arguments_text(function.get("arguments")),
                )
            )


# Set after the class: a compiled class body cannot name its own methods (docs/compiled.md).
OllamaChatDialect.handlers = {"line": OllamaChatDialect._line}
