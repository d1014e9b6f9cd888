"""``openai_completions``: OpenAI's legacy Completions streams (``POST .../completions``), as
OpenAI, Azure OpenAI, vLLM, llama.cpp and SGLang serve them."""

from __future__ import annotations

from raf.formats.format import Endpoint, Format, HttpApi
from raf.formats.openai_completions import dialect
from raf.formats.openai_completions.request import build_request, read_request

__all__ = ["FORMAT", "error_document"]


def error_document(status: int, message: str) -> object:
    """The error JSON of OpenAI's API, which vLLM and llama.cpp copy (``error.type`` and
    ``error.code`` by status)."""
    kind = "rate_limit_exceeded" if status == 429 else "server_error"
    if status < 500 and status != 429:
        kind = "invalid_request_error"
    return {"error": {"message": message, "type": kind, "param": None, "code": kind}}


FORMAT = Format(
    name="openai_completions",
    dialect=dialect.OpenAICompletionsDialect,
    strategies=f"{__name__}.strategies",
    framing=dialect.OpenAICompletionsDialect.framing,
    framings=("sse",),
    sniff=dialect.OpenAICompletionsDialect.sniff,
    finish_reasons=dialect.FINISH_REASONS,
    usage=dialect.USAGE,
    # (?<!/chat): .../chat/completions is the Chat Completions endpoint, not this one.
    endpoints=(Endpoint("POST", r"(?:/[^/]+)*(?<!/chat)/completions/?", "POST .../completions"),),
    error_document=error_document,
    request_fields=("model", "prompt", "stream", "stream_options"),
    recorded_uri=r"(?<!/chat)/completions$",
    placeholder_uri="https://recorded.invalid/v1/completions",
    build_request=build_request,
    read_request=read_request,
    http=HttpApi(
        base_url="https://api.openai.com/v1",
        path="/completions",
        usage_request={"stream_options": {"include_usage": True}},
        options={"tool_choice": None, "parallel_tool_calls": None},
    ),
)
"""The ``openai_completions`` format."""
