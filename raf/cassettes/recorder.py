"""The bookkeeping of a recording proxy (``raf record``): what a request is called, what it
is, and what its response became. No IO, no clock: the shell (:mod:`raf.record`) passes the
time of each event in, and writes the cassettes with :func:`raf.cassettes.save`.

* :func:`route`: the scenario a request records (``/s/<scenario>/`` or ``x-raf-scenario``)
  and the provider path to forward to, or the refusal a client gets;
* :func:`fingerprint`: a digest of a request that two recordings of the same request share;
* :func:`model_of`, :func:`dialect_of`, :func:`recorded_header`: the cassette's header;
* :class:`Recorder`: one exchange, fed its request, its response head and each network read
  as it arrives, giving the :class:`~raf.cassettes.format.Interaction` with its ``timing``;
* :class:`Episodes`: the interactions of one scenario in one session, and what a mode
  (``all``, ``once``, ``new_episodes``, ``none``) does with the next request: forward it
  (and record), replay a recorded interaction, or refuse.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final, Literal
from urllib.parse import parse_qsl, quote, unquote, urlsplit

import msgspec

from raf.cassettes.expiry import parse_max_age
from raf.cassettes.format import NAME_RULE, Headers, Interaction, Recorded, Request, Response
from raf.cassettes.format import is_file_name as _is_file_name
from raf.cassettes.importers import guess_dialect
from raf.cassettes.scrub import scrub_text, scrub_uri
from raf.cassettes.secrets import is_secret_member, is_secret_query_parameter

__all__ = [
    "HOP_BY_HOP",
    "MODES",
    "SCENARIO_HEADER",
    "VOLATILE_MEMBERS",
    "Episodes",
    "Forward",
    "Mode",
    "Recorder",
    "Refuse",
    "Replay",
    "Route",
    "answered_headers",
    "dialect_of",
    "fingerprint",
    "forwarded_headers",
    "is_max_age",
    "model_of",
    "recorded_header",
    "replay_cuts",
    "request_body_text",
    "request_fingerprint",
    "route",
    "upstream_uri",
]

Mode = Literal["none", "once", "new_episodes", "all"]
MODES: Final[tuple[Mode, ...]] = ("none", "once", "new_episodes", "all")
"""The record modes, as pytest-recording names them."""

SCENARIO_HEADER: Final = "x-raf-scenario"
"""The request header that names the scenario (the other way is a ``/s/<scenario>`` prefix)."""

HOP_BY_HOP: Final = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
    }
)
"""Headers of one connection (RFC 9110, 7.6.1), never forwarded nor recorded."""

_NOT_FORWARDED: Final = HOP_BY_HOP | {"host", "content-length", SCENARIO_HEADER}
"""Request headers the proxy does not pass upstream (the client library sets the rest)."""

_NOT_RECORDED: Final = HOP_BY_HOP | {"content-length"}
"""Response headers a cassette does not keep: the length is the body's (scrubbing may
change it), the rest belong to the connection."""

VOLATILE_MEMBERS: Final = frozenset(
    {"user", "metadata", "prompt_cache_key", "safety_identifier", "stream_options"}
)
"""Top-level members of a JSON request body that :func:`fingerprint` leaves out: they name
who asked or how the answer is delivered, not what was asked, and change between runs."""

_GEMINI_MODEL = re.compile(r"/models/([^/:?#]+)")


def is_max_age(text: object) -> bool:
    """Whether ``text`` is a ``max_age`` (:data:`raf.cassettes.expiry.MAX_AGE_FORMS`:
    ``90m``, ``12h``, ``30d``, ``2w``)."""
    if not isinstance(text, str):
        return False
    try:
        parse_max_age(text)
    except ValueError:
        return False
    return True


# -- what a request is called ---------------------------------------------------------------


@dataclass(frozen=True)
class Route:
    """A request's scenario and the provider path (with its query) to forward it to."""

    scenario: str
    path: str


@dataclass(frozen=True)
class Refuse:
    """What the client gets instead of an answer: ``status`` and a one-line ``message``."""

    status: int
    message: str


def _header(headers: Mapping[str, str] | Iterable[tuple[str, str]], name: str) -> str | None:
    items = headers.items() if isinstance(headers, Mapping) else headers
    for key, value in items:
        if key.lower() == name:
            return value
    return None


def route(
    target: str,
    headers: Mapping[str, str] | Iterable[tuple[str, str]],
    default: str | None = None,
) -> Route | Refuse:
    """The scenario of a request to ``target`` (its path and query as received) and the
    provider path to forward: a ``/s/<scenario>`` prefix, else the ``x-raf-scenario``
    header, else ``default``; a name that breaks :data:`NAME_RULE`, two names that differ,
    or none at all is a 400."""
    path = target if target.startswith("/") else "/" + target
    named: str | None = None
    if path.startswith("/s/"):
        rest = path[3:]
        cut = min((at for at in (rest.find("/"), rest.find("?")) if at >= 0), default=len(rest))
        named, path = unquote(rest[:cut]), rest[cut:]
        if not path.startswith("/"):
            path = "/" + path
    header = _header(headers, SCENARIO_HEADER)
    if header is not None:
        header = header.strip()
        if named is not None and header != named:
            return Refuse(
                400,
                f"the URL names scenario {_shown(named)} and the {SCENARIO_HEADER} header "
                f"{_shown(header)}: name one",
            )
        named = header
    if named is None:
        named = default
    if named is None:
        return Refuse(
            400,
            f"no scenario: start the path with /s/<scenario>/ or send an {SCENARIO_HEADER} "
            "header (or start raf record with --scenario NAME)",
        )
    if not _is_file_name(named):
        return Refuse(400, f"scenario {_shown(named)} is not a name: {NAME_RULE}")
    return Route(named, path)


def _shown(name: str) -> str:
    return repr(scrub_text(name[:80]))


# -- what a request is ----------------------------------------------------------------------


def _canonical(value: Any, top: bool) -> Any:
    if isinstance(value, dict):
        return {
            str(key): _canonical(item, False)
            for key, item in value.items()
            if not is_secret_member(str(key)) and not (top and key in VOLATILE_MEMBERS)
        }
    if isinstance(value, list):
        return [_canonical(item, False) for item in value]
    if isinstance(value, str):
        return scrub_text(value)
    return value


def _body_bytes(body: bytes | str | None) -> bytes:
    if body is None:
        return b""
    return body.encode("utf-8", "surrogateescape") if isinstance(body, str) else body


def fingerprint(method: str, path: str, body: bytes | str | None) -> str:
    """A digest of a request, the same for two recordings of the same request.

    What is hashed (SHA-256 of the canonical JSON ``[method, path, query, body]``, keys
    sorted; written ``sha256:<64 hex digits>``):

    - ``method`` in upper case;
    - ``path``: the path the provider gets (``/v1/chat/completions``, after the upstream's
      own path when it has one: ``/openai/v1/chat/completions``), without the scheme, the
      host and the proxy's ``/s/<scenario>`` prefix, its secrets
      (:func:`raf.cassettes.scrub.scrub_uri`) removed;
    - ``query``: the query parameters, sorted, without those that carry a credential
      (``key``, ``api_key``, ``access_token``...: docs/secrets.md);
    - ``body``: a JSON body parsed, without the members named as credentials (at any depth)
      and without the top-level :data:`VOLATILE_MEMBERS`, every string with its secrets
      removed (:func:`raf.cassettes.scrub.scrub_text`); another body as its text with its
      secrets removed; no body as ``null``.

    Headers are not hashed (they hold credentials, versions and ids). The fingerprint of a
    recorded request (secrets already ``REDACTED``) equals that of the live one.
    """
    split = urlsplit(path)
    query = sorted(
        (name, value)
        for name, value in parse_qsl(split.query, keep_blank_values=True)
        if not is_secret_query_parameter(name)
    )
    raw = _body_bytes(body)
    content: Any = None
    if raw.strip():
        try:
            content = _canonical(msgspec.json.decode(raw), True)
        except msgspec.DecodeError:
            content = scrub_text(raw.decode("utf-8", "surrogateescape"))
    document = [method.upper(), scrub_uri(split.path), [list(pair) for pair in query], content]
    encoded = msgspec.json.encode(document, order="sorted")
    return "sha256:" + hashlib.sha256(encoded).hexdigest()


def model_of(path: str, body: bytes | str | None) -> str:
    """The model a request asks for: the body's top-level ``model`` (or ``model_id``), else
    the Gemini path's ``/models/<model>``; ``""`` when it names none."""
    raw = _body_bytes(body)
    if raw.strip():
        try:
            data = msgspec.json.decode(raw)
        except msgspec.DecodeError:
            data = None
        if isinstance(data, dict):
            for key in ("model", "model_id"):
                if isinstance(data.get(key), str) and data[key]:
                    return scrub_text(str(data[key]))
    found = _GEMINI_MODEL.search(urlsplit(path).path)
    return scrub_text(unquote(found.group(1))) if found else ""


def dialect_of(path: str, chosen: str | None = None) -> str:
    """The dialect a request records under: ``chosen`` (``--dialect``), else the wire format
    its provider path speaks (:func:`raf.cassettes.importers.guess_dialect`), else
    ``unknown``."""
    return chosen if chosen else guess_dialect(path)


def recorded_header(
    *,
    when: datetime,
    provider: str,
    model: str,
    digest: str,
    version: str,
    max_age: str | None = None,
    on_expiry: Literal["warn", "fail"] = "warn",
) -> Recorded:
    """The ``recorded`` block of a cassette: ``when`` in ISO 8601 UTC to the second, the
    ``provider`` base URL scrubbed (no userinfo, no credential query parameter)."""
    date = when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return Recorded(
        date=date,
        provider=scrub_uri(provider),
        model=model,
        raf_version=version,
        fingerprint=digest,
        max_age=max_age,
        on_expiry=on_expiry,
    )


# -- one exchange -------------------------------------------------------------------------


def forwarded_headers(headers: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """The request headers to send upstream: all but the connection's, ``host``,
    ``content-length`` and ``x-raf-scenario`` (credentials included: the provider needs
    them; the cassette gets them scrubbed)."""
    return [(name, value) for name, value in headers if name.lower() not in _NOT_FORWARDED]


def answered_headers(headers: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """The response headers to pass to the client: all but the connection's."""
    return [(name, value) for name, value in headers if name.lower() not in HOP_BY_HOP]


def _grouped(headers: Iterable[tuple[str, str]], dropped: frozenset[str]) -> Headers:
    out: Headers = {}
    for name, value in headers:
        if name.lower() not in dropped:
            out.setdefault(name, []).append(value)
    return out


def request_body_text(content: bytes) -> str | bytes | None:
    """A request body as a cassette keeps it: JSON pretty-printed (it reads well in the
    cassette), other UTF-8 text as it is, anything else as bytes; ``None`` when empty."""
    if not content:
        return None
    try:
        return msgspec.json.format(content, indent=2).decode("utf-8")
    except (msgspec.DecodeError, UnicodeDecodeError):
        try:
            return content.decode("utf-8")
        except UnicodeDecodeError:
            return content


class Recorder:
    """One exchange as the proxy saw it. Fed in order: the request (constructor), the
    response head (:meth:`head`), each network read (:meth:`read`), then
    :meth:`interaction`. Times are seconds on any monotonic clock; each read's delay is
    counted from the previous read (the first from the head)."""

    def __init__(
        self,
        method: str,
        uri: str,
        headers: Iterable[tuple[str, str]],
        body: bytes,
    ) -> None:
        self.request = Request(
            method=method.upper(),
            uri=uri,
            headers=_grouped(forwarded_headers(headers), frozenset()),
            body=request_body_text(body),
        )
        self._response: Response | None = None
        self._chunks: list[bytes] = []
        self.timing: list[tuple[int, float]] = []
        self._last = 0.0

    def head(self, status: int, reason: str, headers: Iterable[tuple[str, str]], at: float) -> None:
        """The response's status line and headers arrived at ``at``."""
        self._response = Response(
            status=status, reason=reason, headers=_grouped(headers, _NOT_RECORDED)
        )
        self._last = at

    def read(self, data: bytes, at: float) -> None:
        """A network read of the body arrived at ``at`` (an empty one is not a read)."""
        if not data:
            return
        self._chunks.append(data)
        self.timing.append((len(data), round(max(0.0, at - self._last) * 1000, 3)))
        self._last = at

    @property
    def size(self) -> int:
        """Bytes of body read so far."""
        return sum(size for size, _ in self.timing)

    def interaction(self) -> Interaction:
        """The exchange: the request, the response with the body as it came (compressed
        when it came compressed) and the reads' ``timing``.

        Raises:
            RuntimeError: no response head was given.
        """
        if self._response is None:
            raise RuntimeError("no response head was recorded")
        response = msgspec.structs.replace(self._response, body=b"".join(self._chunks))
        return Interaction(request=self.request, response=response, timing=list(self.timing))


def request_fingerprint(request: Request) -> str:
    """:func:`fingerprint` of a recorded request (its URI's path and query)."""
    split = urlsplit(request.uri)
    path = split.path + (f"?{split.query}" if split.query else "")
    return fingerprint(request.method, path, request.body)


def upstream_uri(upstream: str, path: str) -> str:
    """The URL a provider path is forwarded to: the upstream base URL (its own path kept)
    followed by ``path`` (which keeps its query)."""
    base = upstream.rstrip("/")
    split = urlsplit(path)
    return (
        base
        + quote(split.path, safe="/:@!$&'()*+,;=-._~%")
        + (f"?{split.query}" if split.query else "")
    )


# -- one scenario in one session ----------------------------------------------------------


@dataclass(frozen=True)
class Forward:
    """Send the request upstream and record the exchange."""


@dataclass(frozen=True)
class Replay:
    """Answer with recorded interaction ``index`` of the cassette as it was found."""

    index: int
    interaction: Interaction


Decision = Forward | Replay | Refuse

_NO_RECORDING = 404
"""The status of a request a mode does not forward and no recording answers."""


@dataclass
class Episodes:
    """The interactions of one cassette (``<dialect>/<scenario>``) over one proxy session,
    and what the next request gets under ``mode``.

    ``found`` is the cassette's interactions as they were on disk at the scenario's first
    request of the session (``None``: there was no cassette). :meth:`decide` says what a
    request gets; :meth:`recorded` adds what was forwarded; :meth:`to_save` is the list of
    interactions to write (``None``: nothing new to write).

    - ``all``: every request is forwarded; the cassette becomes this session's exchanges.
    - ``once``: a scenario with a cassette replays its interactions in order, the next
      request after the last is refused; one without records every request.
    - ``new_episodes``: a request whose fingerprint matches a recorded interaction not yet
      replayed gets it; any other is forwarded and appended.
    - ``none``: like ``new_episodes``, but a request without a recording is refused.
    """

    dialect: str
    scenario: str
    mode: Mode
    found: list[Interaction] | None
    new: list[Interaction] = field(default_factory=list)
    _used: set[int] = field(default_factory=set)
    _next: int = 0

    def decide(self, print_: str) -> Decision:
        """What the next request, whose :func:`fingerprint` is ``print_``, gets."""
        where = f"{self.dialect}/{self.scenario}"
        if self.mode == "all" or (self.mode == "once" and self.found is None):
            return Forward()
        found = self.found or []
        if self.mode == "once":
            if self._next < len(found):
                index, self._next = self._next, self._next + 1
                return Replay(index, found[index])
            return Refuse(
                _NO_RECORDING,
                f"raf record: scenario {where} has {len(found)} recorded interaction(s), all "
                "replayed; mode once records only a scenario that has no cassette (delete it "
                "or use --mode all or new_episodes to record again)",
            )
        for index, interaction in enumerate(found):
            if index not in self._used and request_fingerprint(interaction.request) == print_:
                self._used.add(index)
                return Replay(index, interaction)
        if self.mode == "new_episodes":
            return Forward()
        if self.found is None:
            why = "has no cassette"
        else:
            why = f"has no recorded interaction left for this request ({print_[:19]}...)"
        return Refuse(
            _NO_RECORDING,
            f"raf record: scenario {where} {why}, and mode none only replays (record it with "
            "--mode once, new_episodes or all)",
        )

    def recorded(self, interaction: Interaction) -> list[Interaction]:
        """Add a forwarded exchange; return the interactions the cassette now holds."""
        self.new.append(interaction)
        return self.to_save()

    def to_save(self) -> list[Interaction]:
        """The cassette's interactions: this session's exchanges, after the recorded ones
        under ``new_episodes``."""
        if self.mode == "new_episodes" and self.found:
            return [*self.found, *self.new]
        return list(self.new)


def replay_cuts(interaction: Interaction) -> list[tuple[bytes, float]]:
    """The recorded body (as it came: compressed when it was) cut as its reads were, each
    with the seconds to wait before it; one piece without a timing."""
    body = interaction.response.body
    if not interaction.timing:
        return [(body, 0.0)] if body else []
    cuts, start = [], 0
    for size, milliseconds in interaction.timing:
        piece = body[start : start + size]
        start += size
        if piece:
            cuts.append((piece, milliseconds / 1000))
    if start < len(body):
        cuts.append((body[start:], 0.0))
    return cuts
