"""Turn a live httpx exchange into a cassette interaction (the request and the bytes that
came back). No file IO: :func:`raf.cassettes.save` writes the cassette, scrubbing secrets.

    with client.stream("POST", url, json=body, headers=auth) as response:
        chunks = list(response.iter_bytes())            # or tee them into raf.pipeline
    interaction = interaction_from_httpx(response, b"".join(chunks))
    save(Cassette(interactions=[interaction], info=ScenarioInfo(scenario="my_case")), path)
"""

from __future__ import annotations

import httpx
import msgspec

from raf.cassettes.format import Headers, Interaction, Request, Response

__all__ = ["interaction_from_httpx"]


def _headers(headers: httpx.Headers) -> Headers:
    out: Headers = {}
    for name, value in headers.multi_items():
        out.setdefault(name, []).append(value)
    return out


def _request_body(content: bytes) -> str | bytes | None:
    if not content:
        return None
    try:
        # A JSON body is stored pretty-printed, so that it reads well in the cassette.
        return msgspec.json.format(content, indent=2).decode("utf-8")
    except (msgspec.DecodeError, UnicodeDecodeError):
        try:
            return content.decode("utf-8")
        except UnicodeDecodeError:
            return content


def interaction_from_httpx(response: httpx.Response, body: bytes) -> Interaction:
    """The interaction of ``response`` (and its request) whose body was ``body``.

    Args:
        response: the response; its ``request`` must have been sent with content that can
            be read (``json=``, ``content=``, ``data=``), as httpx keeps it.
        body: the response body as it arrived (decoded by httpx, so the recorded
            ``content-encoding`` and ``content-length`` headers are dropped).
    """
    request = response.request
    headers = {
        name: values
        for name, values in _headers(response.headers).items()
        if name.lower() not in ("content-encoding", "content-length", "transfer-encoding")
    }
    return Interaction(
        request=Request(
            method=request.method,
            uri=str(request.url),
            headers=_headers(request.headers),
            body=_request_body(request.content),
        ),
        response=Response(
            status=response.status_code,
            reason=response.reason_phrase,
            headers=headers,
            body=body,
        ),
    )
