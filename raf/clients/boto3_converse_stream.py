"""AWS's Python SDK (``boto3``, with ``botocore``) calling Amazon Bedrock's ConverseStream, as
the Bedrock user guide's streaming examples drive it: ``client = boto3.client("bedrock-runtime",
...)``, ``response = client.converse_stream(modelId=..., messages=..., ...)``, then ``for event
in response["stream"]`` (a ``botocore.eventstream.EventStream``: botocore decodes the event
stream, ``botocore/eventstream.py`` ``EventStreamBuffer``, and parses each message,
``botocore/parsers.py`` ``EventStreamJSONParser``).

The client points at ``raf serve`` with ``endpoint_url`` (the case's path prefix: botocore keeps
an endpoint's path and appends ``/model/{modelId}/converse-stream``, the model id
percent-encoded), fake keys (nothing checks the SigV4 signature), retries off
(``total_max_attempts=1``) and the case's read timeout. The recorded request body is given as
the call's keyword arguments (``modelId`` from the recorded path); blobs (a reasoning block's
``redactedContent``, an image's or document's ``bytes``) are decoded from their base64 text,
as botocore wants bytes and encodes them again.

The user's loop reads each event by its one key: ``contentBlockStart`` with ``start.toolUse``
opens a call at its ``contentBlockIndex`` (``toolUseId``, ``name``), unless its ``type`` is
``server_tool_use`` (a tool Bedrock runs itself, such as Nova's code interpreter: not the
user's to call); ``contentBlockDelta``'s
``delta`` is ``text`` (printed), ``toolUse.input`` (a fragment of the call's JSON arguments,
appended at its index and parsed at the end), or ``reasoningContent`` with ``text`` (the
reasoning), ``signature`` (kept for the follow-up) or ``redactedContent`` (botocore hands it
over as ``bytes``: re-encoded as base64 for the follow-up); ``messageStop.stopReason`` is the
finish; ``metadata.usage`` the usage (prompt = ``inputTokens`` + ``cacheReadInputTokens`` +
``cacheWriteInputTokens``, completion = ``outputTokens``, total = ``totalTokens``, cache hits =
``cacheReadInputTokens``). A call that got no ``input`` delta has the arguments ``{}`` (what
the follow-up request sends back). A modelled or unmodelled error message in the stream is
raised by botocore as ``botocore.exceptions.EventStreamError`` (its ``response["Error"]``:
``Code`` the exception's name, ``Message``), a bad CRC as
``botocore.exceptions.ChecksumMismatch``: the library raising, with what the loop had
gathered.
"""

from __future__ import annotations

import base64
import importlib
import re
from typing import Any
from urllib.parse import unquote

from raf.clients.base import Adapter, ClientCase, ClientRaised, finish_reason, tool_call, usage
from raf.shared.client_response import ClientResponse, ClientToolCall, ClientUsage

__all__ = ["ADAPTER"]

DIALECT = "bedrock_converse"
_ENDPOINT = re.compile(r"/model/(?P<model>[^/]+)/converse-stream/?$")
_REGION = "us-east-1"
# Fake keys: raf serve checks no signature (an AWS example key id, and no secret).
_ACCESS_KEY = "AKIDRAFTESTNOTASECRET"
_SECRET_KEY = "raf-test-not-a-secret"


def split_path(path: str) -> tuple[str, str]:
    """The part of a recorded provider path before ``/model/...`` (what a base URL adds)
    and the model id, percent-decoded (``("", "us.amazon.nova-micro-v1:0")``)."""
    bare = path.split("?", 1)[0]
    found = _ENDPOINT.search(bare)
    if found is None:
        return "", "model"
    return bare[: found.start()], unquote(found.group("model"))


_BLOBS = frozenset({"redactedContent", "bytes"})  # reasoning; image, document, video sources


def _blobs(value: Any) -> Any:
    """The request, with the base64 text of every blob (a reasoning block's
    ``redactedContent``, a media source's ``bytes``) as bytes: botocore takes bytes for a
    blob and base64-encodes them itself."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in _BLOBS and isinstance(item, str):
                try:
                    out[key] = base64.b64decode(item, validate=True)
                    continue
                except ValueError:
                    pass
            out[key] = _blobs(item)
        return out
    if isinstance(value, list):
        return [_blobs(item) for item in value]
    return value


def _count(raw: dict[str, Any], name: str) -> int | None:
    value = raw.get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _usage(raw: Any) -> ClientUsage | None:
    if not isinstance(raw, dict):
        return None
    prompt = [
        _count(raw, name)
        for name in ("inputTokens", "cacheReadInputTokens", "cacheWriteInputTokens")
    ]
    return usage(
        sum(n for n in prompt if n is not None),
        _count(raw, "outputTokens"),
        _count(raw, "totalTokens"),
        prompt_cache_hit_tokens=_count(raw, "cacheReadInputTokens"),
    )


class _Loop:
    """The user's loop over ``response["stream"]``, and what it gathered."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.signatures: list[str] = []
        self.redacted: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}
        self.hosted: set[int] = set()
        self.stop_reason: str | None = None
        self.usage: Any = None

    def read(self, event: dict[str, Any]) -> None:
        if "contentBlockStart" in event:
            block = event["contentBlockStart"]
            tool = (block.get("start") or {}).get("toolUse")
            # A server tool (type server_tool_use, Nova's code interpreter) is run by Bedrock
            # itself: not the user's to call.
            if tool is not None and tool.get("type") == "server_tool_use":
                self.hosted.add(block.get("contentBlockIndex", 0))
            elif tool is not None:
                self.calls[block.get("contentBlockIndex", 0)] = {
                    "toolUseId": tool.get("toolUseId"),
                    "name": tool.get("name"),
                    "input": None,
                }
        elif "contentBlockDelta" in event:
            block = event["contentBlockDelta"]
            delta = block.get("delta") or {}
            if "text" in delta:
                self.text.append(delta["text"])
            elif "toolUse" in delta and block.get("contentBlockIndex", 0) not in self.hosted:
                call = self.calls.setdefault(
                    block.get("contentBlockIndex", 0),
                    {"toolUseId": None, "name": None, "input": None},
                )
                call["input"] = (call["input"] or "") + delta["toolUse"].get("input", "")
            elif "reasoningContent" in delta:
                reasoning = delta["reasoningContent"]
                if "text" in reasoning:
                    self.reasoning.append(reasoning["text"])
                if "signature" in reasoning:
                    self.signatures.append(reasoning["signature"])
                if "redactedContent" in reasoning:
                    self.redacted.append(
                        base64.b64encode(reasoning["redactedContent"]).decode("ascii")
                    )
        elif "messageStop" in event:
            self.stop_reason = event["messageStop"].get("stopReason")
        elif "metadata" in event:
            metadata = event["metadata"]
            if "usage" in metadata:
                self.usage = metadata["usage"]

    def _calls(self) -> list[ClientToolCall]:
        out = []
        for _, call in sorted(self.calls.items()):
            # The JSON text is parsed (kept as text when it is not JSON); none is {}.
            raw = call["input"]
            out.append(tool_call(call["toolUseId"], call["name"] or "", {} if raw is None else raw))
        return out

    def response(self) -> ClientResponse:
        return ClientResponse(
            text="".join(self.text),
            reasoning_text="".join(self.reasoning) or None,
            tool_calls=self._calls(),
            finish_reason=finish_reason(DIALECT, self.stop_reason),
            usage=_usage(self.usage),
        )


def _run(case: ClientCase) -> ClientResponse:
    # Optional libraries, imported by name: raf type-checks the same without them.
    boto3 = importlib.import_module("boto3")
    config_class = importlib.import_module("botocore.config").Config

    head, model = split_path(case.path)
    client = boto3.client(
        "bedrock-runtime",
        region_name=_REGION,
        endpoint_url=case.base_url + head,
        aws_access_key_id=_ACCESS_KEY,
        aws_secret_access_key=_SECRET_KEY,
        config=config_class(
            retries={"total_max_attempts": 1, "mode": "standard"},
            connect_timeout=case.timeout,
            read_timeout=case.timeout,
        ),
    )
    request = {k: v for k, v in _blobs(case.request).items() if k != "modelId"}
    loop = _Loop()
    try:
        response = client.converse_stream(modelId=model, **request)
        for event in response["stream"]:
            loop.read(event)
    except Exception as exc:  # what the library raised, after what the loop had gathered
        raise ClientRaised(exc, loop.response()) from exc
    finally:
        client.close()
    return loop.response()


ADAPTER = Adapter(
    name="boto3",
    distribution="boto3",
    dialects=(DIALECT,),
    capabilities=("tool_calls", "reasoning", "usage", "http_errors"),
    how=(
        'client = boto3.client("bedrock-runtime", endpoint_url=..., fake keys, '
        'retries={"total_max_attempts": 1}); response = client.converse_stream(modelId=..., '
        '**request); for event in response["stream"]: contentBlockStart.start.toolUse opens a '
        "call at its contentBlockIndex (not one of type server_tool_use: Bedrock runs it), "
        "contentBlockDelta.delta.text is printed, "
        "delta.toolUse.input is appended to the call at its index (parsed as JSON at the end; "
        "{} without any), delta.reasoningContent.text is the reasoning (its signature and "
        "redactedContent, re-encoded as base64, kept for the follow-up), "
        "messageStop.stopReason the finish, metadata.usage the usage (prompt = inputTokens + "
        "cacheReadInputTokens + cacheWriteInputTokens, completion = outputTokens, total = "
        "totalTokens, cache hits = cacheReadInputTokens). An error message in the stream is "
        "raised by botocore as EventStreamError, a bad CRC as ChecksumMismatch: the library "
        "raising, with what the loop had gathered."
    ),
    run=_run,
    module="boto3",
)
