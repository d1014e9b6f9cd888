"""Server-Sent Events framing of payloads, as every SSE-speaking format uses it. No IO."""

from __future__ import annotations

import json
from collections.abc import Sequence

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

__all__ = ["sse_framing"]

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


@st.composite
def _framing(draw: st.DrawFn, payloads: tuple[str, ...], comments: tuple[str, ...]) -> bytes:
    eols = _EOLS[draw(st.sampled_from(list(_EOLS)), label="line ends")]
    decorated = draw(st.booleans(), label="comments and fields")
    lines: list[str] = []
    for payload in payloads:
        # One draw per event decides its decoration: 0 none, 1 a comment, 2 a retry-only
        # block, 3 id and event fields, 4 data lines without the space, 5 multi-line data.
        decoration = draw(st.integers(0, 5)) if decorated else 0
        if comments and decorated:
            lines += [comments[0], ""]
        if decoration == 1:
            lines.append(": keep-alive")
        elif decoration == 2:
            lines += ["retry: 3000", ""]
        elif decoration == 3:
            lines += ["id: 42", "event: message"]
        body_lines = [payload]
        if decoration == 5 and payload.startswith("{"):
            body_lines = json.dumps(json.loads(payload), indent=1, ensure_ascii=False).split("\n")
        prefix = "data:" if decoration == 4 else "data: "
        lines += [prefix + line for line in body_lines]
        lines.append("")
    out: list[str] = []
    previous = "\n"
    for line in lines:
        eol = eols[0] if len(eols) == 1 else draw(st.sampled_from(eols))
        if previous == "\r" and line == "" and eol == "\n":
            eol = "\r"  # CR then an LF-terminated blank line would read as one CRLF
        out.append(line + eol)
        previous = eol
    body = "".join(out).encode("utf-8")
    if draw(st.booleans(), label="byte-order mark") and decorated:
        body = b"\xef\xbb\xbf" + body
    return body
