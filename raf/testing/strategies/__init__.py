"""Hypothesis strategies for LLM streams, with their ground truth: one module per wire format.

Each format's module has a ``streams(...)`` strategy that draws what a correct client must
end with (an :class:`~raf.model.AgentResponse`) and a stream that carries it the way real
servers do: the format's payloads, its framing, and network chunking. Feed
``stream.chunks`` to any parser and compare its result with ``stream.response``::

    from hypothesis import given
    from raf.testing.strategies import openai_chat

    @given(openai_chat.streams(profile="ollama"))
    def test_my_parser(stream):
        assert my_parser(stream.chunks).text == stream.response.text

Modules: :mod:`~raf.testing.strategies.openai_chat`, ``anthropic_messages``,
``openai_responses``, ``gemini``; the layers they share are in
:mod:`~raf.testing.strategies.common` and :mod:`~raf.testing.strategies.sse`. The names of
the Chat Completions module are also importable from here, as before the other formats.
"""

from raf.testing.strategies.common import (
    GeneratedStream,
    json_arguments,
    json_values,
    network_chunkings,
)
from raf.testing.strategies.openai_chat import (
    PROFILES,
    Profile,
    chat_completion_chunks,
    profiles,
    responses,
    streams,
)
from raf.testing.strategies.sse import sse_framing

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
