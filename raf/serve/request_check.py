"""The request check: does the request a client sent match the cassette's recorded one?
Pure functions, no IO.

A replayed answer only means something if the client asked the question the cassette
recorded; a client that sends a wrong follow-up request (a tool result with the wrong call
id, a lost message, a missing tool) is caught here. The matcher compares, per dialect, only
the fields that decide what the model answers, and only those the recorded request has: the
format's :attr:`raf.formats.Format.request_fields` (:func:`compared_fields`; docs/serve.md
lists them per dialect, checked against the descriptors).

Gemini puts in the URL what the other formats put in the body (:func:`url_fields`): the model
(``.../models/gemini-2.5-flash:...``, its last path segment, so a Vertex AI path and the
Gemini API's name the same model), the method after the colon (``streamGenerateContent`` or
``generateContent``) and the ``alt`` query parameter, which decides the framing of the answer
(``alt=sse``: Server-Sent Events; none, or ``alt=json``: a JSON array). They are compared when
the recorded URI is one (not on the reserved ``.invalid`` domain, which ``raf cassette
import`` writes for a body recorded without its request). No other query parameter is read,
and none is ever quoted in a mismatch line: ``key=`` holds an API key.

Before comparing, both sides are normalised the ways equivalent clients legitimately differ,
the :data:`~raf.formats.equivalence.EQUIVALENCES` of :mod:`raf.formats.equivalence` (docs/serve.md
has them as a table, checked against that tuple).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, NamedTuple
from urllib.parse import parse_qsl, unquote, urlsplit

import msgspec

from raf import formats
from raf.cassettes.scrub import REDACTED, scrub_text
from raf.cassettes.secrets import is_placeholder, is_secret_member
from raf.formats.equivalence import (
    EQUIVALENCES,
    Equivalence,
    Named,
    Normaliser,
    equivalences_table,
    takes_no_parameters,
)
from raf.limits import DEFAULT_MAX_JSON_DEPTH
from raf.safe_json import too_deep

__all__ = [
    "EQUIVALENCES",
    "FRAMINGS",
    "MAX_BODY_DEPTH",
    "Body",
    "Equivalence",
    "Framing",
    "RequestCheck",
    "check_request",
    "compared_fields",
    "equivalences_table",
    "read_body",
    "requested_framing",
    "takes_no_parameters",
    "url_fields",
]


def compared_fields(dialect: str) -> tuple[str, ...]:
    """The request body fields the matcher compares for ``dialect``: its format's
    :attr:`raf.formats.Format.request_fields` (``model`` for a dialect without a format)."""
    found = formats.find(dialect)
    return ("model",) if found is None else found.request_fields


def url_fields(dialect: str) -> tuple[str, ...]:
    """The parts of the URL the matcher compares for ``dialect`` (before the body's fields):
    its format's :attr:`raf.formats.Format.url_fields`."""
    found = formats.find(dialect)
    return () if found is None else found.url_fields


class Framing(NamedTuple):
    """A framing a Gemini request asks for: how it asks, and what it receives."""

    asked: str
    received: str


FRAMINGS: Final[dict[str, Framing]] = {
    "sse": Framing("?alt=sse", "Server-Sent Events"),
    "json_array": Framing("no alt", "a JSON-array body"),
    "json": Framing("no alt", "one JSON object"),
}
"""The framings a request's URL chooses (:func:`requested_framing`)."""

MAX_BODY_DEPTH: Final = DEFAULT_MAX_JSON_DEPTH
"""The deepest nesting of a request body the check reads (the limit of every JSON payload
raf reads, measured by :func:`raf.safe_json.too_deep` without recursing); a deeper body is
refused before it is decoded."""

_MAX_MISMATCHES: Final = 5
_SHOWN: Final = 80
_SCRUBBED_WINDOW: Final = 8 * 1024
"""Characters of a value scrubbed before it is cut to :data:`_SHOWN` for a mismatch line, so
that a secret the cut falls in is removed whole, not shown as an unrecognisable prefix."""


@dataclass(frozen=True)
class RequestCheck:
    """The verdict on one request.

    Attributes:
        compared: the fields compared (empty: nothing recorded to compare with).
        mismatches: one line per difference (at most five), each naming the field.
    """

    compared: tuple[str, ...] = ()
    mismatches: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def to_builtins(self) -> dict[str, Any]:
        return {"ok": self.ok, "compared": list(self.compared), "mismatches": self.mismatches}


@dataclass(frozen=True)
class Body:
    """A request body as the check reads it.

    Attributes:
        value: the JSON value (``None`` for an empty body, or one that cannot be read).
        problem: why the body cannot be read as a JSON object (``None``: it can, or it is
            empty); what ``raf serve`` answers with 400.
    """

    value: Any = None
    problem: str | None = None


def read_body(received: bytes) -> Body:
    """``received`` read as the JSON object a client of raf's dialects sends: never raises,
    never recurses deeper than :data:`MAX_BODY_DEPTH`. An empty body has neither a value nor
    a problem; bytes that are not UTF-8 or not JSON, a nesting past :data:`MAX_BODY_DEPTH`, a
    number out of range and any JSON value but an object are a ``problem``. The problem never
    quotes the body."""
    if not received:
        return Body()
    try:
        text = received.decode()
    except UnicodeDecodeError as exc:
        return Body(problem=f"the request body is not JSON: byte {exc.start} is not UTF-8")
    deep = f"the request body nests deeper than {MAX_BODY_DEPTH} levels"
    if too_deep(text, MAX_BODY_DEPTH):
        return Body(problem=deep)
    try:
        value = msgspec.json.decode(received)
    except msgspec.DecodeError as exc:  # ValidationError too: a number out of range
        return Body(problem=f"the request body is not JSON: {exc}")
    except RecursionError:  # pragma: no cover - too_deep keeps the decoder well inside
        return Body(problem=deep)
    if not isinstance(value, dict):
        return Body(problem="the request body is not a JSON object")
    return Body(value)


def check_request(
    dialect: str,
    recorded: str | bytes | None,
    received: bytes | Body,
    *,
    recorded_uri: str | None = None,
    received_url: str | None = None,
) -> RequestCheck:
    """Compare the request a client sent with the recorded one: its body (``received``, as
    bytes or as :func:`read_body` read them) with the recorded body, and, for a dialect with
    :func:`url_fields`, the URL it asked (``received_url``: the path and query, or the whole
    URL) with ``recorded_uri``. Never raises. Every value a mismatch line quotes is scrubbed
    of secrets (docs/secrets.md) before it is cut to its excerpt."""
    compared, mismatches = _check_url(dialect, recorded_uri, received_url)
    try:
        body_compared, body_mismatches = _check_body(dialect, recorded, received)
    except RecursionError:  # pragma: no cover - read_body bounds the depth well inside
        body_compared, body_mismatches = (), ["the request body nests too deep to compare"]
    everything = mismatches + body_mismatches
    return RequestCheck(compared + body_compared, everything[:_MAX_MISMATCHES])


def requested_framing(dialect: str, uri: str | None) -> str | None:
    """The framing a recorded request's URL asked for (a key of :data:`FRAMINGS`), where the
    URL decides it (Gemini: ``alt=sse`` is ``sse``; no ``alt`` is ``json_array`` for
    ``streamGenerateContent``, ``json`` for ``generateContent``); ``None`` elsewhere."""
    parts = _url_parts(dialect, uri, recorded=True)
    return None if parts is None else _framing(parts.method, parts.alt)


def _framing(method: str | None, alt: str | None) -> str | None:
    if method is None:
        return None
    if alt == "sse":
        return "sse"
    if alt in (None, "json"):
        return "json_array" if method.startswith("stream") else "json"
    return None  # alt=proto, alt=media...: not a framing raf reads


class _Url(NamedTuple):
    model: str | None
    method: str | None
    alt: str | None


def _url_parts(dialect: str, url: str | None, *, recorded: bool = False) -> _Url | None:
    """The parts of ``url`` the check reads, or ``None`` when the dialect reads none (or a
    recorded URI is a placeholder)."""
    if not url_fields(dialect) or not url:
        return None
    parts = urlsplit(url)
    if recorded and (parts.hostname or "").endswith(".invalid"):
        return None  # raf cassette import's placeholder: no request was recorded
    last = unquote(parts.path).rstrip("/").rsplit("/", 1)[-1]
    model, colon, method = last.partition(":")
    alt = None
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if name in ("alt", "$alt"):  # Google's system parameter, under either name
            alt = value
    return _Url(model or None, method if colon else None, alt)


def _check_url(
    dialect: str, recorded_uri: str | None, received_url: str | None
) -> tuple[tuple[str, ...], list[str]]:
    want = _url_parts(dialect, recorded_uri, recorded=True)
    if want is None or received_url is None:
        return (), []
    have = _url_parts(dialect, received_url) or _Url(None, None, None)
    compared: list[str] = []
    out: list[str] = []
    if want.model is not None and want.method is not None:
        compared.append("url.model")
        if have.model != want.model:
            out.append(f"url.model: expected {_quoted(want.model)}, got {_quoted(have.model)}")
    if want.method is not None:
        compared.append("url.method")
        if have.method != want.method:
            out.append(f"url.method: expected {_quoted(want.method)}, got {_quoted(have.method)}")
        compared.append("url.alt")
        if _alt(have.alt) != _alt(want.alt):
            expected = _alt_shown(want.alt, want.method)
            got = _alt_shown(have.alt, have.method or want.method)
            out.append(f"url.alt: expected {expected}, got {got}")
    return tuple(compared), out


def _alt(value: str | None) -> str:
    return "json" if value in (None, "json") else value


def _alt_shown(alt: str | None, method: str | None) -> str:
    """An ``alt`` value (only this query parameter is ever quoted) and its framing."""
    shown = _quoted(alt)
    kind = _framing(method, alt)
    return f"{shown} ({FRAMINGS[kind].received})" if kind is not None else shown


def _quoted(value: str | None) -> str:
    return "none" if value is None else _shown(value)


def _check_body(
    dialect: str, recorded: str | bytes | None, received: bytes | Body
) -> tuple[tuple[str, ...], list[str]]:
    if recorded is None or recorded in ("", b""):
        return (), []
    if isinstance(recorded, str):
        try:
            recorded = recorded.encode()
        except UnicodeEncodeError:
            return (), []
    expected = read_body(recorded).value  # a recorded body that is not a JSON object (or
    if not isinstance(expected, dict):  # too deep): nothing to compare
        return (), []
    fields = tuple(name for name in compared_fields(dialect) if expected.get(name) is not None)
    if not fields:
        return (), []
    body = received if isinstance(received, Body) else read_body(received)
    if body.problem is not None:
        return fields, [body.problem]
    got = body.value
    if not isinstance(got, dict):
        return fields, ["the request body is not a JSON object"]
    normal = Normaliser(dialect)
    mismatches: list[str] = []
    for name in fields:
        want = normal.field(name, expected.get(name))
        have = normal.field(name, got.get(name))
        _diff(want, have, name, mismatches)
        if len(mismatches) >= _MAX_MISMATCHES:
            break
    return fields, mismatches


def _diff(want: Any, have: Any, path: str, out: list[str]) -> None:
    """Append to ``out`` a line per difference of ``have`` from ``want`` at ``path``, depth
    first in the recorded order, until it holds :data:`_MAX_MISMATCHES`. Iterative: a work
    list of comparisons and of members found missing (shown only if their turn comes)."""
    # (want, have, path, member name) to compare, or (value, None, path, name) missing
    todo: list[tuple[Any, Any, str, str | None, bool]] = [(want, have, path, None, False)]
    while todo and len(out) < _MAX_MISMATCHES:
        want, have, path, member, missing = todo.pop()
        if missing:
            out.append(f"{path}: missing (expected {_shown(want, member)})")
        elif isinstance(want, dict) and isinstance(have, dict):
            # members the recording does not have are free
            todo.extend(
                (want[key], have.get(key), f"{path}.{key}", key, key not in have)
                for key in reversed(list(want))
            )
        elif isinstance(want, list) and isinstance(have, list):
            if len(want) != len(have):
                out.append(f"{path}: {len(have)} item(s), the recorded request has {len(want)}")
            pairs = list(zip(want, have, strict=False))
            todo.extend(
                (a, b, f"{path}[{n}]", None, False)
                for n, (a, b) in reversed(list(enumerate(pairs)))
            )
        elif want != have or (type(want) is not type(have) and not _same_number(want, have)):
            out.append(f"{path}: expected {_shown(want, member)}, got {_shown(have, member)}")


def _same_number(a: Any, b: Any) -> bool:
    numbers = (int, float)
    return (
        isinstance(a, numbers)
        and isinstance(b, numbers)
        and not isinstance(a, bool)
        and not isinstance(b, bool)
        and a == b
    )


def _shown(value: Any, member: str | None = None) -> str:
    """``value`` as a mismatch line quotes it: its JSON, scrubbed of secrets (all of it when
    ``member``, the name it has in its object, names a credential), then cut."""
    if isinstance(value, Named):
        return value.shown
    named = member is not None and is_secret_member(member)
    if named and isinstance(value, str) and not is_placeholder(value):
        return f'"{REDACTED}"'
    text = scrub_text(msgspec.json.encode(value).decode()[:_SCRUBBED_WINDOW])
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."
