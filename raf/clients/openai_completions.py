"""The OpenAI Python SDK, legacy Completions, the plain loop its users write:
``client.completions.create(..., stream=True)`` and ``for chunk in stream``.

The user's loop: text is ``chunk.choices[0].text`` joined (as the API reference's streaming
example reads it, whatever the choice's ``index``); the finish reason is the last non-empty
``choices[0].finish_reason``; the usage is the ``usage`` of the chunk that carries one
(``stream_options`` is passed as recorded); the usage-only chunk has no choices and is
skipped for text. The format has no tool calls and no reasoning.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from raf.clients.base import Adapter, ClientCase, ClientRaised, finish_reason
from raf.clients.openai_create import client_for, openai_usage, sdk_arguments
from raf.shared.client_response import ClientResponse

__all__ = ["ADAPTER"]

DIALECT = "openai_completions"


@dataclass
class _Seen:
    """What the user's loop has accumulated."""

    text: str = ""
    finish: str | None = None
    usage: Any = None

    def response(self) -> ClientResponse:
        return ClientResponse(
            text=self.text,
            finish_reason=finish_reason(DIALECT, self.finish),
            usage=openai_usage(self.usage),
        )


def _read(chunk: Any, seen: _Seen) -> None:
    if chunk.usage is not None:
        seen.usage = chunk.usage
    if not chunk.choices:  # the usage-only chunk (stream_options.include_usage)
        return
    choice = chunk.choices[0]
    if choice.text:
        seen.text += choice.text
    if choice.finish_reason:
        seen.finish = choice.finish_reason


def _run(case: ClientCase) -> ClientResponse:
    client = client_for(case, "/completions")
    seen = _Seen()
    try:
        create = client.completions.create
        stream = create(**sdk_arguments(create, case.request), stream=True)
        for chunk in stream:
            _read(chunk, seen)
    except Exception as exc:  # what the library raised, after what the user had seen
        raise ClientRaised(exc, seen.response()) from exc
    finally:
        client.close()
    return seen.response()


ADAPTER = Adapter(
    name="openai-completions",
    distribution="openai",
    dialects=(DIALECT,),
    capabilities=("usage", "http_errors"),
    how=(
        "client.completions.create(**request, stream=True) with max_retries=0, then the "
        "user's loop: for chunk in stream, text is choices[0].text joined (whatever the "
        "choice's index); the finish reason is the last non-empty choices[0].finish_reason; "
        "usage is the chunk.usage of the chunk that carries one. An exception from create() "
        "or from the iteration is the library raising, with what the loop had accumulated."
    ),
    run=_run,
    module="openai",
)
