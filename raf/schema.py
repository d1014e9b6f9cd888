"""JSON Schemas of the canonical JSON forms, generated from the model classes. No IO.

``conformance/schema/*.schema.json`` are the published copies; ``raf schema --write DIR``
regenerates them and a test keeps them current.
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

__all__ = ["SCHEMA_ROOTS", "json_schemas"]

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


def json_schemas() -> dict[str, dict[str, Any]]:
    """One self-contained JSON Schema (draft 2020-12) per canonical root type.

    Every field is required except ``meta``, because canonical JSON writes every field.

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
            "description": f"Canonical JSON of raf's {name.replace('_', ' ')} (see docs/model.md).",
        }
        document.update(_rewrite_refs(schema))
        document["$defs"] = {
            _rename(k): _require_all(_rewrite_refs(v)) for k, v in sorted(components.items())
        }
        out[name] = document
    return out
