"""JSON Schemas of the canonical JSON forms, generated from the model classes. No IO.

``conformance/schema/*.schema.json`` are the published copies; ``raf schema --write DIR``
regenerates them and a test keeps them current.

Two kinds: what raf writes (canonical JSON, and the protocol messages raf sends), where every
field is present, and what an implementation under test sends (:data:`ACCEPTED`: its hello
and its results), which says exactly what raf accepts: a field with a default may be left
out, and unknown fields are allowed.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from raf.conformance.protocol import Bye, Case, Hello, ImplementationHello, Result
from raf.framing.sse import ServerSentEvent
from raf.model import (
    AgentResponse,
    AgentResponseResult,
    AgentResponseUpdate,
    ChatMessage,
    Content,
    Event,
)

__all__ = ["ACCEPTED", "SCHEMA_ROOTS", "json_schemas"]

SCHEMA_ROOTS: dict[str, Any] = {
    "update": AgentResponseUpdate,
    "content": Content,
    "event": Event,
    "agent_response_result": AgentResponseResult,
    "agent_response": AgentResponse,
    "chat_message": ChatMessage,
    "server_sent_event": ServerSentEvent,
    # The messages of the conformance protocol raf-conformance/1 (docs/protocol.md).
    "protocol_hello": Hello,
    "protocol_implementation_hello": ImplementationHello,
    "protocol_case": Case,
    "protocol_result": Result,
    "protocol_bye": Bye,
}
"""Schema name -> the type it describes."""

ACCEPTED = frozenset({"protocol_implementation_hello", "protocol_result"})
"""The schemas of what raf reads from an implementation, not what it writes."""

_DESCRIPTIONS = {
    "protocol_implementation_hello": "What raf accepts as an implementation's hello in the "
    "protocol raf-conformance/1 (see docs/protocol.md): a field with a default may be left "
    "out; unknown fields are ignored.",
    "protocol_result": "What raf accepts as a result in the protocol raf-conformance/1 (see "
    "docs/protocol.md): a field with a default may be left out; unknown fields are ignored. "
    "A result with a string id that breaks this schema fails its case with the schema error.",
}

_QUALIFIED = re.compile(r"^raf\.(?:model\.)?")


def _rename(name: str) -> str:
    # msgspec qualifies names that clash (updates.ToolCallStart vs contents.ToolCallStart)
    # with the module path; keep that, minus the package prefix.
    return _QUALIFIED.sub("", name)


def _rename_ref(ref: str) -> str:
    prefix, _, name = ref.rpartition("/")
    return f"{prefix}/{_rename(name)}"


def _rewrite_refs(node: Any) -> Any:
    if isinstance(node, dict):
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                out[key] = _rename_ref(value)
            elif key == "mapping" and isinstance(value, dict):
                out[key] = {tag: _rename_ref(ref) for tag, ref in value.items()}
            else:
                out[key] = _rewrite_refs(value)
        return out
    if isinstance(node, list):
        return [_rewrite_refs(v) for v in node]
    return node


def _require_all(definition: dict[str, Any]) -> dict[str, Any]:
    # Canonical JSON writes every field (null when unset); only ``meta`` is optional.
    properties = definition.get("properties")
    if isinstance(properties, dict):
        definition["required"] = [k for k in properties if k != "meta"]
    return definition


def _require_optional(definition: dict[str, Any]) -> dict[str, Any]:
    # What raf accepts: only the fields without a default are required (msgspec's own list).
    if not definition.get("required", True):
        del definition["required"]
    return definition


def _description(name: str) -> str:
    if name in _DESCRIPTIONS:
        return _DESCRIPTIONS[name]
    if name.startswith("protocol_"):
        return (
            f"raf's {name.removeprefix('protocol_').replace('_', ' ')} message in the protocol "
            "raf-conformance/1 (see docs/protocol.md)."
        )
    return f"Canonical JSON of raf's {name.replace('_', ' ')} (see docs/model.md)."


def json_schemas() -> dict[str, dict[str, Any]]:
    """One self-contained JSON Schema (draft 2020-12) per root type.

    In what raf writes every field is required except ``meta``, because canonical JSON
    writes every field; in what raf accepts (:data:`ACCEPTED`) only the fields without a
    default are.

    Returns:
        ``{"update": {...}, "content": {...}, ...}``; each schema has a ``title`` and its
        definitions under ``$defs``.
    """
    out: dict[str, dict[str, Any]] = {}
    for name, root in SCHEMA_ROOTS.items():
        (schema,), components = msgspec.json.schema_components(
            [root], ref_template="#/$defs/{name}"
        )
        document: dict[str, Any] = {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": name,
            "description": _description(name),
        }
        document.update(_rewrite_refs(schema))
        complete = _require_optional if name in ACCEPTED else _require_all
        document["$defs"] = {
            _rename(k): complete(_rewrite_refs(v)) for k, v in sorted(components.items())
        }
        out[name] = document
    return out
