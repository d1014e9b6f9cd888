"""A request, independent of its wire format: the conversation, the tools and the options a
client sends (raf's addition; the request half of each format reads and builds it). No IO."""

from __future__ import annotations

import msgspec

from raf.model._base import JSONValue, Record
from raf.model.messages import ChatMessage

__all__ = ["Conversation", "RequestOptions", "ToolSpec"]


class ToolSpec(Record, frozen=True, kw_only=True):
    """A tool the client offers the model: its name, description and JSON Schema of its
    arguments.

    Attributes:
        extra: the tool's other members as the wire had them (``strict``,
            ``cache_control``, ``defer_loading``...), so nothing is lost.
        raw: a tool raf does not model as a function (a provider's built-in tool: web
            search, code execution...), exactly as the wire had it; ``name`` is then its
            name or type, and the format's builder sends ``raw`` as it is.
    """

    name: str
    description: str | None = None
    parameters: JSONValue = None
    extra: dict[str, JSONValue] = msgspec.field(default_factory=dict)
    raw: JSONValue = None


class RequestOptions(Record, frozen=True, kw_only=True):
    """What a request asks for besides the conversation and the tools.

    Attributes:
        model: the model (``None`` when the format carries it in the URL, as Gemini does).
        stream: whether the response is streamed.
        max_tokens: the output token limit, under whichever name the format uses.
        extra: every other top-level field of the request, as the wire had it (``temperature``,
            ``tool_choice``, ``store``, ``include``, ``thinking``...), so nothing is lost.
    """

    model: str | None = None
    stream: bool = True
    max_tokens: int | None = None
    extra: dict[str, JSONValue] = msgspec.field(default_factory=dict)


class Conversation(Record, frozen=True, kw_only=True):
    """One request: ``messages`` in order (system instructions as system messages), the
    ``tools`` offered and the ``options``."""

    messages: tuple[ChatMessage, ...] = ()
    tools: tuple[ToolSpec, ...] = ()
    options: RequestOptions = RequestOptions()
