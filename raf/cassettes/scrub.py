"""Secrets in cassettes: what counts as one, and how to remove it. No IO.

The same definitions serve :func:`scrub_cassette` (used when saving) and the secret scan of
``raf cassette lint``, so what is scrubbed and what is flagged never drift apart.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import msgspec

from raf.cassettes.format import Cassette, Headers, Interaction

__all__ = [
    "REDACTED",
    "SECRET_HEADERS",
    "SECRET_QUERY_PARAMETERS",
    "find_secrets",
    "scrub_cassette",
    "scrub_text",
]

REDACTED = "REDACTED"
"""What a scrubbed value is replaced with."""

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
    }
)
"""Headers whose values are credentials or account identifiers (compared lower-case)."""

SECRET_QUERY_PARAMETERS = frozenset(
    {"key", "api_key", "apikey", "api-key", "access_token", "token", "sig", "signature"}
)
"""URI query parameters whose values are credentials."""

# Key-shaped strings of the providers raf knows. Each names its kind for the lint report.
_KEY_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("OpenAI-style API key", re.compile(r"\bsk-(?:proj-|ant-|or-v1-)?[A-Za-z0-9_\-]{20,}")),
    ("Google API key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b")),
    ("Groq API key", re.compile(r"\bgsk_[A-Za-z0-9]{20,}")),
    ("Hugging Face token", re.compile(r"\bhf_[A-Za-z0-9]{30,}")),
    ("xAI API key", re.compile(r"\bxai-[A-Za-z0-9]{20,}")),
    ("AWS access key id", re.compile(r"\bAKIA[0-9A-Z]{16}\b")),
    ("bearer token", re.compile(r"\bBearer\s+(?!REDACTED\b)[A-Za-z0-9._~+/\-]{16,}=*")),
)


def find_secrets(text: str) -> Iterator[tuple[str, str]]:
    """``(kind, match)`` for every key-shaped string in ``text``."""
    for kind, pattern in _KEY_PATTERNS:
        for match in pattern.finditer(text):
            yield kind, match.group(0)


def scrub_text(text: str) -> str:
    """``text`` with every key-shaped string replaced by :data:`REDACTED`."""
    for _, pattern in _KEY_PATTERNS:
        text = pattern.sub(REDACTED, text)
    return text


def scrub_uri(uri: str) -> str:
    """``uri`` with secret query parameters redacted and key-shaped strings removed."""
    parts = urlsplit(uri)
    if parts.query:
        query = [
            (k, REDACTED if k.lower() in SECRET_QUERY_PARAMETERS else v)
            for k, v in parse_qsl(parts.query, keep_blank_values=True)
        ]
        parts = parts._replace(query=urlencode(query, safe=REDACTED))
    return scrub_text(urlunsplit(parts))


def scrub_headers(headers: Headers) -> Headers:
    """Secret headers redacted; key-shaped strings removed from the others."""
    return {
        name: [REDACTED] * len(values)
        if name.lower() in SECRET_HEADERS
        else [scrub_text(v) for v in values]
        for name, values in headers.items()
    }


def _scrub_body(body: str | bytes | None) -> str | bytes | None:
    if isinstance(body, str):
        return scrub_text(body)
    if isinstance(body, bytes):
        try:
            return scrub_text(body.decode("utf-8")).encode("utf-8")
        except UnicodeDecodeError:
            return body
    return body


def _scrub_interaction(interaction: Interaction) -> Interaction:
    request = msgspec.structs.replace(
        interaction.request,
        uri=scrub_uri(interaction.request.uri),
        headers=scrub_headers(interaction.request.headers),
        body=_scrub_body(interaction.request.body),
    )
    body = _scrub_body(interaction.response.body)
    response = msgspec.structs.replace(
        interaction.response,
        headers=scrub_headers(interaction.response.headers),
        body=body if isinstance(body, bytes) else interaction.response.body,
    )
    return Interaction(request=request, response=response)


def scrub_cassette(cassette: Cassette) -> Cassette:
    """A copy of ``cassette`` without credentials: secret headers and query parameters
    redacted, key-shaped strings removed from URIs, headers and bodies."""
    return msgspec.structs.replace(
        cassette, interactions=[_scrub_interaction(i) for i in cassette.interactions]
    )
