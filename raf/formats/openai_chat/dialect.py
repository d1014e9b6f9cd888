"""``openai_chat``: Chat Completions streams (OpenAI, Azure, DeepSeek, OpenRouter, Groq, vLLM,
Ollama, Mistral and the many compatible servers) -> updates. Sans-IO.

Follows raf-spec 2.3 and does the intended thing where RAF has a quirk (docs/deviations.md):

* ``data: [DONE]`` ends the stream; nothing after it is read. The data value must be
  ``[DONE]`` itself, optionally surrounded by the whitespace JSON allows around a value
  (space, tab, CR, LF: ``data: [DONE] `` is a common server slip and means the same); any
  other text around it (``[DONE]x``, ``"[DONE]"``) is not the marker.
* Only choice 0 (or a choice without an index) is the response; other choices of ``n > 1``
  requests are ignored.
* ``delta.content`` -> ``TextDelta`` (also the ``[{"type": "text", ...}]`` part lists of
  Mistral, whose ``thinking`` parts become reasoning); ``delta.reasoning_content`` or, when
  absent, ``delta.reasoning`` -> ``ReasoningDelta`` (servers that send both repeat the same
  text), then OpenRouter's ``reasoning_details`` signatures and encrypted data ->
  ``ReasoningSignature``, ``RedactedReasoning``. Reasoning is emitted before text when one
  delta has both.
* ``delta.tool_calls[*]`` -> ``ToolCallDelta``; a missing or null ``index`` is passed on as
  ``None``; an empty ``id`` or ``name`` is no id or name; non-string ``arguments`` (an object,
  as some servers send) become their compact JSON text.
* ``choices`` missing, ``[]`` or ``null``; ``delta`` missing or ``null``; content-filter
  annotations and unknown provider extras never fail a chunk.
* Usage: beside a non-empty finish reason it rides on ``Finish``; otherwise it is a ``Usage``
  update; ``usage: null`` is ignored. Groq's ``x_groq.usage`` is read too. Cache and
  reasoning counts follow raf-spec 1.9 (OpenAI format, which also covers DeepSeek); a
  top-level ``reasoning_tokens`` (SGLang-based servers such as NVIDIA NIM) is read when
  ``completion_tokens_details`` has none.
* ``ResponseMetadata`` is emitted when the chunk's id or model differ from the last ones
  emitted (RAF repeats it for every chunk); an empty id or model counts as absent.
* Errors never lose what arrived and never raise: a payload that is not JSON
  (``sse_parse_error``), one nested deeper than ``max_json_depth`` (``json_too_deep``), JSON
  that is not a chunk or has fields of the wrong type (``invalid_chunk``: only those fields are
  dropped; a number out of range is read as ``null`` and a lone surrogate escape as U+FFFD, and
  named there), an ``{"error": ...}`` chunk or an ``event: error`` frame (``provider_error``),
  and a stream that ends without ``[DONE]`` and without a finish reason (unless a provider error
  explained why) or inside an unfinished event (``stream_truncated``) each yield an
  ``updates.Error``, whose ``raw`` keeps at most ``max_raw_chars`` of the payload. An
  unexpected failure inside raf on one event is reported as ``internal_error`` and that event
  is skipped.
"""

from __future__ import annotations

from typing import Any

import msgspec

from raf._mypyc import mypyc_attr
from raf.dialects.base import Frame, JSONEventDialect
from raf.dialects.tables import UsageTable, finish_reason
from raf.dialects.templates import Templates
from raf.formats.openai_chat._wire import _Choice, _Chunk, _Delta, _Function, _Groq, _ToolCall
from raf.framing.sse import DataRun, ServerSentEvent
from raf.limits import DEFAULT_MAX_JSON_DEPTH, DEFAULT_MAX_RAW_CHARS
from raf.model import updates
from raf.model.codes import ErrorCode
from raf.model.updates import AgentResponseUpdate, DeltaBatch
from raf.model.usage import Usage

__all__ = ["DONE", "FINISH_REASONS", "USAGE", "OpenAIChatDialect", "parse_usage"]

DONE = "[DONE]"
"""The data value that ends an OpenAI Chat Completions stream."""


_decode_chunk = msgspec.json.Decoder(_Chunk).decode
_TEMPLATES = 8
"""How many templates (raf.dialects.templates) a stream keeps: one per call streaming at once,
and one for text."""
_HOLD = 512
"""The most deltas a batch left open across runs gathers before it is handed on: each held
fragment costs about 55 bytes (512: 28 KB), and holding more saved no measurable time."""


_TextDelta = updates.TextDelta
_ReasoningDelta = updates.ReasoningDelta
_ToolCallDelta = updates.ToolCallDelta
_encode = msgspec.json.encode


class _Salvage:
    """Builds a :class:`_Chunk` from a generically decoded chunk, dropping (and naming) every
    field whose type is wrong. Used only for chunks the strict decoder rejected."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def pick(self, obj: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
        value = obj.get(key)
        if value is None or (isinstance(value, kind) and not isinstance(value, bool)):
            return value
        self.problems.append(f"{where}{key} is {type(value).__name__}")
        return None

    def chunk(self, raw: dict[str, Any]) -> _Chunk:
        choices = self.pick(raw, "choices", list, "")
        groq = self.pick(raw, "x_groq", dict, "")
        return _Chunk(
            id=self.pick(raw, "id", str, ""),
            object=raw.get("object") if isinstance(raw.get("object"), str) else None,
            model=self.pick(raw, "model", str, ""),
            choices=None
            if choices is None
            else [
                c for i, item in enumerate(choices) if (c := self.choice(item, f"choices[{i}]."))
            ],
            usage=self.pick(raw, "usage", dict, ""),
            error=raw.get("error"),
            x_groq=None if groq is None else _Groq(usage=self.pick(groq, "usage", dict, "x_groq.")),
        )

    def choice(self, raw: Any, where: str) -> _Choice | None:
        if not isinstance(raw, dict):
            self.problems.append(f"{where[:-1]} is {type(raw).__name__}")
            return None
        index = raw.get("index")
        if type(index) is int and index != 0:
            return None  # another choice of an n > 1 request: ignored, so not checked either
        delta = self.pick(raw, "delta", dict, where)
        return _Choice(
            index=self.pick(raw, "index", int, where),
            delta=None if delta is None else self.delta(delta, f"{where}delta."),
            finish_reason=self.pick(raw, "finish_reason", str, where),
            text=raw.get("text"),
        )

    def delta(self, raw: dict[str, Any], where: str) -> _Delta:
        calls = self.pick(raw, "tool_calls", list, where) or []
        return _Delta(
            content=self.pick(raw, "content", (str, list), where),
            reasoning_content=self.pick(raw, "reasoning_content", str, where),
            reasoning=self.pick(raw, "reasoning", str, where),
            reasoning_details=self.pick(raw, "reasoning_details", list, where),
            tool_calls=[
                c
                for i, item in enumerate(calls)
                if (c := self.call(item, f"{where}tool_calls[{i}]."))
            ]
            or None,
        )

    def call(self, raw: Any, where: str) -> _ToolCall | None:
        if not isinstance(raw, dict):
            self.problems.append(f"{where[:-1]} is {type(raw).__name__}")
            return None
        function = self.pick(raw, "function", dict, where)
        if function is not None:
            arguments = function.get("arguments")
            if arguments is not None and not isinstance(arguments, str):
                # Some servers send the arguments as an object: keep them, as JSON text.
                arguments = _encode(arguments).decode()
            function = _Function(
                name=self.pick(function, "name", str, f"{where}function."), arguments=arguments
            )
        return _ToolCall(
            index=self.pick(raw, "index", int, where),
            id=self.pick(raw, "id", str, where),
            function=function,
        )


USAGE = UsageTable(
    prompt_tokens=(("prompt_tokens",),),
    completion_tokens=(("completion_tokens",),),
    total_tokens=(("total_tokens",),),
    cache_hit=(("prompt_cache_hit_tokens",), ("prompt_tokens_details.cached_tokens",)),
    cache_miss=(("prompt_cache_miss_tokens",),),
    reasoning=(("completion_tokens_details.reasoning_tokens",), ("reasoning_tokens",)),
)
"""The OpenAI usage object (DeepSeek's cache fields included; the top-level
``reasoning_tokens`` of SGLang-based servers such as NVIDIA NIM), docs/dialects.md."""

FINISH_REASONS: dict[str, str] = {}
"""The format's finish reasons are raf's own (``stop``, ``length``, ``tool_calls``,
``content_filter``); any other value is kept verbatim."""


def parse_usage(raw: dict[str, Any]) -> Usage:
    """Build :class:`Usage` from an OpenAI-format usage object (DeepSeek's included), by
    :data:`USAGE`: missing or malformed counts are 0 (totals) or ``None`` (optional counts); a
    missing total is prompt + completion; cache hits come from DeepSeek's top-level
    ``prompt_cache_hit_tokens``, else from ``prompt_tokens_details.cached_tokens``; misses from
    ``prompt_cache_miss_tokens``, else prompt - hit when the hit count is known; reasoning
    tokens from ``completion_tokens_details.reasoning_tokens``, else from a top-level
    ``reasoning_tokens`` (SGLang-based servers, NVIDIA NIM)."""
    return USAGE.parse(raw)


@mypyc_attr(allow_interpreted_subclasses=True)
class OpenAIChatDialect(JSONEventDialect):
    """Sans-IO state of one Chat Completions stream. See the module docstring for the rules.

    Args:
        max_json_depth: deepest nesting accepted in a payload (``json_too_deep`` past it).
        max_raw_chars: longest ``raw`` excerpt an error keeps of an offending payload.
    """

    name = "openai_chat"
    framing = "sse"
    end_markers = frozenset({DONE})
    payload_name = "chat completion chunk"
    fast_decode = _decode_chunk  # the usual chunk, strictly typed; decode() salvages the rest
    fast_kind = "chunk"
    sniff = (rb'"object"\s*:\s*"chat\.completion\.chunk"', rb'"choices"\s*:')
    truncation_message = "stream ended without [DONE] and without a finish_reason"
    recognises_by_type = False  # every payload is a "chunk": _chunk tells (_is_chunk)

    def __init__(
        self,
        *,
        max_json_depth: int = DEFAULT_MAX_JSON_DEPTH,
        max_raw_chars: int = DEFAULT_MAX_RAW_CHARS,
    ) -> None:
        super().__init__(max_json_depth=max_json_depth, max_raw_chars=max_raw_chars)
        # Templates of batched chunks (feed_run), with the call index each is for (None:
        # text), and the metadata they were made under.
        self._templates: Templates[int | None] = Templates(_TEMPLATES)
        # The batch of the last runs, left open for the next one (batch mode only).
        self._held: DeltaBatch | None = None
        self._templates_for: tuple[str | None, str | None] = (None, None)

    def decode(self, frame: Frame) -> tuple[str, Any] | None:
        """Chunks are decoded strictly typed (fast); one that does not fit is salvaged field
        by field, so one odd field costs an error report, not the whole chunk."""
        data = frame.data
        try:
            return "chunk", _decode_chunk(data)
        except (msgspec.ValidationError, msgspec.DecodeError) as exc:
            # A field of the wrong type, a number out of range, or a lone surrogate escape:
            # salvage what can be kept. Anything else is not JSON.
            if isinstance(exc, msgspec.ValidationError) or "\\u" in data:
                decoded = super().decode(frame)
                if decoded is None:
                    return None
                salvage = _Salvage()
                raw = decoded[1]
                chunk = salvage.chunk(raw)
                if not _CHUNK_KEYS.isdisjoint(raw) or _is_chunk(chunk):
                    for problem in salvage.problems:
                        frame.problem(problem)
                # (else it is no chunk at all, whose fields' types mean nothing: _chunk
                # counts it as unrecognised)
                return "chunk", chunk
            frame.out.append(
                self.error(ErrorCode.SSE_PARSE_ERROR, f"data is not JSON ({exc})", data)
            )
            return None

    def usual(self, event: ServerSentEvent, out: list[AgentResponseUpdate]) -> bool:
        """The usual chunk, mapped as :meth:`_chunk` maps it: a ``message`` event whose data
        is a JSON object that decodes as a chunk with one choice (index 0 or none) carrying
        text and/or tool-call fragments, and no finish reason, reasoning, usage or error.
        Any other frame returns ``False`` and takes the shared path (its data decoded again).
        """
        if event.event != "message":
            return False
        chunk = self.typed_usual(event, _decode_chunk)
        if chunk is not None and self._usual(chunk, out, event.data):
            self.fast_stats["typed"] += 1
            return True
        return False

    def feed_run(self, run: DataRun, frame: Frame, batch: bool) -> bool:
        """A run's chunks are read straight from bytes: through a template where one matches
        (see :meth:`_batch`), else decoded in full and mapped as :meth:`usual` maps them, or
        by the shared path, in their place. With ``batch``, the deltas of consecutive usual
        chunks that only add text, reasoning or arguments to a call already named are
        gathered into one :class:`DeltaBatch`, left open across runs (up to 512 deltas)
        until a chunk of another kind, an event outside a run, the end of the stream or
        :meth:`flush`. A run where a payload may nest too deep is mapped event by event."""
        payloads = run.payloads
        depth = self.max_json_depth
        if run.names is not None or self._usual_path() is None:
            # Typed events (not this format's usual shape), or the fast paths switched off
            # (``usual = None``, as the tests that compare with the shared path do).
            frame.out.extend(self.flush())
            return self.feed_payloads(payloads, run.id, frame, run.names)
        if max(map(len, payloads)) > 2 * depth + 1 and any(
            p.count(b"{") + p.count(b"[") > depth for p in payloads if len(p) > 2 * depth + 1
        ):
            # One may nest too deep (a document deeper than the limit needs more than
            # 2 * depth + 1 characters, and more brackets): the shared path tells, after
            # the batch left open, which came first.
            frame.out.extend(self.flush())
            return self.feed_payloads(payloads, run.id, frame)
        if batch:
            return self._batch(payloads, run.id, frame)
        frame.out.extend(self.flush())
        return self._stream(payloads, run.id, frame)

    def _templates_now(self) -> Templates[int | None]:
        """The templates, emptied if the response's id or model changed since they were made
        (their chunks would change the metadata now)."""
        templates = self._templates
        now = (self._last_id, self._last_model)
        if self._templates_for != now:
            templates.clear()
            self._templates_for = now
        return templates

    def _stream(self, payloads: list[bytes], event_id: str, frame: Frame) -> bool:
        """:meth:`feed_run` without ``batch``: each payload that matches a template gives the
        update its chunk gives (a ``TextDelta`` or an argument-only ``ToolCallDelta``); any
        other is decoded and mapped as :meth:`usual` maps it, leaving a template if it holds
        one text or argument fragment, or takes the shared path."""
        out = frame.out
        templates = self._templates_now()
        match = templates.matcher()
        for payload in payloads:
            try:
                matched = match(payload) if match is not None else None
                if matched is not None:
                    value, tag = matched
                    if tag is not None:
                        out.append(_ToolCallDelta(index=tag, arguments_delta=value))
                    elif value:
                        out.append(_TextDelta(delta=value))
                    continue
                self.fast_stats["typed"] += 1
                try:
                    chunk = _decode_chunk(payload)
                except (msgspec.ValidationError, msgspec.DecodeError):
                    chunk = None
                if chunk is not None and self._usual(chunk, out, payload):
                    templates = self._templates_now()
                    match = templates.matcher()
                    delta = chunk.choices[0].delta  # type: ignore[index]  # usual: one choice
                    content = delta.content  # type: ignore[union-attr]  # and a delta
                    calls = delta.tool_calls  # type: ignore[union-attr]
                    if calls:
                        call = calls[0]
                        function = call.function
                        if (
                            len(calls) == 1
                            and not content
                            and call.index is not None
                            and function is not None
                            and function.arguments
                            and not call.id
                            and not function.name
                        ):
                            templates.add(payload, "arguments", function.arguments, call.index)
                    elif content:
                        templates.add(payload, "content", content, None)  # type: ignore[arg-type]
                    continue
                if self._one(payload, event_id, frame):
                    return True
                templates = self._templates_now()
                match = templates.matcher()
            except Exception as exc:  # a bug in raf: report it, skip the chunk, go on
                out.append(self.internal_error(exc, payload.decode("utf-8", "replace")))
        return False

    def _one(self, payload: bytes, event_id: str, frame: Frame) -> bool:
        """The shared path for one payload of a run."""
        event = ServerSentEvent(data=payload.decode("utf-8", "replace"), id=event_id)
        return self.feed_event(event, frame)

    def _batch(self, payloads: list[bytes], event_id: str, frame: Frame) -> bool:
        """:meth:`feed_run` with ``batch``. A payload that matches a template (the chunk of a
        text or argument fragment seen before, with another string in its place) is read
        without decoding the rest of it; the others are decoded in full, and each that can
        be batched leaves a template for those that follow."""
        out: list[Any] = frame.out  # updates, and the DeltaBatch values
        held = self._held
        if held is None:
            reasoning: list[str] = []
            text: list[str] = []
            arguments: dict[int | str, list[str]] = {}
            order: list[int | str] = []
        else:  # the batch the last runs left open: this run goes on with it
            self._held = None
            reasoning, text, arguments, order = (
                held.reasoning,
                held.text,
                held.arguments,
                held.order,
            )
        last_id, last_model = self._last_id, self._last_model
        templates = self._templates_now()
        match = templates.matcher()
        gathered = False  # a chunk was gathered into the batch: the stream is recognised
        for payload in payloads:
            try:
                matched = match(payload) if match is not None else None
                if matched is not None:
                    value, tag = matched
                    if tag is None:
                        if value:
                            text.append(value)
                        continue
                    if value:
                        pieces = arguments.get(tag)
                        if pieces is None:
                            arguments[tag] = [value]
                        else:
                            pieces.append(value)
                        order.append(tag)
                        continue
                self.fast_stats["typed"] += 1
                try:
                    chunk = _decode_chunk(payload)
                except (msgspec.ValidationError, msgspec.DecodeError):
                    chunk = None
                if chunk is not None and chunk.error is None and chunk.usage is None:
                    choices = chunk.choices
                    chunk_id, model = chunk.id, chunk.model
                    if (
                        choices is not None
                        and len(choices) == 1
                        and chunk.x_groq is None
                        and (not chunk_id or chunk_id == last_id)
                        and (not model or model == last_model)
                    ):
                        choice = choices[0]
                        delta = choice.delta
                        if delta is not None and not choice.index and not choice.finish_reason:
                            content = delta.content
                            calls = delta.tool_calls
                            fragment = index = None
                            if calls:
                                call = calls[0]
                                function = call.function
                                index = call.index
                                if (
                                    len(calls) == 1
                                    and index is not None
                                    and function is not None
                                    and not call.id
                                    and not function.name
                                ):
                                    fragment = function.arguments
                            if (
                                (content is None or type(content) is str)
                                and (not calls or fragment)
                                and not delta.reasoning_details
                            ):
                                gathered = True
                                thought = delta.reasoning_content or delta.reasoning
                                if thought and text:
                                    # Reasoning after text: the batch so far first (a batch
                                    # gives its reasoning before its text).
                                    out.append(
                                        DeltaBatch(
                                            reasoning=reasoning,
                                            text=text,
                                            arguments=arguments,
                                            order=order,
                                        )
                                    )
                                    reasoning, text, arguments, order = [], [], {}, []
                                if thought:
                                    reasoning.append(thought)
                                if content:
                                    text.append(content)
                                if fragment:
                                    pieces = arguments.get(index)  # type: ignore[arg-type]
                                    if pieces is None:
                                        arguments[index] = [fragment]  # type: ignore[index]
                                    else:
                                        pieces.append(fragment)
                                    order.append(index)  # type: ignore[arg-type]
                                if not thought:
                                    if fragment and not content:
                                        if not templates.add(payload, "arguments", fragment, index):
                                            match = templates.matcher()
                                    elif (
                                        content
                                        and not calls
                                        and not templates.add(payload, "content", content, None)
                                    ):
                                        match = templates.matcher()
                                continue
                # Not a batch's chunk: the batch so far, then the chunk as usual.
                if reasoning or text or order:
                    out.append(
                        DeltaBatch(reasoning=reasoning, text=text, arguments=arguments, order=order)
                    )
                    reasoning, text, arguments, order = [], [], {}, []
                usual = chunk is not None and self._usual(chunk, out, payload)
                if not usual and self._one(payload, event_id, frame):
                    if gathered:
                        self.recognised = True
                    return True
                if (self._last_id, self._last_model) != (last_id, last_model):
                    last_id, last_model = self._last_id, self._last_model
                    templates.clear()
                    self._templates_for = (last_id, last_model)
                    match = templates.matcher()
            except Exception as exc:  # a bug in raf: report it, skip the chunk, go on
                out.append(self.internal_error(exc, payload.decode("utf-8", "replace")))
        if gathered:
            self.recognised = True
        if reasoning or text or order:
            batch = DeltaBatch(reasoning=reasoning, text=text, arguments=arguments, order=order)
            if len(order) + len(text) + len(reasoning) < _HOLD:
                self._held = batch  # left open for the next run (flush() hands it on)
            else:
                out.append(batch)
        return False

    def fast_path_counts(self) -> dict[str, int]:
        """See :meth:`JSONEventDialect.fast_path_counts`; with the payloads read through a
        template."""
        counts = super().fast_path_counts()
        counts["template"] = self._templates.hits
        return counts

    def flush(self) -> list[Any]:
        """The batch left open by the last runs, if any (see :meth:`feed_run`)."""
        held, self._held = self._held, None
        return [] if held is None else [held]

    def _usual(self, chunk: _Chunk, out: list[AgentResponseUpdate], data: str | bytes) -> bool:
        """Map ``chunk`` if it has the usual shape (see :meth:`usual`); ``False``,
        having done nothing, if it has not."""
        choices = chunk.choices
        if (
            choices is None
            or len(choices) != 1
            or chunk.error is not None
            or chunk.usage is not None
            or chunk.x_groq is not None
        ):
            return False
        choice = choices[0]
        delta = choice.delta
        if (
            delta is None
            or choice.index
            or choice.finish_reason
            or delta.reasoning_content
            or delta.reasoning
            or delta.reasoning_details
        ):
            return False
        content = delta.content
        if content is not None and type(content) is not str:
            return False  # a list of parts
        self.recognised = True
        try:
            chunk_id, model = chunk.id, chunk.model
            if (chunk_id and chunk_id != self._last_id) or (model and model != self._last_model):
                self.metadata(chunk_id, model, out)
            if content:
                out.append(_TextDelta(delta=content))
            if delta.tool_calls:
                _tool_call_deltas(delta.tool_calls, out)
        except Exception as exc:  # a bug in raf: report it, skip the frame, go on
            if not isinstance(data, str):
                data = data.decode("utf-8", "replace")
            out.append(self.internal_error(exc, data))
        return True

    def _chunk(self, chunk: _Chunk, frame: Frame) -> None:
        out = frame.out
        if frame.problems is None and not _is_chunk(chunk):
            self.unrecognised(frame)  # another format's (legacy Completions, Ollama...)
            return
        self.recognised = True
        # Azure's filter chunks carry "id": "" and "model": "": empty means absent. (The test
        # is inlined: most chunks repeat the id and model of the last one.)
        chunk_id, model = chunk.id, chunk.model
        if (chunk_id and chunk_id != self._last_id) or (model and model != self._last_model):
            self.metadata(chunk_id, model, out)

        if chunk.error is not None:
            out.append(self.provider_error_update(chunk.error, frame.data))

        raw_usage = chunk.usage
        if raw_usage is None and chunk.x_groq is not None:
            raw_usage = chunk.x_groq.usage
        usage = None if raw_usage is None else USAGE.parse(raw_usage)

        finish: updates.Finish | None = None
        for choice in chunk.choices or ():
            if choice.index:
                continue  # n > 1: only the first choice (index 0 or none) is the response
            delta = choice.delta
            if delta is not None:
                reasoning = delta.reasoning_content or delta.reasoning
                if reasoning:
                    out.append(_ReasoningDelta(delta=reasoning))
                if delta.reasoning_details:
                    _reasoning_details(delta.reasoning_details, out)
                content = delta.content
                if content:
                    if type(content) is str:
                        out.append(_TextDelta(delta=content))
                    else:
                        _map_content_parts(content, frame)  # type: ignore[arg-type]
                if delta.tool_calls:
                    _tool_call_deltas(delta.tool_calls, out)
            reason = choice.finish_reason
            if reason:
                finish = updates.Finish(
                    finish_reason=finish_reason(FINISH_REASONS, reason), usage=usage
                )
                self.finished = True
                out.append(finish)

        if usage is not None and finish is None:
            out.append(updates.Usage(usage=usage))


# Set after the class: a compiled class body cannot name its own methods (docs/compiled.md).
OpenAIChatDialect.handlers = {"chunk": OpenAIChatDialect._chunk}


def _reasoning_details(details: list[Any], out: list[AgentResponseUpdate]) -> None:
    """OpenRouter's ``reasoning_details``: what a client must send back of them (their text
    repeats ``delta.reasoning``): a ``reasoning.text`` entry's non-empty ``signature`` ->
    ``ReasoningSignature``, a ``reasoning.encrypted`` entry's non-empty ``data`` ->
    ``RedactedReasoning``; anything else is not read."""
    for detail in details:
        if not isinstance(detail, dict):
            continue
        kind = detail.get("type")
        if kind == "reasoning.text":
            signature = detail.get("signature")
            if isinstance(signature, str) and signature:
                out.append(updates.ReasoningSignature(signature=signature))
        elif kind == "reasoning.encrypted":
            data = detail.get("data")
            if isinstance(data, str) and data:
                out.append(updates.RedactedReasoning(data=data))


_CHUNK_KEYS = frozenset({"choices", "usage", "error", "x_groq"})
"""The fields that make a JSON object a chat completion chunk (with ``object``)."""


def _is_chunk(chunk: _Chunk) -> bool:
    """Whether a payload is a chat completion chunk at all: when it has a non-empty
    ``object``, that it starts with ``chat.completion`` (``text_completion`` and
    ``thread.run`` are other formats'); else that it has ``choices`` that are empty or of
    which one is not a legacy Completions choice (``text`` and no ``delta``), or usage (also
    Groq's) or an error. Anything else is of another format."""
    kind = chunk.object
    if kind:
        return kind.startswith("chat.completion")
    choices = chunk.choices
    if choices is not None and (
        not choices or any(c.delta is not None or c.text is None for c in choices)
    ):
        return True
    return chunk.usage is not None or chunk.error is not None or chunk.x_groq is not None


def _tool_call_deltas(tool_calls: list[_ToolCall], out: list[AgentResponseUpdate]) -> None:
    """One ``ToolCallDelta`` per entry of ``delta.tool_calls``: an empty id or name is none."""
    for call in tool_calls:
        function = call.function
        out.append(
            _ToolCallDelta(
                index=call.index,
                id=call.id or None,
                name=None if function is None else function.name or None,
                arguments_delta="" if function is None else function.arguments or "",
            )
        )


def _map_content_parts(parts: list[Any], frame: Frame) -> None:
    """Content given as a list of parts (Mistral): text parts and nested thinking parts."""
    out = frame.out
    for part in parts:
        if isinstance(part, str):
            if part:
                out.append(updates.TextDelta(delta=part))
            continue
        if not isinstance(part, dict):
            frame.problem(f"content part is {type(part).__name__}")
            continue
        kind = part.get("type")
        if kind == "text" and isinstance(part.get("text"), str):
            if part["text"]:
                out.append(updates.TextDelta(delta=part["text"]))
        elif kind == "thinking":
            thinking = part.get("thinking")
            pieces = thinking if isinstance(thinking, list) else [thinking]
            for piece in pieces:
                text = piece.get("text") if isinstance(piece, dict) else piece
                if isinstance(text, str) and text:
                    out.append(updates.ReasoningDelta(delta=text))
        else:
            frame.problem(f"content part of type {kind!r} not understood")
