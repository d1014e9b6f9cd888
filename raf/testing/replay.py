"""Replay a cassette through real HTTP machinery and raf's pipeline.

Two paths, which must give the same output:

* ``respx``: a respx route answers the recorded request with the recorded status, headers
  and body (decoded from its ``content-encoding``, which is not replayed), streamed in the
  chunks of a chunking (so raf's pipeline meets the byte boundaries a network would make),
  and :mod:`raf.transport` reads the real ``httpx.Response`` stream;
* ``vcrpy``: vcrpy itself replays the cassette file for an ``httpx.Client`` request (vcrpy
  delivers the body in one piece, so the chunking is applied to the bytes it returns).

:func:`replay` is the entry point for tests (also as the ``raf_replay`` pytest fixture).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

import httpx

from raf.cassettes.format import Cassette, Interaction, Response
from raf.cassettes.persister import load, save
from raf.chunking import chunk
from raf.conformance.goldens import InteractionOutput
from raf.conformance.reference import output_of, run_interaction
from raf.transport import iter_response, iter_response_updates

__all__ = ["Via", "replay", "replay_respx", "replay_vcrpy"]

Via = Literal["respx", "vcrpy", "bytes"]

# Headers that describe the recorded transfer, not the body vcrpy/respx hand back.
_TRANSFER_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})


class _ChunkedStream(httpx.SyncByteStream):
    def __init__(self, chunks: list[bytes]) -> None:
        self._chunks = chunks

    def __iter__(self) -> Iterator[bytes]:
        yield from self._chunks


def _headers(response: Response) -> list[tuple[str, str]]:
    return [
        (name, value)
        for name, values in response.headers.items()
        if name.lower() not in _TRANSFER_HEADERS
        for value in values
    ]


def replay_respx(
    interaction: Interaction, dialect: str, chunking: str = "whole"
) -> InteractionOutput:
    """Replay one interaction through httpx with a respx route streaming its body."""
    import respx  # noqa: PLC0415 - an optional dependency of the testing extra

    recorded = interaction.response
    request = interaction.request

    def answer(_: httpx.Request) -> httpx.Response:
        return httpx.Response(
            recorded.status,
            headers=_headers(recorded),
            stream=_ChunkedStream(chunk(recorded.content(), chunking)),
        )

    with respx.mock(assert_all_called=False) as router:
        router.route(method=request.method, url=request.uri).mock(side_effect=answer)
        with httpx.Client() as client:
            body = request.body.encode() if isinstance(request.body, str) else request.body
            with client.stream(request.method, request.uri, content=body) as response:
                updates = list(iter_response_updates(response, dialect))
            with client.stream(request.method, request.uri, content=body) as response:
                results = list(iter_response(response, dialect))
    return output_of(updates, results)


def replay_vcrpy(
    path: str | os.PathLike[str], dialect: str, chunking: str = "whole"
) -> list[InteractionOutput]:
    """Replay every interaction of a cassette file with vcrpy and an ``httpx.Client``."""
    import vcr  # noqa: PLC0415 - an optional dependency of the testing extra

    cassette = load(path)
    outputs = []
    # The body too when requests share their method and URI (the two requests of a tool
    # loop), so that each gets its own answer.
    targets = {(i.request.method, i.request.uri) for i in cassette.interactions}
    shared = len(targets) < len(cassette.interactions)
    match_on = ["method", "uri", "body"] if shared else ["method", "uri"]
    recorder = vcr.VCR(record_mode="none", match_on=match_on)
    with recorder.use_cassette(str(path), allow_playback_repeats=True), httpx.Client() as client:
        for interaction in cassette.interactions:
            request = interaction.request
            body = request.body.encode() if isinstance(request.body, str) else request.body
            response = client.request(request.method, request.uri, content=body)
            played = Interaction(
                request=request,
                response=Response(
                    status=response.status_code,
                    reason=response.reason_phrase,
                    body=response.content,
                ),
            )
            outputs.append(run_interaction(played, dialect, chunking))
    return outputs


def replay(
    cassette: str | os.PathLike[str] | Cassette,
    *,
    chunking: str = "whole",
    via: Via = "respx",
) -> list[InteractionOutput]:
    """The canonical output (updates, results, response) of every interaction of a cassette.

    Args:
        cassette: a cassette file, or a :class:`Cassette`.
        chunking: how the body is cut into network chunks (see :mod:`raf.chunking`).
        via: ``respx`` (httpx streaming through a respx route), ``vcrpy`` (vcrpy's own
            replay), or ``bytes`` (the pipeline on the body bytes, no HTTP).
    """
    if isinstance(cassette, Cassette):
        if via == "vcrpy":
            with tempfile.TemporaryDirectory() as folder:
                path = save(cassette, Path(folder) / "cassette.yaml", scrub=False)
                return replay_vcrpy(path, _dialect(cassette), chunking)
        loaded = cassette
    else:
        loaded = load(cassette)
        if via == "vcrpy":
            return replay_vcrpy(cassette, _dialect(loaded), chunking)
    dialect = _dialect(loaded)
    if via == "respx":
        return [replay_respx(i, dialect, chunking) for i in loaded.interactions]
    return [run_interaction(i, dialect, chunking) for i in loaded.interactions]


def _dialect(cassette: Cassette) -> str:
    return cassette.info.dialect if cassette.info else "openai_chat"
