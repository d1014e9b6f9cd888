"""``gemini``: Gemini ``streamGenerateContent`` streams (Gemini API and Vertex AI)."""

from __future__ import annotations

from collections.abc import Mapping

from raf.formats.format import Endpoint, Format, HttpApi, RequestUrl
from raf.formats.gemini import dialect, request, rules

__all__ = ["FORMAT", "GOOGLE_STATUS", "error_document"]

GOOGLE_STATUS: Mapping[int, str] = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}
"""Google's ``error.status`` by HTTP status (``UNKNOWN`` for any other)."""


def error_document(status: int, message: str) -> object:
    """The error JSON of Google's APIs (``error.code``, ``error.status``)."""
    google = GOOGLE_STATUS.get(status, "UNKNOWN")
    return {"error": {"code": status, "message": message, "status": google}}


FORMAT = Format(
    name="gemini",
    dialect=dialect.GeminiDialect,
    strategies=f"{__name__}.strategies",
    framing=dialect.GeminiDialect.framing,
    framings=("auto", "sse", "json_array", "json_lines"),
    sniff=dialect.GeminiDialect.sniff,
    finish_reasons=dialect.FINISH_REASONS,
    usage=dialect.USAGE,
    endpoints=(
        Endpoint(
            "POST",
            r"(?:/[^/]+)*/[^/]+:stream[gG]enerateContent",
            "POST ...:streamGenerateContent",
        ),
        Endpoint("POST", r"(?:/[^/]+)*/[^/]+:[gG]enerateContent", "POST ...:generateContent"),
    ),
    error_document=error_document,
    request_fields=("systemInstruction", "contents", "tools"),
    equivalences=("schema_type_names", "signature_base64", "proto_field_names"),
    url_fields=("url.model", "url.method", "url.alt"),
    request_url=RequestUrl(
        path=r"(?:^|/)(?P<model>[^/:]*)(?::(?P<method>[^/]*))?$",  # .../models/<model>:<method>
        parameters=("alt", "$alt"),  # Google's system parameter, under either name
        framings={"sse": "sse", None: "json_array", "json": "json_array"},
        stream_methods=("streamGenerateContent", "streamgenerateContent"),
    ),
    recorded_uri=r":(?:streamGenerateContent|generateContent)",
    build_request=request.build_request,
    read_request=request.read_request,
    request_rules=rules.CHECKS,
    placeholder_uri=(
        "https://recorded.invalid/v1beta/models/recorded:streamGenerateContent?alt=sse"
    ),
    http=HttpApi(
        base_url="https://generativelanguage.googleapis.com/v1beta",
        path="/models/{model}:streamGenerateContent?alt=sse",
        auth_header="x-goog-api-key",
        auth_scheme="",
        options={
            "temperature": "generationConfig.temperature",
            "top_p": "generationConfig.topP",
            "stop": "generationConfig.stopSequences",
            "tool_choice": "toolConfig",
            "parallel_tool_calls": None,
        },
    ),
)
"""The ``gemini`` format."""
