"""Every real recorded stream of ../shared/corpus runs through the pipeline.

Streams of wire formats raf has no dialect for yet are skipped, with the format named in the
skip reason (``pytest -ra`` prints the counts).
"""

from __future__ import annotations

import pytest

from raf.model import updates
from raf.pipeline import UpdateDecoder
from tests.corpus import ROOT, RecordedStream, recorded_streams
from tests.helpers import feed_all, split

STREAMS = recorded_streams()

if not STREAMS:
    pytest.skip(f"shared corpus not found at {ROOT}", allow_module_level=True)


@pytest.mark.parametrize("stream", STREAMS, ids=lambda s: s.name)
def test_recorded_stream_runs_through_the_pipeline(stream: RecordedStream) -> None:
    if stream.dialect is None:
        pytest.skip(f"no raf dialect yet for {stream.wire_format}")
    runs = []
    for how in ("whole", "random"):
        decoder = UpdateDecoder(stream.dialect)
        runs.append(feed_all(decoder.feed, decoder.close, split(stream.body, how)))
    whole = runs[0]
    assert runs[1] == whole
    errors = [u for u in whole if isinstance(u, updates.Error)]
    # Real recordings are well-formed: the only errors are the ones the provider sent.
    assert {e.code for e in errors} <= {"provider_error"}, errors
    produced = [
        u
        for u in whole
        if isinstance(u, updates.TextDelta | updates.ReasoningDelta | updates.ToolCallDelta)
    ]
    assert produced or errors, "a recorded answer produced no text, reasoning or tool call"


def test_corpus_has_openai_chat_streams() -> None:
    assert sum(s.dialect == "openai_chat" for s in STREAMS) >= 50
