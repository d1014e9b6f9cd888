"""``openai_chat``: OpenAI Chat Completions streams (and the many servers that speak them)."""

from __future__ import annotations

from raf.formats.format import Endpoint, Format, HttpApi
from raf.formats.openai_chat import dialect, request, rules

__all__ = ["FORMAT", "error_document"]


def error_document(status: int, message: str) -> object:
    """The error JSON of OpenAI's API (``error.type`` and ``error.code`` by status)."""
    kind = "rate_limit_exceeded" if status == 429 else "server_error"
    if status < 500 and status != 429:
        kind = "invalid_request_error"
    return {"error": {"message": message, "type": kind, "param": None, "code": kind}}


FORMAT = Format(
    name="openai_chat",
    dialect=dialect.OpenAIChatDialect,
    strategies=f"{__name__}.strategies",
    framing=dialect.OpenAIChatDialect.framing,
    framings=("sse",),
    sniff=dialect.OpenAIChatDialect.sniff,
    finish_reasons=dialect.FINISH_REASONS,
    usage=dialect.USAGE,
    endpoints=(Endpoint("POST", r"(?:/[^/]+)*/chat/completions/?", "POST .../chat/completions"),),
    error_document=error_document,
    request_fields=("model", "messages", "tools", "stream", "stream_options"),
    equivalences=("arguments_json", "developer_role"),
    recorded_uri=r"/chat/completions$",
    build_request=request.build_request,
    read_request=request.read_request,
    request_rules=rules.CHECKS,
    placeholder_uri="https://recorded.invalid/v1/chat/completions",
    http=HttpApi(
        base_url="https://api.openai.com/v1",
        path="/chat/completions",
        usage_request={"stream_options": {"include_usage": True}},
    ),
)
"""The ``openai_chat`` format."""
