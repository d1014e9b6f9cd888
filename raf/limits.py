"""Every limit raf applies to untrusted input, with its default, in one place. No IO.

raf reads bytes from the network and files from anywhere; none of them can make it use
unbounded memory or time, or crash it through the interpreter's recursion limit. Each limit
below is enforced by the stage named beside it (docs/limits.md has the memory bound of every
stage and how it was measured). Passing a limit never raises out of the byte-fed path: it
becomes a typed error (its code is named here) and what arrived before it is kept.

Stream limits are keyword arguments of the stage that enforces them (``SSEDecoder``,
``UpdateDecoder``, ``Pipeline``, ``run``/``respond``, ``AgentResponseConverter``); file limits
are module constants read by the cassette and golden readers.
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_MAX_ARGUMENTS_CHARS",
    "DEFAULT_MAX_EVENTSTREAM_HEADERS_BYTES",
    "DEFAULT_MAX_EVENT_BYTES",
    "DEFAULT_MAX_JSON_DEPTH",
    "DEFAULT_MAX_LINE_BYTES",
    "DEFAULT_MAX_RAW_CHARS",
    "DEFAULT_MAX_TOOL_CALLS",
    "DEFAULT_MAX_TOTAL_ARGUMENTS_CHARS",
    "MAX_CASSETTE_BYTES",
    "MAX_DECODED_BODY_BYTES",
    "MAX_ERROR_BODY_BYTES",
    "MAX_GOLDEN_BYTES",
    "MAX_GOLDEN_DEPTH",
    "MAX_GOLDEN_VALUES",
    "MAX_JSON_DEPTH_CEILING",
    "MAX_YAML_DEPTH",
    "MAX_YAML_NODES",
    "SERVE_BODY_TIMEOUT",
    "SERVE_HEADER_TIMEOUT",
    "SERVE_JOURNAL_BODY_BYTES",
    "SERVE_JOURNAL_BYTES",
    "SERVE_JOURNAL_ENTRIES",
    "SERVE_JOURNAL_PAGE_BYTES",
    "SERVE_JOURNAL_PAGE_ENTRIES",
    "SERVE_MAX_BODY_BYTES",
    "SERVE_MAX_CONNECTIONS",
    "SERVE_MAX_ORDERS",
    "SERVE_MAX_PATH_CHARS",
    "SERVE_MAX_ROUND_CASSETTES",
    "SERVE_MAX_STREAMS",
    "SERVE_SHARED_CHUNKS_BYTES",
    "SERVE_WRITE_BYTES",
    "check_json_depth",
]

# -- the byte stream (raf.sse) --------------------------------------------------------------

DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024
"""Longest SSE line, in bytes (16 MiB), terminator excluded. Large enough for inline images in
one ``data`` line (Gemini), small enough that a stream without line breaks cannot exhaust
memory. Code: ``sse_limit_exceeded`` (the stream is abandoned)."""

DEFAULT_MAX_EVENT_BYTES = 32 * 1024 * 1024
"""Largest SSE event (the lines of one block with their terminators), in bytes (32 MiB).
Code: ``sse_limit_exceeded`` (the stream is abandoned).

Also the largest AWS event stream message (``total_length``, prelude and CRCs included),
checked from its prelude before the body arrives: above the largest message AWS services
send (a 24 MiB payload, 128 KiB of headers and 16 bytes; Smithy says clients must not enforce
those, so raf only bounds memory)."""

DEFAULT_MAX_EVENTSTREAM_HEADERS_BYTES = 128 * 1024
"""Largest header block of one AWS event stream message, in bytes (128 KiB, the maximum AWS
services enforce). Bounds the memory of the decoded headers (a header can be as small as 3
bytes on the wire and takes about 100 bytes as Python objects). Checked from the prelude.
Past it: ``raf.framing.aws_eventstream.EventStreamError`` (``kind`` ``headers_limit``; the
stream is abandoned)."""

# -- JSON payloads (raf.safe_json: dialects, converter, argument parser) ---------------------

DEFAULT_MAX_JSON_DEPTH = 256
"""Deepest nesting of arrays and objects accepted in one JSON document: a ``data`` payload, or
one tool call's arguments (real chunks nest about 8 deep). Checked by a linear scan that does
not recurse, before any decoding. Only payloads longer than ``2 * max_json_depth + 1``
characters can be deeper (every bracket is closed in a valid document), so with 256 the scan
costs nothing on ordinary chunks (a few hundred characters) and is amortised over the size of
the large ones. (RAF's JSON library, serde_json, stops at 128; docs/deviations.md.) Code:
``json_too_deep`` (the payload, or the call, is reported and skipped)."""

MAX_JSON_DEPTH_CEILING = 512
"""The highest ``max_json_depth`` accepted. The JSON library raf uses (msgspec, in C) guards its
own recursion with the interpreter's limit (1,000 frames, shared with the caller's stack in
Python 3.11), so much deeper documents could not be decoded anyway; 512 leaves the caller
room. Should the stack still run out (a caller already hundreds of frames deep), the document
is reported as ``json_too_deep``: never a ``RecursionError``."""


def check_json_depth(max_json_depth: int) -> int:
    """``max_json_depth`` itself, or ``ValueError`` when it is not in 1..512."""
    if not 1 <= max_json_depth <= MAX_JSON_DEPTH_CEILING:
        raise ValueError(
            f"max_json_depth must be between 1 and {MAX_JSON_DEPTH_CEILING}, got {max_json_depth}"
        )
    return max_json_depth


DEFAULT_MAX_RAW_CHARS = 4096
"""Longest ``raw`` excerpt an error keeps of an offending payload, in characters. A longer
payload is kept as its first and last halves around a marker that says how much was left
out, so a stream of bad events costs bounded memory per error. (Tool-call arguments are
kept whole: they are bounded by ``max_arguments_chars``.)"""

# -- tool calls (raf.converter) --------------------------------------------------------------

DEFAULT_MAX_ARGUMENTS_CHARS = 16 * 1024 * 1024
"""Longest argument text of one tool call, in characters (16 Mi). Code:
``tool_arguments_too_large`` (the call is dropped; its further fragments are ignored)."""

DEFAULT_MAX_TOTAL_ARGUMENTS_CHARS = 64 * 1024 * 1024
"""Longest argument text of all the tool calls of one turn together, in characters (64 Mi).
Bounds the converter's memory whatever the number of calls. Code:
``tool_arguments_too_large`` (the call whose fragment passed the limit is dropped)."""

DEFAULT_MAX_TOOL_CALLS = 1024
"""Most tool calls tracked in one turn. Code: ``too_many_tool_calls`` (reported once; further
calls are dropped)."""

# -- HTTP (raf.transport) --------------------------------------------------------------------

MAX_ERROR_BODY_BYTES = 64 * 1024
"""Most bytes read of the body of an HTTP error response (64 KiB); the rest is not read."""

# -- the replay server (raf.serve; raf serve's options) ---------------------------------------

SERVE_MAX_BODY_BYTES = 16 * 1024 * 1024
"""Largest request body ``raf serve`` reads (16 MiB; ``--max-body``). A larger one gets 413."""

SERVE_MAX_STREAMS = 1024
"""Most responses ``raf serve`` has in progress at once (``--max-streams``). A request over
it gets 503 with ``Retry-After: 1``."""

SERVE_MAX_CONNECTIONS = 2048
"""Most connections ``raf serve`` serves at once (``--max-connections``). One more takes the
place of the connection idle the longest (waiting for its first or next request), which is
closed; when none is idle, its request gets 503 and its connection is closed. As many again
(at least 1,024) may wait for that answer; past them a connection is closed unanswered."""

SERVE_HEADER_TIMEOUT = 10.0
"""Seconds a new connection has to send a complete request head (``--header-timeout``);
then it is closed. An idle keep-alive connection is closed after 15 s."""

SERVE_BODY_TIMEOUT = 30.0
"""Seconds a request has to send its whole body once its head arrived (``--body-timeout``);
then it gets 408 and its connection is closed."""

SERVE_WRITE_BYTES = 64 * 1024
"""Most bytes ``raf serve`` hands a connection at once: a response is written in slices of
this size, each once the connection's buffer is under its high-water mark (64 KiB), so a
client that does not read holds about 128 KiB of the server's memory, whatever the body."""

SERVE_SHARED_CHUNKS_BYTES = 256 * 1024 * 1024
"""Most bytes of cut bodies ``raf serve`` keeps to share between the responses that send the
same interaction under the same chunking (256 MiB, plus 100 bytes counted per piece); the
least recently used cut is forgotten first, and a body whose cut is larger is cut again for
each response."""

SERVE_MAX_PATH_CHARS = 2048
"""Longest request path ``raf serve`` reads (longer ones get 414)."""

SERVE_JOURNAL_ENTRIES = 1000
"""Requests the journal keeps in memory (the oldest is forgotten first; ``--journal FILE``
keeps every one)."""

SERVE_JOURNAL_BYTES = 32 * 1024 * 1024
"""Most bytes of entries the journal keeps in memory (32 MiB), each entry counted as the
length of its JSON line; the oldest is forgotten first (the newest is always kept)."""

SERVE_JOURNAL_BODY_BYTES = 64 * 1024
"""The most bytes of a request body a journal entry keeps (64 KiB, cut at a character
boundary after scrubbing; ``body_bytes`` says how long the body was)."""

SERVE_JOURNAL_PAGE_ENTRIES = 1000
"""Most entries in one page of ``GET /_raf/journal`` (its default ``limit``, and the
largest accepted)."""

SERVE_JOURNAL_PAGE_BYTES = 4 * 1024 * 1024
"""Most bytes of entries in one page of ``GET /_raf/journal`` (4 MiB; a page always holds at
least one entry, so an entry is never too large to be read)."""

SERVE_MAX_ORDERS = 10_000
"""Most orders of interactions kept (a path prefix and a session each); the oldest is
forgotten first."""

SERVE_MAX_ROUND_CASSETTES = 256
"""Most cassettes whose rounds (the calls each recorded answer streamed, and the earlier
rounds the request rules compare with) are kept read; the least recently used is read again
when next asked for."""

# -- files (raf.cassettes, raf.conformance.goldens) ------------------------------------------

MAX_CASSETTE_BYTES = 64 * 1024 * 1024
"""Largest cassette or importable recording, in bytes (64 MiB; the largest bundled cassette
is about 0.5 MB). A larger file, or anything that is not a regular file, is refused before it
is read."""

MAX_DECODED_BODY_BYTES = MAX_CASSETTE_BYTES
"""Most bytes a cassette body with a ``content-encoding`` (gzip, deflate, br) may decode to,
for lint, scrub and every reader of the cassette to read it (64 MiB, as much as a whole
cassette may hold): a few kilobytes
of gzip can expand to gigabytes, so decoding stops past this and the body is an error."""

MAX_GOLDEN_BYTES = 64 * 1024 * 1024
"""Largest golden file, in bytes (64 MiB)."""

MAX_YAML_DEPTH = 256
"""Deepest nesting of mappings and sequences in a cassette (a cassette's own structure is
about 8 deep; the rest is room for deep tool-call arguments in ``expect``). PyYAML's writer
recurses once per level, so this also keeps saving a cassette well inside the stack."""

MAX_GOLDEN_DEPTH = MAX_JSON_DEPTH_CEILING + 16
"""Deepest nesting of arrays and objects in a golden: canonical JSON of values raf accepted
(at most :data:`MAX_JSON_DEPTH_CEILING` deep) inside the golden's own few levels."""

MAX_GOLDEN_VALUES = MAX_GOLDEN_BYTES // 8
"""Most values in a golden (8 Mi), counted as openings of arrays and objects plus commas
outside strings (the densest bundled golden has one per 14 bytes). Bounds the memory of
parsing a golden that is small for its size limit but made of tiny values."""

MAX_YAML_NODES = 200_000
"""Most YAML nodes (scalars, mappings, sequences) in one cassette. A bundled cassette has a few
hundred. Bounds the memory of loading a file that is small on disk but made of many tiny
nodes."""
