"""How raf's chat client calls the Interactions API: ``POST {base}/interactions`` with the key
in ``x-goog-api-key``; the chat options go into ``generation_config``."""

from __future__ import annotations

from raf.formats.format import HttpApi

__all__ = ["HTTP"]

HTTP = HttpApi(
    base_url="https://generativelanguage.googleapis.com/v1beta",
    path="/interactions",
    auth_header="x-goog-api-key",
    auth_scheme="",
    options={
        "temperature": "generation_config.temperature",
        "top_p": "generation_config.top_p",
        "stop": "generation_config.stop_sequences",
        "tool_choice": "generation_config.tool_choice",
        "parallel_tool_calls": None,
    },
)
"""The Interactions API over HTTP (the Gemini API's; ``/v1/interactions`` answers the same)."""
