"""Turn a live httpx exchange into a cassette interaction (the request and the bytes that
came back). No file IO: :func:`raf.cassettes.save` writes the cassette, scrubbing secrets.

    with client.stream("POST", url, json=body, headers=auth) as response:
        chunks = list(response.iter_bytes())            # or tee them into raf.pipeline
    interaction = interaction_from_httpx(response, b"".join(chunks))
    save(Cassette(interactions=[interaction], info=ScenarioInfo(scenario="my_case")), path)
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator

import httpx

from raf.cassettes.format import Headers, Interaction, Request, Response
from raf.cassettes.recorder import fingerprint, request_body_text

__all__ = ["TimedReads", "fingerprint", "interaction_from_httpx"]


class TimedReads:
    """Wrap an iterator of reads and keep when each arrived::

    reads = TimedReads(response.iter_bytes())
    chunks = list(reads)
    interaction = interaction_from_httpx(response, b"".join(chunks), timing=reads.timing)
    """

    def __init__(self, reads: Iterable[bytes]) -> None:
        self._reads = iter(reads)
        self._last = time.perf_counter()
        self.timing: list[tuple[int, float]] = []

    def __iter__(self) -> Iterator[bytes]:
        return self

    def __next__(self) -> bytes:
        while True:
            chunk = next(self._reads)
            if chunk:
                now = time.perf_counter()
                self.timing.append((len(chunk), round((now - self._last) * 1000, 3)))
                self._last = now
                return chunk


def _headers(headers: httpx.Headers) -> Headers:
    out: Headers = {}
    for name, value in headers.multi_items():
        out.setdefault(name, []).append(value)
    return out


def interaction_from_httpx(
    response: httpx.Response,
    body: bytes,
    *,
    timing: list[tuple[int, float]] | None = None,
) -> Interaction:
    """The interaction of ``response`` (and its request) whose body was ``body``.

    Args:
        response: the response; its ``request`` must have been sent with content that can
            be read (``json=``, ``content=``, ``data=``), as httpx keeps it.
        body: the response body as it arrived (decoded by httpx, so the recorded
            ``content-encoding`` and ``content-length`` headers are dropped).
        timing: the reads as they arrived, ``(bytes, milliseconds since the previous)``
            (:class:`TimedReads` keeps them), replayed by ``raf serve --chunking recorded``.
    """
    request = response.request
    headers = {
        name: values
        for name, values in _headers(response.headers).items()
        if name.lower() not in ("content-encoding", "content-length", "transfer-encoding")
    }
    return Interaction(
        timing=timing,
        request=Request(
            method=request.method,
            uri=str(request.url),
            headers=_headers(request.headers),
            body=request_body_text(request.content),
        ),
        response=Response(
            status=response.status_code,
            reason=response.reason_phrase,
            headers=headers,
            body=body,
        ),
    )
