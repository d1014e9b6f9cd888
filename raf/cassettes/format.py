"""The cassette format: what a cassette holds, and its dictionary form. No IO.

A raf cassette is a vcrpy cassette (format version 1) with one extra top-level key, ``raf``,
that describes the scenario and what the pipeline must make of it::

    raf:
      scenario: parallel_tool_calls_interleaved
      dialect: openai_chat
      provider: OpenAI
      title: Two parallel calls whose argument fragments interleave
      reproduces: ["microsoft/agent-framework#8336"]
      expect: {text: ..., tool_calls: [...], finish_reason: tool_calls, usage: {...}, errors: []}
    interactions:
    - request: {method: POST, uri: ..., headers: {name: [value]}, body: '{"model": ...}'}
      response:
        status: {code: 200, message: OK}
        headers: {content-type: [text/event-stream]}
        body: {string: "data: ...\\n\\n"}
    version: 1

vcrpy reads and replays such files as they are (it ignores ``raf``). docs/cassettes.md
describes every field.
"""

from __future__ import annotations

from typing import Any

import msgspec

from raf.errors import CassetteFormatError

__all__ = [
    "VCR_FORMAT_VERSION",
    "Cassette",
    "Expectation",
    "ExpectedCall",
    "ExpectedUsage",
    "Interaction",
    "Request",
    "Response",
    "ScenarioInfo",
]

VCR_FORMAT_VERSION = 1
"""The vcrpy cassette format version raf reads and writes."""

Headers = dict[str, list[str]]


class ExpectedCall(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A tool call the aggregated response must hold (``id`` is checked only when given)."""

    name: str
    arguments: Any
    id: str | None = None


class ExpectedUsage(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The token counts the aggregated response must report."""

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class Expectation(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What the aggregated ``AgentResponse`` of a cassette must be, written by a person.

    It is the review of the golden: a test checks every golden against it, so a wrong golden
    cannot pass silently. ``errors`` lists the error codes, in order.
    """

    text: str = ""
    reasoning: str | None = None
    tool_calls: tuple[ExpectedCall, ...] = ()
    finish_reason: str | None = None
    usage: ExpectedUsage | None = None
    errors: tuple[str, ...] = ()


class ScenarioInfo(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The ``raf`` block of a cassette."""

    scenario: str
    dialect: str = "openai_chat"
    provider: str = ""
    title: str = ""
    reproduces: tuple[str, ...] = ()
    notes: str = ""
    expect: Expectation | None = None


class Request(msgspec.Struct, kw_only=True):
    """The recorded request; ``body`` is its text (JSON for chat requests)."""

    method: str = "POST"
    uri: str
    headers: Headers = msgspec.field(default_factory=dict)
    body: str | bytes | None = None


class Response(msgspec.Struct, kw_only=True):
    """The recorded response; ``body`` is the exact bytes the server sent."""

    status: int = 200
    reason: str = "OK"
    headers: Headers = msgspec.field(default_factory=dict)
    body: bytes = b""

    def header(self, name: str) -> str | None:
        """The first value of header ``name`` (case-insensitive), or ``None``."""
        for key, values in self.headers.items():
            if key.lower() == name.lower() and values:
                return values[0]
        return None


class Interaction(msgspec.Struct, kw_only=True):
    """One request and its response."""

    request: Request
    response: Response


class Cassette(msgspec.Struct, kw_only=True):
    """A recorded scenario: one or more interactions, and what raf must make of them."""

    interactions: list[Interaction] = msgspec.field(default_factory=list)
    info: ScenarioInfo | None = None

    # -- the vcrpy dictionary form ---------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The document written to disk (``raf`` first, then vcrpy's keys)."""
        document: dict[str, Any] = {}
        if self.info is not None:
            document["raf"] = _without_defaults(msgspec.to_builtins(self.info))
        document["interactions"] = [
            {
                "request": {
                    "body": i.request.body,
                    "headers": i.request.headers,
                    "method": i.request.method,
                    "uri": i.request.uri,
                },
                "response": {
                    "body": {"string": i.response.body},
                    "headers": i.response.headers,
                    "status": {"code": i.response.status, "message": i.response.reason},
                },
            }
            for i in self.interactions
        ]
        document["version"] = VCR_FORMAT_VERSION
        return document

    @classmethod
    def from_dict(cls, document: Any, *, source: str = "<cassette>") -> Cassette:
        """Build a cassette from a loaded document.

        Raises:
            CassetteFormatError: the document is not a version-1 vcrpy cassette, or its
                ``raf`` block is malformed; the message names the place.
        """
        if not isinstance(document, dict):
            raise CassetteFormatError(source, "the document is not a mapping")
        version = document.get("version")
        if version != VCR_FORMAT_VERSION:
            raise CassetteFormatError(
                source, f"vcrpy format version {version!r} (expected {VCR_FORMAT_VERSION})"
            )
        raw = document.get("interactions")
        if not isinstance(raw, list):
            raise CassetteFormatError(source, "'interactions' is missing or not a list")
        info = None
        if document.get("raf") is not None:
            try:
                info = msgspec.convert(document["raf"], ScenarioInfo)
            except msgspec.ValidationError as exc:
                raise CassetteFormatError(source, f"raf: {exc}") from exc
        return cls(
            interactions=[
                _interaction(item, f"interactions[{n}]", source) for n, item in enumerate(raw)
            ],
            info=info,
        )


def _without_defaults(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if v not in (None, "", [], ())}


def _interaction(item: Any, where: str, source: str) -> Interaction:
    if not isinstance(item, dict):
        raise CassetteFormatError(source, f"{where} is not a mapping")
    request, response = item.get("request"), item.get("response")
    if not isinstance(request, dict) or not isinstance(response, dict):
        raise CassetteFormatError(source, f"{where} needs a 'request' and a 'response' mapping")
    uri = request.get("uri")
    if not isinstance(uri, str):
        raise CassetteFormatError(source, f"{where}.request.uri is missing")
    status = response.get("status") or {}
    code = status.get("code", 200) if isinstance(status, dict) else status
    if not isinstance(code, int):
        raise CassetteFormatError(source, f"{where}.response.status.code is not an integer")
    body = response.get("body")
    data = body.get("string") if isinstance(body, dict) else body
    if data is None:
        data = b""
    if isinstance(data, str):
        data = data.encode("utf-8")
    if not isinstance(data, bytes):
        raise CassetteFormatError(source, f"{where}.response.body.string is not text or bytes")
    return Interaction(
        request=Request(
            method=str(request.get("method") or "POST"),
            uri=uri,
            headers=_headers(request.get("headers"), f"{where}.request.headers", source),
            body=_request_body(request),
        ),
        response=Response(
            status=code,
            reason=str(status.get("message", "")) if isinstance(status, dict) else "",
            headers=_headers(response.get("headers"), f"{where}.response.headers", source),
            body=data,
        ),
    )


def _request_body(request: dict[str, Any]) -> str | bytes | None:
    body = request.get("body")
    if body is None and "parsed_body" in request:  # pydantic-ai's serializer
        return msgspec.json.format(msgspec.json.encode(request["parsed_body"]), indent=2).decode()
    if isinstance(body, dict) and "string" in body:
        body = body["string"]
    if body is None or isinstance(body, str | bytes):
        return body
    return msgspec.json.encode(body).decode()


def _headers(raw: Any, where: str, source: str) -> Headers:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise CassetteFormatError(source, f"{where} is not a mapping")
    return {
        str(name): [str(v) for v in (values if isinstance(values, list) else [values])]
        for name, values in raw.items()
    }
