"""``gemini_interactions``: Google's Interactions API streams (``POST .../interactions`` with
``"stream": true``; the steps schema)."""

from __future__ import annotations

from raf.formats.format import Endpoint, Format
from raf.formats.gemini import error_document
from raf.formats.gemini_interactions import dialect, http, request, rules

__all__ = ["FORMAT", "error_document"]


FORMAT = Format(
    name="gemini_interactions",
    dialect=dialect.GeminiInteractionsDialect,
    strategies=f"{__name__}.strategies",
    framing=dialect.GeminiInteractionsDialect.framing,
    framings=("sse",),
    sniff=dialect.GeminiInteractionsDialect.sniff,
    finish_reasons=dialect.FINISH_REASONS,
    usage=dialect.USAGE,
    endpoints=(
        Endpoint("POST", r"(?:/[^/]+)*/v1beta/interactions/?", "POST .../v1beta/interactions"),
        Endpoint("POST", r"(?:/[^/]+)*/v1/interactions/?", "POST .../v1/interactions"),
    ),
    error_document=error_document,
    request_fields=("model", "input", "system_instruction", "tools", "stream"),
    recorded_uri=r"/interactions(?:\?|$)",
    placeholder_uri="https://recorded.invalid/v1beta/interactions",
    build_request=request.build_request,
    read_request=request.read_request,
    request_rules=rules.CHECKS,
    http=http.HTTP,
)
"""The ``gemini_interactions`` format."""
