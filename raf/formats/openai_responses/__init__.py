"""``openai_responses``: OpenAI Responses API streams."""

from __future__ import annotations

from raf.formats.format import Endpoint, Format, HttpApi
from raf.formats.openai_chat import error_document
from raf.formats.openai_responses import dialect, request, rules

__all__ = ["FORMAT"]

FORMAT = Format(
    name="openai_responses",
    dialect=dialect.OpenAIResponsesDialect,
    strategies=f"{__name__}.strategies",
    framing=dialect.OpenAIResponsesDialect.framing,
    framings=("sse",),
    sniff=dialect.OpenAIResponsesDialect.sniff,
    finish_reasons=dialect.FINISH_REASONS,
    usage=dialect.USAGE,
    endpoints=(
        Endpoint("POST", r"(?:/[^/]+)*/responses/?", "POST .../responses"),
        Endpoint("GET", r"(?:/[^/]+)*/responses/[^/]+/?", "GET .../responses/<id>"),
    ),
    error_document=error_document,  # the same API's errors
    request_fields=("model", "instructions", "input", "tools", "stream"),
    equivalences=("arguments_json", "input_string", "message_type", "developer_role"),
    recorded_uri=r"/responses(?:/|$)",
    build_request=request.build_request,
    read_request=request.read_request,
    request_rules=rules.CHECKS,
    placeholder_uri="https://recorded.invalid/v1/responses",
    http=HttpApi(
        base_url="https://api.openai.com/v1",
        path="/responses",
        options={"stop": None},
    ),
)
"""The ``openai_responses`` format."""
