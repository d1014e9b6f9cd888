"""``gemini``: Gemini ``streamGenerateContent`` streams (Gemini API with or without
``alt=sse``, Vertex AI) -> updates. Sans-IO.

docs/dialects.md (section ``gemini``) is the specification; in short:

* Framing ``auto``: a body starting with ``[`` is the streamed JSON array of
  ``streamGenerateContent`` without ``alt=sse``, ``{`` is JSON lines, anything else SSE. Each
  frame is one whole ``GenerateContentResponse`` carrying new parts.
* Only the candidate with ``index`` 0 (or none) is read. Parts: ``text`` -> ``TextDelta``,
  ``text`` with ``thought: true`` -> ``ReasoningDelta``, ``functionCall`` -> ``ToolCallDelta``
  with an index the dialect assigns per call (Gemini gives none, so two calls of one function
  never merge), ``thoughtSignature`` on a thought part -> ``ReasoningSignature``, on any other
  part -> ``PartSignature`` naming the part (``tool_call``, ``hosted``, ``text``, or
  ``empty``), after that part's updates. Tools Google runs itself are hosted calls, never
  client calls:
  ``executableCode`` -> ``HostedToolCall`` (``code_execution``), ``codeExecutionResult`` ->
  ``HostedToolResult`` answering it (by ``id``, else the latest unanswered code of the
  stream); Gemini 3's ``toolCall`` / ``toolResponse`` parts (server-side tool invocations:
  Google Search, file search, ...) likewise. Media and grounding metadata are not read (not
  errors).
* Vertex ``partialArgs`` streaming is assembled here: the call's name is emitted when it
  starts, the compact JSON of the assembled arguments when it ends.
* ``responseId``/``modelVersion`` -> ``ResponseMetadata``; ``usageMetadata`` is a snapshot (last
  wins) that rides on the ``Finish``; ``STOP`` after a function call is ``tool_calls``.
* No end marker: a candidate ``finishReason`` (or a blocked prompt) is a clean end; otherwise
  ``close`` reports ``stream_truncated``. ``{"error": ...}`` objects are ``provider_error``.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from raf._mypyc import mypyc_attr
from raf.dialects.base import Frame, JSONEventDialect
from raf.dialects.tables import UsageTable, finish_reason
from raf.dialects.templates import cut
from raf.formats.gemini._wire import _Part, _Response, _Usage
from raf.framing.sse import DataRun, ServerSentEvent
from raf.limits import DEFAULT_MAX_JSON_DEPTH, DEFAULT_MAX_RAW_CHARS
from raf.model import updates
from raf.model.codes import ErrorCode
from raf.model.updates import AgentResponseUpdate, DeltaBatch
from raf.model.usage import Usage

__all__ = ["FINISH_REASONS", "HOSTED_PARTS", "USAGE", "GeminiDialect", "parse_json_path"]

USAGE = UsageTable(
    prompt_tokens=(("promptTokenCount", "toolUsePromptTokenCount"),),
    completion_tokens=(("candidatesTokenCount", "thoughtsTokenCount"),),
    total_tokens=(("totalTokenCount",),),
    cache_hit=(("cachedContentTokenCount",),),
    reasoning=(("thoughtsTokenCount",),),
)
"""Gemini's ``usageMetadata`` (docs/dialects.md): prompt = prompt + tool-use prompt tokens,
completion = candidates + thoughts tokens."""

_FILTERED = (
    "SAFETY",
    "RECITATION",
    "BLOCKLIST",
    "PROHIBITED_CONTENT",
    "SPII",
    "IMAGE_SAFETY",
    "IMAGE_PROHIBITED_CONTENT",
    "IMAGE_RECITATION",
)

FINISH_REASONS: dict[str, str] = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    **dict.fromkeys(_FILTERED, "content_filter"),
}
"""Wire ``finishReason`` -> raf; ``STOP`` becomes ``tool_calls`` when the stream had a
function call (in the dialect); every other value is kept verbatim."""

_encode = msgspec.json.encode

HOSTED_PARTS: dict[str, tuple[str, str, str]] = {
    "executableCode": ("call", "code_execution", ""),
    "codeExecutionResult": ("result", "code_execution_result", "executableCode"),
    "toolCall": ("call", "", "args"),
    "toolResponse": ("result", "tool_response", "toolCall"),
}
"""Parts of tools Google runs itself: part key -> (``call`` or ``result``, the name given
(a ``toolCall`` is named by its ``toolType``), and for a call the field holding its arguments
(``""``: the object without its ``id``), for a result the part key of the call it answers)."""
_MAX_PAD = 1024
"""How far past an array's end a ``partialArgs`` index may point (the gap is ``null``)."""
_RESPONSE_KEYS = frozenset(
    {"candidates", "promptFeedback", "usageMetadata", "error", "responseId", "modelVersion"}
)
"""The fields of a GenerateContentResponse: a payload with none of them is of another format."""

_STEP = re.compile(r"""\.([^.\[\]]+)|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\]|\[(\d+)\]""")
_VALUE_KEYS = ("stringValue", "numberValue", "boolValue", "nullValue", "structValue", "listValue")


def parse_json_path(path: str) -> list[str | int] | None:
    """The steps of a ``partialArgs`` JSON path (``$.a['b'][0]``), or ``None`` if unreadable.
    A path that does not start with ``$`` is read as ``$.`` + path."""
    if not path.startswith("$"):
        path = "$." + path
    steps: list[str | int] = []
    pos = 1
    while pos < len(path):
        match = _STEP.match(path, pos)
        if match is None:
            return None
        name, single, double, number = match.groups()
        if number is not None:
            steps.append(int(number))
        else:
            text = name if name is not None else single if single is not None else double
            steps.append(re.sub(r"\\(.)", r"\1", text) if name is None else text)
        pos = match.end()
    return steps


class _Streamed:
    """A Vertex call whose arguments arrive as ``partialArgs``."""

    __slots__ = ("args", "got_partial", "index", "last_continue", "last_path", "start_args")

    def __init__(self, index: int, start_args: Any) -> None:
        self.index = index
        self.args: dict[str, Any] = {}
        self.got_partial = False
        self.last_path: str | None = None
        self.last_continue = False
        self.start_args = start_args


def _args_text(args: Any) -> str:
    if args is None:
        return ""
    if isinstance(args, str):
        return args
    return _encode(args).decode()


_USAGE_FIELDS = _Usage.__struct_fields__
"""The counts :data:`USAGE` reads (tests check that the two agree)."""
_decode_response = msgspec.json.Decoder(_Response).decode
_DECODE_ERRORS = (msgspec.ValidationError, msgspec.DecodeError)
_Template = tuple[bytes, bytes, int, int, int, bool]
"""The template of a text chunk (:func:`raf.dialects.templates.cut`): prefix, suffix, their
lengths, the length of the shortest payload that matches, and whether the text is a thought.
One is kept (the last text or thought chunk's)."""
_NO_TEMPLATE: _Template = (b"", b"", 0, 0, 0, False)
_decode_string = msgspec.json.Decoder(str).decode
_HOLD = 512
"""The most deltas a batch left open across runs gathers before it is handed on."""
_TextDelta = updates.TextDelta
_ReasoningDelta = updates.ReasoningDelta


@mypyc_attr(allow_interpreted_subclasses=True)
class GeminiDialect(JSONEventDialect):
    """Sans-IO state of one Gemini stream. See docs/dialects.md for the rules.

    Args:
        max_json_depth: deepest nesting accepted in a payload (``json_too_deep`` past it).
        max_raw_chars: longest ``raw`` excerpt an error keeps of an offending payload.
    """

    name = "gemini"
    framing = "auto"
    payload_name = "GenerateContentResponse"
    sniff = (
        rb'"candidates"\s*:\s*\[\s*\{\s*"(?:content|finishReason|index|safetyRatings)"',
        rb'"promptFeedback"\s*:',
        rb'"usageMetadata"\s*:',
    )
    truncation_message = "stream ended without a finishReason"
    recognises_by_type = False  # every payload is a "response": _response tells

    def __init__(
        self,
        *,
        max_json_depth: int = DEFAULT_MAX_JSON_DEPTH,
        max_raw_chars: int = DEFAULT_MAX_RAW_CHARS,
    ) -> None:
        # (Named, not **limits: the compiled build passes **limits on wrongly.)
        super().__init__(max_json_depth=max_json_depth, max_raw_chars=max_raw_chars)
        self._calls = 0
        self._open: _Streamed | None = None
        self._usage_value: Usage | None = None
        self._usage_stale = False  # _raw_usage changed since _usage_value was parsed
        self._raw_usage: dict[str, Any] = {}
        self._emitted: Usage | None = None
        self._finish_seen = False
        self._made_up = 0  # ids made up so far for hosted calls and unpaired results
        # Per call part key, the ids of the hosted calls without a result yet, oldest first.
        self._unanswered: dict[str, dict[str, None]] = {"executableCode": {}, "toolCall": {}}
        # The fast paths: the template of the last text chunk, the state it was made in, how
        # many chunks could not be cut, and the batch the last runs left open.
        self._template: _Template | None = None
        self._template_for: tuple[Any, ...] = ()
        self._cuts_failed = 0
        self._held: DeltaBatch | None = None

    @property
    def _usage(self) -> Usage | None:
        """The usage so far (``usageMetadata`` merged field by field), parsed when read: the
        fast paths only merge the counts of each chunk."""
        if self._usage_stale:
            self._usage_value = USAGE.parse(self._raw_usage)
            self._usage_stale = False
        return self._usage_value

    def kind_of(self, event: Any, payload: dict[str, Any]) -> str:
        """Every payload is a ``GenerateContentResponse`` (Gemini has no event types)."""
        return "response"

    # -- the handler -----------------------------------------------------------------------

    def _response(self, payload: dict[str, Any], frame: Frame) -> None:
        out = frame.out
        if _RESPONSE_KEYS.isdisjoint(payload):
            self.unrecognised(frame)  # no field of a GenerateContentResponse: another format
            return
        self.recognised = True
        self.metadata(frame.str(payload, "responseId"), frame.str(payload, "modelVersion"), out)
        if payload.get("error") is not None:
            out.append(self.provider_error_update(payload["error"], frame.data))

        usage: Usage | None = None
        raw_usage = frame.dict(payload, "usageMetadata")
        if raw_usage is not None and USAGE.has_any(raw_usage):
            # Field by field: a chunk that repeats only some counts keeps the others.
            self._raw_usage.update((k, v) for k, v in raw_usage.items() if v is not None)
            usage = USAGE.parse(self._raw_usage)
            self._usage_value = usage
            self._usage_stale = False

        reason: str | None = None
        candidate = self._candidate(payload, frame)
        if candidate is not None:
            content = frame.dict(candidate, "content", "candidates[0].")
            if content is not None:
                parts = frame.list(content, "parts", "candidates[0].content.")
                for i, part in enumerate(parts or ()):
                    where = f"candidates[0].content.parts[{i}]"
                    if not isinstance(part, dict):
                        frame.problem(f"{where} is {type(part).__name__}")
                        continue
                    self._part(part, frame, where + ".")
            reason = frame.str(candidate, "finishReason", "candidates[0].") or None

        finished_here = False
        feedback = frame.dict(payload, "promptFeedback")
        if feedback is not None:
            block = frame.str(feedback, "blockReason", "promptFeedback.")
            if block:
                detail = f"prompt blocked: {block}"
                message = feedback.get("blockReasonMessage")
                if isinstance(message, str) and message:
                    detail += f" ({message})"
                out.append(self.provider_error_update(detail, frame.data))
                if reason is None:
                    self._finish("content_filter", out)
                    finished_here = True

        if reason is not None:
            self._end_streamed(out, complete=True)
            mapped = FINISH_REASONS.get(reason, reason)
            if mapped == "stop" and self._calls:
                mapped = "tool_calls"
            self._finish(finish_reason({}, mapped), out)
            finished_here = True

        if usage is not None and not finished_here and self._finish_seen and usage != self._emitted:
            out.append(updates.Usage(usage=usage))
            self._emitted = usage

    # -- the fast paths ----------------------------------------------------------------------

    def usual(self, event: ServerSentEvent, out: list[AgentResponseUpdate]) -> bool:
        """The usual chunk, mapped as :meth:`_response` maps it: a ``message`` frame whose
        data decodes as a typed chunk (:class:`_Response`) with one candidate (index 0 or
        none) carrying text, thoughts, signatures, whole function calls, usage, a finish
        reason, and no error, blocked prompt or hosted tool part, before any finish reason
        and with no streamed call open. Any other frame returns ``False`` having done
        nothing, and takes the shared path."""
        if event.event != "message":
            return False
        response = self._decode_typed(event.data)
        return response is not None and self._typed(response, out, event.data)

    def _decode_typed(self, data: str | bytes) -> _Response | None:
        """``data`` decoded as a typed chunk, or ``None`` when the shared path must read it:
        data that may nest deeper than ``max_json_depth`` (more brackets than that: the
        shared path counts them, then scans), or data that does not fit the type."""
        depth = self.max_json_depth
        if len(data) > 2 * depth + 1:
            if isinstance(data, str):
                if data.count("{") + data.count("[") > depth:
                    return None
            elif data.count(b"{") + data.count(b"[") > depth:
                return None
        try:
            response = _decode_response(data)
        except _DECODE_ERRORS:
            return None
        self.fast_stats["typed"] += 1
        return response

    def _typed(self, response: _Response, out: list[Any], data: str | bytes) -> bool:
        """Map a typed chunk as :meth:`_response` maps it (see :meth:`usual`); ``False``,
        having done nothing, when it is not of the usual shape."""
        candidates = response.candidates
        if (
            candidates is None
            or len(candidates) > 1
            or response.error is not None
            or response.promptFeedback is not None
            or self._finish_seen
            or self._open is not None
        ):
            return False
        parts: list[_Part] | None = None
        reason: str | None = None
        if candidates:
            candidate = candidates[0]
            if candidate.index:
                return False  # another candidate's (the shared path skips it)
            if candidate.content is not None:
                parts = candidate.content.parts
            reason = candidate.finishReason or None
        for part in parts or ():
            call = part.functionCall
            if (
                part.executableCode is not None
                or part.codeExecutionResult is not None
                or part.toolCall is not None
                or part.toolResponse is not None
                or (
                    call is not None
                    and (not call.name or call.partialArgs is not None or call.willContinue is True)
                )
            ):
                return False
        self.recognised = True
        try:
            response_id, model = response.responseId, response.modelVersion
            if (response_id and response_id != self._last_id) or (
                model and model != self._last_model
            ):
                self.metadata(response_id, model, out)
            if response.usageMetadata is not None:
                self._merge_usage(response.usageMetadata)
            for part in parts or ():
                text = part.text
                thought = part.thought is True
                if text:
                    out.append(_ReasoningDelta(delta=text) if thought else _TextDelta(delta=text))
                call = part.functionCall
                if call is not None:
                    index = self._calls
                    self._calls += 1
                    out.append(
                        updates.ToolCallDelta(
                            index=index,
                            id=call.id or None,
                            name=call.name,
                            arguments_delta=_args_text(call.args),
                        )
                    )
                signature = part.thoughtSignature
                if signature:
                    if thought:
                        out.append(updates.ReasoningSignature(signature=signature))
                    else:
                        kind = "tool_call" if call is not None else "text" if text else "empty"
                        out.append(updates.PartSignature(signature=signature, part=kind))
            if reason is not None:
                mapped = FINISH_REASONS.get(reason, reason)
                if mapped == "stop" and self._calls:
                    mapped = "tool_calls"
                self._finish(finish_reason({}, mapped), out)
        except Exception as exc:  # a bug in raf: report it, skip the frame, go on
            if not isinstance(data, str):
                data = data.decode("utf-8", "replace")
            out.append(self.internal_error(exc, data))
        return True

    def _merge_usage(self, usage: _Usage) -> None:
        """A chunk's ``usageMetadata`` merged as :meth:`_response` merges it (when it holds a
        count: field by field, a count that is absent keeping the last one), parsed when
        next read."""
        values = [getattr(usage, name) for name in _USAGE_FIELDS]
        if any(value is not None and value >= 0 for value in values):
            raw = self._raw_usage
            for name, value in zip(_USAGE_FIELDS, values, strict=True):
                if value is not None:
                    raw[name] = value
            self._usage_stale = True

    def _batchable(self, response: _Response) -> list[_Part] | None:
        """The parts of a typed chunk whose updates are only text and thoughts (no
        metadata change, call, signature or finish), for a batch; ``None`` if it is not such
        a chunk (its usage, if any, merged as :meth:`_typed` would)."""
        candidates = response.candidates
        if (
            candidates is None
            or len(candidates) != 1
            or response.error is not None
            or response.promptFeedback is not None
            or self._finish_seen
            or self._open is not None
        ):
            return None
        response_id, model = response.responseId, response.modelVersion
        if (response_id and response_id != self._last_id) or (model and model != self._last_model):
            return None
        candidate = candidates[0]
        content = candidate.content
        if candidate.index or candidate.finishReason or content is None or not content.parts:
            return None
        parts = content.parts
        for part in parts:
            if (
                part.functionCall is not None
                or part.thoughtSignature
                or part.executableCode is not None
                or part.codeExecutionResult is not None
                or part.toolCall is not None
                or part.toolResponse is not None
            ):
                return None
        return parts

    def feed_run(self, run: DataRun, frame: Frame, batch: bool) -> bool:
        """A run's chunks are read straight from bytes: through the template where it matches
        (the last text or thought chunk decoded, with another string in its place, see
        :mod:`raf.dialects.templates`), else decoded typed and mapped as :meth:`usual` maps
        them, or by the shared path, in their place. With ``batch``, the text and thoughts of
        consecutive chunks that carry nothing else (usage aside) are gathered into one
        :class:`DeltaBatch`, left open across runs (up to 512 deltas) until a chunk of
        another kind, an event outside a run, the end of the stream or :meth:`flush`."""
        if run.names is not None:  # typed events: not this format's shape
            frame.out.extend(self.flush())
            return self.feed_payloads(run.payloads, run.id, frame, run.names)
        out: list[Any] = frame.out  # updates, and the DeltaBatch values
        reasoning: list[str] = []
        text: list[str] = []
        held = self._held
        if not batch:
            out.extend(self.flush())
        elif held is not None:  # the batch the last runs left open: this run goes on with it
            self._held = None
            reasoning, text = held.reasoning, held.text
        hits = 0
        template = self._template_now()
        # (The template's parts as locals: most payloads of a text stream match it.)
        prefix, suffix, start, tail, shortest, thought = template or _NO_TEMPLATE
        for payload in run.payloads:
            try:
                if (
                    template is not None
                    and payload.startswith(prefix)
                    and payload.endswith(suffix)
                    and len(payload) >= shortest
                ):
                    try:
                        value: str | None = _decode_string(payload[start : len(payload) - tail])
                    except _DECODE_ERRORS:
                        value = None
                    if value is not None:
                        hits += 1
                        if not value:
                            continue
                        if not batch:
                            out.append(
                                _ReasoningDelta(delta=value) if thought else _TextDelta(delta=value)
                            )
                        elif not thought:
                            text.append(value)
                        else:
                            if text:  # thoughts after text: the batch so far first
                                out.append(self._batch(reasoning, text))
                                reasoning, text = [], []
                            reasoning.append(value)
                        continue
                response = self._decode_typed(payload)
                if response is not None:
                    parts = self._batchable(response) if batch else None
                    if parts is not None:
                        self.recognised = True
                        if response.usageMetadata is not None:
                            self._merge_usage(response.usageMetadata)
                        for part in parts:
                            piece = part.text
                            if not piece:
                                continue
                            if part.thought is not True:
                                text.append(piece)
                            else:
                                if text:
                                    out.append(self._batch(reasoning, text))
                                    reasoning, text = [], []
                                reasoning.append(piece)
                        template = self._keep_template(payload, response, parts) or template
                        prefix, suffix, start, tail, shortest, thought = template or _NO_TEMPLATE
                        continue
                    if reasoning or text:
                        out.append(self._batch(reasoning, text))
                        reasoning, text = [], []
                    if self._typed(response, out, payload):
                        template = self._template_now()
                        if not batch:
                            parts = self._batchable(response)
                            if parts is not None:
                                template = self._keep_template(payload, response, parts) or template
                        prefix, suffix, start, tail, shortest, thought = template or _NO_TEMPLATE
                        continue
                elif reasoning or text:
                    out.append(self._batch(reasoning, text))
                    reasoning, text = [], []
                event = ServerSentEvent(data=payload.decode("utf-8", "replace"), id=run.id)
                if self.feed_event(event, frame):
                    self.fast_stats["template"] += hits
                    return True
                template = self._template_now()
                prefix, suffix, start, tail, shortest, thought = template or _NO_TEMPLATE
            except Exception as exc:  # a bug in raf: report it, skip the chunk, go on
                out.append(self.internal_error(exc, payload.decode("utf-8", "replace")))
        self.fast_stats["template"] += hits
        if reasoning or text:
            if len(reasoning) + len(text) < _HOLD:
                self._held = DeltaBatch(reasoning=reasoning, text=text, arguments={}, order=[])
            else:
                out.append(self._batch(reasoning, text))
        return False

    def _batch(self, reasoning: list[str], text: list[str]) -> DeltaBatch:
        self.fast_stats["batched"] += len(reasoning) + len(text)
        return DeltaBatch(reasoning=reasoning, text=text, arguments={}, order=[])

    def _keep_template(
        self, payload: bytes, response: _Response, parts: list[_Part]
    ) -> _Template | None:
        """The template of a chunk that holds one text (or thought) part and nothing else
        that changes from chunk to chunk (no usage), kept in place of the last one (which
        this chunk did not match); ``None`` if none was made (after 32 chunks that could not
        be cut, none is tried)."""
        if len(parts) != 1 or response.usageMetadata is not None or self._cuts_failed >= 32:
            return None
        part = parts[0]
        if not part.text:
            return None
        pieces = cut(payload, "text", part.text)
        if pieces is None:
            self._cuts_failed += 1
            return None
        prefix, suffix = pieces
        template = (
            prefix,
            suffix,
            len(prefix),
            len(suffix),
            len(prefix) + len(suffix) + 2,
            part.thought is True,
        )
        self._template = template
        return template

    def _template_now(self) -> _Template | None:
        """The template, dropped if what its chunk maps to may have changed since it was
        made: the response's id or model, a finish reason, a streamed call."""
        now = (self._last_id, self._last_model, self._finish_seen, self._open is None)
        if self._template_for != now:
            self._template = None
            self._template_for = now
        return self._template

    def flush(self) -> list[Any]:
        """The batch left open by the last runs, if any (see :meth:`feed_run`)."""
        held, self._held = self._held, None
        if held is None:
            return []
        self.fast_stats["batched"] += len(held.reasoning) + len(held.text)
        return [held]

    # -- pieces ----------------------------------------------------------------------------

    def _candidate(self, payload: dict[str, Any], frame: Frame) -> dict[str, Any] | None:
        candidates = frame.list(payload, "candidates")
        for i, candidate in enumerate(candidates or ()):
            if not isinstance(candidate, dict):
                frame.problem(f"candidates[{i}] is {type(candidate).__name__}")
                continue
            index = candidate.get("index")
            if type(index) is int and index != 0:
                continue  # another candidate of candidateCount > 1: ignored
            frame.int(candidate, "index", f"candidates[{i}].")
            return candidate
        return None

    def _finish(self, reason: str, out: list[AgentResponseUpdate]) -> None:
        out.append(updates.Finish(finish_reason=reason, usage=self._usage))
        self._emitted = self._usage
        self._finish_seen = True
        self.finished = True

    def _part(self, part: dict[str, Any], frame: Frame, where: str) -> None:
        out = frame.out
        text = frame.str(part, "text", where)
        if text:
            if part.get("thought") is True:
                out.append(updates.ReasoningDelta(delta=text))
            else:
                out.append(updates.TextDelta(delta=text))
        call = frame.dict(part, "functionCall", where)
        if call is not None:
            self._function_call(call, frame, where + "functionCall.")
        for key in HOSTED_PARTS:
            if key in part:
                hosted = frame.dict(part, key, where)
                if hosted is not None:
                    self._hosted_part(part, key, hosted, frame, f"{where}{key}.")
        signature = frame.str(part, "thoughtSignature", where)
        if signature:
            if part.get("thought") is True:
                out.append(updates.ReasoningSignature(signature=signature))
            else:
                out.append(updates.PartSignature(signature=signature, part=_signed(part, text)))

    def _hosted_part(
        self, part: dict[str, Any], key: str, obj: dict[str, Any], frame: Frame, where: str
    ) -> None:
        """A part of a tool Google ran itself (:data:`HOSTED_PARTS`): a ``HostedToolCall`` or
        a ``HostedToolResult``, never a client call. ``item`` is the part without its
        ``thoughtSignature`` (emitted on its own), its object keeping only what is not in
        ``arguments`` or ``output``."""
        role, name, field = HOSTED_PARTS[key]
        given = frame.str(obj, "id", where) or None
        if role == "call":
            if not name:
                tool = frame.str(obj, "toolType", where)
                name = tool.lower() if tool else "tool_call"
            if field:
                arguments = obj.get(field)
                kept = {k: v for k, v in obj.items() if k != field}
            else:
                arguments = {k: v for k, v in obj.items() if k != "id"}
                kept = {k: v for k, v in obj.items() if k == "id"}
            call_id = given or self._made_up_id(name)
            self._unanswered[key].pop(call_id, None)  # a repeated id: now the latest
            self._unanswered[key][call_id] = None
            frame.out.append(
                updates.HostedToolCall(
                    call_id=call_id, name=name, arguments=arguments, item=_item(part, key, kept)
                )
            )
            return
        pending = self._unanswered[field]
        if given is not None:
            pending.pop(given, None)
            call_id = given
        elif pending:
            call_id = pending.popitem()[0]
        else:
            call_id = self._made_up_id(name)
        error: str | None = None
        # Protocol-buffer JSON leaves out empty values: a result without its output field
        # came all the same, with an empty output ("" or {}), never None (not yet answered).
        if key == "codeExecutionResult":
            output = obj.get("output", "")
            kept = {k: v for k, v in obj.items() if k != "output"}
            outcome = frame.str(obj, "outcome", where)
            if outcome and outcome != "OUTCOME_OK":
                error = outcome
        else:
            output = obj.get("response", {})
            kept = {k: v for k, v in obj.items() if k != "response"}
        frame.out.append(
            updates.HostedToolResult(
                call_id=call_id,
                name=name,
                output=output,
                error=error,
                item=_item(part, key, kept),
            )
        )

    def _made_up_id(self, name: str) -> str:
        """An id for a hosted call (or unpaired result) that came without one:
        ``<name>_<n>``, n counting the ids made up before it in the stream (from 0)."""
        call_id = f"{name}_{self._made_up}"
        self._made_up += 1
        return call_id

    def _function_call(self, call: dict[str, Any], frame: Frame, where: str) -> None:
        out = frame.out
        name = frame.str(call, "name", where) or None
        call_id = frame.str(call, "id", where) or None
        partial = frame.list(call, "partialArgs", where)
        will_continue = call.get("willContinue") is True
        if name is not None:
            self._end_streamed(out, complete=True)
            index = self._calls
            self._calls += 1
            if will_continue or partial is not None:
                self._open = _Streamed(index, call.get("args"))
                out.append(
                    updates.ToolCallDelta(index=index, id=call_id, name=name, arguments_delta="")
                )
                self._apply(partial, frame, where)
                if not will_continue:
                    self._end_streamed(out, complete=True)
            else:
                out.append(
                    updates.ToolCallDelta(
                        index=index,
                        id=call_id,
                        name=name,
                        arguments_delta=_args_text(call.get("args")),
                    )
                )
            return
        if self._open is None:
            if partial is not None or will_continue:
                out.append(
                    self.error(
                        ErrorCode.PROTOCOL_VIOLATION,
                        "functionCall continues a streamed call, but none is open",
                        frame.data,
                    )
                )
                index = self._calls
                self._calls += 1
                self._open = _Streamed(index, call.get("args"))
                out.append(
                    updates.ToolCallDelta(index=index, id=call_id, name=None, arguments_delta="")
                )
            elif call.get("args") is not None:
                index = self._calls
                self._calls += 1
                out.append(
                    updates.ToolCallDelta(
                        index=index, id=call_id, arguments_delta=_args_text(call["args"])
                    )
                )
                return
            else:
                out.append(
                    self.error(
                        ErrorCode.PROTOCOL_VIOLATION,
                        "empty functionCall without a streamed call to end",
                        frame.data,
                    )
                )
                return
        self._apply(partial, frame, where)
        if not will_continue:
            self._end_streamed(out, complete=True)

    def _apply(self, partial: list[Any] | None, frame: Frame, where: str) -> None:
        streamed = self._open
        if streamed is None or not partial:
            return
        for i, entry in enumerate(partial):
            here = f"{where}partialArgs[{i}]"
            if not isinstance(entry, dict):
                frame.problem(f"{here} is {type(entry).__name__}")
                continue
            path = entry.get("jsonPath")
            steps = parse_json_path(path) if isinstance(path, str) else None
            if not steps or len(steps) > self.max_json_depth:
                frame.problem(f"{here}.jsonPath {path!r} not understood")
                continue
            key = next((k for k in _VALUE_KEYS if k in entry), None)
            if key is None:
                frame.problem(f"{here} has no value")
                continue
            value = None if key == "nullValue" else entry[key]
            append = (
                key == "stringValue"
                and isinstance(value, str)
                and streamed.last_path == path
                and streamed.last_continue
            )
            if not _set(streamed.args, steps, value, append):
                frame.problem(f"{here}.jsonPath {path!r} crosses a value of another kind")
                continue
            streamed.got_partial = True
            streamed.last_path = path
            streamed.last_continue = entry.get("willContinue") is True

    def _end_streamed(self, out: list[AgentResponseUpdate], *, complete: bool) -> None:
        streamed = self._open
        if streamed is None:
            return
        self._open = None
        if streamed.got_partial:
            text = _encode(streamed.args).decode()
        else:
            text = _args_text(streamed.start_args)
        if not complete and text.endswith("}"):
            text = text[:-1]
        if text:
            out.append(updates.ToolCallDelta(index=streamed.index, arguments_delta=text))

    # -- end of stream ---------------------------------------------------------------------

    def at_close(self, out: list[AgentResponseUpdate]) -> None:
        self._end_streamed(out, complete=False)
        if self._usage is not None and self._emitted is None:
            out.append(updates.Usage(usage=self._usage))
            self._emitted = self._usage


# Set after the class: a compiled class body cannot name its own methods (docs/compiled.md).
GeminiDialect.handlers = {"response": GeminiDialect._response}


def _signed(part: dict[str, Any], text: str | None) -> str:
    """What a signed part that is not a thought is, for ``PartSignature``: a call's part, a
    hosted part, a text part (its text streamed), or a part with nothing else."""
    if isinstance(part.get("functionCall"), dict):
        return "tool_call"
    if any(isinstance(part.get(key), dict) for key in HOSTED_PARTS):
        return "hosted"
    return "text" if text else "empty"


def _item(part: dict[str, Any], key: str, kept: dict[str, Any]) -> dict[str, Any]:
    """A hosted part as kept in ``item``: without ``thoughtSignature``, its ``key`` object
    reduced to ``kept``."""
    item = {k: v for k, v in part.items() if k != "thoughtSignature"}
    item[key] = kept
    return item


def _set(root: dict[str, Any], steps: list[str | int], value: Any, append: bool) -> bool:
    """Set ``value`` at ``steps`` under ``root`` (creating containers); False on a conflict."""
    container: Any = root
    for position, step in enumerate(steps):
        last = position == len(steps) - 1
        if isinstance(step, int):
            if not isinstance(container, list) or step > len(container) + _MAX_PAD:
                return False
            while len(container) <= step:
                container.append(None)
        elif not isinstance(container, dict):
            return False
        if last:
            current = container[step] if isinstance(step, int) else container.get(step)
            if append and isinstance(current, str):
                container[step] = current + value
            else:
                container[step] = value
            return True
        nxt = steps[position + 1]
        child = container[step] if isinstance(step, int) else container.get(step)
        if child is None:
            child = [] if isinstance(nxt, int) else {}
            container[step] = child
        container = child
    return True
