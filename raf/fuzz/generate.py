"""Streams for the fuzzer: a format's strategies, with the quirks of the catalogue they show.

from raf.fuzz.generate import streams

@given(streams("openai_chat", {"index_always_zero": 1.0, "leading_bom": 0.5}))
def test_mine(fuzzed): ...
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from hypothesis import strategies as st

from raf import formats
from raf.formats._strategies.common import GeneratedStream
from raf.model import AgentResponse
from raf.testing import strategies as format_strategies

__all__ = ["FuzzStream", "streams"]


@dataclass(frozen=True)
class FuzzStream:
    """A generated stream, its ground truth, and the quirks it shows.

    Attributes:
        format: the wire format.
        stream: the stream and its ground truth.
        quirks: the ids of the catalogue's quirks the stream shows (:mod:`raf.quirks`).
    """

    format: str
    stream: GeneratedStream
    quirks: tuple[str, ...] = ()

    @property
    def response(self) -> AgentResponse:
        """What a correct client ends with."""
        return self.stream.response

    @property
    def body(self) -> bytes:
        return self.stream.body

    @property
    def chunks(self) -> tuple[bytes, ...]:
        """The body as network reads."""
        return self.stream.chunks


def streams(
    format: str,
    quirks: Mapping[str, float] | Sequence[str] | None = None,
    *,
    max_tool_calls: int = 3,
) -> st.SearchStrategy[FuzzStream]:
    """Streams of ``format`` with their ground truth, showing the quirks of ``quirks`` (a
    profile: quirk ids with weights; a list weighs each the same; ``None``: every quirk the
    catalogue can generate for the format)."""
    if formats.find(format) is None:
        raise ValueError(f"unknown format {format!r}")
    module = getattr(format_strategies, format)
    options = (
        {"max_tool_calls": max_tool_calls}
        if "max_tool_calls" in inspect.signature(module.streams).parameters
        else {}
    )
    drawn: st.SearchStrategy[GeneratedStream] = module.streams(**options)
    return drawn.map(lambda s: FuzzStream(format, s, ()))
