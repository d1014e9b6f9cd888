"""Machine-readable error codes carried by ``updates.Error`` and ``contents.Error``. No IO."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["NOTICE_CODES", "ErrorCode", "is_notice"]


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
    """The stream broke its own format's rules in a way that may have changed the answer (a
    ``message_start`` with another id, two items at one ``output_index``, events for an item
    never added); what arrived is kept and the dialect's documented choice applies."""
    PROTOCOL_NOTICE = "protocol_notice"
    """A notice: the stream differs from its format's rules in a way real servers do and that
    changes nothing the user relies on (item ids that rotate at one ``output_index``, a
    ``call_id`` that changes at ``done``, a ``.done`` text that differs from its deltas, a
    ``message_start`` repeated with the same id); what arrived is kept."""
    UNRECOGNISED_CHUNKS = "unrecognised_chunks"
    """A notice, once at the end of a stream the dialect reads: that many of its chunks were
    of no kind the dialect knows, and were skipped; the message counts them and quotes one."""
    UNRECOGNISED_FORMAT = "unrecognised_format"
    """No chunk of the stream was one the dialect reads: the body is in another format (the
    message names what was seen and, when raf knows it, the format; docs/dialects.md,
    "Formats raf recognises but does not read"). Nothing was read from it."""
    SSE_LIMIT_EXCEEDED = "sse_limit_exceeded"
    """A line or an event exceeded the decoder's size limit; the stream was abandoned."""
    STREAM_CORRUPT = "stream_corrupt"
    """A binary stream failed its own integrity checks (an AWS event stream message with a bad
    CRC or an impossible layout): nothing after it can be trusted, so the stream was
    abandoned; everything decoded before it is kept."""
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


NOTICE_CODES: frozenset[str] = frozenset({ErrorCode.PROTOCOL_NOTICE, ErrorCode.UNRECOGNISED_CHUNKS})
"""The codes of notices: ``Error`` updates and contents that report a harmless deviation.
Every other code is an error. A notice never loses what arrived and never fails a run:
``AgentResponse.notices`` holds them apart from ``errors``, ``raise_on_error`` and
``--strict`` ignore them, and a conformance level counts a missing or extra notice as a
``detail`` (docs/deviations.md, "Notices")."""


def is_notice(code: str | None) -> bool:
    """Whether an error code is that of a notice (:data:`NOTICE_CODES`)."""
    return code in NOTICE_CODES
