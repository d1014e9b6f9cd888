"""The cut bodies raf serve shares between responses (raf.serve.shared_chunks)."""

from __future__ import annotations

from raf.cassettes.format import Interaction, Request, Response
from raf.chunking import chunk
from raf.serve.shared_chunks import SharedChunks


def _interaction(body: bytes, timing: list[tuple[int, float]] | None = None) -> Interaction:
    return Interaction(
        request=Request(uri="https://api.example.com/v1/chat/completions", body="{}"),
        response=Response(headers={"content-type": ["text/event-stream"]}, body=body),
        timing=timing,
    )


def test_responses_of_the_same_interaction_and_chunking_share_one_cut() -> None:
    shared = SharedChunks()
    one = _interaction(b"data: x\n\n" * 1000)
    first, delays = shared.cut(one, "fixed-64")
    assert first == chunk(one.response.body, "fixed-64")
    assert delays is None
    assert shared.cut(one, "fixed-64")[0] is first  # the same pieces, not a new copy
    assert shared.cut(one, "fixed-7")[0] is not first
    assert shared.cut(_interaction(one.response.body), "fixed-64")[0] is not first


def test_recorded_is_the_timing_s_reads_or_whole() -> None:
    shared = SharedChunks()
    timed = _interaction(b"abcdef", timing=[(2, 0.0), (4, 250.0)])
    assert shared.cut(timed, "recorded") == ([b"ab", b"cdef"], [0.0, 0.25])
    assert shared.cut(_interaction(b"abcdef"), "recorded") == ([b"abcdef"], None)


def test_the_cuts_kept_stay_under_the_budget() -> None:
    shared = SharedChunks(budget=5000)
    small = [_interaction(bytes([65 + n]) * 1000) for n in range(6)]
    for interaction in small:
        shared.cut(interaction, "whole")  # 1,100 bytes counted each
        assert shared.held <= 5000
    assert shared.held == 4 * 1100  # the two least recently used are forgotten
    assert shared.cut(small[-1], "whole")[0] is shared.cut(small[-1], "whole")[0]
    large = _interaction(b"x" * 6000)
    assert shared.cut(large, "whole")[0] is not shared.cut(large, "whole")[0]  # never kept
    assert shared.held == 4 * 1100
