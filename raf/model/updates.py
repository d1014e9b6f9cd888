"""``AgentResponseUpdate``: the transport-level events a dialect produces (raf-spec 1.1).

The 12 variants of RAF (and raf's ``ReasoningSignature``, ``HostedToolCall`` and
``HostedToolResult``), one class each, namespaced by this
module the way Rust namespaces ``AgentResponseUpdate::TextDelta``: use ``updates.TextDelta``,
``updates.Usage``... The union of all of them is :data:`AgentResponseUpdate`. No IO.
"""

from __future__ import annotations

from typing import TypeAlias

import msgspec

from raf.model import usage as _usage
from raf.model._base import JSONValue, Value


class TextDelta(Value, frozen=True, kw_only=True):
    """A fragment of assistant text."""

    delta: str


class ReasoningDelta(Value, frozen=True, kw_only=True):
    """A fragment of reasoning ("thinking") text."""

    delta: str


class ReasoningSignature(Value, frozen=True, kw_only=True):
    """The provider's opaque signature of the reasoning so far (Anthropic's
    ``signature_delta``, Gemini's ``thoughtSignature``): a client must send it back with the
    reasoning (or the call) it belongs to, which is the one that precedes it in the stream. Not
    in RAF, which drops thinking blocks (docs/deviations.md)."""

    signature: str


class PartSignature(Value, frozen=True, kw_only=True):
    """An opaque signature the provider attached to a part that is not reasoning (Gemini's
    ``thoughtSignature`` on a text, ``functionCall`` or hosted part): a client must send it
    back on that very part. It comes right after the part's own updates; ``part`` says which
    part it is: ``text`` (the text just streamed), ``tool_call`` (the call just started),
    ``hosted`` (the hosted call or result just given) or ``empty`` (a part with nothing else,
    e.g. Gemini's empty text part that carries only the signature). Not in RAF
    (docs/deviations.md)."""

    signature: str
    part: str


class RedactedReasoning(Value, frozen=True, kw_only=True):
    """Reasoning the provider sent encrypted (Anthropic's ``redacted_thinking`` block): its
    opaque ``data``, which a client must send back as it came. Not in RAF
    (docs/deviations.md)."""

    data: str


class ReasoningItem(Value, frozen=True, kw_only=True):
    """The provider's reasoning item (a Responses ``reasoning`` output item): given when the
    item is added (its reasoning deltas follow) and again when it is done, with what a client
    must send back before the calls that follow it: ``item_id`` (``rs_...``),
    ``encrypted_content`` (under ``store: false``, usually only at done) and the texts of its
    ``summary`` parts (at done). Not in RAF (docs/deviations.md)."""

    item_id: str | None = None
    encrypted_content: str | None = None
    summary: tuple[str, ...] = ()


class RawItem(Value, frozen=True, kw_only=True):
    """An output item raf does not model that a client must send back as it came (a
    Responses ``compaction`` item, holding the conversation so far encrypted): ``item`` is
    the item whole. Not in RAF (docs/deviations.md)."""

    item: JSONValue


class ToolCallItem(Value, frozen=True, kw_only=True):
    """The provider's id of a call's item when it differs from the call id (a Responses
    ``function_call`` item ``fc_...`` beside its ``call_id``); a client sends both back. Comes
    right after the call's ``ToolCallStart``. Not in RAF (docs/deviations.md)."""

    call_id: str
    item_id: str


class ToolCallDelta(Value, frozen=True, kw_only=True):
    """A flat tool-call fragment as OpenAI-style streams send it.

    ``index`` is the provider's position of the call (``None`` when the provider sent none;
    RAF requires an index, see docs/deviations.md); ``id`` and ``name`` are present on the
    fragments where the provider sent them; ``arguments_delta`` is a piece of the JSON text.
    """

    index: int | None = None
    id: str | None = None
    name: str | None = None
    arguments_delta: str = ""


class ToolCallStart(Value, frozen=True, kw_only=True):
    """Explicit start of a tool call (dialects with block events)."""

    id: str
    name: str


class ToolCallArgs(Value, frozen=True, kw_only=True):
    """Explicit argument fragment of a started tool call."""

    id: str
    args_delta: str


class ToolCallEnd(Value, frozen=True, kw_only=True):
    """Explicit end of a tool call's arguments."""

    id: str


class ToolCalled(Value, frozen=True, kw_only=True):
    """Outcome of executing a tool call: a result or an error text."""

    id: str
    result: str | None = None
    error: str | None = None


class ToolApprovalRequest(Value, frozen=True, kw_only=True):
    """A tool call that needs a human's approval before it runs."""

    call_id: str
    name: str
    arguments: JSONValue
    description: str = ""


class HostedToolCall(Value, frozen=True, kw_only=True):
    """A tool the provider ran itself (web search, code execution, a hosted shell, an MCP
    server...): shown to the user, never a call the client must run. Not in RAF
    (docs/deviations.md).

    ``call_id`` is the provider's id of the call (its results name it); ``name`` the tool
    (``web_search``, ``code_execution``, an MCP tool's name...); ``arguments`` its input as
    JSON (``None`` when the provider sent none); ``item`` the provider's whole item or block
    as it arrived last, so that nothing raf does not model is lost.
    """

    call_id: str
    name: str
    arguments: JSONValue = None
    item: JSONValue = None


class HostedToolResult(Value, frozen=True, kw_only=True):
    """What a tool the provider ran returned (a search's results, a command's output...).
    Not in RAF (docs/deviations.md).

    ``call_id`` names the :class:`HostedToolCall` it answers; ``name`` is the kind of result
    as the provider calls it (``web_search_tool_result``, ``shell_call_output``...);
    ``output`` the result as JSON; ``error`` the provider's error text when the tool failed;
    ``item`` the whole item or block when it is not the call's own (else ``None``).
    """

    call_id: str
    name: str
    output: JSONValue = None
    error: str | None = None
    item: JSONValue = None


class RoundFinished(Value, frozen=True, kw_only=True):
    """The tool loop ended one model round whose calls the client runs (raf's addition; RAF
    swallows the round's finish and the usage attached to it, raf-spec 5.3 [quirk]).

    ``round`` counts from 0; ``finish_reason`` and ``usage`` are the provider's for that
    round (``None`` when it sent none). The loop emits it after the round's own updates and
    before the ``ToolCalled`` updates (or approval requests) of its calls; the converter closes
    the round's calls on it, as at the end of a turn (docs/agent.md).
    """

    round: int
    finish_reason: str | None = None
    usage: _usage.Usage | None = None


class Usage(Value, frozen=True, kw_only=True):
    """Token usage reported on its own (not beside a finish reason)."""

    usage: _usage.Usage


class Finish(Value, frozen=True, kw_only=True):
    """End of a model turn, with the usage the provider sent beside the finish reason."""

    finish_reason: str
    usage: _usage.Usage | None = None


class Error(Value, frozen=True, kw_only=True):
    """A problem in the stream. The stream goes on unless the code says it cannot.

    ``error_code`` is machine-readable (:class:`raf.model.codes.ErrorCode`; the same name as
    on the ``Error`` content, so a code has one name everywhere); ``message`` is for people and
    quotes the offending input, shortened; ``raw`` holds the offending input itself where
    there is one (e.g. the payload that is not JSON). RAF's variant carries only a message
    (docs/deviations.md).
    """

    error_code: str
    message: str
    raw: str | None = None


class ResponseMetadata(Value, frozen=True, kw_only=True):
    """The response id and model name a chunk carried."""

    id: str | None = None
    model: str | None = None


AgentResponseUpdate: TypeAlias = (
    TextDelta
    | ReasoningDelta
    | ReasoningSignature
    | ToolCallDelta
    | ToolCallStart
    | ToolCallArgs
    | ToolCallEnd
    | ToolCalled
    | ToolApprovalRequest
    | Usage
    | Finish
    | Error
    | ResponseMetadata
    | HostedToolCall
    | HostedToolResult
    | PartSignature
    | RedactedReasoning
    | ReasoningItem
    | ToolCallItem
    | RawItem
    | RoundFinished
)
"""Any update."""

VARIANTS: tuple[type[Value], ...] = (
    TextDelta,
    ReasoningDelta,
    ToolCallDelta,
    ToolCallStart,
    ToolCallArgs,
    ToolCallEnd,
    ToolCalled,
    ToolApprovalRequest,
    Usage,
    Finish,
    Error,
    ResponseMetadata,
    ReasoningSignature,
    HostedToolCall,
    HostedToolResult,
    PartSignature,
    RedactedReasoning,
    ReasoningItem,
    ToolCallItem,
    RawItem,
    RoundFinished,
)
"""Every update class: RAF's 12 in RAF's order, then raf's additions."""


class DeltaBatch(msgspec.Struct, kw_only=True, gc=False):
    """Not an update: a run of the usual deltas in the form only an aggregate needs.

    A dialect gives it in place of a run of updates when the pipeline asks for batches
    (``feed_frames(frames, batch=True)``, which :meth:`raf.pipeline.Pipeline.feed_into` of an
    aggregate-only converter does): the run's ``ReasoningDelta``, ``TextDelta`` and
    argument-only ``ToolCallDelta`` values (no id, no name, an index) or ``ToolCallArgs``
    values, with everything
    between them that the aggregate does not see dropped: the order of the texts among the
    fragments. :meth:`raf.converter.AgentResponseConverter.collect` folds it into the
    response as those updates would be; ``results`` expands it (reasoning, then text, then
    the fragments in ``order``).

    Attributes:
        reasoning: the reasoning deltas, in order (none empty).
        text: the text deltas, in order (none empty).
        arguments: each call's argument fragments, in order (none empty), by the call's
            index (an ``int``: the fragments of ``ToolCallDelta`` values with that index and
            no id or name) or by its id (a ``str``: the fragments of ``ToolCallArgs`` values
            of a started call, for formats that name calls explicitly).
        order: the key of every fragment, in the order they came.
    """

    reasoning: list[str]
    text: list[str]
    arguments: dict[int | str, list[str]]
    order: list[int | str]

    def updates(self) -> list[AgentResponseUpdate]:
        """The updates the batch stands for (reasoning, text, then the fragments in order)."""
        out: list[AgentResponseUpdate] = [ReasoningDelta(delta=d) for d in self.reasoning]
        out.extend(TextDelta(delta=d) for d in self.text)
        pieces = {key: iter(fragments) for key, fragments in self.arguments.items()}
        for key in self.order:
            if isinstance(key, str):
                out.append(ToolCallArgs(id=key, args_delta=next(pieces[key])))
            else:
                out.append(ToolCallDelta(index=key, arguments_delta=next(pieces[key])))
        return out
