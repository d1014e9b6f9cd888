"""How raf's chat client calls Bedrock Runtime's ConverseStream (:class:`HttpApi`). No IO.

The URL is ``https://bedrock-runtime.{region}.amazonaws.com/model/{modelId}/converse-stream``,
the model id percent-encoded into one path segment (``us.amazon.nova-micro-v1%3A0``; an
inference profile ARN's ``/`` as ``%2F``). The key is a Bedrock API key, sent as
``Authorization: Bearer <key>`` (what ``AWS_BEARER_TOKEN_BEDROCK`` holds for the AWS SDKs);
requests signed with SigV4 (IAM access keys) are not made. The sampling options go into
``inferenceConfig`` (``temperature``, ``topP``, ``stopSequences``); ``toolChoice`` has a shape
of its own (``{"auto": {}}``, ``{"any": {}}``, ``{"tool": {"name"}}``), so ``tool_choice`` is
not mapped: pass ``toolConfig`` in ``extra_body`` instead.
"""

from __future__ import annotations

from raf.formats.format import HttpApi

__all__ = ["API", "DEFAULT_REGION", "PATH", "api", "base_url"]

DEFAULT_REGION = "us-east-1"
"""The region of :data:`API`."""

PATH = "/model/{model}/converse-stream"
"""The path after the base URL; ``{model}`` is the model id, percent-encoded."""

_OPTIONS: dict[str, str | None] = {
    "temperature": "inferenceConfig.temperature",
    "top_p": "inferenceConfig.topP",
    "stop": "inferenceConfig.stopSequences",
    "tool_choice": None,
    "parallel_tool_calls": None,
}


def base_url(region: str = DEFAULT_REGION) -> str:
    """Bedrock Runtime's base URL in ``region`` (``eu-west-1``...)."""
    return f"https://bedrock-runtime.{region}.amazonaws.com"


def api(region: str = DEFAULT_REGION) -> HttpApi:
    """The HTTP API of ConverseStream in ``region``."""
    return HttpApi(base_url=base_url(region), path=PATH, options=_OPTIONS)


API = api()
"""The HTTP API in :data:`DEFAULT_REGION` (another region: :func:`api`, or the chat client's
base URL)."""
