"""``cohere_v2``: Cohere v2 Chat streams (``POST .../v2/chat`` with ``"stream": true``)."""

from __future__ import annotations

from raf.formats.cohere_v2 import dialect, request
from raf.formats.format import Endpoint, Format, HttpApi

__all__ = ["FORMAT", "error_document"]


def error_document(status: int, message: str) -> object:
    """The error JSON of Cohere's API (``{"message": ...}``, the same for every status)."""
    return {"message": message}


FORMAT = Format(
    name="cohere_v2",
    dialect=dialect.CohereV2Dialect,
    strategies=f"{__name__}.strategies",
    framing=dialect.CohereV2Dialect.framing,
    framings=("sse",),
    sniff=dialect.CohereV2Dialect.sniff,
    finish_reasons=dialect.FINISH_REASONS,
    usage=dialect.USAGE,
    endpoints=(Endpoint("POST", r"(?:/[^/]+)*/v2/chat/?", "POST .../v2/chat"),),
    error_document=error_document,
    request_fields=("model", "messages", "tools", "stream"),
    # A call's arguments go back as JSON text: re-serialising them changes only spacing.
    equivalences=("arguments_json",),
    recorded_uri=r"/v2/chat$",
    placeholder_uri="https://recorded.invalid/v2/chat",
    build_request=request.build_request,
    read_request=request.read_request,
    http=HttpApi(
        base_url="https://api.cohere.com",
        path="/v2/chat",
        # Cohere's tool_choice takes REQUIRED or NONE, not the other formats' values.
        options={
            "top_p": "p",
            "stop": "stop_sequences",
            "tool_choice": None,
            "parallel_tool_calls": None,
        },
    ),
)
"""The ``cohere_v2`` format."""
