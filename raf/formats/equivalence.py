"""Request equivalence: the ways equivalent clients legitimately differ in what they send,
and the normal form that reads them as no difference. Pure functions, no IO.

The replay server's request check (:mod:`raf.serve.request_check`) compares a received request
with the recorded one in this normal form, and the request half of each format is tested
against it (docs/requests.md): a body built from what a body was read into is equivalent to it.

Both sides of a comparison are normalised the ways equivalent clients legitimately differ,
the :data:`EQUIVALENCES` (docs/serve.md has them as a table, checked against this tuple):

- ``null_members``: members whose value is ``null`` are dropped;
- ``text_parts``: a ``content`` (or Anthropic ``system``, Responses ``instructions``) made
  only of text parts is read as their joined text;
- ``empty_content``: an empty, ``null`` or missing message ``content`` is ``""``;
- ``arguments_json``: tool call ``arguments`` strings are read as the JSON they hold;
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
- ``no_parameters``: a function tool without parameters, with ``"parameters": {}``, or with
  an object schema that declares nothing (:func:`takes_no_parameters`) takes no parameters;
- ``unrecorded_members``: members the recorded request does not have are free at every
  level (temperature, ``n``, an SDK's extra message fields), and so are headers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import msgspec

from raf.limits import DEFAULT_MAX_JSON_DEPTH
from raf.safe_json import too_deep

__all__ = [
    "EQUIVALENCES",
    "MAX_DEPTH",
    "Equivalence",
    "Named",
    "Normaliser",
    "equivalences_table",
    "normal_form",
    "takes_no_parameters",
]


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
        dialects: the dialects it applies to (empty: every one).
    """

    name: str
    rule: str
    why: str
    field: str
    recorded: str
    received: str
    dialects: tuple[str, ...] = ()

    def applies_to(self, dialect: str) -> bool:
        return not self.dialects or dialect in self.dialects


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
    ),
    Equivalence(
        "input_string",
        "a Responses `input` string is one user message",
        "the API documents the string as a shorthand for that message",
        "input",
        '"hi"',
        '[{"role": "user", "content": "hi"}]',
        ("openai_responses",),
    ),
    Equivalence(
        "message_type",
        'a Responses input item\'s `"type": "message"` is implied',
        "an item with a `role` is a message whether or not its type is written",
        "input",
        '[{"role": "user", "content": "hi"}]',
        '[{"type": "message", "role": "user", "content": "hi"}]',
        ("openai_responses",),
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
        ("openai_chat", "openai_responses"),
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
        ("gemini",),
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
        where = f" ({', '.join(f'`{d}`' for d in rule.dialects)})" if rule.dialects else ""
        lines.append(
            f"| `{rule.name}`{where}: {rule.rule} | {rule.why} | "
            f"`{rule.field}`: `{rule.recorded}` and `{rule.received}` |"
        )
    return "\n".join(lines)


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
MAX_DEPTH: Final = DEFAULT_MAX_JSON_DEPTH
"""The deepest nesting of a JSON text the normaliser decodes (a tool call's ``arguments``
string); a deeper one is compared as the text it is."""
_TEXT_PARTS: Final = frozenset({"text", "input_text", "output_text"})


class Named:
    """A value a mismatch line shows by a name, not as JSON (equal only to itself)."""

    def __init__(self, shown: str) -> None:
        self.shown = shown

    def __repr__(self) -> str:
        return self.shown


_NO_PARAMETERS: Final = Named("none (no parameters)")


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


class Normaliser:
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
                for key, item in node.items():
                    if item is None and "null_members" in self.on:
                        continue
                    if key == "arguments" and isinstance(item, str) and "arguments_json" in self.on:
                        out[key] = _json_or_text(item)
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


def _json_or_text(text: str) -> Any:
    if too_deep(text, MAX_DEPTH):
        return text
    try:
        return msgspec.json.decode(text)
    except (msgspec.DecodeError, RecursionError):
        return text


def normal_form(dialect: str, body: Mapping[str, Any]) -> dict[str, Any]:
    """Every top-level field of a request ``body`` of ``dialect`` in the normal form the
    request check compares (its null members dropped), so that two bodies are equivalent
    when their normal forms are equal."""
    normal = Normaliser(dialect)
    return {name: normal.field(name, value) for name, value in body.items() if value is not None}
