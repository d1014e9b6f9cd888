"""Server-Sent Events framing of payloads, as every SSE-speaking format uses it. No IO."""

from __future__ import annotations

import json
from collections.abc import Sequence

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from raf.formats._strategies.common import chance, decisions, pick

__all__ = ["LINE_ENDS", "framed", "sse_framing"]

_EOLS = {"lf": ["\n"], "crlf": ["\r\n"], "cr": ["\r"], "mixed": ["\n", "\r\n", "\r"]}


def sse_framing(payloads: Sequence[str], comments: Sequence[str] = ()) -> st.SearchStrategy[bytes]:
    """``payloads`` as an event stream: lines ending in LF, CR or CRLF (or a mix), an optional
    byte-order mark, comment lines, ``event:``/``id:``/``retry:`` fields, ``data:`` with or
    without the space, and JSON payloads spread over several ``data:`` lines. Every framing
    carries the same events. Shrinks toward plain ``data: ...`` lines ending in LF.
    """
    for comment in comments:
        if not comment.startswith(":") or "\n" in comment or "\r" in comment:
            raise InvalidArgument(f"{comment!r} is not one comment line")
    return _framing(tuple(payloads), tuple(comments))


_LINE_ENDS = list(_EOLS.values())


@st.composite
def _framing(draw: st.DrawFn, payloads: tuple[str, ...], comments: tuple[str, ...]) -> bytes:
    return framed(draw, payloads, comments)


LINE_ENDS = tuple(_EOLS)
"""The line ends :func:`framed` can be told to use (``line_ends=``)."""


def framed(
    draw: st.DrawFn,
    payloads: Sequence[str],
    comments: Sequence[str] = (),
    *,
    line_ends: str | None = None,
    bom: bool | None = None,
    comment: bool = False,
    multi_line: bool = False,
    events: Sequence[str | None] | None = None,
) -> bytes:
    """What :func:`sse_framing` draws, drawn with ``draw``: one byte string of three decision
    bytes (the line ends, whether events are decorated, a byte-order mark) and one per event
    (its decoration), then, when line ends are mixed, one decision byte per line.

    The keyword arguments force what would otherwise be drawn (the same choices are drawn
    either way): ``line_ends`` (one of :data:`LINE_ENDS`), a byte-order mark or none
    (``bom``), a comment line in the first event (``comment``: the first of ``comments``, or
    ``: keep-alive``), the first JSON object spread over several ``data:`` lines
    (``multi_line``); ``events`` gives each event an ``event:`` line with its name (``None``:
    no line).
    """
    if line_ends is not None and line_ends not in _EOLS:
        raise InvalidArgument(f"unknown line ends {line_ends!r}; use one of {list(_EOLS)}")
    if events is not None and len(events) != len(payloads):
        raise InvalidArgument("events must name each payload's event (or None)")
    plan = decisions(draw, 3 + len(payloads))
    line_ends_byte, decorate, mark = plan[:3]
    eols = _EOLS[line_ends] if line_ends is not None else _LINE_ENDS[pick(line_ends_byte, 4)]
    decorated = chance(decorate, 192)
    # One decision per event picks its decoration: 0 none, 1 a comment, 2 a retry-only
    # block, 3 id and event fields, 4 data lines without the space, 5 multi-line data.
    decoration = bytearray(plan[3:] if decorated else bytes(len(payloads)))
    if multi_line:
        spread = next((n for n, p in enumerate(payloads) if p.startswith("{") and p != "{}"), None)
        if spread is not None:
            decoration[spread] = 255  # picks 5
    has_bom = (decorated and chance(mark, 128)) if bom is None else bom
    lines: list[str] = []
    for n, (payload, byte) in enumerate(zip(payloads, decoration, strict=True)):
        kind = pick(byte, 6)
        if comments and decorated:
            lines += [comments[0], ""]
        if comment and n == 0:
            lines.append(comments[0] if comments else ": keep-alive")
        if kind == 1:
            lines.append(": keep-alive")
        elif kind == 2:
            lines += ["retry: 3000", ""]
        elif kind == 3:
            lines += ["id: 42"] if events is not None else ["id: 42", "event: message"]
        if events is not None and events[n]:
            lines.append(f"event: {events[n]}")
        if kind == 5 and payload.startswith("{"):
            body_lines = json.dumps(json.loads(payload), indent=1, ensure_ascii=False).split("\n")
            prefix = "data: "
            lines += [prefix + line for line in body_lines]
        else:
            lines.append(("data:" if kind == 4 else "data: ") + payload)
        lines.append("")
    if len(eols) == 1:
        body = eols[0].join(lines) + eols[0] if lines else ""
    else:
        ends = decisions(draw, len(lines))
        out: list[str] = []
        previous = "\n"
        for line, byte in zip(lines, ends, strict=True):
            eol = eols[pick(byte, 3)]
            if previous == "\r" and line == "" and eol == "\n":
                eol = "\r"  # CR then an LF-terminated blank line would read as one CRLF
            out.append(line + eol)
            previous = eol
        body = "".join(out)
    encoded = body.encode("utf-8")
    return b"\xef\xbb\xbf" + encoded if has_bom else encoded
