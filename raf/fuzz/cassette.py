"""A finding as a cassette: the format's request, the generated body, its network reads and
the ground truth as the reviewed ``expect`` block. Pure functions, no IO (the writer is
:func:`raf.fuzz.save.save_finding`).

The ``expect`` block is reviewed: it comes from the generator (what the stream was built to
say), not from raf, so ``raf conform --update`` writes the golden only when raf's reference
agrees with it, and ``raf conform --impl CMD --cassettes DIR`` then judges the implementation
as on any cassette of the suite.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from raf import formats
from raf.cassettes.format import (
    Cassette,
    Expectation,
    ExpectedCall,
    ExpectedHostedCall,
    ExpectedUsage,
    Interaction,
    Request,
    Response,
    ScenarioInfo,
)
from raf.conformance.levels import Mismatch
from raf.conformance.reference import output_for
from raf.fuzz.generate import FuzzStream
from raf.model import AgentResponse
from raf.model.messages import ChatMessage
from raf.model.request import Conversation, RequestOptions, ToolSpec

__all__ = [
    "MODEL",
    "Signature",
    "expectation",
    "finding_cassette",
    "request_for",
    "scenario_name",
    "signature",
    "title",
]

MODEL = "fuzz-model"
"""The model the request of a fuzz cassette names."""

_CONTENT_TYPES = {
    "json_array": "application/json",
    "ndjson": "application/x-ndjson",
    "aws_eventstream": "application/vnd.amazon.eventstream",
}


@dataclass(frozen=True)
class Signature:
    """What makes two failures the same bug: the place of the first failing difference (its
    stable key, :attr:`raf.conformance.levels.Mismatch.key`), its kind, the check that found it
    (``response``, ``lifecycle``, ``updates``, ``request``; ``reference`` when raf's own
    reference disagrees with the ground truth) and the quirks the stream shows."""

    key: str
    kind: str
    level: str
    quirks: tuple[str, ...]

    @property
    def text(self) -> str:
        """``text lost [finish_with_text]``: as shown in a table."""
        quirks = f" [{', '.join(self.quirks)}]" if self.quirks else ""
        level = f" ({self.level})" if self.level not in ("response", "") else ""
        return f"{self.key} {self.kind}{level}{quirks}"

    @property
    def digest(self) -> str:
        """Eight hexadecimal digits naming the signature (in the cassette's scenario)."""
        material = json.dumps([self.key, self.kind, self.level, list(self.quirks)])
        return hashlib.sha256(material.encode("utf-8")).hexdigest()[:8]


def signature(stream: FuzzStream, mismatches: Sequence[Mismatch]) -> Signature:
    """The signature of a failure: its first failing difference and the stream's quirks."""
    first = mismatches[0]
    return Signature(first.key, first.kind, first.level, tuple(sorted(set(stream.quirks))))


def scenario_name(format: str, sig: Signature) -> str:
    """``fuzz_<format>_<digest>``: the scenario of a finding's cassette."""
    return f"fuzz_{format}_{sig.digest}"


def title(mismatch: Mismatch) -> str:
    """The first difference in words, one line."""
    words = {
        "lost": "lost",
        "wrong": "wrong",
        "invented": "invented",
        "unreported": "not reported",
        "detail": "differs in a detail",
        "performance": "too slow",
    }
    said = words.get(mismatch.kind, mismatch.kind)
    text = f"{mismatch.key} {said}: expected {mismatch.expected}, got {mismatch.actual}"
    text = " ".join(text.split())
    return text if len(text) <= 160 else text[:157] + "..."


def _carried(call_id: Any, body: bytes) -> bool:
    if not isinstance(call_id, str) or not call_id:
        return False
    return any(
        json.dumps(call_id, ensure_ascii=ascii).encode("utf-8") in body for ascii in (True, False)
    )


def expectation(stream: FuzzStream, reference: dict[str, Any] | None = None) -> Expectation:
    """The reviewed ``expect`` block of a generated stream: its ground truth (a call's id only
    when the body carries it; a client makes up the others).

    The generator states the text, the reasoning, the tool calls, the finish reason, the usage
    and the errors; the notices and the provider's own tool runs, which it does not state,
    are taken from ``reference`` (raf's reading, a canonical response) when given."""
    response, body = stream.response, stream.body
    usage = response.usage
    hosted = _hosted(response, body)
    notices = tuple(notice.error_code or "" for notice in response.notices)
    if reference is not None:
        hosted = _hosted_of(reference, body)
        notices = tuple(str(n.get("error_code")) for n in reference.get("notices") or [])
    return Expectation(
        text=response.text,
        reasoning=response.reasoning_text or None,
        tool_calls=tuple(
            ExpectedCall(
                name=call.name,
                arguments=call.arguments,
                id=call.id if _carried(call.id, body) else None,
            )
            for call in response.tool_calls
        ),
        hosted_tool_calls=hosted,
        finish_reason=response.finish_reason,
        usage=None
        if usage is None
        else ExpectedUsage(
            prompt_tokens=usage.prompt_tokens or 0,
            completion_tokens=usage.completion_tokens or 0,
            total_tokens=usage.total_tokens or 0,
        ),
        errors=tuple(error.error_code or "" for error in response.errors),
        notices=notices,
    )


def _hosted(response: AgentResponse, body: bytes) -> tuple[ExpectedHostedCall, ...]:
    return tuple(
        ExpectedHostedCall(
            name=call.name,
            arguments=msgspec.to_builtins(call.arguments),
            id=call.id if _carried(call.id, body) else None,
            answered=call.output is not None or call.error is not None,
        )
        for call in response.hosted_tool_calls
    )


def _hosted_of(reference: dict[str, Any], body: bytes) -> tuple[ExpectedHostedCall, ...]:
    return tuple(
        ExpectedHostedCall(
            name=call.get("name") or "",
            arguments=call.get("arguments"),
            id=call.get("id") if _carried(call.get("id"), body) else None,
            answered=call.get("output") is not None or call.get("error") is not None,
        )
        for call in reference.get("hosted_tool_calls") or []
    )


def _framing(format: str, body: bytes) -> str | None:
    """The framing of a generated body where the format knows several (Gemini's JSON array
    or SSE), else ``None``."""
    stripped = body.lstrip(b"\xef\xbb\xbf \t\r\n")
    if stripped.startswith(b"["):
        return "json_array"
    if format == "ollama_chat":
        return "ndjson"
    return None


def request_for(stream: FuzzStream) -> Request:
    """A minimal realistic request of the stream's format that such a response answers: one
    user message, the tools the response calls, the model, streaming on (with the format's
    usage request and required token limit), to the provider's URL."""
    found = formats.get(stream.format)
    api = found.http
    tools = tuple(
        ToolSpec(name=name, parameters={"type": "object"})
        for name in dict.fromkeys(call.name for call in stream.response.tool_calls)
    )
    conversation = Conversation(
        messages=(ChatMessage.user("Hello"),),
        tools=tools,
        options=RequestOptions(
            model=MODEL,
            stream=True,
            max_tokens=api.default_max_tokens if api is not None else None,
            extra=msgspec.to_builtins(api.usage_request) if api is not None else {},
        ),
    )
    body: dict[str, Any] = (
        found.build_request(conversation) if found.build_request is not None else {}
    )
    if api is None:
        uri = found.placeholder_uri
        headers: dict[str, list[str]] = {"content-type": ["application/json"]}
    else:
        path = api.path.replace("{model}", MODEL)
        if _framing(stream.format, stream.body) == "json_array":
            path = path.split("?", 1)[0]
        uri = api.base_url.rstrip("/") + path
        headers = {"content-type": ["application/json"]}
        headers.update({k: [v] for k, v in api.headers.items()})
    return Request(
        method="POST",
        uri=uri,
        headers=headers,
        body=msgspec.json.encode(body).decode("utf-8"),
    )


def finding_cassette(
    stream: FuzzStream,
    mismatches: Sequence[Mismatch],
    *,
    seed: int | None = None,
) -> Cassette:
    """The cassette of a failure: the request, the body, its reads (``timing``), and a
    ``raf`` block naming it (``fuzz_<format>_<digest>``), its quirks, the seed and the
    signature, with the ground truth as the reviewed expectation (its notices and the
    provider's own tool runs, which the generator does not state, as raf reads them)."""
    sig = signature(stream, mismatches)
    reference = output_for(200, "OK", [r for r in stream.chunks if r], stream.format).response
    framing = _framing(stream.format, stream.body)
    content_type = _CONTENT_TYPES.get(framing or "", "text/event-stream")
    notes = [f"Found by raf fuzz: {sig.text}."]
    if seed is not None:
        notes.append(f"Seed {seed}.")
    notes.append("The expect block is the generator's ground truth, not raf's reading.")
    return Cassette(
        interactions=[
            Interaction(
                request=request_for(stream),
                response=Response(
                    status=200,
                    reason="OK",
                    headers={"content-type": [content_type]},
                    body=stream.body,
                ),
                timing=[(len(read), 0.0) for read in stream.chunks if read],
            )
        ],
        info=ScenarioInfo(
            scenario=scenario_name(stream.format, sig),
            dialect=stream.format,
            provider="raf fuzz",
            title=title(mismatches[0]),
            quirks=tuple(stream.quirks),
            notes=" ".join(notes),
            expect=expectation(stream, reference),
        ),
    )
