"""The URL scheme of ``raf serve``: which case a request path names. Pure functions, no IO.

A case is chosen by a path prefix, so that setting a client's base URL is enough::

    /s/<dialect>/<scenario>[/c/<chunking>][/f/<fault>[+<fault>...]][/i/<interaction>]
        [/r/<run>][/as/<model>]<provider path>

The options come in any order, each at most once; the first segment that is not an option
starts the provider path the client appends (``/v1/chat/completions``, ``/chat/completions``,
``/v1/messages``, ``/v1/responses``, ``/v1beta/models/<model>:streamGenerateContent``...).
:func:`parse` checks every part and returns a :class:`Route` or a :class:`RouteError` (the
HTTP status and a message that says what is wrong and what would be right); it never
raises. ``/as/<model>`` asks for the recorded answer re-encoded in one of raf.interop's
message models (:mod:`raf.serve.as_model`); the path after the options is then the front
end's own, any path. Names follow the cassette rule (:data:`raf.cassettes.format.NAME_RULE`),
so a path can never name a file outside the served folders: ``..``, ``.``, encoded
separators, backslashes and control characters are refused. The provider path is
percent-decoded (Bedrock's ``/model/us.amazon.nova-micro-v1%3A0/converse-stream`` is
``/model/us.amazon.nova-micro-v1:0/converse-stream``), but for an encoded ``/``, which stays
``%2F`` so that a segment stays one (a model ARN).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final
from urllib.parse import unquote

from raf import formats, interop
from raf.cassettes.format import NAME_RULE, is_file_name
from raf.chunking import check_chunking
from raf.limits import SERVE_MAX_PATH_CHARS
from raf.serve.faults import Fault, FaultError, parse_faults

__all__ = [
    "Route",
    "RouteError",
    "allowed_methods",
    "parse",
    "provider_path_problem",
]

MAX_PATH_CHARS: Final = SERVE_MAX_PATH_CHARS

_OPTIONS: Final = {
    "c": "chunking",
    "f": "fault",
    "i": "interaction",
    "r": "run",
    "as": "model",
}


@dataclass(frozen=True)
class Route:
    """The case a path names.

    Attributes:
        dialect: the cassette's dialect (its folder).
        scenario: the cassette's scenario (its file name).
        chunking: the chunking named in the path (``None``: the server's default).
        faults: the faults named in the path, in order.
        interaction: the interaction named with ``/i/<n>`` (``None``: the next in order).
        run: the conversation named with ``/r/<run>`` (``None``: none): the requests of one
            run of a client's tool loop, with their own order of interactions (as an
            ``x-raf-session`` header gives) and marked with it in the journal. A name by the
            cassette rule.
        provider_path: what follows the options (``/v1/chat/completions``; with ``model``,
            the front end's own path, any).
        model: the message model named with ``/as/<model>`` (one of
            :func:`raf.interop.names`): the recorded answer is sent re-encoded in it
            (:mod:`raf.serve.as_model`); ``None``: as recorded.
    """

    dialect: str
    scenario: str
    chunking: str | None = None
    faults: tuple[Fault, ...] = ()
    interaction: int | None = None
    provider_path: str = ""
    prefix: str = field(default="", compare=False)
    run: str | None = None
    model: str | None = None

    @property
    def case(self) -> str:
        """``<dialect>/<scenario>``."""
        return f"{self.dialect}/{self.scenario}"


@dataclass(frozen=True)
class RouteError:
    """Why a path names no case: the HTTP status to answer and what to say."""

    status: int
    message: str


def parse(raw_path: str) -> Route | RouteError:
    """The :class:`Route` of a raw (still percent-encoded) request path, or why there is
    none. The query string must already be removed."""
    if len(raw_path) > MAX_PATH_CHARS:
        return RouteError(414, f"the path is longer than {MAX_PATH_CHARS} characters")
    if not raw_path.startswith("/s/"):
        return RouteError(404, "no such path: cases are under /s/<dialect>/<scenario>/")
    segments = raw_path[3:].split("/")
    decoded: list[str] = []
    for segment in segments:
        try:
            text = unquote(segment, errors="strict") if "%" in segment else segment
        except UnicodeDecodeError:
            return RouteError(404, f"refused path segment {segment!r}: not UTF-8")
        if text in (".", "..") or "\\" in text or _has_control(text):
            return RouteError(404, f"refused path segment {segment!r}")
        decoded.append(text)
    if len(decoded) < 2 or not decoded[0] or not decoded[1]:
        return RouteError(404, "a case path is /s/<dialect>/<scenario>/...")
    # An encoded "/" names no file: refused in the case's own segments; in the provider
    # path (a Bedrock model ARN: /model/arn%3Aaws%3A...%2Fname/converse-stream) it stays
    # encoded, so the segment stays one.
    if "/" in decoded[0] or "/" in decoded[1]:
        bad = segments[0] if "/" in decoded[0] else segments[1]
        return RouteError(404, f"refused path segment {bad!r}")
    dialect, scenario = decoded[0], decoded[1]
    for what, name in (("dialect", dialect), ("scenario", scenario)):
        if not is_file_name(name):
            return RouteError(404, f"{what} {name!r} cannot name a cassette ({NAME_RULE})")
    chunking: str | None = None
    faults: tuple[Fault, ...] = ()
    interaction: int | None = None
    run: str | None = None
    model: str | None = None
    seen: set[str] = set()
    rest = decoded[2:]
    consumed = 2
    while len(rest) >= 2 and rest[0] in _OPTIONS:
        key, value = rest[0], rest[1]
        if "/" in value:
            return RouteError(404, f"refused path segment {segments[consumed + 1]!r}")
        if key in seen:
            return RouteError(404, f"the option /{key}/ is given twice")
        seen.add(key)
        if key == "c":
            try:
                chunking = check_chunking(value) if value != "recorded" else value
            except ValueError as exc:
                return RouteError(404, f"{exc}, or recorded")
        elif key == "f":
            try:
                faults = parse_faults(value)
            except FaultError as exc:
                return RouteError(404, str(exc))
        elif key == "r":
            if not is_file_name(value):
                return RouteError(404, f"/r/ takes a run name ({NAME_RULE}), not {value!r}")
            run = value
        elif key == "as":
            if value not in interop.names():
                known = ", ".join(interop.names())
                return RouteError(404, f"/as/ takes a message model ({known}), not {value!r}")
            model = value
        elif not value.isdigit() or len(value) > 6:
            return RouteError(404, f"/i/ takes an interaction number, not {value!r}")
        else:
            interaction = int(value)
        rest = rest[2:]
        consumed += 2
    provider_path = "/" + "/".join(part.replace("/", "%2F") for part in rest) if rest else ""
    prefix = "/s/" + "/".join(segments[:consumed])
    return Route(
        dialect, scenario, chunking, faults, interaction, provider_path, prefix, run, model
    )


def provider_path_problem(dialect: str, method: str, provider_path: str) -> str | None:
    """Why ``method provider_path`` is not what a client of ``dialect`` sends, or ``None``."""
    found = formats.find(dialect)
    if found is None:
        return None  # a third-party dialect without a format: any path
    if any(endpoint.matches(method, provider_path) for endpoint in found.endpoints):
        return None
    expected = ", ".join(found.endpoint_names())
    shown = provider_path or "/"
    return f"{method} {shown} is not an endpoint of {dialect}; its clients send {expected}"


def allowed_methods(dialect: str, provider_path: str) -> tuple[str, ...]:
    """The methods a client of ``dialect`` sends to ``provider_path`` (empty: the path is
    none of its endpoints; a third-party dialect's paths take any method)."""
    found = formats.find(dialect)
    endpoints = () if found is None else found.endpoints
    return tuple(
        sorted(
            {endpoint.method for endpoint in endpoints if endpoint.pattern.fullmatch(provider_path)}
        )
    )


def _has_control(text: str) -> bool:
    return any(ord(c) < 0x20 or ord(c) == 0x7F for c in text)
