"""``ollama_chat``: Ollama's native ``/api/chat`` streams (JSON lines, one ``ChatResponse`` a
line)."""

from __future__ import annotations

from raf.formats.format import Endpoint, Format, HttpApi
from raf.formats.ollama_chat import request, rules
from raf.formats.ollama_chat.dialect import FINISH_REASONS, USAGE, OllamaChatDialect

__all__ = ["FORMAT", "error_document"]


def error_document(status: int, message: str) -> object:
    """The error JSON of Ollama's API: ``{"error": "<message>"}`` whatever the status (its
    clients read the ``error`` string; the status is the HTTP status)."""
    del status
    return {"error": message}


FORMAT = Format(
    name="ollama_chat",
    dialect=OllamaChatDialect,
    strategies=f"{__name__}.strategies",
    framing=OllamaChatDialect.framing,
    framings=("json_lines",),
    sniff=OllamaChatDialect.sniff,
    finish_reasons=FINISH_REASONS,
    usage=USAGE,
    endpoints=(Endpoint("POST", r"(?:/[^/]+)*/api/chat/?", "POST .../api/chat"),),
    error_document=error_document,
    request_fields=("model", "messages", "tools", "think", "format"),
    recorded_uri=r"/api/chat/?$",
    placeholder_uri="http://recorded.invalid:11434/api/chat",
    build_request=request.build_request,
    read_request=request.read_request,
    request_rules=rules.CHECKS,
    http=HttpApi(
        base_url="http://localhost:11434",
        path="/api/chat",
        options={
            "temperature": "options.temperature",
            "top_p": "options.top_p",
            "stop": "options.stop",
            "tool_choice": None,
            "parallel_tool_calls": None,
        },
    ),
)
"""The ``ollama_chat`` format."""
