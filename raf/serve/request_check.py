"""The request check: does the request a client sent match the cassette's recorded one?
Pure functions, no IO.

A replayed answer only means something if the client asked the question the cassette
recorded; a client that sends a wrong follow-up request (a tool result with the wrong call
id, a lost message, a missing tool) is caught here. The matcher compares, per dialect, only
the fields that decide what the model answers, and only those the recorded request has: the
format's :attr:`raf.formats.Format.request_fields` (:func:`compared_fields`; docs/serve.md
lists them per dialect, checked against the descriptors).

A format may put in the URL what the others put in the body (:func:`url_fields`, read as its
:attr:`raf.formats.Format.request_url` says). Gemini does: the model
(``.../models/gemini-2.5-flash:...``, its last path segment, so a Vertex AI path and the
Gemini API's name the same model), the method after the colon (``streamGenerateContent`` or
``generateContent``) and the ``alt`` query parameter, which decides the framing of the answer
(``alt=sse``: Server-Sent Events; none, or ``alt=json``: a JSON array). They are compared when
the recorded URI is one (not on the reserved ``.invalid`` domain, which ``raf cassette
import`` writes for a body recorded without its request). No other query parameter is read,
and none is ever quoted in a mismatch line: ``key=`` holds an API key.

Before comparing, both sides are normalised the ways equivalent clients legitimately differ,
the :data:`EQUIVALENCES` (docs/serve.md has them as a table, checked against this tuple):

- ``null_members``: members whose value is ``null`` are dropped;
- ``text_parts``: a ``content`` (or Anthropic ``system``, Responses ``instructions``) made
  only of text parts is read as their joined text;
- ``empty_content``: an empty, ``null`` or missing message ``content`` is ``""``;
- ``arguments_json``: tool call ``arguments`` strings are read as the JSON they hold (the formats
  that send arguments as text: Chat Completions, Responses);
- ``input_string``: a Responses ``input`` string is one user message;
- ``message_type``: a Responses input item's ``"type": "message"`` is implied;
- ``tool_name_and_schema``: a tool is its name and its parameter schema (descriptions,
  ``strict`` and the like are not compared; ``parameters``, ``input_schema`` and
  ``parametersJsonSchema`` are one);
- ``developer_role``: a message's ``developer`` role is ``system`` (OpenAI's reasoning
  models take instructions as ``developer``; langchain-openai sends ``developer`` for the
  ``o…`` models, litellm ``system`` for the others);
- ``schema_type_names``: in a Gemini tool's schema, at every depth, a ``type`` named as the
  SDK's enum (``OBJECT``, ``STRING``, ``INTEGER``, ``NUMBER``, ``BOOLEAN``, ``ARRAY``,
  ``NULL``) is the JSON Schema name (``object``...);
- ``signature_base64``: a Gemini ``thoughtSignature`` is the bytes it encodes, in standard or
  URL-safe base64, padded or not;
- ``is_error_false``: an Anthropic ``tool_result``'s ``is_error: false`` is no member;
- ``proto_field_names``: a Gemini part's ``function_call``, ``function_response`` and
  ``thought_signature`` are its ``functionCall``, ``functionResponse`` and
  ``thoughtSignature`` (the API takes both names);
- ``no_parameters``: a function tool without parameters, with ``"parameters": {}``, or with
  an object schema that declares nothing (:func:`takes_no_parameters`) takes no parameters;
- ``unrecorded_members``: members the recorded request does not have are free at every
  level (temperature, ``n``, an SDK's extra message fields), and so are headers.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import urlsplit

import msgspec

from raf import formats
from raf.cassettes.scrub import REDACTED, scrub_text
from raf.cassettes.secrets import is_placeholder, is_secret_member
from raf.formats import RequestUrl
from raf.formats.format import UrlParts
from raf.limits import DEFAULT_MAX_JSON_DEPTH
from raf.safe_json import too_deep

__all__ = [
    "EQUIVALENCES",
    "MAX_BODY_DEPTH",
    "RECEIVED",
    "Body",
    "Equivalence",
    "RequestCheck",
    "check_request",
    "compared_fields",
    "equivalences_table",
    "normal_form",
    "read_body",
    "requested_framing",
    "takes_no_parameters",
    "url_fields",
]


def compared_fields(dialect: str) -> tuple[str, ...]:
    """The request body fields the matcher compares for ``dialect``: its format's
    :attr:`raf.formats.Format.request_fields` (``model`` for a dialect without a format)."""
    found = formats.find(dialect)
    return ("model",) if found is None else found.request_fields


def url_fields(dialect: str) -> tuple[str, ...]:
    """The parts of the URL the matcher compares for ``dialect`` (before the body's fields):
    its format's :attr:`raf.formats.Format.url_fields`."""
    found = formats.find(dialect)
    return () if found is None else found.url_fields


@dataclass(frozen=True)
class Equivalence:
    """One way equivalent clients legitimately differ, read by the check as no difference.

    Attributes:
        name: the rule's name.
        rule: what is read as the same, in a sentence.
        why: why clients differ there, though they ask the same question.
        field: the request field of the example.
        recorded: the example's value as a recording has it (JSON).
        received: a value a client sends that the check reads as the same (JSON).
        specific: it applies only to the formats that name it in their
            :attr:`raf.formats.Format.equivalences` (otherwise: to every format).
    """

    name: str
    rule: str
    why: str
    field: str
    recorded: str
    received: str
    specific: bool = False

    def applies_to(self, dialect: str) -> bool:
        """Whether it applies to the requests of ``dialect``."""
        if not self.specific:
            return True
        found = formats.find(dialect)
        return found is not None and self.name in found.equivalences

    def formats(self) -> tuple[str, ...]:
        """The formats it applies to."""
        return tuple(name for name in formats.names() if self.applies_to(name))


EQUIVALENCES: Final[tuple[Equivalence, ...]] = (
    Equivalence(
        "null_members",
        "a member whose value is `null` is no member",
        "SDKs serialise an unset optional field as `null`, or leave it out",
        "messages",
        '[{"role": "user", "content": "hi", "name": null}]',
        '[{"role": "user", "content": "hi"}]',
    ),
    Equivalence(
        "text_parts",
        "a `content` (Anthropic `system`, Responses `instructions`) made only of text parts "
        "is their joined text",
        "the APIs take a string and a list of text parts as the same input, and SDKs "
        "convert one into the other",
        "messages",
        '[{"role": "user", "content": "hi"}]',
        '[{"role": "user", "content": [{"type": "text", "text": "hi"}]}]',
    ),
    Equivalence(
        "empty_content",
        'an empty, `null` or missing message `content` is `""`',
        'a message that only calls tools is sent with `content: null`, `""` or without '
        "it, depending on the SDK",
        "messages",
        '[{"role": "assistant", "content": null}]',
        '[{"role": "assistant", "content": ""}]',
    ),
    Equivalence(
        "arguments_json",
        "a tool call's `arguments` string is the JSON it holds",
        "re-serialising the arguments of a call changes spacing and key order, not the call",
        "messages",
        '[{"role": "assistant", "tool_calls": [{"function": {"arguments": "{\\"a\\": 1}"}}]}]',
        '[{"role": "assistant", "tool_calls": [{"function": {"arguments": "{\\"a\\":1}"}}]}]',
        specific=True,
    ),
    Equivalence(
        "input_string",
        "a Responses `input` string is one user message",
        "the API documents the string as a shorthand for that message",
        "input",
        '"hi"',
        '[{"role": "user", "content": "hi"}]',
        specific=True,
    ),
    Equivalence(
        "message_type",
        'a Responses input item\'s `"type": "message"` is implied',
        "an item with a `role` is a message whether or not its type is written",
        "input",
        '[{"role": "user", "content": "hi"}]',
        '[{"type": "message", "role": "user", "content": "hi"}]',
        specific=True,
    ),
    Equivalence(
        "tool_name_and_schema",
        "a tool is its name and its parameter schema; `parameters`, `input_schema` and "
        "`parametersJsonSchema` are one",
        "libraries write their own descriptions and flags (`strict`) for the same tool",
        "tools",
        '[{"type": "function", "function": {"name": "f", "description": "F."}}]',
        '[{"type": "function", "function": {"name": "f", "strict": true}}]',
    ),
    Equivalence(
        "developer_role",
        "a message's `developer` role is `system`",
        "OpenAI's reasoning models (o1 and newer) take instructions as `developer`: "
        "langchain-openai rewrites `system` to `developer` for `o…` models, litellm "
        "`developer` to `system` for the others; the instruction is the same",
        "messages",
        '[{"role": "system", "content": "Be brief."}]',
        '[{"role": "developer", "content": "Be brief."}]',
        specific=True,
    ),
    Equivalence(
        "schema_type_names",
        "a schema's `type` named as Gemini's enum (`OBJECT`, `STRING`, `INTEGER`, `NUMBER`, "
        "`BOOLEAN`, `ARRAY`, `NULL`) is its JSON Schema name, at every depth",
        "google-genai reads the `parameters` it is given into its `Schema` and sends its "
        "`Type` enum names, whatever the user wrote; the API takes both",
        "tools",
        '[{"functionDeclarations": [{"name": "f", "parameters": {"type": "object", '
        '"properties": {"xs": {"type": "array", "items": {"type": "string"}}}}}]}]',
        '[{"functionDeclarations": [{"name": "f", "parameters": {"type": "OBJECT", '
        '"properties": {"xs": {"type": "ARRAY", "items": {"type": "STRING"}}}}}]}]',
        specific=True,
    ),
    Equivalence(
        "signature_base64",
        "a Gemini `thoughtSignature` is the bytes it encodes: standard or URL-safe base64, "
        "with or without padding",
        "google-genai keeps a signature as bytes and sends it back URL-safe encoded; the API "
        "reads bytes fields in either alphabet (the proto3 JSON mapping)",
        "contents",
        '[{"role": "model", "parts": [{"text": "", "thoughtSignature": "a+b/Ew=="}]}]',
        '[{"role": "model", "parts": [{"text": "", "thoughtSignature": "a-b_Ew"}]}]',
        specific=True,
    ),
    Equivalence(
        "is_error_false",
        "an Anthropic `tool_result`'s `is_error: false` is no member (false is its default)",
        "SDKs write the flag on every result (langchain-anthropic, Pydantic AI), others only "
        "on errors",
        "messages",
        '[{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", '
        '"content": "ok"}]}]',
        '[{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", '
        '"content": "ok", "is_error": false}]}]',
        specific=True,
    ),
    Equivalence(
        "proto_field_names",
        "a Gemini part's member under its proto field name (`function_call`, "
        "`function_response`, `thought_signature`) is the one under its JSON name",
        "the API takes both names (the proto3 JSON mapping), and some clients write the proto "
        "names (litellm)",
        "contents",
        '[{"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]}]',
        '[{"role": "model", "parts": [{"function_call": {"name": "f", "args": {}}}]}]',
        specific=True,
    ),
    Equivalence(
        "no_parameters",
        "a function tool without parameters, with `{}` or with an object schema that "
        "declares no property takes no parameters",
        "the APIs read each as a function without arguments; google-genai's "
        "`FunctionDeclaration.from_callable` leaves them out, pydantic-ai adds "
        "`additionalProperties: false`, the openai SDK's `pydantic_function_tool` also "
        "`required: []` and a `title`",
        "tools",
        '[{"type": "function", "function": {"name": "f", "parameters": {"type": "object", '
        '"properties": {}}}}]',
        '[{"type": "function", "function": {"name": "f"}}]',
    ),
    Equivalence(
        "unrecorded_members",
        "a member the recorded request does not have is free, at every level",
        "SDKs add their own options and message fields (`temperature`, `n`, `name`); "
        "headers are never compared",
        "messages",
        '[{"role": "user", "content": "hi"}]',
        '[{"role": "user", "content": "hi", "name": "ann"}]',
    ),
)
"""Every normalisation the check applies to both sides, in the order of docs/serve.md."""


def equivalences_table() -> str:
    """:data:`EQUIVALENCES` as the Markdown table of docs/serve.md."""
    lines = ["| equivalence | why | example (recorded, then received) |", "|---|---|---|"]
    for rule in EQUIVALENCES:
        where = f" ({', '.join(f'`{d}`' for d in rule.formats())})" if rule.specific else ""
        lines.append(
            f"| `{rule.name}`{where}: {rule.rule} | {rule.why} | "
            f"`{rule.field}`: `{rule.recorded}` and `{rule.received}` |"
        )
    return "\n".join(lines)


RECEIVED: Final[dict[str, str]] = {
    "sse": "Server-Sent Events",
    "json_array": "a JSON-array body",
    "json": "one JSON object",
}
"""What a client receives in each framing a request's URL can ask for
(:func:`requested_framing`)."""

_SCHEMA_TYPE_NAMES: Final = frozenset(
    {"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"}
)
_SUBSCHEMA: Final = ("items", "additionalProperties", "not", "contains", "propertyNames")
_SUBSCHEMA_LISTS: Final = ("anyOf", "any_of", "oneOf", "allOf", "prefixItems")
_SUBSCHEMA_MAPS: Final = ("properties", "$defs", "definitions", "patternProperties")
_EMPTY_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {},
    "required": [],
    "additionalProperties": False,
}
_SCHEMA_NOTES: Final = frozenset({"title", "description", "$schema"})

MAX_BODY_DEPTH: Final = DEFAULT_MAX_JSON_DEPTH
"""The deepest nesting of a request body the check reads (the limit of every JSON payload
raf reads, measured by :func:`raf.safe_json.too_deep` without recursing); a deeper body is
refused before it is decoded."""

_MAX_MISMATCHES: Final = 5
_SHOWN: Final = 80
_SCRUBBED_WINDOW: Final = 8 * 1024
"""Characters of a value scrubbed before it is cut to :data:`_SHOWN` for a mismatch line, so
that a secret the cut falls in is removed whole, not shown as an unrecognisable prefix."""
_TEXT_PARTS: Final = frozenset({"text", "input_text", "output_text"})


@dataclass(frozen=True)
class RequestCheck:
    """The verdict on one request.

    Attributes:
        compared: the fields compared (empty: nothing recorded to compare with).
        mismatches: one line per difference (at most five), each naming the field.
    """

    compared: tuple[str, ...] = ()
    mismatches: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def to_builtins(self) -> dict[str, Any]:
        return {"ok": self.ok, "compared": list(self.compared), "mismatches": self.mismatches}


@dataclass(frozen=True)
class Body:
    """A request body as the check reads it.

    Attributes:
        value: the JSON value (``None`` for an empty body, or one that cannot be read).
        problem: why the body cannot be read as a JSON object (``None``: it can, or it is
            empty); what ``raf serve`` answers with 400.
    """

    value: Any = None
    problem: str | None = None


def read_body(received: bytes) -> Body:
    """``received`` read as the JSON object a client of raf's dialects sends: never raises,
    never recurses deeper than :data:`MAX_BODY_DEPTH`. An empty body has neither a value nor
    a problem; bytes that are not UTF-8 or not JSON, a nesting past :data:`MAX_BODY_DEPTH`, a
    number out of range and any JSON value but an object are a ``problem``. The problem never
    quotes the body."""
    if not received:
        return Body()
    try:
        text = received.decode()
    except UnicodeDecodeError as exc:
        return Body(problem=f"the request body is not JSON: byte {exc.start} is not UTF-8")
    deep = f"the request body nests deeper than {MAX_BODY_DEPTH} levels"
    if too_deep(text, MAX_BODY_DEPTH):
        return Body(problem=deep)
    try:
        value = msgspec.json.decode(received)
    except msgspec.DecodeError as exc:  # ValidationError too: a number out of range
        return Body(problem=f"the request body is not JSON: {exc}")
    except RecursionError:  # pragma: no cover - too_deep keeps the decoder well inside
        return Body(problem=deep)
    if not isinstance(value, dict):
        return Body(problem="the request body is not a JSON object")
    return Body(value)


def check_request(
    dialect: str,
    recorded: str | bytes | None,
    received: bytes | Body,
    *,
    recorded_uri: str | None = None,
    received_url: str | None = None,
) -> RequestCheck:
    """Compare the request a client sent with the recorded one: its body (``received``, as
    bytes or as :func:`read_body` read them) with the recorded body, and, for a dialect with
    :func:`url_fields`, the URL it asked (``received_url``: the path and query, or the whole
    URL) with ``recorded_uri``. Never raises. Every value a mismatch line quotes is scrubbed
    of secrets (docs/secrets.md) before it is cut to its excerpt."""
    compared, mismatches = _check_url(dialect, recorded_uri, received_url)
    try:
        body_compared, body_mismatches = _check_body(dialect, recorded, received)
    except RecursionError:  # pragma: no cover - read_body bounds the depth well inside
        body_compared, body_mismatches = (), ["the request body nests too deep to compare"]
    everything = mismatches + body_mismatches
    return RequestCheck(compared + body_compared, everything[:_MAX_MISMATCHES])


def requested_framing(dialect: str, uri: str | None) -> str | None:
    """The framing a recorded request's URL asked for (a key of :data:`RECEIVED`), where the
    format's URL decides it (:attr:`raf.formats.Format.request_url`; Gemini: ``alt=sse`` is
    ``sse``; no ``alt`` is ``json_array`` for ``streamGenerateContent``, ``json`` for
    ``generateContent``); ``None`` elsewhere."""
    found = _url_parts(dialect, uri, recorded=True)
    return None if found is None else found[0].framing(found[1].method, found[1].parameter)


def _url_parts(
    dialect: str, url: str | None, *, recorded: bool = False
) -> tuple[RequestUrl, UrlParts] | None:
    """The format's URL shape and the parts of ``url`` the check reads, or ``None`` when the
    dialect reads none (or a recorded URI is a placeholder)."""
    found = formats.find(dialect)
    shape = None if found is None else found.request_url
    if shape is None or not url_fields(dialect) or not url:
        return None
    if recorded and (urlsplit(url).hostname or "").endswith(".invalid"):
        return None  # raf cassette import's placeholder: no request was recorded
    return shape, shape.parts(url)


def _check_url(
    dialect: str, recorded_uri: str | None, received_url: str | None
) -> tuple[tuple[str, ...], list[str]]:
    found = _url_parts(dialect, recorded_uri, recorded=True)
    if found is None or received_url is None:
        return (), []
    shape, want = found
    have = shape.parts(received_url)
    compared: list[str] = []
    out: list[str] = []
    if want.model is not None and want.method is not None:
        compared.append("url.model")
        if have.model != want.model:
            out.append(f"url.model: expected {_quoted(want.model)}, got {_quoted(have.model)}")
    if want.method is not None:
        compared.append("url.method")
        if have.method != want.method:
            out.append(f"url.method: expected {_quoted(want.method)}, got {_quoted(have.method)}")
        compared.append("url.alt")
        if not shape.same_framing(have.parameter, want.parameter):
            expected = _parameter_shown(shape, want.parameter, want.method)
            got = _parameter_shown(shape, have.parameter, have.method or want.method)
            out.append(f"url.alt: expected {expected}, got {got}")
    return tuple(compared), out


def _parameter_shown(shape: RequestUrl, value: str | None, method: str | None) -> str:
    """A value of the framing parameter (the only query parameter ever quoted) and the
    framing it asks for."""
    shown = _quoted(value)
    kind = shape.framing(method, value)
    return f"{shown} ({RECEIVED[kind]})" if kind in RECEIVED else shown


def _quoted(value: str | None) -> str:
    return "none" if value is None else _shown(value)


def _check_body(
    dialect: str, recorded: str | bytes | None, received: bytes | Body
) -> tuple[tuple[str, ...], list[str]]:
    if recorded is None or recorded in ("", b""):
        return (), []
    if isinstance(recorded, str):
        try:
            recorded = recorded.encode()
        except UnicodeEncodeError:
            return (), []
    expected = read_body(recorded).value  # a recorded body that is not a JSON object (or
    if not isinstance(expected, dict):  # too deep): nothing to compare
        return (), []
    fields = tuple(name for name in compared_fields(dialect) if expected.get(name) is not None)
    if not fields:
        return (), []
    body = received if isinstance(received, Body) else read_body(received)
    if body.problem is not None:
        return fields, [body.problem]
    got = body.value
    if not isinstance(got, dict):
        return fields, ["the request body is not a JSON object"]
    normal = _Normaliser(dialect)
    mismatches: list[str] = []
    for name in fields:
        want = normal.field(name, expected.get(name))
        have = normal.field(name, got.get(name))
        _diff(want, have, name, mismatches)
        if len(mismatches) >= _MAX_MISMATCHES:
            break
    return fields, mismatches


class _Named:
    """A value a mismatch line shows by a name, not as JSON (equal only to itself)."""

    def __init__(self, shown: str) -> None:
        self.shown = shown

    def __repr__(self) -> str:
        return self.shown


_NO_PARAMETERS: Final = _Named("none (no parameters)")


def takes_no_parameters(schema: Any) -> bool:
    """Whether a tool's parameter schema declares no parameter: none at all (``None``),
    ``{}``, or an object schema whose only members are ``"type": "object"``,
    ``"properties": {}``, ``"required": []``, ``"additionalProperties": false`` and the
    notes ``title``, ``description`` and ``$schema`` (type names already normalised). A
    schema with ``additionalProperties`` other than ``false`` takes arguments."""
    if schema is None:
        return True
    if not isinstance(schema, dict):
        return False
    return all(
        key in _SCHEMA_NOTES
        or (
            key in _EMPTY_SCHEMA
            and type(value) is type(_EMPTY_SCHEMA[key])
            and value == _EMPTY_SCHEMA[key]
        )
        for key, value in schema.items()
    )


class _Normaliser:
    """The :data:`EQUIVALENCES` of one dialect, applied to one side of a request."""

    def __init__(self, dialect: str) -> None:
        self.on = frozenset(rule.name for rule in EQUIVALENCES if rule.applies_to(dialect))

    def field(self, name: str, value: Any) -> Any:
        """A top-level field, normalised."""
        if name == "tools" and isinstance(value, list):
            return [self.tool(tool) for tool in value]
        if name == "input" and isinstance(value, str) and "input_string" in self.on:
            value = [{"role": "user", "content": value}]
        if name in ("system", "instructions"):
            return self.content(self.clean(value))
        return self.clean(value)

    def tool(self, tool: Any) -> Any:
        """A tool as its kind, name and parameter schema (a Gemini tool: its functions)."""
        if isinstance(tool, dict) and (
            "functionDeclarations" in tool or "function_declarations" in tool
        ):
            declarations = tool.get("functionDeclarations") or tool.get("function_declarations")
            if isinstance(declarations, list):
                return {"functions": [self.function(d) for d in declarations]}
        return self.function(tool)

    def function(self, tool: Any) -> Any:
        """One tool or function declaration as its kind, name and parameter schema."""
        if not isinstance(tool, dict):
            return tool
        function = tool.get("function") if isinstance(tool.get("function"), dict) else tool
        if "tool_name_and_schema" not in self.on:
            return self.clean(tool)
        schema = None
        for key in ("parameters", "input_schema", "parametersJsonSchema", "parameters_json_schema"):
            if isinstance(function, dict) and function.get(key) is not None:
                schema = function[key]
                break
        name = function.get("name") if isinstance(function, dict) else None
        out: dict[str, Any] = {"name": name}
        if schema is not None:
            out["parameters"] = self.schema(self.clean(schema))
        empty = takes_no_parameters(out.get("parameters"))
        if name is not None and empty and "no_parameters" in self.on:
            out["parameters"] = _NO_PARAMETERS
        kind = tool.get("type")
        if kind not in (None, "function", "custom") and name is None:
            out["type"] = kind  # a built-in tool (web_search...): its kind is what matters
        return self.clean(out)

    def schema(self, schema: Any) -> Any:
        """A parameter schema with Gemini's type names read as JSON Schema's, at every
        depth (only ``type`` members of schemas: an ``enum`` value or a property named
        ``type`` is kept as it is). Iterative: copies are made top-down from a work list."""
        if "schema_type_names" not in self.on or not isinstance(schema, dict):
            return schema
        result: list[Any] = [None]
        todo: list[tuple[Any, Any, Any]] = [(schema, result, 0)]
        while todo:
            node, target, slot = todo.pop()
            if not isinstance(node, dict):
                target[slot] = node
                continue
            out = dict(node)
            target[slot] = out
            kind = out.get("type")
            if isinstance(kind, str):
                out["type"] = _type_name(kind)
            elif isinstance(kind, list):
                out["type"] = [_type_name(k) if isinstance(k, str) else k for k in kind]
            todo.extend((out[key], out, key) for key in _SUBSCHEMA if key in out)
            for key in _SUBSCHEMA_LISTS:
                if isinstance(out.get(key), list):
                    items = out[key] = list(out[key])
                    todo.extend((item, items, n) for n, item in enumerate(items))
            for key in _SUBSCHEMA_MAPS:
                if isinstance(out.get(key), dict):
                    members = out[key] = dict(out[key])
                    todo.extend((item, members, name) for name, item in members.items())
        return result[0]

    def clean(self, value: Any) -> Any:
        """Drop nulls, read text-only contents as text and arguments strings as JSON.
        Iterative: each object is finished (:meth:`_finished`) after its members."""
        result: list[Any] = [None]
        # (value, where its normal form goes, its slot there, whether it is an object
        # whose members are done and which only needs finishing)
        todo: list[tuple[Any, Any, Any, bool]] = [(value, result, 0, False)]
        while todo:
            node, target, slot, done = todo.pop()
            if done:
                target[slot] = self._finished(node)
            elif isinstance(node, list):
                items: list[Any] = [None] * len(node)
                target[slot] = items
                todo.extend((item, items, n, False) for n, item in enumerate(node))
            elif isinstance(node, dict):
                out: dict[str, Any] = {}
                todo.append((out, target, slot, True))  # popped after every member
                for named, item in node.items():
                    key = named
                    if "proto_field_names" in self.on:
                        key = _JSON_NAMES.get(named, named)
                    if item is None and "null_members" in self.on:
                        continue
                    if key == "is_error" and item is False and "is_error_false" in self.on:
                        continue
                    if key == "arguments" and isinstance(item, str) and "arguments_json" in self.on:
                        out[key] = _json_or_text(item)
                        continue
                    if (
                        key in _SIGNATURES
                        and isinstance(item, str)
                        and "signature_base64" in self.on
                    ):
                        out[key] = _standard_base64(item)
                        continue
                    out[key] = None  # its place, in order
                    todo.append((item, out, key, False))
            else:
                target[slot] = node
        return result[0]

    def _finished(self, out: dict[str, Any]) -> dict[str, Any]:
        """An object whose members are normal, with the rules on the object itself."""
        if "content" in out:
            out["content"] = self.content(out["content"])
        if out.get("type") == "message" and "role" in out and "message_type" in self.on:
            del out["type"]
        if out.get("role") == "developer" and "developer_role" in self.on:
            out["role"] = "system"
        if "role" in out and "content" not in out and "empty_content" in self.on:
            out["content"] = ""
        return out

    def content(self, value: Any) -> Any:
        if value is None and "empty_content" in self.on:
            return ""
        if (
            "text_parts" in self.on
            and isinstance(value, list)
            and all(
                isinstance(part, dict)
                and isinstance(part.get("type"), str)
                and part["type"] in _TEXT_PARTS
                and isinstance(part.get("text"), str)
                and set(part) <= {"type", "text"}
                for part in value
            )
        ):
            return "".join(part["text"] for part in value)
        return value


def _type_name(kind: str) -> str:
    return kind.lower() if kind.upper() in _SCHEMA_TYPE_NAMES else kind


_SIGNATURES = frozenset({"thoughtSignature", "thought_signature"})
_JSON_NAMES: Final = {
    "function_call": "functionCall",
    "function_response": "functionResponse",
    "thought_signature": "thoughtSignature",
}


def _standard_base64(text: str) -> str:
    """``text``'s bytes in standard, padded base64; ``text`` itself when it is not base64."""
    try:
        data = base64.b64decode(text.translate(_URL_SAFE) + "=" * (-len(text) % 4), validate=True)
    except ValueError:
        return text
    return base64.b64encode(data).decode("ascii")


_URL_SAFE = str.maketrans("-_", "+/")


def _json_or_text(text: str) -> Any:
    if too_deep(text, MAX_BODY_DEPTH):
        return text
    try:
        return msgspec.json.decode(text)
    except (msgspec.DecodeError, RecursionError):
        return text


def _diff(want: Any, have: Any, path: str, out: list[str]) -> None:
    """Append to ``out`` a line per difference of ``have`` from ``want`` at ``path``, depth
    first in the recorded order, until it holds :data:`_MAX_MISMATCHES`. Iterative: a work
    list of comparisons and of members found missing (shown only if their turn comes)."""
    # (want, have, path, member name) to compare, or (value, None, path, name) missing
    todo: list[tuple[Any, Any, str, str | None, bool]] = [(want, have, path, None, False)]
    while todo and len(out) < _MAX_MISMATCHES:
        want, have, path, member, missing = todo.pop()
        if missing:
            out.append(f"{path}: missing (expected {_shown(want, member)})")
        elif isinstance(want, dict) and isinstance(have, dict):
            # members the recording does not have are free
            todo.extend(
                (want[key], have.get(key), f"{path}.{key}", key, key not in have)
                for key in reversed(list(want))
            )
        elif isinstance(want, list) and isinstance(have, list):
            if len(want) != len(have):
                out.append(f"{path}: {len(have)} item(s), the recorded request has {len(want)}")
            pairs = list(zip(want, have, strict=False))
            todo.extend(
                (a, b, f"{path}[{n}]", None, False)
                for n, (a, b) in reversed(list(enumerate(pairs)))
            )
        elif want != have or (type(want) is not type(have) and not _same_number(want, have)):
            out.append(f"{path}: expected {_shown(want, member)}, got {_shown(have, member)}")


def _same_number(a: Any, b: Any) -> bool:
    numbers = (int, float)
    return (
        isinstance(a, numbers)
        and isinstance(b, numbers)
        and not isinstance(a, bool)
        and not isinstance(b, bool)
        and a == b
    )


def _shown(value: Any, member: str | None = None) -> str:
    """``value`` as a mismatch line quotes it: its JSON, scrubbed of secrets (all of it when
    ``member``, the name it has in its object, names a credential), then cut."""
    if isinstance(value, _Named):
        return value.shown
    named = member is not None and is_secret_member(member)
    if named and isinstance(value, str) and not is_placeholder(value):
        return f'"{REDACTED}"'
    text = scrub_text(msgspec.json.encode(value).decode()[:_SCRUBBED_WINDOW])
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


def normal_form(dialect: str, body: Mapping[str, Any]) -> dict[str, Any]:
    """Every top-level member of a request ``body`` of ``dialect`` in the normal form the
    check compares (``null`` members dropped): two bodies are equivalent when their normal
    forms are equal, whatever members they have (the request half of each format is tested
    so, docs/requests.md)."""
    normal = _Normaliser(dialect)
    return {name: normal.field(name, value) for name, value in body.items() if value is not None}
