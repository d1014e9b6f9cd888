"""Hypothesis strategies for LLM streams, with their ground truth: one module per wire format.

Each format's strategies live in its package, ``raf/formats/<name>/strategies.py``, and are
importable from here under the format's name. Each has a ``streams(...)`` strategy that draws
what a correct client must end with (an :class:`~raf.model.AgentResponse`) and a stream that
carries it the way real servers do: the format's payloads, its framing, and network chunking.
Feed ``stream.chunks`` to any parser and compare its result with ``stream.response``::

    from hypothesis import given
    from raf.testing.strategies import openai_chat

    @given(openai_chat.streams(profile="ollama"))
    def test_my_parser(stream):
        assert my_parser(stream.chunks).text == stream.response.text

Modules: ``openai_chat``, ``anthropic_messages``, ``openai_responses``, ``gemini``
(:mod:`raf.formats.openai_chat.strategies`...); the layers they share are ``common`` and
``sse`` (:mod:`raf.formats._strategies.common`, :mod:`raf.formats._strategies.sse`). The names
of the Chat Completions module are also importable from here, as before the other formats.
"""

import sys

from raf.formats._strategies import common, sse
from raf.formats._strategies.common import (
    GeneratedStream,
    json_arguments,
    json_values,
    network_chunkings,
)
from raf.formats._strategies.sse import sse_framing
from raf.formats.anthropic_messages import strategies as anthropic_messages
from raf.formats.gemini import strategies as gemini
from raf.formats.openai_chat import strategies as openai_chat
from raf.formats.openai_chat.strategies import (
    PROFILES,
    Profile,
    chat_completion_chunks,
    profiles,
    responses,
    streams,
)
from raf.formats.openai_responses import strategies as openai_responses

# ``import raf.testing.strategies.gemini`` (the paths before the modules moved) keeps working.
for _name, _module in {
    "common": common,
    "sse": sse,
    "anthropic_messages": anthropic_messages,
    "gemini": gemini,
    "openai_chat": openai_chat,
    "openai_responses": openai_responses,
}.items():
    sys.modules.setdefault(f"{__name__}.{_name}", _module)

__all__ = [
    "PROFILES",
    "GeneratedStream",
    "Profile",
    "chat_completion_chunks",
    "json_arguments",
    "json_values",
    "network_chunkings",
    "profiles",
    "responses",
    "sse_framing",
    "streams",
]
