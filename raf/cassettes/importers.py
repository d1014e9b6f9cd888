"""Import streams recorded by others as raf cassettes. Reads the source files; writes nothing
(``raf cassette import`` saves what these functions return).

Accepted sources, by file suffix:

* ``.yaml`` / ``.yml``: VCR cassettes as vcrpy and other projects write them, including the
  ``parsed_body`` variant of pydantic-ai's serializer (a JSON request body stored as YAML);
* ``.sse`` / ``.txt``: a raw response body, byte for byte;
* ``.jsonl`` / ``.ndjson``: one JSON payload per line, framed as ``data: <line>`` events (a
  line ``[DONE]`` becomes the end marker).

The dialect of each interaction is judged from its request URI (:func:`guess_dialect`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import yaml

from raf.cassettes.format import Cassette, Interaction, Request, Response, ScenarioInfo
from raf.cassettes.serializer import loads
from raf.errors import CassetteFormatError

__all__ = ["SUFFIXES", "guess_dialect", "import_file", "is_event_stream", "scenario_name"]

SUFFIXES = (".yaml", ".yml", ".sse", ".txt", ".jsonl", ".ndjson")
"""The file suffixes :func:`import_file` understands."""

_PLACEHOLDER_URI = "https://recorded.invalid/v1/chat/completions"


def guess_dialect(uri: str) -> str:
    """The wire format a request URI speaks: ``openai_chat``, ``openai_responses``,
    ``anthropic_messages``, ``gemini``, or ``unknown``."""
    path = uri.split("#", 1)[0].split("?", 1)[0]
    if path.endswith("/chat/completions"):
        return "openai_chat"
    if path.endswith("/responses") or "/responses/" in path:
        return "openai_responses"
    if path.endswith("/messages"):
        return "anthropic_messages"
    if ":streamGenerateContent" in path or ":generateContent" in path:
        return "gemini"
    return "unknown"


def is_event_stream(interaction: Interaction) -> bool:
    """Whether the recorded response is a Server-Sent Events stream."""
    return "event-stream" in (interaction.response.header("content-type") or "")


def scenario_name(path: str | os.PathLike[str]) -> str:
    """A scenario name from a file name: lower case, ``a-z0-9_-`` only."""
    name = re.sub(r"[^a-z0-9_\-]+", "_", Path(path).stem.lower()).strip("_-")
    return name or "stream"


def import_file(path: str | os.PathLike[str], *, dialect: str | None = None) -> Cassette:
    """Read one recorded file as a raf cassette.

    Args:
        path: the file; its suffix says how to read it (see the module docstring).
        dialect: the wire format, for sources without a request (``.sse``, ``.jsonl``);
            VCR cassettes take it from their request URIs unless given.

    Raises:
        CassetteFormatError: the file cannot be read as its suffix says.
    """
    source = Path(path)
    suffix = source.suffix.lower()
    try:
        data = source.read_bytes()
    except OSError as exc:
        raise CassetteFormatError(str(path), f"cannot read: {exc.strerror or exc}") from exc
    if suffix in (".yaml", ".yml"):
        cassette = _from_vcr(data, str(path))
    elif suffix in (".sse", ".txt"):
        cassette = _single(data)
    elif suffix in (".jsonl", ".ndjson"):
        cassette = _single(_frame_json_lines(data, str(path)))
    else:
        raise CassetteFormatError(
            str(path), f"unknown kind of file {suffix!r}; expected one of {', '.join(SUFFIXES)}"
        )
    streams = [i for i in cassette.interactions if is_event_stream(i)] or cassette.interactions
    chosen = dialect or (guess_dialect(streams[0].request.uri) if streams else "openai_chat")
    cassette.info = ScenarioInfo(
        scenario=scenario_name(path),
        dialect=chosen,
        title=f"imported from {source.name}",
    )
    return cassette


def _from_vcr(data: bytes, source: str) -> Cassette:
    try:
        document = loads(data)
    except yaml.YAMLError as exc:
        raise CassetteFormatError(source, f"not valid YAML: {exc}") from exc
    if isinstance(document, dict) and "version" not in document and "interactions" in document:
        document = {**document, "version": 1}  # some writers omit it
    return Cassette.from_dict(document, source=source)


def _single(body: bytes) -> Cassette:
    return Cassette(
        interactions=[
            Interaction(
                request=Request(uri=_PLACEHOLDER_URI),
                response=Response(headers={"content-type": ["text/event-stream"]}, body=body),
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
