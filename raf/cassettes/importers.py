"""Import streams recorded by others as raf cassettes. Reads the source files; writes nothing
(``raf cassette import`` saves what these functions return).

Accepted sources, by file suffix:

* ``.yaml`` / ``.yml``: VCR cassettes as vcrpy and other projects write them, including the
  ``parsed_body`` variant of pydantic-ai's serializer (a JSON request body stored as YAML);
* ``.sse`` / ``.txt``: a raw response body, byte for byte;
* ``.jsonl`` / ``.ndjson``: one JSON payload per line, framed as ``data: <line>`` events (a
  line ``[DONE]`` becomes the end marker), or kept as they are for a format whose framing is
  JSON lines (``ollama_chat``). A raw body is labelled with its format's content type.

The dialect of a recorded interaction is judged from its request URI (:func:`guess_dialect`),
and from the body (:func:`raf.dialects.sniff.sniff`, read decoded when it has a
``content-encoding``) when the URI says nothing, as for a raw body, which gets a placeholder
request URI of its dialect. Bodies are kept as recorded, compressed ones too: saving scrubs
them decoded and encodes them again the same way (docs/secrets.md).
Sources are read as cassettes are: regular files of at most ``MAX_CASSETTE_BYTES``, YAML
through the safety scan of :func:`raf.cassettes.serializer.loads`.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from raf import dialects, formats
from raf.cassettes.coding import BodyNotDecoded, content_encoding, decode
from raf.cassettes.files import read_limited
from raf.cassettes.format import (
    NAME_RULE,
    Cassette,
    Interaction,
    Request,
    Response,
    ScenarioInfo,
    is_file_name,
)
from raf.cassettes.serializer import loads
from raf.dialects.sniff import sniff
from raf.errors import CassetteFormatError, DialectError, FileRefused
from raf.limits import MAX_CASSETTE_BYTES

__all__ = [
    "SUFFIXES",
    "UNKNOWN",
    "dialect_choices",
    "guess_dialect",
    "import_file",
    "is_event_stream",
    "scenario_name",
    "wire_formats",
]

SUFFIXES = (".yaml", ".yml", ".sse", ".txt", ".jsonl", ".ndjson")
"""The file suffixes :func:`import_file` understands."""

UNKNOWN = "unknown"
"""What :func:`guess_dialect` returns for a URI of no format raf knows: an imported cassette
may be of a wire format raf has no dialect for yet (it is kept, and lint says so)."""


def wire_formats() -> frozenset[str]:
    """Every name :func:`guess_dialect` can return: the formats (:func:`raf.formats.names`)
    and :data:`UNKNOWN`."""
    return frozenset(formats.names()) | {UNKNOWN}


_MAX_SCENARIO_CHARS = 96
"""Longest scenario name made of a file name (two of them joined by ``__`` still follow
:data:`raf.cassettes.format.NAME_RULE`)."""


def guess_dialect(uri: str) -> str:
    """The wire format a request URI speaks: the format whose
    :attr:`raf.formats.Format.recorded_uri` matches earliest in its path, or ``unknown``."""
    path = uri.split("#", 1)[0].split("?", 1)[0]
    best: tuple[int, str] | None = None
    for name in formats.names():
        found = formats.find(name)
        at = None if found is None else found.recorded_at(path)
        if at is not None and (best is None or at < best[0]):
            best = (at, name)
    return UNKNOWN if best is None else best[1]


def is_event_stream(interaction: Interaction) -> bool:
    """Whether the recorded response is a stream: Server-Sent Events, JSON lines
    (``application/x-ndjson``, ``application/jsonl``), an AWS event stream
    (``application/vnd.amazon.eventstream``, Bedrock's), or JSON answering a request for a
    streaming method of a format whose URL names one (:attr:`raf.formats.Format.request_url`:
    the JSON array Gemini streams from ``:streamGenerateContent`` without ``alt=sse``)."""
    kind = interaction.response.header("content-type") or ""
    if "event-stream" in kind or "eventstream" in kind or "ndjson" in kind or "jsonl" in kind:
        return True
    if "json" not in kind:
        return False
    described = [formats.find(name) for name in formats.names()]
    shapes = [found.request_url for found in described if found and found.request_url]
    return any(shape.streams(interaction.request.uri) for shape in shapes)


def dialect_choices() -> list[str]:
    """The dialects ``raf cassette import --dialect`` accepts: the registered dialects and
    the wire formats of :func:`wire_formats`, sorted."""
    return sorted(set(dialects.names()) | wire_formats())


def scenario_name(path: str | os.PathLike[str]) -> str:
    """A scenario name from a file name: lower case, ``a-z0-9_-`` only, at most 96
    characters (so that it can name a file, :func:`raf.cassettes.format.is_file_name`)."""
    name = re.sub(r"[^a-z0-9_\-]+", "_", Path(path).stem.lower()).strip("_-")
    return name[:_MAX_SCENARIO_CHARS].rstrip("_-") or "stream"


def import_file(path: str | os.PathLike[str], *, dialect: str | None = None) -> Cassette:
    """Read one recorded file as a raf cassette.

    Args:
        path: the file; its suffix says how to read it (see the module docstring).
        dialect: the wire format, for sources without a request (``.sse``, ``.jsonl``);
            VCR cassettes take it from their request URIs unless given.

    Raises:
        CassetteFormatError: the file does not exist, is not a regular file, is larger than
            ``MAX_CASSETTE_BYTES``, or cannot be read as its suffix says.
        DialectError: ``dialect`` cannot name a folder.
    """
    if dialect is not None and not is_file_name(dialect):
        raise DialectError(f"{dialect!r} cannot name a dialect folder (use {NAME_RULE})")
    source = Path(path)
    suffix = source.suffix.lower()
    if not os.path.lexists(source):
        raise CassetteFormatError(str(path), "cannot read: no such file")
    if suffix not in SUFFIXES:
        raise CassetteFormatError(
            str(path), f"unknown kind of file {suffix!r}; expected one of {', '.join(SUFFIXES)}"
        )
    try:
        data = read_limited(source, MAX_CASSETTE_BYTES)
    except FileNotFoundError:
        raise CassetteFormatError(str(path), "cannot read: no such file") from None
    except FileRefused as exc:
        raise CassetteFormatError(str(path), exc.reason) from exc
    if suffix in (".yaml", ".yml"):
        cassette = _from_vcr(data, str(path))
        streams = [i for i in cassette.interactions if is_event_stream(i)]
        streams = streams or cassette.interactions
        guessed = guess_dialect(streams[0].request.uri) if streams else "openai_chat"
        if guessed == "unknown" and streams:
            guessed = sniff(_readable(streams[0].response)) or guessed
        chosen = dialect or guessed
    else:
        # JSON lines stay as they are for a format streamed in them (Ollama's), else they are
        # framed as the SSE events the other formats stream.
        lines = formats.find(dialect or sniff(data) or "")
        kept = suffix in (".sse", ".txt") or (lines is not None and lines.framing == "json_lines")
        body = data if kept else _frame_json_lines(data, str(path))
        # A raw body has no request: its dialect is the one asked for, else read off the body.
        chosen = dialect or sniff(body) or "openai_chat"
        cassette = _single(body, chosen)
    cassette.info = ScenarioInfo(
        scenario=scenario_name(path),
        dialect=chosen,
        title=f"imported from {source.name}",
    )
    return cassette


def _readable(response: Response) -> bytes:
    """The body decoded from its ``content-encoding`` (as recorded when it does not decode:
    saving then names the problem)."""
    try:
        return decode(response.body, content_encoding(response.headers)).body
    except BodyNotDecoded:
        return response.body


def _from_vcr(data: bytes, source: str) -> Cassette:
    document = loads(data, source=source)
    if isinstance(document, dict) and "version" not in document and "interactions" in document:
        document = {**document, "version": 1}  # some writers omit it
    return Cassette.from_dict(document, source=source)


def _single(body: bytes, dialect: str) -> Cassette:
    found = formats.find(dialect) or formats.get("openai_chat")
    uri = found.placeholder_uri
    kind = found.content_types.get(found.framing, "text/event-stream")  # auto: SSE as before
    return Cassette(
        interactions=[
            Interaction(
                request=Request(uri=uri),
                response=Response(headers={"content-type": [kind]}, body=body),
            )
        ]
    )


def _frame_json_lines(data: bytes, source: str) -> bytes:
    out = []
    for number, line in enumerate(data.splitlines(), 1):
        text = line.strip()
        if not text:
            continue
        if text.startswith(b"data:"):
            raise CassetteFormatError(source, f"line {number} is already SSE; import it as .sse")
        out.append(b"data: " + text + b"\n\n")
    return b"".join(out)
