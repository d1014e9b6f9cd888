"""What a client read from a stream, in raf's canonical words: the ``response`` of a
conformance ``result`` (docs/protocol.md) and what a client adapter of the matrix hands back.
No IO.

Shared by :mod:`raf.conformance` (which decodes and judges it) and :mod:`raf.clients`
(whose adapters build it from what a library returned); it lives below both so that neither
imports the other.
"""

from __future__ import annotations

from typing import Any

import msgspec

__all__ = [
    "ClientApprovalRequest",
    "ClientError",
    "ClientHostedCall",
    "ClientResponse",
    "ClientToolCall",
    "ClientUsage",
]


class ClientToolCall(msgspec.Struct, kw_only=True, forbid_unknown_fields=False):
    """A tool call as the client hands it to its caller; ``name`` is ``None`` (or left out)
    for a call that never got one (the stream sent none)."""

    id: str | None = None
    name: str | None = None
    arguments: Any = None


class ClientUsage(msgspec.Struct, kw_only=True, forbid_unknown_fields=False):
    """Token usage as the client reports it (the richer fields are optional)."""

    # Numbers as JSON numbers: an integer written as a float (1e+21, as JavaScript writes
    # large integers) compares equal to the integer.
    prompt_tokens: int | float = 0
    completion_tokens: int | float = 0
    total_tokens: int | float = 0
    prompt_cache_hit_tokens: int | float | None = None
    prompt_cache_miss_tokens: int | float | None = None
    reasoning_tokens: int | float | None = None


class ClientError(msgspec.Struct, kw_only=True, forbid_unknown_fields=False):
    """An error the client reported (``error_code`` with the ``error_codes`` capability)."""

    error_code: str | None = None
    message: str = ""


class ClientHostedCall(msgspec.Struct, kw_only=True, forbid_unknown_fields=False):
    """A tool the provider ran, as the client reports it (with ``hosted_tools``): its id,
    the tool's name, its arguments, and its ``output`` or ``error`` once its result came."""

    id: str | None = None
    name: str | None = None
    arguments: Any = None
    output: Any = None
    error: str | None = None


class ClientApprovalRequest(msgspec.Struct, kw_only=True, forbid_unknown_fields=False):
    """A call waiting for a person's approval, as the client reports it (with
    ``hosted_tools``)."""

    call_id: str | None = None
    name: str | None = None
    arguments: Any = None
    description: str = ""


class ClientResponse(msgspec.Struct, kw_only=True, forbid_unknown_fields=False):
    """The aggregated response, in raf's canonical ``agent_response`` shape; every field may
    be left out (an empty text, no reasoning, no calls, no errors...)."""

    text: str = ""
    reasoning_text: str | None = None
    tool_calls: list[ClientToolCall] = msgspec.field(default_factory=list)
    hosted_tool_calls: list[ClientHostedCall] = msgspec.field(default_factory=list)
    approval_requests: list[ClientApprovalRequest] = msgspec.field(default_factory=list)
    finish_reason: str | None = None
    usage: ClientUsage | None = None
    errors: list[ClientError] = msgspec.field(default_factory=list)
    notices: list[ClientError] = msgspec.field(default_factory=list)
    """Notices (harmless deviations of the stream, raf's ``notices``); a client may also
    report them among ``errors`` under a notice code (``protocol_notice``...)."""
