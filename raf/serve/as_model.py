"""A recorded response re-encoded in one of :mod:`raf.interop`'s message models (a case asked
``/as/<model>``): what a front end reads from an agent backend that streamed the recorded
provider answer. Pure functions, no IO.

The recorded body goes through raf's pipeline (:class:`raf.pipeline.Pipeline`, the dialect of
the cassette), the results through the model's encoder, and the items are framed
(:func:`raf.interop.frame`: ``data: <json>`` events or JSON lines), the model's trailer last.
A recorded HTTP error (a status that is not 2xx) is the run's error, in the stream, as a
backend whose provider call failed reports it (``RUN_ERROR``, an ``error`` chunk).

The chunking of the case applies to the re-encoded body:

* ``recorded`` (with a recorded timing): each recorded read becomes the bytes of the items it
  completed, sent after the recorded delay (a read that completes nothing adds its delay to
  the next one that does); what the end of the stream makes (open messages closed, the end of
  the run, the trailer) is a last write;
* any other chunking (and ``recorded`` without a timing, which is ``whole``): the whole
  re-encoded body, cut by that chunking, without delays.
"""

from __future__ import annotations

from collections.abc import Iterable

from raf.cassettes.format import Interaction
from raf.chunking import chunk
from raf.interop import Encoder, Model, frame
from raf.model.response import AgentResponseResult
from raf.pipeline import Pipeline, http_error

__all__ = ["Cut", "reencode"]

Cut = tuple[list[bytes], list[float] | None]
"""The pieces of a body, and the seconds before each (``None``: no delays)."""


def reencode(model: Model, dialect: str, interaction: Interaction, chunking: str) -> Cut:
    """The body a client asking ``interaction`` as ``model`` is sent, cut by ``chunking`` (a
    chunking's name, or ``recorded``), and the recorded delays (unscaled) when the chunking is
    ``recorded`` and the cassette has a timing.

    Raises:
        BodyNotDecoded: the body has a ``content-encoding`` and does not decode.
        Exception: whatever the model's encoder raises (a bug in it); the caller answers 500.
    """
    response = interaction.response
    timed = interaction.timed_chunks() if chunking == "recorded" else None
    if timed is None:
        chunks, delays = [response.content()], None
    else:
        chunks, delays = timed
    encoder = model.encoder()
    pipeline = Pipeline(dialect)
    pieces: list[bytes] = []
    out_delays: list[float] = []
    waited = 0.0
    if not 200 <= response.status < 300:
        error = http_error(response.status, response.reason or "", b"".join(chunks))
        last = _framed(model, encoder, pipeline.fail(error))
        waited = sum(delays) if delays is not None else 0.0
    else:
        for n, piece in enumerate(chunks):
            if pipeline.done:
                break
            waited += delays[n] if delays is not None and n < len(delays) else 0.0
            data = _framed(model, encoder, pipeline.feed(piece))
            if data:
                pieces.append(data)
                out_delays.append(waited)
                waited = 0.0
        last = _framed(model, encoder, pipeline.close())
    last += b"".join(frame(model, item) for item in encoder.close()) + model.trailer
    if last:
        pieces.append(last)
        out_delays.append(waited)
    if timed is None:
        return chunk(b"".join(pieces), "whole" if chunking == "recorded" else chunking), None
    return pieces, out_delays


def _framed(model: Model, encoder: Encoder, results: Iterable[AgentResponseResult]) -> bytes:
    return b"".join(frame(model, item) for result in results for item in encoder.feed(result))
