"""``bedrock_converse``: Amazon Bedrock ConverseStream streams
(``POST /model/{modelId}/converse-stream``, an AWS event stream)."""

from __future__ import annotations

from raf.formats.bedrock_converse import dialect, http, request, rules
from raf.formats.format import Endpoint, Format, RequestUrl

__all__ = ["ERROR_TYPES", "FORMAT", "error_document", "error_headers", "error_type"]

ERROR_TYPES: dict[int, str] = {
    400: "ValidationException",
    403: "AccessDeniedException",
    404: "ResourceNotFoundException",
    408: "ModelTimeoutException",
    424: "ModelErrorException",
    429: "ThrottlingException",
    500: "InternalServerException",
    503: "ServiceUnavailableException",
}
"""The error Bedrock Runtime names in ``x-amzn-ErrorType`` for each HTTP status
(``InternalServerException`` for any other)."""


def error_type(status: int) -> str:
    """The ``x-amzn-ErrorType`` header Bedrock sends with an HTTP error ``status``."""
    return ERROR_TYPES.get(status, "InternalServerException")


def error_headers(status: int) -> dict[str, str]:
    """The headers Bedrock sends with an HTTP error ``status``: ``x-amzn-ErrorType`` as
    Bedrock writes it (the name, then ``:`` and a namespace URL), which boto3 reads as the
    error's code."""
    return {"x-amzn-ErrorType": f"{error_type(status)}:{_NAMESPACE}"}


_NAMESPACE = "http://internal.amazon.com/coral/com.amazon.bedrock/"


def error_document(status: int, message: str) -> object:
    """The error JSON of Bedrock Runtime (``{"message": ...}``; the error's name is in the
    ``x-amzn-ErrorType`` header, :func:`error_type`)."""
    return {"message": message}


FORMAT = Format(
    name="bedrock_converse",
    dialect=dialect.BedrockConverseDialect,
    strategies=f"{__name__}.strategies",
    framing=dialect.BedrockConverseDialect.framing,
    framings=("aws_eventstream",),
    sniff=dialect.BedrockConverseDialect.sniff,
    finish_reasons=dialect.FINISH_REASONS,
    usage=dialect.USAGE,
    # The model id is one path segment, percent-encoded (``us.amazon.nova-micro-v1%3A0``; an
    # ARN's ``/`` as ``%2F``).
    endpoints=(
        Endpoint("POST", r"(?:/[^/]+)*/model/[^/]+/converse-stream/?", "POST .../converse-stream"),
    ),
    error_document=error_document,
    error_headers=error_headers,
    request_fields=("messages", "system", "toolConfig"),
    # The model is in the path (percent-decoded here: an ARN's %2F is a /); the endpoint,
    # not a parameter, says the answer streams.
    url_fields=("url.model", "url.method"),
    request_url=RequestUrl(
        path=r"(?:^|/)model/(?P<model>.+)/(?P<method>converse-stream|converse)$",
        parameters=(),
        framings={None: "aws_eventstream"},
        stream_methods=("converse-stream",),
    ),
    recorded_uri=r"/model/[^/]+/converse-stream$",
    placeholder_uri="https://recorded.invalid/model/recorded/converse-stream",
    build_request=request.build_request,
    read_request=request.read_request,
    request_rules=rules.CHECKS,
    http=http.API,
)
"""The ``bedrock_converse`` format."""
