"""Blocks: the typed parts of a message of a whole turn (raf's addition to RAF). No IO.

What a provider requires a client to send back after a streamed turn has to live somewhere:
Anthropic thinking blocks with their ``signature`` (and ``redacted_thinking`` data), Gemini's
``thoughtSignature`` on the exact part it came with, Responses reasoning items (their id and
``encrypted_content``) before the ``function_call`` they belong to, the call id each tool
result answers. A :class:`~raf.model.ChatMessage` holds them in order in ``blocks``; its
``content`` stays the text view (RAF's field). The seeds' models have the same idea:
tiny-agent's ``AssistantMessage { blocks }``, LangChain's ``content_blocks``, Microsoft Agent
Framework's ``Contents`` (docs/model.md maps each).

Blocks are namespaced by this module (``blocks.Text``, ``blocks.ToolCall``...) and tagged in
canonical JSON (``{"type": "tool_call", ...}``); the union is :data:`Block`.
"""

from __future__ import annotations

from typing import TypeAlias

from raf.model._base import JSONValue, Value

__all__ = ["Block", "HostedTool", "Image", "Raw", "Reasoning", "Text", "ToolCall", "ToolResult"]


class Text(Value, frozen=True, kw_only=True):
    """Text of the message. ``signature`` is an opaque signature the provider attached to this
    very part (Gemini's ``thoughtSignature`` on a text part) and requires back with it."""

    text: str
    signature: str | None = None


class Reasoning(Value, frozen=True, kw_only=True):
    """The model's reasoning, with everything needed to send it back.

    Attributes:
        text: the reasoning text (Anthropic thinking, Gemini thought text, the Responses
            summary parts joined, Chat Completions ``reasoning_content``).
        signature: the provider's signature of it (Anthropic ``signature``, Gemini
            ``thoughtSignature``); may be set with empty ``text`` (Anthropic's
            ``display: "omitted"``).
        redacted: the opaque ``data`` of an Anthropic ``redacted_thinking`` block.
        encrypted_content: the Responses reasoning item's ``encrypted_content``.
        item_id: the provider's id of the reasoning item (Responses ``rs_...``).
        summary: the texts of the Responses reasoning item's summary parts, in order.
    """

    text: str = ""
    signature: str | None = None
    redacted: str | None = None
    encrypted_content: str | None = None
    item_id: str | None = None
    summary: tuple[str, ...] = ()


class ToolCall(Value, frozen=True, kw_only=True):
    """A call of one of the client's tools.

    Attributes:
        id: the call id tool results answer (Gemini sends none: raf's id then).
        name: the tool.
        arguments: the arguments as JSON; the raw text when it was not valid JSON.
        signature: an opaque signature the provider attached to the call's own part (Gemini
            ``thoughtSignature`` on a ``functionCall`` part), to be sent back on it.
        item_id: the provider's id of the call's item when it differs from the call id
            (Responses ``fc_...`` beside ``call_...``).
    """

    id: str
    name: str
    arguments: JSONValue = None
    signature: str | None = None
    item_id: str | None = None


class ToolResult(Value, frozen=True, kw_only=True):
    """The result of one tool call: the ``call_id`` it answers, its ``content`` (text or
    JSON), whether it is an error, and the tool ``name`` (Gemini answers by name)."""

    call_id: str
    content: JSONValue = ""
    is_error: bool = False
    name: str | None = None


class HostedTool(Value, frozen=True, kw_only=True):
    """A tool the provider ran itself (web search, code execution) and what it returned; the
    client sends it back as it came. ``item`` keeps the provider's own parts (the call and its
    result items or blocks, as received) so nothing is lost on the way back. ``signature`` is
    an opaque signature the provider attached to the call's part (Gemini ``thoughtSignature``
    on an ``executableCode`` part)."""

    id: str
    name: str
    arguments: JSONValue = None
    output: JSONValue = None
    error: str | None = None
    item: JSONValue = None
    signature: str | None = None


class Image(Value, frozen=True, kw_only=True):
    """An image in a request: a ``url`` or base64 ``data`` with its ``media_type``."""

    url: str | None = None
    data: str | None = None
    media_type: str | None = None


class Raw(Value, frozen=True, kw_only=True):
    """A part raf does not model, kept exactly as the provider's wire had it (``value``), so
    reading a request and building it again loses nothing."""

    value: JSONValue = None


Block: TypeAlias = Text | Reasoning | ToolCall | ToolResult | HostedTool | Image | Raw
"""Any block of a message."""
