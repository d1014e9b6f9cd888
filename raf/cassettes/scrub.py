"""Remove secrets from cassettes. No IO.

What counts as a secret, and where it is found, is defined once in
:mod:`raf.cassettes.secrets`; this module applies those findings to a :class:`Cassette`
(``raf.cassettes.save``, ``raf cassette import`` and the recording path call
:func:`scrub_cassette`), and ``raf cassette lint`` reports the same findings, so what is
scrubbed and what is flagged never drift apart. docs/secrets.md has the table.

Scrubbing changes only the secrets: a secret header's values become :data:`REDACTED`, a
credential query parameter's value too, URL userinfo is dropped from the request URI, and a
secret in a text or body is replaced by :data:`REDACTED` in place, every other character (and
every byte of a body that is not valid UTF-8) left as it was. A secret a model streamed over
several events is replaced in the first event's fragment and removed from the later ones, so
the events, their framing and their number stay the same and the reassembled text reads
``...REDACTED...``. A body with a content coding (``content-encoding: gzip``, ``deflate``,
``br``) is scrubbed decoded and encoded again the same way (:mod:`raf.cassettes.coding`). A
secret that cannot be removed that way, or a coded body that does not decode, raises
:class:`~raf.cassettes.secrets.SecretNotScrubbed` rather than be written.
"""

from __future__ import annotations

from typing import Any

import msgspec

from raf import dialects
from raf.cassettes.coding import BodyNotDecoded, codings, content_encoding, decode, encode
from raf.cassettes.format import Cassette, Headers, Interaction, ScenarioInfo
from raf.cassettes.secrets import (
    REDACTED,
    SECRET_HEADERS,
    SECRET_QUERY_PARAMETERS,
    Hit,
    SecretNotScrubbed,
    apply_edits,
    find_secrets,
    is_placeholder,
    is_secret_header,
    is_secret_member,
    stream_hits,
    text_hits,
    uri_hits,
)

__all__ = [
    "REDACTED",
    "SECRET_HEADERS",
    "SECRET_QUERY_PARAMETERS",
    "SecretNotScrubbed",
    "find_secrets",
    "scrub_body",
    "scrub_cassette",
    "scrub_headers",
    "scrub_text",
    "scrub_uri",
]


def _apply(text: str, hits: list[Hit]) -> str:
    return apply_edits(text, [edit for hit in hits for edit in hit.edits]) if hits else text


def scrub_text(text: str) -> str:
    """``text`` with every secret replaced by :data:`REDACTED`: tokens of a known shape,
    members named as credentials, and both in JSON string literals read with their escapes
    decoded (the escapes of a secret are replaced whole, so the JSON stays valid)."""
    return _apply(text, text_hits(text))


def scrub_uri(uri: str) -> str:
    """``uri`` without userinfo, with the values of credential query parameters redacted and
    secrets of a known shape removed; every other character unchanged."""
    return _apply(uri, uri_hits(uri))


def scrub_headers(headers: Headers) -> Headers:
    """Secret headers' values redacted (an empty or placeholder value is kept); secrets
    removed from the other values."""
    return {
        name: [v if is_placeholder(v) else REDACTED for v in values]
        if is_secret_header(name)
        else [scrub_text(v) for v in values]
        for name, values in headers.items()
    }


def scrub_body(
    body: str | bytes | None,
    *,
    dialect: str | None = None,
    where: str = "body",
    encoding: str | None = None,
) -> str | bytes | None:
    """A body without secrets. Bytes that are not valid UTF-8 are kept byte for byte (the
    text is read with ``surrogateescape``); a body without secrets is returned as it is.

    Args:
        body: the body.
        dialect: for a streamed response, its dialect: what the stream carries (text,
            reasoning, tool arguments) is scrubbed too, whatever its split into events.
        where: the place named in the error.
        encoding: the message's ``content-encoding``: a coded body is scrubbed decoded and
            returned encoded again the same way (as bytes).

    Raises:
        SecretNotScrubbed: a secret was found that cannot be removed without changing the
            events (or that was still there after scrubbing), or a coded body does not
            decode, so that it cannot be checked.
    """
    if body is None:
        return None
    if codings(encoding):
        raw = body if isinstance(body, bytes) else body.encode("utf-8", "surrogateescape")
        try:
            decoded = decode(raw, encoding)
        except BodyNotDecoded as exc:
            raise SecretNotScrubbed(
                where,
                "undecodable body",
                f"(content-encoding {encoding!r}: {exc}) cannot be checked for secrets",
            ) from exc
        scrubbed = scrub_body(decoded.body, dialect=dialect, where=where)
        return body if scrubbed is decoded.body else encode(_bytes(scrubbed), decoded)
    text = body if isinstance(body, str) else body.decode("utf-8", "surrogateescape")
    if dialect is not None and dialect not in dialects.names():
        dialect = None
    scrubbed = text
    if dialect is not None:
        streamed = stream_hits(text, dialect)
        for hit in streamed:
            if not hit.mapped:
                raise SecretNotScrubbed(
                    where,
                    hit.kind,
                    f"in the streamed {hit.channel} could not be located in the recorded events",
                )
        scrubbed = _apply(text, streamed)
    scrubbed = scrub_text(scrubbed)
    if scrubbed == text:
        return body
    remaining = text_hits(scrubbed)
    if dialect is not None:
        remaining += stream_hits(scrubbed, dialect)
    if remaining:
        raise SecretNotScrubbed(where, remaining[0].kind, "is still there after scrubbing")
    return scrubbed if isinstance(body, str) else scrubbed.encode("utf-8", "surrogateescape")


def _bytes(body: str | bytes | None) -> bytes:
    if isinstance(body, str):
        return body.encode("utf-8", "surrogateescape")
    return body or b""


def _scrub_data(data: Any) -> bool:
    """Scrub structured data (the ``raf`` block as builtins) in place; whether it changed.
    Iterative: the nesting of a document cannot exhaust the stack."""
    changed = False
    pending = [data]
    while pending:
        node = pending.pop()
        items: Any = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in list(items):
            if isinstance(value, str):
                named = isinstance(node, dict) and is_secret_member(str(key))
                scrubbed = REDACTED if named and not is_placeholder(value) else scrub_text(value)
                if scrubbed != value:
                    node[key] = scrubbed
                    changed = True
            elif isinstance(value, dict | list):
                pending.append(value)
    return changed


def _scrub_info(info: ScenarioInfo | None) -> ScenarioInfo | None:
    if info is None:
        return None
    data = msgspec.to_builtins(info)  # fresh containers: scrubbed in place
    return msgspec.convert(data, ScenarioInfo) if _scrub_data(data) else info


def _dialect(cassette: Cassette, interaction: Interaction) -> str | None:
    if cassette.info is not None:
        return cassette.info.dialect
    from raf.cassettes.importers import guess_dialect  # noqa: PLC0415  (importers reads files)

    return guess_dialect(interaction.request.uri)


def _scrub_interaction(interaction: Interaction, where: str, dialect: str | None) -> Interaction:
    request = msgspec.structs.replace(
        interaction.request,
        method=scrub_text(interaction.request.method),
        uri=scrub_uri(interaction.request.uri),
        headers=scrub_headers(interaction.request.headers),
        body=scrub_body(
            interaction.request.body,
            where=f"{where}.request.body",
            encoding=content_encoding(interaction.request.headers),
        ),
    )
    body = scrub_body(
        interaction.response.body,
        dialect=dialect,
        where=f"{where}.response.body",
        encoding=content_encoding(interaction.response.headers),
    )
    response = msgspec.structs.replace(
        interaction.response,
        reason=scrub_text(interaction.response.reason),
        headers=scrub_headers(interaction.response.headers),
        body=body if isinstance(body, bytes) else interaction.response.body,
    )
    timing = _retimed(interaction.timing, len(response.body))
    return Interaction(request=request, response=response, timing=timing)


def _retimed(timing: list[tuple[int, float]] | None, size: int) -> list[tuple[int, float]] | None:
    """The recorded reads of a body whose scrubbing changed its length to ``size``: the
    difference is taken from (or added to) the last reads, every delay kept."""
    if timing is None:
        return None
    out = list(timing)
    excess = sum(n for n, _ in out) - size
    while excess > 0 and out:
        n, ms = out.pop()
        if n > excess:
            out.append((n - excess, ms))
            excess = 0
        else:
            excess -= n
    if excess < 0:
        n, ms = out.pop() if out else (0, 0.0)
        out.append((n - excess, ms))
    return out


def scrub_cassette(cassette: Cassette) -> Cassette:
    """A copy of ``cassette`` without credentials: secret headers and query parameters
    redacted, URL userinfo dropped, secrets removed from URIs, headers, bodies (what a stream
    carries included) and the ``raf`` block. Nothing else changes: a cassette without secrets
    comes back equal, byte for byte.

    Raises:
        SecretNotScrubbed: a secret cannot be removed; its interaction and kind are named.
    """
    return msgspec.structs.replace(
        cassette,
        interactions=[
            _scrub_interaction(i, f"interactions[{n}]", _dialect(cassette, i))
            for n, i in enumerate(cassette.interactions)
        ],
        info=_scrub_info(cassette.info),
    )
