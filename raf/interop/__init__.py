"""The message models people already use, spoken by raf (docs/interop.md). No IO.

One module per model, each with its :class:`~raf.interop.base.Model` as ``MODEL``: an encoder
of raf's results into the model's items (JSON values, in the form the model's own library
writes and reads), a decoder back, and the table of what the model keeps and loses:

* ``tiny-agent`` (:mod:`raf.interop.tiny_agent`): tiny-agent's ``AgentMessage`` stream;
* ``langchain`` (:mod:`raf.interop.langchain`): LangChain's ``AIMessageChunk`` s, ``AIMessage``
  and ``ToolMessage`` s;
* ``maf`` (:mod:`raf.interop.maf`): Microsoft Agent Framework's ``ChatResponseUpdate`` s and
  ``ChatResponse``;
* ``ag-ui`` (:mod:`raf.interop.agui`): AG-UI events (``ag_ui.core``);
* ``ui-message-stream`` (:mod:`raf.interop.ui_message_stream`): the AI SDK's UI message stream.

None of them imports the model's library: the items are plain JSON, which the library loads
(``messages_from_dict``, ``ChatResponseUpdate.from_dict``, ``ag_ui.core``'s event classes, the
``ai`` package's ``uiMessageChunkSchema``); the tests check that it does. Helpers that build the
library's own objects import it when called.

    from raf.interop import get, roundtrip
    from raf.pipeline import run

    model = get("ag-ui")
    for item in model_items(model, run([body], "openai_chat")):
        ...
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator

from raf.collect import collect_agent_response
from raf.interop.base import (
    JSON,
    Decoder,
    Encoder,
    Model,
    Row,
    decode_all,
    encode_all,
    frame,
    kept_paths,
    native_items,
    native_paths,
    project,
    rows_markdown,
)
from raf.model.canonical import to_canonical
from raf.model.response import AgentResponse, AgentResponseResult

__all__ = [
    "JSON",
    "MODULES",
    "Decoder",
    "Encoder",
    "Model",
    "Row",
    "comparable",
    "decode_all",
    "encode_all",
    "frame",
    "get",
    "kept_paths",
    "model_items",
    "names",
    "native_items",
    "native_paths",
    "native_roundtrip",
    "project",
    "roundtrip",
    "rows_markdown",
]

MODULES: dict[str, str] = {
    "tiny-agent": "raf.interop.tiny_agent",
    "langchain": "raf.interop.langchain",
    "maf": "raf.interop.maf",
    "ag-ui": "raf.interop.agui",
    "ui-message-stream": "raf.interop.ui_message_stream",
}
"""Each model's name (``raf pipeline --format NAME``) and the module that speaks it."""


def names() -> tuple[str, ...]:
    """The models raf speaks, in the order of docs/interop.md."""
    return tuple(MODULES)


def get(name: str) -> Model:
    """The model called ``name`` (one of :func:`names`)."""
    try:
        module = MODULES[name]
    except KeyError:
        raise ValueError(f"unknown model {name!r}; known: {', '.join(MODULES)}") from None
    model: Model = importlib.import_module(module).MODEL
    return model


def model_items(model: Model, results: Iterable[AgentResponseResult]) -> Iterator[JSON]:
    """``results`` as ``model``'s items (same as :func:`encode_all`)."""
    return encode_all(model, results)


def roundtrip(model: Model, results: Iterable[AgentResponseResult]) -> AgentResponse:
    """The response raf collects from ``results`` after a trip through ``model`` and back."""
    return collect_agent_response(list(decode_all(model, list(encode_all(model, results)))))


def native_roundtrip(model: Model, results: Iterable[AgentResponseResult]) -> AgentResponse:
    """The response raf collects from ``results`` after a trip through ``model`` and back
    when the items lose raf's extension data on the way (:attr:`Model.native`): what a
    consumer that reads only the model's own fields can know."""
    items = list(native_items(model, encode_all(model, results)))
    return collect_agent_response(list(decode_all(model, items)))


def comparable(model: Model, response: AgentResponse) -> JSON:
    """What of ``response`` survives a trip through ``model``: its canonical JSON at the paths
    of the model's kept rows. ``comparable(m, roundtrip(m, rs)) ==
    comparable(m, collect_agent_response(rs))`` for every stream (tests/interop)."""
    return project(to_canonical(response), kept_paths(model))
