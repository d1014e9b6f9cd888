"""The :class:`Format` descriptor: what raf knows of one wire format, as data. No IO.

A wire format's knowledge is used in many places: the dialect reads its streams, the replay
server answers at its endpoints and with its error bodies, the request check compares its
request fields, the cassette importer recognises its recorded URIs, the client adapters map
its finish reasons. Each of those reads the format's :class:`Format` (through
:func:`raf.formats.get`) instead of keeping its own table, so adding a format is one
descriptor (docs/dialects.md, "Adding a format", lists the steps ``tests/test_formats.py``
checks).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, NamedTuple
from urllib.parse import parse_qsl, unquote, urlsplit

from raf.dialects.base import Dialect
from raf.dialects.tables import UsageTable
from raf.model.request import Conversation

__all__ = [
    "CONTENT_TYPES",
    "BuildRequest",
    "Endpoint",
    "ErrorDocument",
    "Format",
    "HttpApi",
    "ReadRequest",
    "RequestUrl",
    "UrlParts",
]

CONTENT_TYPES: Mapping[str, str] = {
    "sse": "text/event-stream",
    "json_array": "application/json",
    "json_lines": "application/x-ndjson",
    "aws_eventstream": "application/vnd.amazon.eventstream",
}
"""The ``content-type`` a provider labels a stream of each framing with."""

BuildRequest = Callable[[Conversation], dict[str, Any]]
"""Builds the request body a correct client of the format sends for a conversation (the
follow-up after tool calls included, with everything that must be echoed back where the
provider requires it). Pure: no IO."""

ReadRequest = Callable[[Mapping[str, Any]], Conversation]
"""Reads a request body of the format into a conversation, keeping what raf does not model
as :class:`raf.model.blocks.Raw` blocks and ``options.extra``. Never raises on a JSON object.
Pure: no IO."""

ErrorDocument = Callable[[int, str], object]
"""Builds the JSON document a provider of the format answers an HTTP error ``status`` with,
around a ``message`` (the shape its clients parse). Pure: no IO."""

RuleCheck = Callable[[Mapping[str, Any], Sequence[Any]], Iterable[tuple[str, str]]]
"""A request rule's check in one format (:data:`raf.formats.request_rules.RuleCheck`):
``(body, prior)`` → ``(field, message)`` for each place the body breaks the rule."""


@dataclass(frozen=True)
class Endpoint:
    """One endpoint a client of the format sends its requests to.

    Attributes:
        method: the HTTP method (``POST``, ``GET``).
        path: a regular expression the whole provider path matches (any prefix before the
            provider's own path: a base URL may add segments).
        shown: how the endpoint is named in messages and docs (``POST .../chat/completions``).
    """

    method: str
    path: str
    shown: str

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        """:attr:`path`, compiled."""
        return re.compile(self.path)

    def matches(self, method: str, provider_path: str) -> bool:
        """Whether ``method provider_path`` is this endpoint."""
        return method == self.method and self.pattern.fullmatch(provider_path) is not None


class UrlParts(NamedTuple):
    """What a request URL says (:meth:`RequestUrl.parts`); ``None``: it does not say it."""

    model: str | None
    method: str | None
    parameter: str | None
    """The value of the query parameter that chooses the framing."""


@dataclass(frozen=True)
class RequestUrl:
    """What a format's request URL says that other formats put in the body: the model, the
    method and the framing of the answer (Gemini's ``.../models/<model>:<method>?alt=sse``).

    Attributes:
        path: a regular expression searched in the URL's decoded path (without a trailing
            ``/``); its groups ``model`` and ``method`` are the model and the method (a
            group that takes no part, or is empty: the URL does not say it).
        parameters: the query parameters that choose the framing, under any of their names
            (the last one present counts).
        framings: the framing each value of that parameter asks a streaming method for
            (``None``: the parameter is absent); a value not listed asks for a framing raf
            does not read. The first value of a framing is how a request asks for it.
        stream_methods: the methods that stream; another method answers one JSON object
            (``json``) where a streaming one answers a JSON array (``json_array``).
    """

    path: str
    parameters: tuple[str, ...]
    framings: Mapping[str | None, str]
    stream_methods: tuple[str, ...]

    @cached_property
    def _path(self) -> re.Pattern[str]:
        return re.compile(self.path)

    def parts(self, url: str) -> UrlParts:
        """The model, method and framing parameter ``url`` (a whole URL, or a path and
        query) holds."""
        split = urlsplit(url)
        match = self._path.search(unquote(split.path).rstrip("/"))
        found = {} if match is None else match.groupdict()
        value = None
        for name, given in parse_qsl(split.query, keep_blank_values=True):
            if name in self.parameters:
                value = given
        return UrlParts(found.get("model") or None, found.get("method"), value)

    def framing(self, method: str | None, parameter: str | None) -> str | None:
        """The framing a request for ``method`` with the framing ``parameter`` asks for
        (``None``: no method, or a framing raf does not read)."""
        if method is None:
            return None
        found = self.framings.get(parameter)
        if found == "json_array" and method not in self.stream_methods:
            return "json"
        return found

    def same_framing(self, one: str | None, other: str | None) -> bool:
        """Whether two values of the framing parameter ask for the same framing (values
        raf does not read are the same only when equal)."""
        known = (self.framings.get(one), self.framings.get(other))
        if None in known:
            return one == other
        return known[0] == known[1]

    def asks(self, framing: str) -> str:
        """How a request asks for ``framing`` (``?alt=sse``, ``no alt``; ``its path`` for a
        format whose URL has no framing parameter, as Bedrock's)."""
        wanted = "json_array" if framing == "json" else framing
        for value, found in self.framings.items():
            if found == wanted:
                if not self.parameters:
                    return "its path"
                name = self.parameters[0]
                return f"no {name}" if value is None else f"?{name}={value}"
        return f"{framing} (never asked for)"

    def streams(self, url: str) -> bool:
        """Whether ``url`` asks for a streaming method."""
        return self.parts(url).method in self.stream_methods


@dataclass(frozen=True)
class HttpApi:
    """How a client calls the format's API to stream a turn (what
    :class:`raf.agent.http_client.HttpChatClient` reads): the URL and the headers.

    Attributes:
        base_url: the provider's base URL, up to its API version (``https://api.openai.com/v1``).
        path: appended to the base URL (after removing its trailing ``/``); ``{model}`` stands
            for the model, percent-encoded (Gemini's
            ``/models/{model}:streamGenerateContent?alt=sse``).
        auth_header: the header that carries the API key (``authorization``, ``x-api-key``).
        auth_scheme: what precedes the key in it (``Bearer ``; empty: the key alone).
        headers: headers every request carries (Anthropic's ``anthropic-version``).
        usage_request: request fields that ask a stream to report its usage, sent unless the
            caller turns them off (Chat Completions reports none without
            ``stream_options.include_usage``).
        options: where a chat client's options (``temperature``, ``top_p``, ``stop``,
            ``tool_choice``, ``parallel_tool_calls``) go in the body, as a dotted path, for
            those not sent under their own name at the top level (Gemini's
            ``generationConfig.topP``); ``None``: the format has no place for the option.
        default_max_tokens: the output token limit sent when neither the call nor the client
            sets one, for an API that requires it (Anthropic's ``max_tokens``); ``None``: the
            field is left out.
    """

    base_url: str
    path: str
    auth_header: str = "authorization"
    auth_scheme: str = "Bearer "
    headers: Mapping[str, str] = field(default_factory=dict)
    usage_request: Mapping[str, Any] = field(default_factory=dict)
    options: Mapping[str, str | None] = field(default_factory=dict)
    default_max_tokens: int | None = None


@dataclass(frozen=True)
class Format:
    """One wire format, self-described.

    Attributes:
        name: the format's name: its dialect's name, its cassette and golden folder.
        dialect: the factory of its dialect, the class in ``raf/formats/<name>/dialect.py``
            (the rules; ``dialect(**limits)`` is one stream's state); :func:`raf.dialects.create`
            makes it by the format's name.
        framing: the framing its streams come in by default (:mod:`raf.framing`).
        framings: every framing a provider of the format streams it in.
        sniff: byte patterns that mark a body of the format (``--dialect auto``).
        finish_reasons: its wire finish reasons that are not raf's own, mapped to raf's
            (:func:`raf.dialects.tables.finish_reason`).
        usage: where each usage count comes from (:class:`raf.dialects.tables.UsageTable`).
        endpoints: the paths and methods its clients send requests to.
        error_document: the error JSON its provider answers an HTTP error with.
        request_fields: the request body fields that say what a client asked for (the replay
            server's request check compares them).
        request_url: what its request URLs say that other formats put in the body
            (:class:`RequestUrl`; ``None``: nothing).
        equivalences: the request check's equivalences particular to the format that apply to
            its requests (by name: :data:`raf.serve.request_check.EQUIVALENCES` marked
            ``specific``), besides those that apply to every format.
        url_fields: the parts of the request URL that do so (``url.model``...), before the
            body's.
        recorded_uri: a regular expression searched in a recorded request URI's path: where it
            matches earliest among the formats, the URI is of this format.
        placeholder_uri: the request URI an imported raw body of the format is recorded with.
        strategies: the dotted name of the module of its hypothesis strategies
            (``raf.formats.<name>.strategies``: ``responses``, ``streams``, ``render``), never
            imported by the format itself (hypothesis is a test dependency);
            :mod:`raf.testing.strategies` makes it importable as
            ``raf.testing.strategies.<name>``.
        build_request: the request half, building a body (:data:`BuildRequest`).
        read_request: the request half, reading a body (:data:`ReadRequest`).
        http: how a client calls the API (:class:`HttpApi`; ``None``: raf's chat client
            cannot call it).
        request_rules: the checks of the request rules that apply to the format, by rule id
            (:mod:`raf.formats.request_rules`; the code is the format's ``rules.py``).
    """

    name: str
    dialect: Callable[..., Dialect]
    framing: str
    framings: tuple[str, ...]
    sniff: tuple[bytes, ...]
    finish_reasons: Mapping[str, str]
    usage: UsageTable
    endpoints: tuple[Endpoint, ...]
    error_document: ErrorDocument
    request_fields: tuple[str, ...]
    recorded_uri: str
    placeholder_uri: str
    url_fields: tuple[str, ...] = ()
    request_url: RequestUrl | None = None
    equivalences: tuple[str, ...] = ()
    content_types: Mapping[str, str] = field(default_factory=lambda: dict(CONTENT_TYPES))
    strategies: str | None = None
    build_request: BuildRequest | None = None
    read_request: ReadRequest | None = None
    http: HttpApi | None = None
    request_rules: Mapping[str, RuleCheck] = field(default_factory=dict)

    @cached_property
    def _recorded(self) -> re.Pattern[str]:
        return re.compile(self.recorded_uri)

    def recorded_at(self, path: str) -> int | None:
        """Where in a recorded request URI's ``path`` this format's mark starts, or ``None``
        when the path is not of this format."""
        match = self._recorded.search(path)
        return None if match is None else match.start()

    def endpoint_names(self) -> tuple[str, ...]:
        """Its endpoints as shown in messages (``POST .../chat/completions``)."""
        return tuple(endpoint.shown for endpoint in self.endpoints)
