"""What counts as a secret in a cassette, and where it is. No IO.

One set of rules serves both sides: :mod:`raf.cassettes.scrub` removes what these functions
find (when a cassette is saved, imported or recorded) and ``raf cassette lint`` reports it,
so what is scrubbed and what is flagged never drift apart. docs/secrets.md has the table.

A secret is found in one of three ways:

* **by its shape**: a token with a known prefix (``sk-proj-``, ``ghp_``, ``AKIA``, a JWT, a
  PEM private key, ``Bearer ...``, URL userinfo...), wherever text is;
* **by its name**: the value of a credential header, query parameter or JSON member
  (``authorization``, ``key=``, ``"client_secret"``...). Unprefixed shapes (40 characters of
  base64, 32 hex digits) count only there: ids look the same;
* **in what the text means**: every JSON string literal is also read with its escapes
  decoded (twice, for JSON text inside a JSON string such as tool-call arguments), and the
  text, reasoning and tool-call arguments a model streamed are reassembled from the SSE
  events by raf's own pipeline, so a key split over two events is seen whole.

Each finding is a :class:`Hit`: what kind of secret, its text, and the :class:`Edit` values
that remove it from the text it was found in. Positions always refer to that text; a secret
found in decoded text is mapped back to the raw characters it came from, so removing it
replaces whole escape sequences and leaves every JSON literal valid.

Every scan is linear in its input: candidates are found by one precompiled regular
expression of literal prefixes, and each candidate is checked once where it starts.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import functools
import json.decoder
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, cast
from urllib.parse import unquote_plus

from raf import dialects
from raf import framing as framings
from raf.cassettes.coding import BodyNotDecoded, codings, content_encoding, decode
from raf.converter import AgentResponseConverter
from raf.errors import CassetteError, DialectError, EventStreamError, SSELimitExceeded
from raf.framing.sse import ServerSentEvent
from raf.model import contents, updates

__all__ = [
    "REDACTED",
    "SECRET_HEADERS",
    "SECRET_JSON_MEMBERS",
    "SECRET_QUERY_PARAMETERS",
    "Edit",
    "Hit",
    "SecretFinding",
    "SecretNotScrubbed",
    "apply_edits",
    "body_findings",
    "document_findings",
    "find_secrets",
    "is_placeholder",
    "is_secret_header",
    "is_secret_member",
    "is_secret_query_parameter",
    "shorten",
    "stream_hits",
    "text_hits",
    "uri_hits",
]

REDACTED = "REDACTED"
"""What a scrubbed value is replaced with."""


class SecretNotScrubbed(CassetteError):
    """Scrubbing found a secret it cannot remove without changing the cassette's meaning
    (e.g. a streamed key whose fragments cannot be located in the recorded bytes); the
    cassette is not written. ``where`` names the interaction and ``kind`` the secret."""

    def __init__(self, where: str, kind: str, detail: str) -> None:
        super().__init__(
            f"{where}: {kind} {detail}; the cassette was not written "
            "(remove the secret by hand, or save with scrub=False to keep everything)"
        )
        self.where = where
        self.kind = kind


# -- results ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace ``text[start:end]`` with ``replacement``."""

    start: int
    end: int
    replacement: str = REDACTED


@dataclass(frozen=True, slots=True)
class Hit:
    """One secret found in a text.

    Attributes:
        kind: what it is (``"GitHub token"``, ``"credential header"``...).
        secret: its text (decoded, when it was found in decoded text); never print it whole.
        edits: what removes it, in positions of the scanned text.
        label: the start of the lint message (``"GitHub token in the text"``).
        pieces: how many streamed events it was spread over (1 when not streamed).
        mapped: every piece could be located in the raw text; when ``False`` the edits are
            incomplete and scrubbing refuses to write the cassette.
        channel: for a streamed secret, ``"text"``, ``"reasoning"`` or ``"tool arguments"``.
    """

    kind: str
    secret: str
    edits: tuple[Edit, ...]
    label: str = ""
    pieces: int = 1
    mapped: bool = True
    channel: str = ""

    @property
    def start(self) -> int:
        """Where the first edit begins."""
        return min(e.start for e in self.edits) if self.edits else 0

    @property
    def end(self) -> int:
        """Where the last edit ends."""
        return max(e.end for e in self.edits) if self.edits else 0

    def moved(self, mapping: Callable[[int], int]) -> Hit:
        """The same hit with every edit's positions passed through ``mapping``."""
        return Hit(
            self.kind,
            self.secret,
            tuple(Edit(mapping(e.start), mapping(e.end), e.replacement) for e in self.edits),
            self.label,
            self.pieces,
            self.mapped,
            self.channel,
        )


def apply_edits(text: str, edits: list[Edit]) -> str:
    """``text`` with ``edits`` applied. Overlapping edits merge into one that covers them
    both (it reads :data:`REDACTED` if either did); a text without edits is returned as is."""
    if not edits:
        return text
    ordered = sorted(edits, key=lambda e: (e.start, -e.end))
    out: list[str] = []
    position = 0
    start, end, replacement = ordered[0].start, ordered[0].end, ordered[0].replacement
    for edit in ordered[1:]:
        if edit.start < end:
            end = max(end, edit.end)
            if edit.replacement:
                replacement = replacement or edit.replacement
            continue
        out += (text[position:start], replacement)
        position = end
        start, end, replacement = edit.start, edit.end, edit.replacement
    out += (text[position:start], replacement, text[end:])
    return "".join(out)


def shorten(secret: str) -> str:
    """A secret as a report may show it: its first few characters, never the whole."""
    if len(secret) >= 16:
        return secret[:6] + "..."
    if len(secret) >= 10:
        return secret[:2] + "..."
    return "..."


# -- secrets by their shape -------------------------------------------------------------------


@dataclass(frozen=True)
class _Shape:
    """A token shape: the kind it names, the literal prefixes it can start with, and the
    pattern that must match where a prefix is found (the group ``s``, when the pattern has
    one, is the secret; otherwise the whole match is)."""

    kind: str
    prefixes: tuple[str, ...]
    pattern: re.Pattern[str]
    boundary: bool = True  # preceded by a non-word character or the start
    check: Callable[[str], bool] | None = None


def _has_digit(secret: str) -> bool:
    return any(c.isdigit() for c in secret)


def _is_basic_credential(secret: str) -> bool:
    """Basic auth is base64 of ``user:password``: ordinary words after "Basic" are not."""
    try:
        decoded = base64.b64decode(secret + "=" * (-len(secret) % 4), validate=True)
        text = decoded.decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return False
    return ":" in text and text.isprintable()


# AWS's documented unique-id prefixes (AKIA: an access key, ASIA: a temporary one...).
_AWS: tuple[str, ...] = ("A3T", "AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AIPA")
_AWS += ("ANPA", "ANVA", "APKA", "AROA", "ASCA")
_KEY = r"[A-Za-z0-9_\-]"

_SHAPES: tuple[_Shape, ...] = (
    # Specific "sk-" shapes first: the first shape that matches at a place names it.
    _Shape("Anthropic API key", ("sk-",), re.compile(rf"sk-ant-api03-{_KEY}{{80,}}")),
    _Shape("Anthropic admin key", ("sk-",), re.compile(rf"sk-ant-admin01-{_KEY}{{80,}}")),
    _Shape("Anthropic API key", ("sk-",), re.compile(rf"sk-ant-{_KEY}{{20,}}")),  # other lengths
    _Shape("OpenRouter API key", ("sk-",), re.compile(r"sk-or-v1-[0-9a-f]{64}")),
    _Shape("OpenAI service account key", ("sk-",), re.compile(rf"sk-svcacct-{_KEY}{{20,}}")),
    _Shape("OpenAI admin key", ("sk-",), re.compile(rf"sk-admin-{_KEY}{{20,}}")),
    _Shape("OpenAI-style API key", ("sk-",), re.compile(rf"sk-{_KEY}{{20,}}"), check=_has_digit),
    _Shape(
        "Stripe key",
        ("sk_live_", "sk_test_", "rk_live_", "rk_test_"),
        re.compile(r"[sr]k_(?:live|test)_[0-9A-Za-z]{16,}"),
    ),
    _Shape("Google API key", ("AIza",), re.compile(r"AIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])")),
    _Shape("Google OAuth access token", ("ya29.",), re.compile(r"ya29\.[0-9A-Za-z_\-]{30,}")),
    _Shape(
        "AWS access key id",
        _AWS,
        re.compile(r"(?:A3T[A-Z0-9]|A[A-Z]{3})[A-Z0-9]{16}(?![0-9A-Za-z_])"),
    ),
    _Shape(
        "GitHub token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        re.compile(r"gh[pousr]_[A-Za-z0-9]{36,}"),
    ),
    _Shape("GitHub token", ("github_pat_",), re.compile(r"github_pat_[A-Za-z0-9_]{22,}")),
    _Shape("GitLab token", ("glpat-",), re.compile(r"glpat-[A-Za-z0-9_\-]{20,}")),
    _Shape(
        "Slack token",
        ("xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xapp-"),
        re.compile(r"(?:xox[bpars]|xapp)-[0-9A-Za-z\-]{10,}"),
        check=_has_digit,
    ),
    _Shape(
        "Slack webhook URL",
        ("hooks.slack.com/services/",),
        re.compile(r"hooks\.slack\.com/services/(?P<s>[A-Za-z0-9_/\-]{10,})"),
        boundary=False,
    ),
    _Shape(
        "JSON Web Token",
        ("eyJ",),
        re.compile(r"eyJ[A-Za-z0-9_\-]+\.eyJ[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]*"),
    ),
    _Shape("Groq API key", ("gsk_",), re.compile(r"gsk_[A-Za-z0-9]{20,}")),
    _Shape("Hugging Face token", ("hf_",), re.compile(r"hf_[A-Za-z0-9]{30,}")),
    _Shape("xAI API key", ("xai-",), re.compile(r"xai-[A-Za-z0-9]{20,}")),
    _Shape("Replicate API token", ("r8_",), re.compile(r"r8_[A-Za-z0-9]{30,}")),
    _Shape("Perplexity API key", ("pplx-",), re.compile(r"pplx-[A-Za-z0-9]{32,}")),
    _Shape("npm token", ("npm_",), re.compile(r"npm_[A-Za-z0-9]{36,}")),
    _Shape(
        "PyPI token",
        ("pypi-AgEIcHlwaS5vcmc",),
        re.compile(r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}"),
    ),
    _Shape(
        "private key (PEM)",
        ("-----BEGIN",),
        # The body: base64, spaces, header lines (Proc-Type: 4,ENCRYPTED), and the two
        # characters of a JSON "\n" escape; possessive, so a BEGIN without END costs one pass.
        re.compile(
            r"-----BEGIN[A-Z ]*PRIVATE KEY-----"
            r"(?:[A-Za-z0-9+/=\s,:]|\\[nr]|-(?!----))*+"
            r"(?:-----END[A-Z ]*PRIVATE KEY-----)?"
        ),
        boundary=False,
    ),
    _Shape(
        "bearer token",
        ("Bearer", "bearer"),
        re.compile(r"[Bb]earer\s+(?P<s>(?!REDACTED\b)[A-Za-z0-9._~+/\-]{16,}=*)"),
    ),
    _Shape(
        "Basic auth credentials",
        ("Basic",),
        re.compile(r"Basic\s+(?P<s>(?!REDACTED\b)[A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])"),
        check=_is_basic_credential,
    ),
    _Shape(
        "URL userinfo",
        ("://",),
        re.compile(r"://(?P<s>(?!REDACTED@)[^\s/?#@:\"'<>\\]+:[^\s/?#@\"'<>\\]*)@"),
        boundary=False,
    ),
)

_BY_PREFIX: dict[str, tuple[_Shape, ...]] = {}
for _shape in _SHAPES:
    for _prefix in _shape.prefixes:
        _BY_PREFIX[_prefix] = (*_BY_PREFIX.get(_prefix, ()), _shape)


def _trie(words: list[str]) -> str:
    """A regular expression matching any of ``words``, shaped as a trie (``A(?:KIA|SIA)``)
    so that the engine tries one branch per character instead of every word."""
    tree: dict[str, Any] = {}
    for word in words:
        node = tree
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def emit(node: dict[str, Any]) -> str:
        branches = [re.escape(c) + emit(sub) for c, sub in sorted(node.items()) if c]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 and "" not in node else f"(?:{'|'.join(branches)})"
        return body + "?" if "" in node else body

    return emit(tree)


# The literal prefixes of every shape in one trie: the regular expression engine finds the
# candidates in one fast pass, and only candidates are checked in Python.
_CANDIDATE = re.compile(_trie(sorted(_BY_PREFIX)))


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _shape_hits(text: str) -> list[Hit]:
    """Every token of a known shape in ``text``, left to right, never overlapping."""
    hits: list[Hit] = []
    search = _CANDIDATE.search
    position = 0
    while (candidate := search(text, position)) is not None:
        start = candidate.start()
        found = None
        for shape in _BY_PREFIX[candidate.group()]:
            if shape.boundary and start and _is_word(text[start - 1]):
                continue  # "risk-averse", "task_ghp_...": inside a word
            if shape.kind == "URL userinfo" and not (start and text[start - 1].isalnum()):
                continue  # "://" after a scheme only
            match = shape.pattern.match(text, start)
            if match is None:
                continue
            group = "s" if "s" in shape.pattern.groupindex else 0
            secret = match.group(group)
            if shape.check is not None and not shape.check(secret):
                continue
            found = match
            hits.append(
                Hit(
                    shape.kind,
                    secret,
                    (Edit(match.start(group), match.end(group)),),
                    f"{shape.kind} in the text",
                )
            )
            break
        position = found.end() if found is not None else start + 1
    return hits


def find_secrets(text: str) -> Iterator[tuple[str, str]]:
    """``(kind, secret)`` for every token of a known shape in ``text`` (prefixed keys,
    tokens, JWTs, PEM private keys, bearer and Basic credentials, URL userinfo)."""
    for hit in _shape_hits(text):
        yield hit.kind, hit.secret


# -- secrets by their name --------------------------------------------------------------------

SECRET_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "api-key",
        "x-api-key",
        "x-goog-api-key",
        "cookie",
        "set-cookie",
        "openai-organization",
        "openai-project",
        "anthropic-organization-id",
        "ocp-apim-subscription-key",
        "x-amz-security-token",
        "x-amz-signature",
        "x-amz-credential",
        "x-functions-key",
        "x-auth-token",
        "x-access-token",
        "private-token",
        "x-goog-iam-authorization-token",
        "x-vault-token",
        "x-csrf-token",
    }
)
"""Headers whose values are credentials or account identifiers (compared lower-case). Other
names count too when :func:`is_secret_header` says so."""

_ALLOWED_HEADERS = frozenset(
    {
        "idempotency-key",
        "sec-websocket-key",
        "sec-websocket-accept",
        "access-control-allow-credentials",
    }
)
_HEADER_NAME = re.compile(
    r"(?:^|[-_])(?:key|token|secret|signature|password|passwd|credential)$"
    r"|api[-_]?key|(?:access|auth|session|bearer|private)[-_]?token"
)

SECRET_QUERY_PARAMETERS = frozenset(
    {
        "key",
        "api_key",
        "apikey",
        "api-key",
        "access_token",
        "refresh_token",
        "id_token",
        "auth_token",
        "token",
        "auth",
        "sig",
        "signature",
        "x-amz-signature",
        "x-amz-security-token",
        "x-amz-credential",
        "client_secret",
        "secret",
        "password",
        "passwd",
        "code",
        "subscription-key",
        "private_token",
    }
)
"""URI query parameters whose values are credentials (compared lower-case). Other names count
too when :func:`is_secret_query_parameter` says so."""

_QUERY_NAME = re.compile(
    r"(?:^|[-_])(?:key|secret|password|passwd|signature|credential)$"
    r"|api[-_]?key|(?:access|refresh|auth|id|session|security)[-_]?token$"
)

SECRET_JSON_MEMBERS = frozenset(
    {
        "authorization",
        "proxy_authorization",
        "cookie",
        "set_cookie",
        "secret",
        "password",
        "passwd",
        "passphrase",
        "credentials",
    }
)
"""JSON member names (normalised: lower case, ``_`` for ``-``, camelCase split) whose string
values are credentials. Names ending as :data:`_MEMBER_NAME` says count too; a bare
``token`` or ``key`` does not (logprobs have ``{"token": "Hello"}``, tool arguments have
``"key"``)."""

_MEMBER_NAME = re.compile(
    r"(?:^|_)(?:api_?key|api_?token|secret_?key|secret|password|passwd|private_key"
    r"|client_secret|access_token|refresh_token|id_token|auth_token|session_token"
    r"|bearer_token|oauth_token|security_token|subscription_key|secret_access_key"
    r"|access_key_secret|account_key|signing_key|master_key)$"
)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")

_PLACEHOLDER = re.compile(
    r"(?:(?:Bearer|Basic|Token)\s+)?"
    r"(?:[\W_]*(?:redacted|scrubbed|filtered|hidden|removed|masked|x{3,}|\*{3,})[\W_]*"
    r"|\$\{?[A-Z_][A-Z0-9_]*\}?|<[a-z_ \-]+>|[\W_]*)",
    re.IGNORECASE,
)


def is_placeholder(value: str) -> bool:
    """Whether a credential's value is empty or already stands in for one
    (``REDACTED``, ``<redacted>``, ``***``, ``${OPENAI_API_KEY}``...)."""
    return _PLACEHOLDER.fullmatch(value.strip()) is not None


@functools.lru_cache(maxsize=4096)
def is_secret_header(name: str) -> bool:
    """Whether header ``name``'s values are credentials: :data:`SECRET_HEADERS`, and names
    ending in ``-key``, ``-token``, ``-secret``, ``-signature``, ``-password``,
    ``-credential`` or holding ``api-key``/``apikey``, except ``idempotency-key``,
    ``sec-websocket-key`` and their like (``-tokens`` is a count: not a secret)."""
    lower = name.lower()
    if lower in SECRET_HEADERS:
        return True
    if lower in _ALLOWED_HEADERS or lower.endswith("time-to-first-token"):
        return False
    return _HEADER_NAME.search(lower) is not None


@functools.lru_cache(maxsize=4096)
def is_secret_query_parameter(name: str) -> bool:
    """Whether query parameter ``name`` (decoded) carries a credential:
    :data:`SECRET_QUERY_PARAMETERS` (``X-Amz-Signature`` as well as ``x-amz-signature``), and
    names ending in ``key``, ``secret``, ``password``, ``signature``, ``access_token``..."""
    lower = name.lower()
    return lower in SECRET_QUERY_PARAMETERS or _QUERY_NAME.search(lower) is not None


@functools.lru_cache(maxsize=4096)
def is_secret_member(name: str) -> bool:
    """Whether a JSON member called ``name`` holds a credential (``api_key``, ``apiKey``,
    ``client_secret``, ``aws_secret_access_key``, ``password``, ``private_key``...)."""
    normal = _CAMEL.sub("_", name).lower().replace("-", "_").replace(" ", "_")
    return normal in SECRET_JSON_MEMBERS or _MEMBER_NAME.search(normal) is not None


# -- JSON text: members by name, and literals decoded ------------------------------------------

# A JSON string literal on one line (raw newlines never occur inside one, so a stray quote in
# a comment line cannot pair quotes across lines). Group 1 is the content, group 2 the closing
# quote: a literal that does not close on its line is consumed to the line's end, so no
# later quote of that line is read again (every pattern here is linear in its input).
_STRING = re.compile(r'"((?:[^"\\\r\n]++|\\.)*+)(?:(")|\\?(?=[\r\n]|\Z))')
# The same literals, but only those holding an escape are returned (group 1): the others,
# and everything between literals, are skipped by the regular expression engine itself.
_ESCAPED_STRING = re.compile(
    r'(?:[^"]++'  # anything but a quote
    r'|"[^"\\\r\n]*+"'  # a literal without escapes
    r'|"(?:[^"\\\r\n]++|\\.)*+\\?(?=[\r\n]|\Z))*+'  # a literal that does not close on its line
    r'(?:"([^"\\\r\n]*+\\.(?:[^"\\\r\n]++|\\.)*+)"|\Z)'
)
# A member with a string value: "name" : "value" (the name without escapes).
_MEMBER = re.compile(r'"([^"\\\r\n]{1,200})"[ \t\r\n]*:[ \t\r\n]*"((?:[^"\\\r\n]++|\\.)*+)"')
_ESCAPE = re.compile(
    r"\\u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})|\\u([0-9a-fA-F]{4})|\\(.)"
)
# The standard library's string scanner (in C; not in the type stubs): the value of the JSON
# literal whose content starts at an index, and the index after its closing quote.
_scanstring: Callable[[str, int, bool], tuple[str, int]] = vars(json.decoder)["scanstring"]


def _decode(text: str, start: int, end: int) -> str | None:
    """The value of the JSON string literal whose content is ``text[start:end]``."""
    if text.find("\\", start, end) < 0:
        return text[start:end]
    try:
        value, _ = _scanstring(text, start, False)
    except ValueError:
        return None
    return value


def _raw_positions(text: str, start: int, end: int, wanted: Iterable[int]) -> dict[int, int]:
    """For the literal content ``text[start:end]``: where in ``text`` each ``wanted`` decoded
    position begins (an escape is one decoded character; the end maps to ``end``). One pass
    over the escapes; memory for the answers only, whatever the literal's length."""
    targets = sorted(set(wanted))
    out: dict[int, int] = {}
    n = 0
    decoded, raw = 0, start
    for escape in _ESCAPE.finditer(text, start, end):
        run_end = decoded + escape.start() - raw  # the decoded index of the escape
        while n < len(targets) and targets[n] <= run_end:
            out[targets[n]] = raw + targets[n] - decoded
            n += 1
        if n == len(targets):
            return out
        decoded, raw = run_end + 1, escape.end()
    for target in targets[n:]:
        out[target] = raw + target - decoded
    return out


def _member_hits(text: str) -> list[Hit]:
    """The string values of members whose name says they are credentials."""
    hits: list[Hit] = []
    for member in _MEMBER.finditer(text):
        name = member.group(1)
        if not is_secret_member(name):
            continue
        start, end = member.span(2)
        value = _decode(text, start, end)
        if value is None or is_placeholder(value):
            continue
        hits.append(
            Hit(
                "credential by name",
                value,
                (Edit(start, end),),
                f"JSON member {name!r} holds a credential",
            )
        )
    return hits


def _json_hits(text: str, depth: int) -> list[Hit]:
    """Shapes and named members in ``text``, and in each string literal's decoded value down
    to ``depth`` levels of escaping, all in positions of ``text``."""
    hits = _shape_hits(text)
    if '"' not in text:
        return hits
    hits += _member_hits(text)
    if depth < 1 or "\\" not in text:
        return hits
    for literal in _ESCAPED_STRING.finditer(text):
        start, end = literal.span(1)
        if start < 0:
            continue  # the end of the text
        value = _decode(text, start, end)
        if value is None:
            continue
        inner = _json_hits(value, depth - 1)
        if inner:
            wanted = (p for hit in inner for e in hit.edits for p in (e.start, e.end))
            raw = _raw_positions(text, start, end, wanted)
            hits += (hit.moved(raw.__getitem__) for hit in inner)
    return hits


def text_hits(text: str) -> list[Hit]:
    """Every secret in a free text (a body, a header value, a note): shapes anywhere,
    members named as credentials, and both again in every JSON string literal read with its
    escapes decoded, and once more for JSON text inside a literal (``"{\\"key\\": ...}"``)."""
    return _json_hits(text, 2)


# -- URIs -------------------------------------------------------------------------------------


def uri_hits(uri: str) -> list[Hit]:
    """Secrets in a request URI: any userinfo (removed whole, with its ``@``), the values of
    credential query parameters, and secrets of a known shape anywhere."""
    hits: list[Hit] = []
    userinfo: tuple[int, int] | None = None
    scheme = uri.find("://")
    if scheme > 0:
        authority = scheme + 3
        stop = len(uri)
        for char in "/?#":
            found = uri.find(char, authority)
            if 0 <= found < stop:
                stop = found
        at = uri.rfind("@", authority, stop)
        if at >= 0 and uri[authority:at] != REDACTED:
            userinfo = (authority, at + 1)
            hits.append(
                Hit(
                    "URL userinfo",
                    uri[authority:at],
                    (Edit(authority, at + 1, ""),),
                    "URL userinfo holds a credential",
                )
            )
    query = uri.find("?")
    if query >= 0:
        fragment = uri.find("#", query)
        stop = len(uri) if fragment < 0 else fragment
        position = query + 1
        while position <= stop:
            amp = uri.find("&", position, stop)
            piece_end = stop if amp < 0 else amp
            equals = uri.find("=", position, piece_end)
            if equals >= 0:
                name = unquote_plus(uri[position:equals])
                value = uri[equals + 1 : piece_end]
                if is_secret_query_parameter(name) and not is_placeholder(unquote_plus(value)):
                    hits.append(
                        Hit(
                            "credential query parameter",
                            unquote_plus(value),
                            (Edit(equals + 1, piece_end),),
                            f"query parameter {name!r} holds a credential",
                        )
                    )
            position = piece_end + 1
    hits += (
        hit
        for hit in text_hits(uri)
        if userinfo is None or hit.end <= userinfo[0] or hit.start >= userinfo[1]
    )
    return hits


# -- streams: the text, reasoning and tool arguments a model streamed ---------------------------

# The end of an SSE block: a line terminator followed by an empty line.
_BLOCK_END = re.compile(r"(?:\r\n|\r(?!\n)|\n)(?:\r\n|\r(?!\n)|\n)")
_SURROGATE = re.compile("[\udc80-\udcff]")
_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
_KEY_AFTER = re.compile(r"[ \t\r\n]*:")


@dataclass(slots=True)
class _Atom:
    """One streamed fragment: its value and the region of the body it came from (the bytes
    from the previous dispatched event to the end of its own), ``-1`` when unknown."""

    region: int
    value: str


@dataclass(slots=True)
class _Pending:
    region: int
    value: str
    used: bool = False


@dataclass
class _Stream:
    """The channels of one streamed body, and where their fragments came from."""

    text: str
    regions: list[tuple[int, int]] = field(default_factory=list)
    channels: dict[tuple[str, str], list[_Atom]] = field(default_factory=dict)
    literals: dict[int, dict[str, list[tuple[int, int]]]] = field(default_factory=dict)

    def literals_of(self, region: int) -> dict[str, list[tuple[int, int]]]:
        """Decoded value -> content spans of the string literals (not member names) of a
        region, as the SSE decoder sees them (invalid bytes read as U+FFFD)."""
        cached = self.literals.get(region)
        if cached is not None:
            return cached
        text = self.text
        start, end = self.regions[region]
        found: dict[str, list[tuple[int, int]]] = {}
        for literal in _STRING.finditer(text, start, end):
            if literal.start(2) < 0 or _KEY_AFTER.match(text, literal.end()):
                continue  # not closed on its line, or a member name
            content = literal.span(1)
            value = _decode(text, *content)
            if value is None:
                continue
            if _SURROGATE.search(value):
                seen = value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
                if len(seen) != len(value):
                    continue  # positions would not line up; the piece stays unmapped
                value = seen
            found.setdefault(value, []).append(content)
        self.literals[region] = found
        return found


def _read_stream(text: str, dialect: str) -> _Stream:
    """Run the body through raf's pipeline, event by event, noting which region of the body
    each streamed fragment came from."""
    stream = _Stream(text)
    machine = dialects.create(dialect)
    sse = framings.create(getattr(machine, "framing", "sse"))
    converter = AgentResponseConverter(clock=lambda: _EPOCH)
    channels = stream.channels
    old: list[_Pending] = []  # argument fragments not yet emitted (a call without a name)
    position = region_start = 0
    stop = False
    ends = [m.end() for m in _BLOCK_END.finditer(text)]
    if not ends or ends[-1] != len(text):
        ends.append(len(text))
    for end in ends:
        if machine.done or stop:
            break
        chunk = text[position:end].encode("utf-8", "surrogateescape")
        position = end
        try:
            events = sse.feed(chunk)
        except (SSELimitExceeded, EventStreamError) as exc:
            events = cast(list[ServerSentEvent], exc.events)
            stop = True  # the pipeline reads no further either
        if not events:
            continue
        region = len(stream.regions)
        stream.regions.append((region_start, end))
        region_start = end
        batch = [u for event in events for u in machine.feed(event)]
        fresh = [
            _Pending(region, u.arguments_delta)
            for u in batch
            if isinstance(u, updates.ToolCallDelta) and u.arguments_delta
        ] + [
            _Pending(region, u.args_delta)
            for u in batch
            if isinstance(u, updates.ToolCallArgs) and u.args_delta
        ]
        for result in converter.results(batch):
            for content in result.contents:
                kind = type(content)
                if kind is contents.Text:
                    key = ("text", "")
                    atoms = [_Atom(region, cast(contents.Text, content).delta)]
                elif kind is contents.Reasoning:
                    key = ("reasoning", "")
                    atoms = [_Atom(region, cast(contents.Reasoning, content).delta)]
                elif kind is contents.ToolCallArgs:
                    args = cast(contents.ToolCallArgs, content)
                    key = ("tool arguments", args.call_id)
                    atoms = _sources(args.args_delta, fresh, old)
                else:
                    continue
                channels.setdefault(key, []).extend(atoms)
        old += (p for p in fresh if not p.used)
    return stream


def _sources(delta: str, fresh: list[_Pending], old: list[_Pending]) -> list[_Atom]:
    """The fragments an emitted argument delta is made of: usually one fragment of this
    event; for a call whose name came late, the fragments held back until then."""
    for pending in fresh:
        if not pending.used and pending.value == delta:
            pending.used = True
            return [_Atom(pending.region, delta)]
    chosen: list[_Pending] = []
    position = 0
    for pending in (*old, *fresh):
        if not pending.used and delta.startswith(pending.value, position):
            chosen.append(pending)
            position += len(pending.value)
            if position == len(delta):
                for p in chosen:
                    p.used = True
                return [_Atom(p.region, p.value) for p in chosen]
    return [_Atom(-1, delta)]


def stream_hits(text: str, dialect: str) -> list[Hit]:
    """Secrets in what a streamed body means: the text, the reasoning and each tool call's
    arguments (with their string values decoded), reassembled by raf's pipeline, so that a
    key split over several events is found whole. Nothing for a dialect raf does not have.

    Each hit's edits act on ``text``: the first fragment the secret touches gets
    :data:`REDACTED` in place of its part of the secret, later fragments lose theirs, so the
    reassembled text reads as a scrubbed plain secret would; each fragment is the JSON string
    literal of its event whose decoded value equals it (literals with the same value in the
    same event, such as OpenRouter's ``reasoning_details`` copy, get the same edit).
    """
    try:
        framing = getattr(dialects.factory(dialect), "framing", "sse")
    except DialectError:
        return []  # no dialect of this name (yet): nothing to reassemble
    if framing == "sse" and "data:" not in text:
        return []
    stream = _read_stream(text, dialect)
    hits: list[Hit] = []
    for (channel, _call), atoms in stream.channels.items():
        starts: list[int] = []
        size = 0
        for atom in atoms:
            starts.append(size)
            size += len(atom.value)
        joined = "".join(atom.value for atom in atoms)
        hits += (_map_back(stream, hit, channel, atoms, starts) for hit in text_hits(joined))
    return hits


def _map_back(
    stream: _Stream, hit: Hit, channel: str, atoms: list[_Atom], starts: list[int]
) -> Hit:
    """The raw edits of a hit found in a channel's text: the first fragment it touches gets
    the edit's replacement, the others lose their part."""
    edits: list[Edit] = []
    regions: set[int] = set()
    mapped = True
    for edit in hit.edits:
        first = True
        index = max(bisect.bisect_right(starts, edit.start) - 1, 0)
        position = edit.start
        while index < len(atoms) and position < edit.end:
            atom = atoms[index]
            atom_start = starts[index]
            atom_end = atom_start + len(atom.value)
            index += 1
            if atom_end <= position:
                continue
            low, high = position - atom_start, min(edit.end, atom_end) - atom_start
            raw = _locate(stream, atom, low, high, edit.replacement if first else "")
            if raw is None:
                mapped = False
            else:
                edits += raw
            regions.add(atom.region)
            first = False
            position = atom_end
        if position < edit.end:
            mapped = False
    label = f"{hit.kind} in the streamed {channel}"
    if len(regions) > 1:
        label += f", split over {len(regions)} events"
    return Hit(hit.kind, hit.secret, tuple(edits), label, len(regions), mapped, channel)


def _locate(
    stream: _Stream, atom: _Atom, low: int, high: int, replacement: str
) -> list[Edit] | None:
    """The raw edits that replace ``atom.value[low:high]`` in its event, or ``None``."""
    if atom.region < 0:
        return None
    spans = stream.literals_of(atom.region).get(atom.value)
    if not spans:
        return None
    text = stream.text
    out: list[Edit] = []
    for start, end in spans:
        if text.find("\\", start, end) < 0:
            out.append(Edit(start + low, start + high, replacement))
        else:
            raw = _raw_positions(text, start, end, (low, high))
            out.append(Edit(raw[low], raw[high], replacement))
    return out


# -- documents (what lint reads) --------------------------------------------------------------


@dataclass(frozen=True)
class SecretFinding:
    """One secret in a cassette document: the place, the kind, a message naming a shortened
    form of the secret (never the whole)."""

    where: str
    kind: str
    message: str


def _report(where: str, hit: Hit, coding: str | None = None) -> SecretFinding:
    label = hit.label if coding is None else f"{hit.label} of the {coding}-decoded body"
    return SecretFinding(where, hit.kind, f"{label} ({shorten(hit.secret)})")


def _distinct(hits: list[Hit]) -> list[Hit]:
    """One hit per secret: a hit whose edits all lie inside an earlier one's is dropped."""
    out: list[Hit] = []
    reach = -1  # the furthest end of a kept hit (which began at or before this one)
    for hit in sorted(hits, key=lambda h: (h.start, -h.end)):
        if hit.end <= reach:
            continue
        out.append(hit)
        reach = hit.end
    return out


def _covered(spans: list[tuple[int, int]], edit: Edit) -> bool:
    """Whether ``edit`` lies inside one of the sorted, disjoint ``spans``."""
    index = bisect.bisect_right(spans, (edit.start, sys.maxsize)) - 1
    return index >= 0 and edit.end <= spans[index][1]


def _merged(hits: list[Hit]) -> list[tuple[int, int]]:
    spans = sorted((e.start, e.end) for h in hits for e in h.edits)
    out: list[tuple[int, int]] = []
    for start, end in spans:
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def body_findings(
    body: str | bytes, where: str, dialect: str | None, *, encoding: str | None = None
) -> list[SecretFinding]:
    """The secrets of one body: in its text (at ``where``) and, for a stream of a dialect raf
    has, in what it streamed (at ``<where without .string> (streamed text)``...); a streamed
    secret that is also plainly in one literal is reported once, as the literal's.

    A body with a content coding (``encoding``: the ``content-encoding`` header, gzip,
    deflate, br) is read decoded (:mod:`raf.cassettes.coding`); one that does not decode is
    a finding of its own, since it cannot be checked."""
    coding = None
    if codings(encoding):
        raw = body if isinstance(body, bytes) else body.encode("utf-8", "surrogateescape")
        try:
            body = decode(raw, encoding).body
        except BodyNotDecoded as exc:
            return [
                SecretFinding(
                    where,
                    "undecodable body",
                    f"content-encoding {encoding!r}: {exc}, so the body cannot be checked "
                    "for secrets",
                )
            ]
        coding = ", ".join(codings(encoding))
    text = body if isinstance(body, str) else body.decode("utf-8", "surrogateescape")
    plain = text_hits(text)
    findings = [_report(where, hit, coding) for hit in _distinct(plain)]
    if dialect is not None:
        spans = _merged(plain)
        base = where.removesuffix(".string")
        for hit in stream_hits(text, dialect):
            if hit.edits and all(_covered(spans, e) for e in hit.edits):
                continue
            findings.append(_report(f"{base} (streamed {hit.channel})", hit, coding))
    return findings


def _guess_dialect(uri: Any) -> str | None:
    from raf.cassettes.importers import guess_dialect  # noqa: PLC0415  (importers reads files)

    return guess_dialect(uri) if isinstance(uri, str) else None


def document_findings(document: Any) -> list[SecretFinding]:
    """Every secret in a loaded cassette document (the dictionary form of the YAML file),
    each at its place (``interactions[0].request.headers.Authorization[0]``...)."""
    if not isinstance(document, dict):
        return list(_data_findings(document, ""))
    findings: list[SecretFinding] = []
    info = document.get("raf")
    named = info.get("dialect") if isinstance(info, dict) else None
    for key, value in document.items():
        where = str(key)
        if key == "interactions" and isinstance(value, list):
            for n, interaction in enumerate(value):
                findings += _interaction_findings(interaction, f"interactions[{n}]", named)
        else:
            findings += _data_findings(value, where)
    return findings


def _interaction_findings(interaction: Any, where: str, dialect: Any) -> list[SecretFinding]:
    if not isinstance(interaction, dict):
        return list(_data_findings(interaction, where))
    findings: list[SecretFinding] = []
    request = interaction.get("request")
    uri = request.get("uri") if isinstance(request, dict) else None
    if not isinstance(dialect, str):
        dialect = _guess_dialect(uri)
    for side, message in interaction.items():
        place = f"{where}.{side}"
        if side not in ("request", "response") or not isinstance(message, dict):
            findings += _data_findings(message, place)
            continue
        encoding = content_encoding(message.get("headers"))
        for key, value in message.items():
            at = f"{place}.{key}"
            if key == "uri" and isinstance(value, str):
                findings += (_report(at, hit) for hit in _distinct(uri_hits(value)))
            elif key == "headers" and isinstance(value, dict):
                findings += _header_findings(value, at)
            elif key == "body" and isinstance(value, str | bytes):
                findings += body_findings(
                    value, at, dialect if side == "response" else None, encoding=encoding
                )
            elif (
                key == "body"
                and isinstance(value, dict)
                and isinstance(value.get("string"), str | bytes)
            ):
                findings += body_findings(
                    value["string"],
                    f"{at}.string",
                    dialect if side == "response" else None,
                    encoding=encoding,
                )
                rest = {k: v for k, v in value.items() if k != "string"}
                findings += _data_findings(rest, at)
            else:
                findings += _data_findings(value, at)
    return findings


def _header_findings(headers: dict[Any, Any], where: str) -> Iterator[SecretFinding]:
    for name, values in headers.items():
        listed = values if isinstance(values, list) else [values]
        for k, value in enumerate(listed):
            at = f"{where}.{name}[{k}]" if isinstance(values, list) else f"{where}.{name}"
            if not isinstance(value, str):
                yield from _data_findings(value, at)
            elif is_secret_header(str(name)):
                if not is_placeholder(value):
                    yield SecretFinding(
                        at,
                        "credential header",
                        f"secret header is not scrubbed ({shorten(value)})",
                    )
            else:
                yield from (_report(at, hit) for hit in _distinct(text_hits(value)))


def _data_findings(node: Any, where: str) -> Iterator[SecretFinding]:
    """Strings anywhere in structured data (the ``raf`` block, a parsed request body), in
    document order. Iterative: the nesting of a document cannot exhaust the stack."""
    pending: list[tuple[Any, str, Any]] = [(node, where, None)]
    while pending:
        value, at, key = pending.pop()
        if isinstance(value, dict):
            pending.extend(
                (item, f"{at}.{name}" if at else str(name), name)
                for name, item in reversed(list(value.items()))
            )
        elif isinstance(value, list):
            pending.extend(
                (item, f"{at}[{n}]", None) for n, item in reversed(list(enumerate(value)))
            )
        elif isinstance(value, str | bytes):
            text = value if isinstance(value, str) else value.decode("utf-8", "surrogateescape")
            if key is not None and is_secret_member(str(key)) and not is_placeholder(text):
                yield SecretFinding(
                    at,
                    "credential by name",
                    f"member {str(key)!r} holds a credential ({shorten(text)})",
                )
            else:
                yield from (_report(at, hit) for hit in _distinct(text_hits(text)))
