"""``Content``: what an agent run streams to its caller (raf-spec 1.3).

The 12 variants of RAF and raf's ``HostedToolCall``, ``HostedToolResult`` and
``ToolApprovalRequest``, namespaced by this module (``contents.Text``, ``contents.Usage``...);
the union is :data:`Content`. Every content carries optional :class:`ResponseMetadata`
(``meta``), filled by the converter and left out of canonical JSON unless asked for. No IO.
"""

from __future__ import annotations

from typing import TypeAlias

from raf.model import usage as _usage
from raf.model._base import JSONValue, Value
from raf.model.metadata import ResponseMetadata


class Text(Value, frozen=True, kw_only=True):
    """A fragment of assistant text."""

    delta: str
    meta: ResponseMetadata | None = None


class Reasoning(Value, frozen=True, kw_only=True):
    """A fragment of reasoning text."""

    delta: str
    meta: ResponseMetadata | None = None


class Uri(Value, frozen=True, kw_only=True):
    """A link (never produced by the streaming pipeline)."""

    uri: str
    label: str | None = None
    meta: ResponseMetadata | None = None


class ToolCallStart(Value, frozen=True, kw_only=True):
    """Lifecycle step 1: a tool call began; its id and name are known."""

    call_id: str
    name: str
    meta: ResponseMetadata | None = None


class ToolCallArgs(Value, frozen=True, kw_only=True):
    """Lifecycle step 2: a raw fragment of the call's JSON arguments."""

    call_id: str
    args_delta: str
    meta: ResponseMetadata | None = None


class ToolCallArgsParsed(Value, frozen=True, kw_only=True):
    """Lifecycle step 2b: the value of top-level argument ``name`` is complete."""

    call_id: str
    name: str
    value: JSONValue
    meta: ResponseMetadata | None = None


class ToolCallArgsProgress(Value, frozen=True, kw_only=True):
    """Lifecycle step 2c: more of the still-open string argument ``name`` arrived.

    ``value`` is the newly decoded text since the previous progress of that argument and
    ``received`` the number of characters decoded so far (RAF repeats the whole prefix in
    every event; see docs/deviations.md).
    """

    call_id: str
    name: str
    received: int
    value: str
    meta: ResponseMetadata | None = None


class ToolCallEnd(Value, frozen=True, kw_only=True):
    """Lifecycle step 3: the call's arguments are complete."""

    call_id: str
    meta: ResponseMetadata | None = None


class ToolCalling(Value, frozen=True, kw_only=True):
    """Lifecycle step 4: the complete call, with its parsed arguments."""

    call_id: str
    name: str
    arguments: JSONValue
    meta: ResponseMetadata | None = None


class ToolCalled(Value, frozen=True, kw_only=True):
    """Lifecycle step 5: the outcome of executing the call."""

    call_id: str
    result: str | None = None
    error: str | None = None
    meta: ResponseMetadata | None = None


class HostedToolCall(Value, frozen=True, kw_only=True):
    """A tool the provider ran itself: for the user to see, never for the client to run.

    ``call_id`` is the provider's id of the call, ``name`` the tool, ``arguments`` its input
    as JSON, ``item`` the provider's whole item or block (what raf does not model is kept
    there). Not in RAF (docs/deviations.md).
    """

    call_id: str
    name: str
    arguments: JSONValue = None
    item: JSONValue = None
    meta: ResponseMetadata | None = None


class HostedToolResult(Value, frozen=True, kw_only=True):
    """What a tool the provider ran returned: ``output`` as JSON, ``error`` when it failed;
    ``name`` is the provider's kind of result, ``item`` its whole item or block when it is
    not the call's own. Not in RAF (docs/deviations.md)."""

    call_id: str
    name: str
    output: JSONValue = None
    error: str | None = None
    item: JSONValue = None
    meta: ResponseMetadata | None = None


class ToolApprovalRequest(Value, frozen=True, kw_only=True):
    """A tool call that waits for a person's approval (``updates.ToolApprovalRequest``):
    ``call_id`` is the id the approval must answer. RAF turns the update into display text;
    raf gives it as a content of its own (docs/deviations.md)."""

    call_id: str
    name: str
    arguments: JSONValue
    description: str = ""
    meta: ResponseMetadata | None = None


class RoundFinished(Value, frozen=True, kw_only=True):
    """The tool loop ended a model round whose calls the client runs
    (``updates.RoundFinished``; raf's addition): the round (from 0), the provider's finish
    reason and usage for it. The calls of the round were closed before it."""

    round: int
    finish_reason: str | None = None
    usage: _usage.Usage | None = None
    meta: ResponseMetadata | None = None


class Usage(Value, frozen=True, kw_only=True):
    """Token usage."""

    usage: _usage.Usage
    meta: ResponseMetadata | None = None


class Error(Value, frozen=True, kw_only=True):
    """A problem the run reported without stopping.

    ``error_code`` is machine-readable (:class:`raf.model.codes.ErrorCode`); ``call_id`` names
    the tool call the error is about, if any; ``raw`` keeps the offending input (e.g. the
    unparseable argument text) so nothing that arrived is lost.
    """

    error_code: str
    message: str
    call_id: str | None = None
    raw: str | None = None
    meta: ResponseMetadata | None = None


Content: TypeAlias = (
    Text
    | Reasoning
    | Uri
    | ToolCallStart
    | ToolCallArgs
    | ToolCallArgsParsed
    | ToolCallArgsProgress
    | ToolCallEnd
    | ToolCalling
    | ToolCalled
    | Usage
    | Error
    | HostedToolCall
    | HostedToolResult
    | ToolApprovalRequest
    | RoundFinished
)
"""Any content."""

VARIANTS: tuple[type[Value], ...] = (
    Text,
    Reasoning,
    Uri,
    ToolCallStart,
    ToolCallArgs,
    ToolCallArgsParsed,
    ToolCallArgsProgress,
    ToolCallEnd,
    ToolCalling,
    ToolCalled,
    Usage,
    Error,
    HostedToolCall,
    HostedToolResult,
    ToolApprovalRequest,
    RoundFinished,
)
"""Every content class: RAF's 12 in RAF's order, then raf's additions."""
