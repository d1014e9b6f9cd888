"""The request half of ``openai_completions``: a legacy Completions body from a conversation,
and a conversation from a body. Pure: no IO.

The format has no messages, roles or tools: a request is one ``prompt``.

* :func:`read_request`: a string ``prompt`` is one user message (its text); ``model``
  (a string), ``stream`` (a boolean; absent is ``false``, the API's default) and
  ``max_tokens`` (an integer) are the options; every other field, and any of those of another
  type (a ``prompt`` given as a list of strings or of token ids), is kept as it came in
  ``options.extra``. It never raises on a JSON object.
* :func:`build_request`: the prompt is the conversation's text, the ``content`` of its
  messages joined by a blank line (the format has no roles: a system message's text is part
  of the prompt); a conversation without messages sends no ``prompt`` (the API's default).
  Tools have no place in the format and are not sent. ``options.extra`` is written as it is,
  over ``model``, ``prompt``, ``max_tokens`` and ``stream``: one of those kept there (a
  ``prompt`` that is not a string, a ``"stream": null``) is sent as it came.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from raf.model import blocks
from raf.model.messages import ChatMessage, MessageRole
from raf.model.request import Conversation, RequestOptions

__all__ = ["PROMPT_SEPARATOR", "build_request", "read_request"]

PROMPT_SEPARATOR = "\n\n"
"""What joins the texts of several messages into one prompt."""


def build_request(conversation: Conversation) -> dict[str, Any]:
    """The body a client of the format sends for ``conversation`` (see the module
    docstring)."""
    options = conversation.options
    body: dict[str, Any] = {}
    if options.model is not None:
        body["model"] = options.model
    if conversation.messages:
        body["prompt"] = PROMPT_SEPARATOR.join(m.content for m in conversation.messages)
    if options.max_tokens is not None:
        body["max_tokens"] = options.max_tokens
    body["stream"] = options.stream
    body.update(options.extra)  # a known field kept there (of another type) as it came
    return body


def read_request(body: Mapping[str, Any]) -> Conversation:
    """The conversation a body asks about (see the module docstring). Never raises on a JSON
    object."""
    extra: dict[str, Any] = {}
    messages: tuple[ChatMessage, ...] = ()
    model: str | None = None
    stream = False
    max_tokens: int | None = None
    for key, value in body.items():
        if key == "prompt" and isinstance(value, str):
            messages = (
                ChatMessage(
                    role=MessageRole.USER, content=value, blocks=(blocks.Text(text=value),)
                ),
            )
        elif key == "model" and isinstance(value, str):
            model = value
        elif key == "stream" and isinstance(value, bool):
            stream = value
        elif key == "max_tokens" and type(value) is int:
            max_tokens = value
        else:
            extra[str(key)] = value
    return Conversation(
        messages=messages,
        options=RequestOptions(model=model, stream=stream, max_tokens=max_tokens, extra=extra),
    )
