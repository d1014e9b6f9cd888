"""Small message models for the tests of the shells over :mod:`raf.interop` (``raf pipeline
--format``, ``raf serve``'s ``/as/<model>``): they depend only on the frame, not on any real
model. :func:`install` registers them under ``raf.interop.MODULES`` for one test.

* ``fake-sse``: one ``{"type": "text", "delta": ...}`` item per text content, an ``error`` item
  per error, ``{"type": "finish", ...}`` at the end; carried as SSE, ends with ``data: [DONE]``;
  no aggregate (``--response`` is refused).
* ``fake-jsonl``: one ``{"n": i, "kinds": [...]}`` item per result; JSON lines; an aggregate
  (``{"text": ..., "errors": n}``).
* ``fake-broken``: an encoder that raises on the first result (a bug in a model).
"""

from __future__ import annotations

import sys
import types

import pytest

from raf import interop
from raf.interop import JSON, Model, Row
from raf.model import contents
from raf.model.response import AgentResponse, AgentResponseResult

_ROWS = (Row("text", "delta"),)


class _SSEEncoder:
    def __init__(self) -> None:
        self.finish: str | None = None

    def feed(self, result: AgentResponseResult) -> list[JSON]:
        items: list[JSON] = []
        for content in result.contents:
            if isinstance(content, contents.Text):
                items.append({"type": "text", "delta": content.delta})
            elif isinstance(content, contents.Error):
                items.append({"type": "error", "code": content.error_code})
        self.finish = result.finish_reason or self.finish
        return items

    def close(self) -> list[JSON]:
        return [{"type": "finish", "reason": self.finish}]


class _JSONLEncoder:
    def __init__(self) -> None:
        self.n = 0

    def feed(self, result: AgentResponseResult) -> list[JSON]:
        self.n += 1
        return [{"n": self.n, "kinds": [type(c).__name__ for c in result.contents]}]

    def close(self) -> list[JSON]:
        return []


class _BrokenEncoder:
    def feed(self, result: AgentResponseResult) -> list[JSON]:
        raise RuntimeError("the fake model broke")

    def close(self) -> list[JSON]:
        return []


def _aggregate(response: AgentResponse) -> JSON:
    return {"text": response.text, "errors": len(response.errors)}


SSE = Model(
    name="fake-sse",
    title="Fake SSE",
    validator="none",
    encoder=_SSEEncoder,
    decoder=None,
    rows=_ROWS,
    framing="sse",
    trailer=b"data: [DONE]\n\n",
    media_type="text/event-stream",
)
JSONL = Model(
    name="fake-jsonl",
    title="Fake JSONL",
    validator="none",
    encoder=_JSONLEncoder,
    decoder=None,
    rows=_ROWS,
    aggregate=_aggregate,
)
BROKEN = Model(
    name="fake-broken",
    title="Fake broken",
    validator="none",
    encoder=_BrokenEncoder,
    decoder=None,
    rows=_ROWS,
    framing="sse",
    media_type="text/event-stream",
)
MISSING = "fake-missing"
"""A name registered with a module that does not exist (a model that cannot be loaded)."""


def install(monkeypatch: pytest.MonkeyPatch) -> None:
    """Register the fake models (and :data:`MISSING`) in ``raf.interop.MODULES``."""
    for model in (SSE, JSONL, BROKEN):
        module_name = f"tests.interop._fake_{model.name.replace('-', '_')}"
        module = types.ModuleType(module_name)
        module.MODEL = model  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, module_name, module)
        monkeypatch.setitem(interop.MODULES, model.name, module_name)
    monkeypatch.setitem(interop.MODULES, MISSING, "tests.interop._no_such_model")
