"""raf's pytest plugin (registered through the ``pytest11`` entry point).

Fixtures:

* ``raf_replay``: :func:`raf.testing.replay.replay` - replay a cassette through httpx +
  respx (or vcrpy, or plain bytes) under a chunking, and get its canonical updates, results
  and aggregated response;
* ``raf_reference``: :func:`reference_response` - the ``AgentResponse`` raf's reference
  pipeline makes of a stream, to compare your own client's result with.

Heavy imports happen when a fixture is used, so installing raf never slows down or breaks
an unrelated test session.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pytest

from raf.model.response import AgentResponse

__all__ = ["raf_reference", "raf_replay", "reference_response"]


def reference_response(
    body: bytes | Iterable[bytes], dialect: str = "openai_chat", **options: Any
) -> AgentResponse:
    """The aggregated response raf's reference pipeline makes of a stream (bytes or chunks)."""
    from raf.pipeline import respond  # noqa: PLC0415 - keep plugin import light

    chunks = [body] if isinstance(body, bytes) else body
    return respond(chunks, dialect, **options)


@pytest.fixture
def raf_replay() -> Callable[..., Any]:
    """Replay a cassette: ``raf_replay(path, chunking="random", via="respx")``."""
    from raf.testing.replay import replay  # noqa: PLC0415 - needs the testing extra

    return replay


@pytest.fixture
def raf_reference() -> Callable[..., AgentResponse]:
    """The reference response of a stream: ``raf_reference(body_bytes)``."""
    return reference_response
