"""Machine-readable error codes carried by ``updates.Error`` and ``contents.Error``. No IO."""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    """What went wrong, as a stable string a program can branch on.

    RAF itself only ever uses ``sse_parse_error``; raf keeps that code for payloads that are
    not JSON and adds the others (docs/deviations.md). Codes are plain strings in the model, so
    an implementation may report codes not listed here.
    """

    SSE_PARSE_ERROR = "sse_parse_error"
    """A ``data`` payload is not valid JSON."""
    JSON_TOO_DEEP = "json_too_deep"
    """A payload, or a tool call's arguments, nests deeper than ``max_json_depth``."""
    INVALID_CHUNK = "invalid_chunk"
    """A payload is valid JSON but not a chunk of the dialect (e.g. ``"choices": "x"``)."""
    PROVIDER_ERROR = "provider_error"
    """The provider reported an error inside the stream (``{"error": ...}``, ``event: error``)."""
    STREAM_TRUNCATED = "stream_truncated"
    """The stream ended without its end marker, or inside an unfinished event."""
    PROTOCOL_VIOLATION = "protocol_violation"
    """The stream broke its own format's rules (a second ``message_start``, an item id that
    changed between ``added`` and ``done``, two items at one ``output_index``); what arrived
    is kept and the dialect's documented choice applies."""
    SSE_LIMIT_EXCEEDED = "sse_limit_exceeded"
    """A line or an event exceeded the decoder's size limit; the stream was abandoned."""
    INVALID_TOOL_ARGUMENTS = "invalid_tool_arguments"
    """A tool call's accumulated arguments are not one JSON document."""
    INVALID_TOOL_CALL = "invalid_tool_call"
    """A tool call never received a name, so it cannot be called."""
    TOOL_CALL_INCOMPLETE = "tool_call_incomplete"
    """The stream ended abnormally (no finish reason: truncated, interrupted, cancelled) while
    a tool call's arguments were still incomplete; ``raw`` holds what arrived."""
    TOOL_ARGUMENTS_TOO_LARGE = "tool_arguments_too_large"
    """A tool call's arguments passed the converter's size limit; the call was dropped."""
    TOO_MANY_TOOL_CALLS = "too_many_tool_calls"
    """A turn had more tool calls than the converter's limit; the extra calls were dropped."""
    HTTP_ERROR = "http_error"
    """The HTTP response had a non-success status; its body is quoted."""
    TRANSPORT_ERROR = "transport_error"
    """Reading the stream failed (the connection dropped, a read timed out, the source
    raised); everything that arrived before is kept."""
    CANCELLED = "cancelled"
    """The run was cancelled (asyncio cancellation, a timeout, ``KeyboardInterrupt``)."""
    INTERNAL_ERROR = "internal_error"
    """raf itself failed on this input: a bug in raf (please report it with the input). The
    offending event is skipped and the stream goes on."""
