"""What every message model of :mod:`raf.interop` is made of. No IO, no third-party import.

A model is a pair of sans-IO state machines and a table:

* an :class:`Encoder` is fed raf's results (:class:`~raf.model.response.AgentResponseResult`,
  what ``raf.pipeline.run`` or an agent run yields) one at a time and returns the model's
  items for each, as JSON values in the form the model's own library writes and reads
  (``close()`` returns what ends the run: open messages closed, the final message);
* a :class:`Decoder` is fed those items and returns raf results again, so that
  ``collect_agent_response(decode(encode(results)))`` is the response the model can carry;
* :class:`Row` s say, for each part of raf's response, which field of the model carries it, or
  why the model cannot. The rows are the one source of truth: the round trip is compared on
  exactly the paths of the kept rows (:func:`kept_paths`, :func:`project`), and the tables of
  docs/interop.md are rendered from them (:func:`rows_markdown`).

Neither machine raises on what it is fed. A decoder answers an item it cannot read (not the
model's shape, or out of place) with an ``Error`` content of code ``invalid_chunk`` naming the
item's position and what was wrong, and a well-formed item it has no use for with the notice
``unrecognised_chunks``; everything read before and after is kept.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeAlias

from raf.model.response import AgentResponse, AgentResponseResult

__all__ = [
    "JSON",
    "RESPONSE_FIELDS",
    "Decoder",
    "Encoder",
    "Model",
    "Row",
    "decode_all",
    "encode_all",
    "frame",
    "kept_paths",
    "native_items",
    "native_paths",
    "project",
    "rows_markdown",
]

JSON: TypeAlias = Any
"""A JSON value (``dict``, ``list``, ``str``, ``int``, ``float``, ``bool`` or ``None``)."""

RESPONSE_FIELDS: tuple[str, ...] = tuple(
    name for name in AgentResponse.__struct_fields__ if name != "source_agent_id"
)
"""The fields of :class:`AgentResponse` every model's rows must account for (kept or lost).
``source_agent_id`` is left out: raf's pipeline never sets it."""


class Encoder(Protocol):
    """raf results in, the model's items out (JSON values, in stream order)."""

    def feed(self, result: AgentResponseResult) -> list[JSON]:
        """The items ``result`` makes (possibly none)."""
        ...

    def close(self) -> list[JSON]:
        """The items that end the run: whatever is still open, closed; a final message."""
        ...


class Decoder(Protocol):
    """The model's items in, raf results out; never raises on what it is fed."""

    def feed(self, item: JSON) -> list[AgentResponseResult]:
        """The results ``item`` makes (possibly none)."""
        ...

    def close(self) -> list[AgentResponseResult]:
        """The results that end the run (calls still open are ended, a final result)."""
        ...


@dataclass(frozen=True)
class Row:
    """One part of raf's response and where the model keeps it.

    ``raf`` is a path into the response's canonical JSON (``usage.reasoning_tokens``,
    ``tool_calls[].arguments``; ``[]`` marks a list, whose every element the rest of the path
    applies to); ``model`` names the model's field (free text, shown in the docs); ``lost`` is
    empty when the part survives the round trip, else why it cannot (shown in the docs, and the
    path is then left out of the comparison).
    """

    raf: str
    model: str
    lost: str = ""
    extension: bool = False
    """Kept only in raf's own extension data inside the model (an AG-UI ``CUSTOM`` event
    named ``raf.*``, Agent Framework's ``additional_properties["raf"]``, ...): raf's decoder
    gets it back, a consumer that reads only the model's own fields does not. The round trip
    through :attr:`Model.native` items is compared on the rows that are neither lost nor
    extension."""


@dataclass(frozen=True)
class Model:
    """A message model raf speaks (docs/interop.md)."""

    name: str
    """The name on the command line: ``raf pipeline --format NAME``."""
    title: str
    """What people call it (``LangChain``, ``AG-UI``)."""
    validator: str
    """What accepts raf's output as valid: the model's own library or validator."""
    encoder: Callable[[], Encoder]
    decoder: Callable[[], Decoder] | None
    rows: tuple[Row, ...]
    framing: str = "jsonl"
    """How items travel as bytes: ``jsonl`` (one JSON value per line) or ``sse``
    (``data: <json>`` events)."""
    trailer: bytes = b""
    """Bytes that end a stream of items (the UI message stream's ``data: [DONE]``)."""
    media_type: str = "application/x-ndjson"
    native: Callable[[JSON], JSON | None] | None = None
    """The item as a consumer that knows only the model reads it: raf's extension data
    removed (``None`` when the whole item is raf's). ``None`` for a model raf adds nothing
    to."""
    headers: tuple[tuple[str, str], ...] = ()
    """Response headers a server of this model sends besides its media type (the UI message
    stream's ``x-vercel-ai-ui-message-stream: v1``); ``raf serve`` sends them."""
    aggregate: Callable[[AgentResponse], JSON] | None = None
    """The model's own form of a whole response, where it has one (LangChain's ``AIMessage``
    and ``ToolMessage`` s, Agent Framework's ``ChatResponse``): ``raf pipeline --response
    --format NAME`` prints it."""


def encode_all(model: Model, results: Iterable[AgentResponseResult]) -> Iterator[JSON]:
    """Every item ``model`` makes of ``results``, then those of its close."""
    encoder = model.encoder()
    for result in results:
        yield from encoder.feed(result)
    yield from encoder.close()


def decode_all(model: Model, items: Iterable[JSON]) -> Iterator[AgentResponseResult]:
    """Every raf result ``model``'s decoder makes of ``items`` (the model must have one)."""
    if model.decoder is None:
        raise ValueError(f"{model.name} has no way back to raf")
    decoder = model.decoder()
    for item in items:
        yield from decoder.feed(item)
    yield from decoder.close()


def frame(model: Model, item: JSON) -> bytes:
    """One item as the bytes of ``model``'s framing."""
    text = json.dumps(item, ensure_ascii=False, separators=(",", ":"))
    if model.framing == "sse":
        return f"data: {text}\n\n".encode()
    return f"{text}\n".encode()


def kept_paths(model: Model) -> tuple[str, ...]:
    """The paths of the rows that survive the round trip."""
    return tuple(row.raf for row in model.rows if not row.lost)


def native_paths(model: Model) -> tuple[str, ...]:
    """The paths of the rows that survive the round trip in the model's own fields, without
    raf's extension data (:attr:`Model.native`)."""
    return tuple(row.raf for row in model.rows if not row.lost and not row.extension)


def native_items(model: Model, items: Iterable[JSON]) -> Iterator[JSON]:
    """``items`` as a consumer that knows only the model reads them."""
    if model.native is None:
        yield from items
        return
    for item in items:
        kept = model.native(item)
        if kept is not None:
            yield kept


def _tree(paths: Iterable[str]) -> dict[str, Any]:
    root: dict[str, Any] = {}
    for path in paths:
        node = root
        for part in path.replace("[]", "").split("."):
            node = node.setdefault(part, {})
    return root


def _project(value: JSON, tree: Mapping[str, Any]) -> JSON:
    if not tree:
        return value
    if isinstance(value, list):
        return [_project(item, tree) for item in value]
    if isinstance(value, dict):
        return {key: _project(value[key], sub) for key, sub in tree.items() if key in value}
    return value


def project(response: JSON, paths: Iterable[str]) -> JSON:
    """The parts of ``response`` (canonical JSON of an :class:`AgentResponse`) at ``paths``,
    nested as they are in it: what a round trip through a model is compared on."""
    return _project(response, _tree(paths))


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def rows_markdown(model: Model) -> str:
    """The table of docs/interop.md for ``model``: raf's part, the model's field, what is lost
    and why."""
    lines = [
        "| raf | " + model.title + " | round trip |",
        "|---|---|---|",
    ]
    for row in model.rows:
        if row.lost:
            kept = "lost: " + _cell(row.lost)
        elif row.extension:
            kept = "kept in raf's extension only"
        else:
            kept = "kept"
        model_cell = _cell(row.model) if row.model else "(none)"
        lines.append(f"| `{row.raf}` | {model_cell} | {kept} |")
    return "\n".join(lines) + "\n"
