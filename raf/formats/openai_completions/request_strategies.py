"""Conversations ``openai_completions`` requests express, for the request-half properties
(:mod:`raf.formats._strategies.request`). No IO.

A legacy Completions request is one ``prompt``: a conversation of one user message of one
text (or none: no ``prompt``), no tools, and the options, with the format's own fields
(``stop``, ``n``, ``suffix``, ``echo``, ``logprobs``, ``stream_options``, a prompt of token
ids) in ``extra``.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from raf.formats._strategies.request import TEXTS
from raf.formats.conversation import message
from raf.model import blocks
from raf.model.messages import ChatMessage, MessageRole
from raf.model.request import Conversation, RequestOptions

__all__ = ["FEATURES", "requests"]

FEATURES = frozenset({"extra", "max_tokens"})
"""What these conversations exercise (:func:`raf.formats._strategies.request.features`)."""

_EXTRA: dict[str, Any] = {
    "temperature": 0,
    "stop": ["\n"],
    "n": 2,
    "echo": False,
    "logprobs": 1,
    "suffix": "\n",
    "stream_options": {"include_usage": True},
}


@st.composite
def _requests(draw: st.DrawFn) -> Conversation:
    keys = draw(st.lists(st.sampled_from(sorted(_EXTRA)), unique=True, max_size=3))
    extra = {key: _EXTRA[key] for key in keys}
    messages: tuple[ChatMessage, ...] = ()
    if draw(st.integers(0, 5)) == 0:
        extra["prompt"] = draw(st.lists(st.integers(0, 50_000), max_size=4))  # token ids
    elif draw(st.integers(0, 7)):
        messages = (message(MessageRole.USER, [blocks.Text(text=draw(st.just("") | TEXTS))]),)
    options = RequestOptions(
        model=draw(st.none() | st.sampled_from(["gpt-3.5-turbo-instruct", "Qwen/Qwen2.5-1.5B"])),
        stream=draw(st.booleans()),
        max_tokens=draw(st.none() | st.integers(1, 4096)),
        extra=extra,
    )
    return Conversation(messages=messages, options=options)


def requests() -> st.SearchStrategy[Conversation]:
    """Conversations a legacy Completions request expresses."""
    return _requests()
