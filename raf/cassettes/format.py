"""The cassette format: what a cassette holds, and its dictionary form. No IO.

A raf cassette is a vcrpy cassette (format version 1) with one extra top-level key, ``raf``,
that describes the scenario and what the pipeline must make of it::

    raf:
      scenario: parallel_tool_calls_interleaved
      dialect: openai_chat
      provider: OpenAI
      title: Two parallel calls whose argument fragments interleave
      reproduces: ["microsoft/agent-framework#8336"]
      quirks: [interleaved_calls]
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

import re
from typing import Any, Literal

import msgspec
from msgspec import UNSET, UnsetType

from raf.cassettes.coding import BodyNotDecoded, codings, content_encoding, decode
from raf.errors import CassetteFormatError

__all__ = [
    "NAME_RULE",
    "VCR_FORMAT_VERSION",
    "Cassette",
    "Expectation",
    "ExpectedCall",
    "ExpectedUsage",
    "Interaction",
    "Reading",
    "Recorded",
    "Request",
    "Response",
    "ScenarioInfo",
    "is_file_name",
]

VCR_FORMAT_VERSION = 1
"""The vcrpy cassette format version raf reads and writes."""

_NAME = re.compile(r"[a-z0-9][a-z0-9_\-]{0,199}")

NAME_RULE = "1 to 200 of a-z, 0-9, _ and -, starting with a letter or a digit"
"""The rule a scenario or dialect name follows (it names a folder or a file)."""


def is_file_name(name: object) -> bool:
    """Whether ``name`` can name a cassette's or a golden's file or folder (:data:`NAME_RULE`):
    no separator, no ``..``, no upper case, nothing a file system could treat specially."""
    return isinstance(name, str) and _NAME.fullmatch(name) is not None


Headers = dict[str, list[str]]


class ExpectedCall(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A tool call the aggregated response must hold (``id`` is checked only when given)."""

    name: str
    arguments: Any
    id: str | None = None


class ExpectedHostedCall(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A tool the provider ran that the aggregated response must list in
    ``hosted_tool_calls``: its ``name``, its ``arguments`` and ``id`` (each checked only when
    given), and whether its result arrived (``answered``: an output or an error)."""

    name: str
    arguments: Any = UNSET
    id: str | None = None
    answered: bool = True


class ExpectedUsage(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The token counts the aggregated response must report."""

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class Reading(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Another correct reading of a stream where reasonable readings differ: the fields of
    the expectation it changes (the others stay as the expectation has them), and why it is
    correct too. An implementation whose response matches it passes like one that matches the
    expectation (docs/cassettes.md, "Decisions on arguable expectations")."""

    why: str
    text: str | UnsetType = UNSET
    reasoning: str | UnsetType | None = UNSET
    tool_calls: tuple[ExpectedCall, ...] | UnsetType = UNSET
    finish_reason: str | UnsetType | None = UNSET
    usage: ExpectedUsage | UnsetType | None = UNSET
    errors: tuple[str, ...] | UnsetType = UNSET
    notices: tuple[str, ...] | UnsetType = UNSET


class Expectation(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What the aggregated ``AgentResponse`` of a cassette must be, written by a person.

    It is the review of the golden: a test checks every golden against it, so a wrong golden
    cannot pass silently. ``errors`` lists the error codes, in order, and ``notices`` the
    codes of the notices (harmless deviations, :data:`raf.model.codes.NOTICE_CODES`);
    ``hosted_tool_calls`` the tools the provider ran and ``approval_requests`` the calls that
    wait for approval, in order. ``also`` lists the other readings that are correct too, where
    reasonable readings differ. ``reviewed`` is false for a draft (``raf cassette expect``)
    nobody has read yet: such a cassette is not blessed, so no golden is written for it and
    ``raf conform`` names it.
    """

    text: str = ""
    reasoning: str | None = None
    tool_calls: tuple[ExpectedCall, ...] = ()
    hosted_tool_calls: tuple[ExpectedHostedCall, ...] = ()
    approval_requests: tuple[ExpectedCall, ...] = ()
    finish_reason: str | None = None
    usage: ExpectedUsage | None = None
    errors: tuple[str, ...] = ()
    notices: tuple[str, ...] = ()
    also: tuple[Reading, ...] = ()
    reviewed: bool = True


class Recorded(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """How a cassette was recorded (``raf record``) and how long it stays current.

    ``date`` is when, in ISO 8601 UTC (``2026-12-03T14:00:00Z``); ``provider`` the base URL
    the recording proxy forwarded to (scrubbed); ``model`` the model the request asked
    for; ``raf_version`` the raf that recorded it; ``fingerprint`` a digest of the request
    (method, path and JSON body, secrets removed: :func:`raf.cassettes.recording.fingerprint`).
    ``max_age`` (``30d``, ``12h``, ``2w``) is how long the recording stays current; once
    it is older, ``raf cassette lint`` warns, or fails when ``on_expiry`` is ``fail``.
    The cassette's format is the ``dialect`` of its ``raf`` block."""

    date: str
    provider: str = ""
    model: str = ""
    raf_version: str = ""
    fingerprint: str = ""
    max_age: str | None = None
    on_expiry: Literal["warn", "fail"] = "warn"


class ScenarioInfo(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The ``raf`` block of a cassette. ``quirks`` (optional) names the quirks of the
    catalogue the recording shows (:mod:`raf.quirks`; ``raf cassette lint`` reports an id the
    catalogue does not have). ``run`` (optional) is the agent run a multi-round
    recording of ``conformance/tool_loops`` replays: its messages, model, tools and what each
    does, and what the run must produce (docs/agent.md, "Recordings and replay"); raf's
    agent tests read it, the conformance suite does not. ``recorded`` (optional) says when
    and how ``raf record`` made the recording and how long it stays current
    (:class:`Recorded`)."""

    scenario: str
    dialect: str = "openai_chat"
    provider: str = ""
    title: str = ""
    reproduces: tuple[str, ...] = ()
    quirks: tuple[str, ...] = ()
    notes: str = ""
    expect: Expectation | None = None
    run: dict[str, Any] | None = None
    recorded: Recorded | None = None


class Request(msgspec.Struct, kw_only=True):
    """The recorded request; ``body`` is its text (JSON for chat requests)."""

    method: str = "POST"
    uri: str
    headers: Headers = msgspec.field(default_factory=dict)
    body: str | bytes | None = None


class Response(msgspec.Struct, kw_only=True):
    """The recorded response; ``body`` is the exact bytes the server sent (compressed when
    the server compressed them: :meth:`content` is what a client reads)."""

    status: int = 200
    reason: str = "OK"
    headers: Headers = msgspec.field(default_factory=dict)
    body: bytes = b""

    @property
    def coded(self) -> bool:
        """Whether the body has a ``content-encoding`` (other than ``identity``)."""
        return bool(codings(content_encoding(self.headers)))

    def content(self) -> bytes:
        """The body as a client reads it: decoded from its ``content-encoding`` (``gzip``,
        ``deflate``, ``br``: :mod:`raf.cassettes.coding`), else ``body`` itself. Every
        reader of a recorded response (``raf serve``, ``raf cassette show``, the conformance
        cases and goldens) reads this, so that a coded body reads as its decoded twin.

        Raises:
            BodyNotDecoded: the body does not decode (corrupt, truncated, a coding raf does
                not read, ``br`` without the ``brotli`` package, too large once decoded); the
                message names the coding and why.
        """
        header = content_encoding(self.headers)
        if not codings(header):
            return self.body
        try:
            return decode(self.body, header).body
        except BodyNotDecoded as exc:
            raise BodyNotDecoded(
                f"the body does not decode as content-encoding {header!r}: {exc}"
            ) from None

    def header(self, name: str) -> str | None:
        """The first value of header ``name`` (case-insensitive), or ``None``."""
        for key, values in self.headers.items():
            if key.lower() == name.lower() and values:
                return values[0]
        return None


class Interaction(msgspec.Struct, kw_only=True):
    """One request and its response.

    ``timing`` is optional: the network reads of the response body as they arrived, each
    ``(bytes, milliseconds since the previous read)`` (the first since the response headers).
    The sizes add up to the body (as recorded: compressed when it has a ``content-encoding``).
    ``raf serve`` replays them under the ``recorded`` chunking. vcrpy ignores the key.
    """

    request: Request
    response: Response
    timing: list[tuple[int, float]] | None = None

    def timed_chunks(self) -> tuple[list[bytes], list[float]] | None:
        """The body as a client reads it (:meth:`Response.content`) cut as recorded, and the
        seconds to wait before each read, or ``None`` without a recorded timing.

        The reads of a coded body were of its compressed bytes; each read here keeps its
        delay and ends at the same fraction of the decoded body as the recorded read did of
        the compressed one (the decoded bytes a read gave are not recorded).

        Raises:
            BodyNotDecoded: the body has a ``content-encoding`` and does not decode.
        """
        if self.timing is None:
            return None
        content = self.response.content()
        coded = self.response.coded
        recorded = sum(size for size, _ in self.timing)
        chunks, delays, start, read = [], [], 0, 0
        for size, milliseconds in self.timing:
            read += size
            end = _scaled(read, recorded, content) if coded else read
            chunks.append(content[start:end])
            delays.append(milliseconds / 1000)
            start = end
        return chunks, delays


def _scaled(read: int, recorded: int, content: bytes) -> int:
    """Where in ``content`` the first ``read`` of ``recorded`` bytes end, proportionally."""
    return len(content) if read >= recorded else len(content) * read // recorded


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
            expect = document["raf"].get("expect")
            if expect is not None:  # the newer fields, only where they say something
                for name in ("also", "hosted_tool_calls", "approval_requests"):
                    if not expect.get(name):
                        expect.pop(name, None)
                if expect.pop("reviewed", True) is False:  # a draft says so first
                    document["raf"]["expect"] = {"reviewed": False, **expect}
            recorded = document["raf"].get("recorded")
            if recorded is not None:  # only what the recording says
                document["raf"]["recorded"] = _without_defaults(recorded)
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
                **({"timing": [list(t) for t in i.timing]} if i.timing is not None else {}),
            }
            for i in self.interactions
        ]
        document["version"] = VCR_FORMAT_VERSION
        return document

    @classmethod
    def from_dict(cls, document: Any, *, source: str = "<cassette>") -> Cassette:
        """Build a cassette from a loaded document (any value at all).

        Raises:
            CassetteFormatError: the document is not a version-1 vcrpy cassette, a field has
                the wrong type, or its ``raf`` block is malformed (a ``scenario`` or
                ``dialect`` that cannot name a file included); the message names the place.
                Nothing else is raised, whatever the document.
        """
        if not isinstance(document, dict):
            raise CassetteFormatError(source, "the document is not a mapping")
        version = document.get("version")
        if type(version) is not int or version != VCR_FORMAT_VERSION:
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
            for name, value in (("scenario", info.scenario), ("dialect", info.dialect)):
                if not is_file_name(value):
                    raise CassetteFormatError(
                        source, f"raf.{name}: {value!r} cannot name a file (use {NAME_RULE})"
                    )
        return cls(
            interactions=[
                _interaction(item, f"interactions[{n}]", source) for n, item in enumerate(raw)
            ],
            info=info,
        )


def _without_defaults(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if v not in (None, "", [], ())}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _interaction(item: Any, where: str, source: str) -> Interaction:
    if not isinstance(item, dict):
        raise CassetteFormatError(source, f"{where} is not a mapping")
    request, response = item.get("request"), item.get("response")
    if not isinstance(request, dict) or not isinstance(response, dict):
        raise CassetteFormatError(source, f"{where} needs a 'request' and a 'response' mapping")
    uri = request.get("uri")
    if not isinstance(uri, str):
        raise CassetteFormatError(source, f"{where}.request.uri is missing or not text")
    method = request.get("method")
    if method is not None and not isinstance(method, str):
        raise CassetteFormatError(source, f"{where}.request.method is not text")
    code, reason = _status(response.get("status"), f"{where}.response.status", source)
    body = response.get("body")
    data = body.get("string") if isinstance(body, dict) else body
    if data is None:
        data = b""
    if isinstance(data, str):
        try:
            data = data.encode("utf-8")
        except UnicodeEncodeError as exc:  # a lone surrogate from a "\ud800" escape
            raise CassetteFormatError(
                source, f"{where}.response.body.string is not valid Unicode: {exc.reason}"
            ) from exc
    if not isinstance(data, bytes):
        raise CassetteFormatError(source, f"{where}.response.body.string is not text or bytes")
    timing = _timing(item.get("timing"), len(data), f"{where}.timing", source)
    return Interaction(
        timing=timing,
        request=Request(
            method=method or "POST",
            uri=uri,
            headers=_headers(request.get("headers"), f"{where}.request.headers", source),
            body=_request_body(request, f"{where}.request", source),
        ),
        response=Response(
            status=code,
            reason=reason,
            headers=_headers(response.get("headers"), f"{where}.response.headers", source),
            body=data,
        ),
    )


def _timing(raw: Any, size: int, where: str, source: str) -> list[tuple[int, float]] | None:
    """The recorded reads ``[[bytes, ms], ...]``, checked: sizes positive and adding up to the
    body, times finite and not negative."""
    if raw is None:
        return None
    if not isinstance(raw, list):
        raise CassetteFormatError(source, f"{where} is not a list of [bytes, milliseconds]")
    out: list[tuple[int, float]] = []
    for n, pair in enumerate(raw):
        if (
            not isinstance(pair, list)
            or len(pair) != 2
            or not _is_int(pair[0])
            or pair[0] <= 0
            or not isinstance(pair[1], int | float)
            or isinstance(pair[1], bool)
            or not 0 <= pair[1] <= 3_600_000
        ):
            raise CassetteFormatError(
                source, f"{where}[{n}] is not [bytes > 0, milliseconds between 0 and 3600000]"
            )
        out.append((pair[0], float(pair[1])))
    total = sum(size for size, _ in out)
    if total != size:
        raise CassetteFormatError(
            source, f"{where}: the reads add up to {total} bytes, the body has {size}"
        )
    return out


def _status(status: Any, where: str, source: str) -> tuple[int, str]:
    """The status code and reason of ``{code: 200, message: OK}``, a bare code, or nothing."""
    if status is None:
        return 200, ""
    code: Any
    reason: Any
    if _is_int(status):
        code, reason = status, ""
    elif isinstance(status, dict):
        code, reason = status.get("code", 200), status.get("message")
    else:
        raise CassetteFormatError(source, f"{where} is not a mapping")
    if not _is_int(code) or not 100 <= code <= 599:
        raise CassetteFormatError(source, f"{where}.code is not an HTTP status (100 to 599)")
    if reason is not None and not isinstance(reason, str):
        raise CassetteFormatError(source, f"{where}.message is not text")
    return code, reason or ""


def _request_body(request: dict[str, Any], where: str, source: str) -> str | bytes | None:
    body = request.get("body")
    try:
        if body is None and "parsed_body" in request:  # pydantic-ai's serializer
            encoded = msgspec.json.encode(request["parsed_body"])
            return msgspec.json.format(encoded, indent=2).decode()
        if isinstance(body, dict) and "string" in body:
            body = body["string"]
        if body is None or isinstance(body, str | bytes):
            return body
        return msgspec.json.encode(body).decode()
    except (TypeError, ValueError, OverflowError, msgspec.EncodeError) as exc:
        raise CassetteFormatError(source, f"{where}.body cannot be written as JSON: {exc}") from exc


_HEADER_SCALARS = (str, int, float)


def _headers(raw: Any, where: str, source: str) -> Headers:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise CassetteFormatError(source, f"{where} is not a mapping")
    out: Headers = {}
    for name, values in raw.items():
        if not isinstance(name, str):
            raise CassetteFormatError(source, f"{where}: the header name {name!r} is not text")
        items = values if isinstance(values, list) else [values]
        for value in items:
            if not isinstance(value, _HEADER_SCALARS) or isinstance(value, bool):
                raise CassetteFormatError(
                    source,
                    f"{where}.{name}: a header value is text or a list of text, "
                    f"not {type(value).__name__}",
                )
        out[name] = [str(v) for v in items]
    return out
