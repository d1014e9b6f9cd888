"""``raf-conformance/1``: the messages raf and an implementation under test exchange. No IO.

The implementation is any program: raf starts it once and talks JSON Lines with it, one
message per line, on its standard input (raf to the implementation) and standard output (the
implementation to raf); its standard error is captured for the report. docs/protocol.md is
the specification; the JSON Schemas of every message are in ``conformance/schema/``
(``protocol_*.schema.json``, written by ``raf schema --write``).

1. raf sends :class:`Hello`; the implementation answers :class:`ImplementationHello`, saying
   which dialects, levels and capabilities it supports.
2. For each case (one interaction of one cassette, cut by one chunking), raf sends
   :class:`Case` (the recorded status and headers, and the body as base64 chunks), and the
   implementation answers one :class:`Result` with the same ``id``. A ``tool_loop`` case
   (:class:`ToolLoop`, capability ``tool_loop``) is one whole run of a client's own tool loop
   against ``raf serve``: its result is the final response, and every request of the run is
   judged from the server's journal.
3. raf sends :class:`Bye`; the implementation exits.

Decoding is lenient where an implementation in another language would reasonably differ
(unknown fields are ignored; a response may leave out what it does not report) and strict
where the harness needs certainty (the ``type`` and ``id`` of every message). A ``result``
whose ``type`` and ``id`` are sound but whose other fields break the schema raises
:class:`InvalidResult`, which carries the ``id``: it answers its case, wrongly, and the
conversation can go on.
"""

from __future__ import annotations

import base64
from typing import Any, Final, Literal

import msgspec

from raf import safe_json
from raf.limits import MAX_GOLDEN_DEPTH
from raf.shared.client_response import ClientResponse

__all__ = [
    "CAPABILITIES",
    "LEVELS",
    "PROTOCOL",
    "Bye",
    "CannedResult",
    "Case",
    "Hello",
    "HttpRequest",
    "ImplementationHello",
    "InvalidResult",
    "ProtocolError",
    "Result",
    "ToolDefinition",
    "ToolLoop",
    "decode_from_implementation",
    "encode",
]

PROTOCOL: Final = "raf-conformance/1"
"""The protocol name and version; a new major version gets a new name."""

Level = Literal["response", "lifecycle", "updates", "requests"]
LEVELS: Final[tuple[Level, ...]] = ("response", "lifecycle", "updates", "requests")
"""The levels of comparison. ``response``, ``lifecycle`` and ``updates`` each add to the one
before; ``requests`` adds to ``response`` the requests a client sent (every request of a
``tool_loop`` case, judged by the request rules and the request check)."""

STREAM_LEVELS: Final[tuple[Level, ...]] = ("response", "lifecycle", "updates")
"""The levels that judge one streamed turn, from the least to the most."""

TOOL_LOOP_LEVELS: Final[tuple[Level, ...]] = ("response", "requests")
"""The levels a ``tool_loop`` case is judged at (it is skipped at the others)."""

CAPABILITIES: Final = {
    "tool_calls": "the client reports tool calls; cases whose expected response has tool calls "
    "(or errors about one) are skipped without it",
    "reasoning": "the client reports reasoning text; cases whose expected response has "
    "reasoning are skipped without it",
    "http_errors": "the client is given responses with an error status; those cases are "
    "skipped without it",
    "usage": "the client reports token usage; without it usage is not compared",
    "error_codes": "the client reports raf's error codes (docs/model.md); without it only the "
    "presence of errors is compared",
    "http": "the client makes the HTTP request itself (cases of transport http, run by "
    "raf conform --transport http); those cases are skipped without it",
    "hosted_tools": "the client reports the tools the provider ran (hosted_tool_calls) and the "
    "calls waiting for approval (approval_requests); without it neither is compared",
    "tool_loop": "the client runs its own tool loop (cases with a tool_loop, under raf conform "
    "--transport http: it sends the first request, runs the tools with the canned results, "
    "sends the follow-ups, and answers the final response); those cases are skipped without it",
}
"""Every capability an implementation may declare, and what it changes."""


class _Message(msgspec.Struct, kw_only=True, tag_field="type", omit_defaults=False):
    pass


class Hello(_Message, tag="hello"):
    """raf -> implementation, first: the protocol raf speaks."""

    protocol: str = PROTOCOL


class ImplementationHello(_Message, tag="hello", forbid_unknown_fields=False):
    """implementation -> raf, the answer to :class:`Hello`.

    Attributes:
        protocol: must be ``raf-conformance/1``.
        name: the implementation's name (shown in reports).
        version: its version.
        dialects: the wire formats it reads (``openai_chat``...); cases of other dialects are
            skipped.
        levels: the levels it can be compared at (:data:`LEVELS`); asking for another one
            skips every case.
        capabilities: what it reports (:data:`CAPABILITIES`).
        library: the client library it drives (an adapter of a library: ``openai``,
            ``@anthropic-ai/sdk``), whose version ``version`` then is; shown in the
            real-client matrix (``raf clients --impl``).
        how: one paragraph: how its user reads the result (what is compared), shown in the
            real-client matrix.
        framings: the response framings the library asks for where a request's URL chooses
            one (Gemini's ``?alt=sse`` is ``sse``); a case recorded with another is a
            response it never receives, skipped by the real-client matrix. Empty: it asks
            for what the recording asked for.
    """

    protocol: str
    name: str = "unnamed"
    version: str = ""
    dialects: list[str] = msgspec.field(default_factory=list)
    levels: list[str] = msgspec.field(default_factory=lambda: ["response"])
    capabilities: list[str] = msgspec.field(default_factory=list)
    library: str | None = None
    how: str = ""
    framings: list[str] = msgspec.field(default_factory=list)


class HttpRequest(msgspec.Struct, kw_only=True, forbid_unknown_fields=False):
    """The request an ``http`` case asks the client to make, on ``raf serve``.

    Attributes:
        method: ``POST`` (``GET`` for a resumed stream).
        url: where to send it: ``base_url`` + ``path``.
        base_url: the case's prefix on the server
            (``http://127.0.0.1:PORT/s/<dialect>/<scenario>/c/<chunking>/i/<n>``), for a
            client that appends its own provider path, as SDKs do.
        path: the recorded provider path, with its query (``/v1/chat/completions``).
        headers: headers to send (``content-type``, ``accept``).
        body: the recorded request body as JSON (``null`` for none), to send JSON-encoded.
    """

    method: str
    url: str
    base_url: str
    path: str
    headers: dict[str, str] = msgspec.field(default_factory=dict)
    body: Any = None


class ToolDefinition(msgspec.Struct, kw_only=True, forbid_unknown_fields=False):
    """A tool the client offers the model in a ``tool_loop`` case.

    Attributes:
        name: its name.
        description: what it does.
        parameters: the JSON Schema of its arguments.
    """

    name: str
    description: str = ""
    parameters: dict[str, Any] = msgspec.field(default_factory=dict)


class CannedResult(msgspec.Struct, kw_only=True, forbid_unknown_fields=False):
    """What a tool returns for one call of a ``tool_loop`` case: the call of tool ``name``
    with ``arguments`` (parsed JSON, compared as JSON) gets ``content`` (text, sent as it is)
    as its result, an error result when ``is_error``. Several results with the same name and
    arguments answer such calls in the order given."""

    name: str
    arguments: Any = None
    content: str = ""
    is_error: bool = False


class ToolLoop(msgspec.Struct, kw_only=True, forbid_unknown_fields=False):
    """The run a ``tool_loop`` case asks for (docs/protocol.md, "tool_loop cases").

    Attributes:
        model: the model asked for (in the first request already).
        messages: the conversation the run starts from: ``{"role", "content"}`` with text
            content (``system`` and ``user``).
        tools: the tools to offer (all of them, in every request).
        results: the canned result of every call the recording makes; a call with none gets
            an error result of the client's own words.
        max_rounds: the most requests the run may send.
        requests: how many requests the recorded run sent.
    """

    model: str
    messages: list[dict[str, str]]
    tools: list[ToolDefinition]
    results: list[CannedResult]
    max_rounds: int
    requests: int


class Case(_Message, tag="case"):
    """raf -> implementation: run one case.

    Attributes:
        id: the case's id, to be echoed in the :class:`Result`
            (``openai_chat/plain_text#0@bytes``: dialect, scenario, interaction, chunking).
        dialect: the wire format of the body.
        level: the level the result is compared at: which fields the result must have.
        status: the recorded HTTP status; a client given an error status reports an error.
        headers: the recorded response headers, names lower-case, values of a repeated
            header joined by ``", "``.
        chunks: the body, as the network reads the client must be fed one by one, each
            base64 (standard alphabet, with padding). Joined, they are the recorded body.
            Empty for an ``http`` case.
        transport: ``chunks`` (the body is in ``chunks``) or ``http`` (only to a client with
            the ``http`` capability: it makes ``request`` itself and reads the answer from
            the network; ``status`` and ``headers`` are what the server will answer).
        request: the request of an ``http`` case (``None`` otherwise); for a ``tool_loop``
            case, its first request, on a base URL of its own (``.../r/<run>``).
        tool_loop: for a ``tool_loop`` case (capability ``tool_loop``), the run to make: the
            client runs its own tool loop from ``request``, and answers with the final
            response; ``None`` for any other case.
    """

    id: str
    dialect: str
    level: str
    status: int
    headers: dict[str, str]
    chunks: list[str]
    transport: str = "chunks"
    request: HttpRequest | None = None
    tool_loop: ToolLoop | None = None

    def body_chunks(self) -> list[bytes]:
        """The chunks, decoded."""
        return [base64.b64decode(chunk) for chunk in self.chunks]


class Result(_Message, tag="result", forbid_unknown_fields=False):
    """implementation -> raf: the outcome of one case.

    Attributes:
        id: the :class:`Case`'s id.
        response: what the client hands its caller, as canonical ``agent_response`` JSON
            (:class:`ClientResponse`: fields it does not report may be left out). With
            ``raised``, whatever partial response the client has (or ``null``). For a
            ``tool_loop`` case, the final response: that of the run's last request.
        results: the canonical ``agent_response_result`` objects it streamed, in order
            (levels ``lifecycle`` and ``updates``).
        updates: the canonical ``update`` objects (level ``updates``).
        raised: the client raised instead of returning: ``"Type: message"``. Counts as an
            error the client reported.
    """

    id: str
    response: ClientResponse | None = None
    results: list[Any] | None = None
    updates: list[Any] | None = None
    raised: str | None = None


class Bye(_Message, tag="bye"):
    """raf -> implementation, last: exit now."""


class ProtocolError(ValueError):
    """A line from the implementation is not a message of the protocol."""


class InvalidResult(ProtocolError):
    """A line from the implementation is a ``result`` with an ``id`` (``case_id``), but
    another of its fields breaks the schema; ``str(exc)`` says which (its JSON path)."""

    def __init__(self, message: str, case_id: str) -> None:
        super().__init__(message)
        self.case_id = case_id


class _Envelope(msgspec.Struct, forbid_unknown_fields=False):
    # What every message has, read whatever its other fields are.
    type: Any = None
    id: Any = None


_from_implementation = msgspec.json.Decoder(ImplementationHello | Result)
_envelope = msgspec.json.Decoder(_Envelope)
_encoder = msgspec.json.Encoder()


def encode(message: Hello | Case | Bye | ImplementationHello | Result) -> bytes:
    """One line of JSON (with its LF) for ``message``."""
    return _encoder.encode(message) + b"\n"


def decode_from_implementation(line: bytes) -> ImplementationHello | Result:
    """Parse one line the implementation wrote.

    Raises:
        InvalidResult: a ``result`` with a string ``id`` whose other fields break the schema
            (``conformance/schema/protocol_result.schema.json``); the message names the field
            by its JSON path (``$.response.tool_calls``).
        ProtocolError: not JSON, not a ``hello`` or ``result`` message, a hello that breaks
            its schema, or a result without a string ``id``; the message says which.
    """
    try:
        return _from_implementation.decode(line)
    except msgspec.ValidationError as exc:  # JSON, but not a message of the protocol
        raise _invalid(exc, _envelope_of(line)) from None
    except msgspec.DecodeError as exc:
        if b"\\u" not in line:
            raise ProtocolError(str(exc)) from None
        # JSON encoders write lone surrogates (which some servers stream) as \udXXX escapes:
        # read them as U+FFFD, as raf's dialects do, and let the comparison speak.
        try:
            text = line.decode("utf-8", "replace")
            repaired = safe_json.decode(text, max_depth=MAX_GOLDEN_DEPTH).value
        except (safe_json.UnusableJSON, RecursionError):
            raise ProtocolError(str(exc)) from None
        try:
            return msgspec.convert(repaired, ImplementationHello | Result)
        except msgspec.ValidationError as invalid:
            envelope = repaired if isinstance(repaired, dict) else {}
            raise _invalid(invalid, (envelope.get("type"), envelope.get("id"))) from None
        except RecursionError:
            raise ProtocolError("nested too deeply") from None
    except RecursionError:
        raise ProtocolError("nested too deeply") from None


def _envelope_of(line: bytes) -> tuple[Any, Any]:
    try:
        envelope = _envelope.decode(line)
    except (msgspec.DecodeError, RecursionError):  # not an object
        return None, None
    return envelope.type, envelope.id


def _invalid(exc: msgspec.ValidationError, envelope: tuple[Any, Any]) -> ProtocolError:
    kind, case_id = envelope
    if kind == "result" and isinstance(case_id, str):
        return InvalidResult(str(exc), case_id)
    return ProtocolError(str(exc))
