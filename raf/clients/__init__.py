"""Real client libraries, driven against ``raf serve``: the published matrix of what each
gets wrong (``raf clients``, docs/clients.md).

* :mod:`raf.clients.base`: what an adapter is (:class:`~raf.clients.base.Adapter`) and the
  helpers every adapter shares;
* one module per library, each defining ``ADAPTER`` (the table below).

The adapters hand back a :class:`~raf.shared.client_response.ClientResponse`; running them
against ``raf serve`` and judging them is :mod:`raf.client_matrix`, which composes the shells.

The libraries are an optional extra (``pip install 'raf[clients]'``); an adapter whose
library is missing is reported as such, never imported by raf itself.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:  # pragma: no cover
    from raf.clients.base import Adapter, ToolLoopAdapter

__all__ = [
    "ADAPTERS",
    "NODE_FOLDER",
    "TOOL_LOOP_ADAPTERS",
    "adapter",
    "names",
    "node_names",
    "tool_loop_adapter",
]

ADAPTERS: Final[dict[str, str]] = {
    "raf": "raf.clients.raf_httpx",
    "openai": "raf.clients.openai_create",
    "openai-stream-helper": "raf.clients.openai_stream_helper",
    "openai-responses": "raf.clients.openai_responses",
    "openai-completions": "raf.clients.openai_completions",
    "anthropic": "raf.clients.anthropic_stream",
    "google-genai": "raf.clients.google_genai_stream",
    "google-genai-interactions": "raf.clients.google_genai_interactions",
    "langchain-openai": "raf.clients.langchain_openai_stream",
    "agent-framework": "raf.clients.agent_framework_chat",
    "pydantic-ai": "raf.clients.pydantic_ai_agent",
    "litellm": "raf.clients.litellm_completion",
    "ollama": "raf.clients.ollama_chat",
}
"""Every adapter, by its name in the matrix, and the module that defines it."""

TOOL_LOOP_ADAPTERS: Final[dict[str, str]] = {
    "openai-loop": "raf.clients.openai_chat_loop",
    "openai-responses-loop": "raf.clients.openai_responses_loop",
    "openai-agents": "raf.clients.openai_agents_runner",
    "anthropic-tool-runner": "raf.clients.anthropic_tool_runner",
    "google-genai-afc": "raf.clients.google_genai_afc",
    "langchain-agent": "raf.clients.langchain_agent",
    "pydantic-ai-agent": "raf.clients.pydantic_ai_tool_loop",
    "agent-framework-agent": "raf.clients.agent_framework_agent",
    "litellm-loop": "raf.clients.litellm_loop",
}
"""Every tool-loop adapter (:class:`~raf.clients.base.ToolLoopAdapter`: a library's own tool
loop), by its name in the matrix's tool-loop section, and the module that defines it as
``TOOL_LOOP_ADAPTER``."""


NODE_FOLDER: Final[Path] = Path(__file__).resolve().parent / "node"
"""The Node.js adapters: one ES module per npm library (``<name>.mjs``, written with the
Node kit, ``raf kit node``), beside the ``package.json`` and ``package-lock.json`` that pin
their libraries (``npm ci`` in this folder installs them). A new module here is a new
column: its hello says the rest (:mod:`raf.client_matrix.outside`)."""


def node_names() -> list[str]:
    """The Node.js adapters' names (their modules' file names), in name order."""
    return sorted(path.stem for path in NODE_FOLDER.glob("*.mjs"))


def names() -> list[str]:
    """The adapters' names, in the matrix's column order."""
    return list(ADAPTERS)


def adapter(name: str) -> Adapter:
    """The adapter called ``name``; ``KeyError`` (listing the names) for an unknown one."""
    if name not in ADAPTERS:
        raise KeyError(f"unknown client {name!r}; use one of {', '.join(ADAPTERS)}")
    module = importlib.import_module(ADAPTERS[name])
    found: Adapter = module.ADAPTER
    return found


def tool_loop_adapter(name: str) -> ToolLoopAdapter:
    """The tool-loop adapter called ``name``; ``KeyError`` (listing the names) for an unknown
    one."""
    if name not in TOOL_LOOP_ADAPTERS:
        known = ", ".join(TOOL_LOOP_ADAPTERS)
        raise KeyError(f"unknown tool-loop client {name!r}; use one of {known}")
    module = importlib.import_module(TOOL_LOOP_ADAPTERS[name])
    found: ToolLoopAdapter = module.TOOL_LOOP_ADAPTER
    return found
