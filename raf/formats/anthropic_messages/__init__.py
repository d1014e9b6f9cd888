"""``anthropic_messages``: Anthropic Messages streams (Anthropic's API, Claude on Vertex AI)."""

from __future__ import annotations

from collections.abc import Mapping

from raf.formats.anthropic_messages import dialect, request, rules
from raf.formats.format import Endpoint, Format, HttpApi

__all__ = ["ERROR_TYPES", "FORMAT", "error_document"]

ERROR_TYPES: Mapping[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}
"""Anthropic's ``error.type`` by HTTP status (``api_error`` for any other)."""


def error_document(status: int, message: str) -> object:
    """The error JSON of Anthropic's API (``type: error``, ``error.type`` by status)."""
    kind = ERROR_TYPES.get(status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": message}}


FORMAT = Format(
    name="anthropic_messages",
    dialect=dialect.AnthropicMessagesDialect,
    strategies=f"{__name__}.strategies",
    framing=dialect.AnthropicMessagesDialect.framing,
    framings=("sse",),
    sniff=dialect.AnthropicMessagesDialect.sniff,
    finish_reasons=dialect.FINISH_REASONS,
    usage=dialect.USAGE,
    endpoints=(
        Endpoint("POST", r"(?:/[^/]+)*/messages/?", "POST .../messages"),
        Endpoint("POST", r"(?:/[^/]+)*/[^/]+:streamRawPredict", "POST ...:streamRawPredict"),
    ),
    error_document=error_document,
    request_fields=("model", "system", "messages", "tools", "stream"),
    equivalences=("is_error_false",),
    recorded_uri=r"(?:/messages|:streamRawPredict|:rawPredict)$",  # and Claude on Vertex AI
    build_request=request.build_request,
    read_request=request.read_request,
    request_rules=rules.CHECKS,
    placeholder_uri="https://recorded.invalid/v1/messages",
    http=HttpApi(
        base_url="https://api.anthropic.com/v1",
        path="/messages",
        auth_header="x-api-key",
        auth_scheme="",
        headers={"anthropic-version": "2023-06-01"},
        options={"stop": "stop_sequences", "parallel_tool_calls": None},
        # The Messages API rejects a request without max_tokens.
        default_max_tokens=4096,
    ),
)
"""The ``anthropic_messages`` format."""
