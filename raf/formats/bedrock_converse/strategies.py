"""Hypothesis strategies of Bedrock ConverseStream streams, with their ground truth. No IO.

:func:`streams` draws what a correct client must end with (an
:class:`~raf.model.AgentResponse`: text, reasoning, calls, finish reason, usage) and an AWS
event stream that carries it the way a Bedrock server streams it: ``messageStart``; content
blocks by ``contentBlockIndex`` (text and reasoning without ``contentBlockStart``, tool
calls with one); ``messageStop`` with the stop reason, then ``metadata`` with the usage
(``inputTokens`` without the cached prompt, ``cacheReadInputTokens``,
``cacheWriteInputTokens``, ``totalTokens``); every payload padded with a random ``p``; each
message encoded with its CRCs (:mod:`raf.framing.aws_eventstream_encode`), and the body cut
into network reads. A response without a finish reason is a stream that ends early: cut
after a message (``stream_truncated``) or ended by an ``exception`` message
(``provider_error``). :func:`render` puts a given response on the wire the same way;
:func:`responses` draws the ground truth alone::

    from hypothesis import given
    from raf.formats.bedrock_converse import strategies

    @given(strategies.streams(profile="claude"))
    def test_my_parser(stream):
        assert my_parser(stream.chunks).text == stream.response.text

The profiles are the servers' habits, from real recordings: ``claude`` (reasoning with its
signature as a delta of its own, sometimes a redacted reasoning block, tool input in many
fragments), ``nova`` (each tool's whole input in one delta), ``gpt_oss`` (an empty text block
first, reasoning without a signature) and ``synthetic`` (a ``contentBlockStart`` for every
block, with an empty ``start`` for text and reasoning, and ``metadata`` before
``messageStop``, as test fixtures and emulators write them).

Imported only by tests: the format's descriptor does not import it (hypothesis is a test
dependency).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from raf.formats._strategies.common import (
    GeneratedStream,
    _tool_calls,
    argument_text,
    chunked,
    lookup_profile,
    split_text,
    tool_calls,
    usages,
)
from raf.framing import aws_eventstream_encode as encode
from raf.model import AgentResponse, Usage, contents

__all__ = ["FORCEABLE", "PROFILES", "Profile", "render", "responses", "streams"]


@dataclass(frozen=True)
class Profile:
    """How a server puts a ConverseStream response on the wire.

    Attributes:
        name: a label for reports.
        signature: the reasoning block ends with a ``signature`` delta (Claude).
        redacted: a redacted reasoning block may come first (Claude 3.7).
        whole_input: each tool's input comes in one delta (Nova), else in fragments.
        empty_text_block: the message opens with a block of one empty text delta (gpt-oss).
        every_block_started: every block has a ``contentBlockStart`` (``start: {}`` for text
            and reasoning), and ``metadata`` comes before ``messageStop``.
    """

    name: str
    signature: bool = False
    redacted: bool = False
    whole_input: bool = False
    empty_text_block: bool = False
    every_block_started: bool = False


PROFILES: dict[str, Profile] = {
    "claude": Profile(name="claude", signature=True, redacted=True),
    "nova": Profile(name="nova", whole_input=True),
    "gpt_oss": Profile(name="gpt_oss", empty_text_block=True),
    "synthetic": Profile(name="synthetic", every_block_started=True),
}
"""The built-in profiles, by name."""

_TO_WIRE = {
    "stop": ("end_turn", "stop_sequence"),
    "length": ("max_tokens", "model_context_window_exceeded"),
    "tool_calls": ("tool_use",),
    "content_filter": ("guardrail_intervened", "content_filtered"),
}
_FINISH = st.sampled_from([None, "stop", "tool_calls", "length", "content_filter"])
_PAD = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_EXCEPTIONS = (
    "throttlingException",
    "modelStreamErrorException",
    "internalServerException",
    "serviceUnavailableException",
    "validationException",
)
_dump = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def _profile(profile: str | Profile) -> Profile:
    return lookup_profile(profile, PROFILES)


FORCEABLE = frozenset({"calls", "truncated", "text", "non_ascii_text"})
"""What ``streams(force=...)`` can make every stream have: a tool call (``calls``); no
``messageStop`` and no exception message, so a cut stream (``truncated``); text (``text``);
non-ASCII text, sent unescaped (``non_ascii_text``)."""


def _text(text: str, force: frozenset[str]) -> str:
    if "text" in force and not text:
        text = "a"
    return text + "é" if "non_ascii_text" in force and text.isascii() else text


@st.composite
def _responses(
    draw: st.DrawFn, max_tool_calls: int, max_text_deltas: int, force: frozenset[str] = frozenset()
) -> AgentResponse:
    text = _text(draw(st.text(max_size=8 * max_text_deltas)), force)
    reasoning = draw(st.text(max_size=24))
    if "calls" in force:
        calls = _tool_calls(draw, max_tool_calls, "tooluse_", min_count=1)[0]
    else:
        calls = draw(tool_calls(max_tool_calls, id_prefix="tooluse_"))
    finish = None if "truncated" in force else draw(_FINISH)
    usage = draw(usages(cache=True)) if finish is not None else None
    return AgentResponse(
        text=text,
        reasoning_text=reasoning or None,
        tool_calls=calls,
        finish_reason=finish,
        usage=usage,
    )


def responses(
    *, max_tool_calls: int = 3, max_text_deltas: int = 6
) -> st.SearchStrategy[AgentResponse]:
    """A response the format can carry: text, reasoning, 0 to ``max_tool_calls`` calls, a
    finish reason (``stop``, ``tool_calls``, ``length``, ``content_filter`` or none: a stream
    that ends early) and usage (or none; only with a finish reason, since ``metadata`` comes
    after ``messageStop``)."""
    if max_tool_calls < 0 or max_text_deltas < 0:
        raise InvalidArgument("max_tool_calls and max_text_deltas must be at least 0")
    return _responses(max_tool_calls, max_text_deltas)


def _usage_object(draw: st.DrawFn, usage: Usage) -> dict[str, Any]:
    """Bedrock's counts for ``usage``: the prompt split into uncached input, cache reads (the
    hit count) and cache writes."""
    hit = usage.prompt_cache_hit_tokens
    rest = usage.prompt_tokens - (hit or 0)
    write = draw(st.integers(0, rest)) if draw(st.booleans()) else None
    out: dict[str, Any] = {
        "inputTokens": rest - (write or 0),
        "outputTokens": usage.completion_tokens,
        "totalTokens": usage.total_tokens,
    }
    if hit is not None:
        out["cacheReadInputTokens"] = hit
    if write is not None:
        out["cacheWriteInputTokens"] = write
    if draw(st.booleans()):
        out["serverToolUsage"] = {}
    return out


@st.composite
def _render(
    draw: st.DrawFn, truth: AgentResponse, chosen: Profile, cut: bool = False
) -> GeneratedStream:
    events: list[tuple[str, dict[str, Any]]] = [("messageStart", {"role": "assistant"})]
    index = 0

    def block(start: dict[str, Any] | None, deltas: list[dict[str, Any]]) -> None:
        nonlocal index
        if start is not None:
            events.append(("contentBlockStart", {"contentBlockIndex": index, "start": start}))
        events.extend(
            ("contentBlockDelta", {"contentBlockIndex": index, "delta": delta}) for delta in deltas
        )
        events.append(("contentBlockStop", {"contentBlockIndex": index}))
        index += 1

    untyped: dict[str, Any] | None = {} if chosen.every_block_started else None
    if chosen.empty_text_block:
        block(untyped, [{"text": ""}])
    if chosen.redacted and draw(st.booleans()):
        data = draw(st.sampled_from(["RXRrRUNrZ0lCeEFC", "RXFBRENrZ0lCeEFC"]))
        block(untyped, [{"reasoningContent": {"redactedContent": data}}])
    reasoning = truth.reasoning_text or ""
    if reasoning:
        deltas = [
            {"reasoningContent": {"text": piece}} for piece in draw(split_text(reasoning)) if piece
        ]
        if chosen.signature:
            deltas.append({"reasoningContent": {"signature": "EqQBCkgIARAB" + str(index)}})
        block(untyped, deltas)
    if truth.text:
        block(untyped, [{"text": piece} for piece in draw(split_text(truth.text)) if piece])
    for call in truth.tool_calls:
        arguments = draw(argument_text(call.arguments if isinstance(call.arguments, dict) else {}))
        pieces = [arguments] if chosen.whole_input else draw(split_text(arguments))
        block(
            {"toolUse": {"toolUseId": call.id, "name": call.name}},
            [{"toolUse": {"input": piece}} for piece in pieces if piece],
        )
    errors: tuple[contents.Error, ...] = ()
    exception: bytes = b""
    if truth.finish_reason is None:
        if not cut and draw(st.booleans()):
            name = draw(st.sampled_from(_EXCEPTIONS))
            exception = encode.exception(name, _dump({"message": "the stream failed"}).encode())
            errors = (contents.Error(error_code="provider_error", message=""),)
        else:
            errors = (contents.Error(error_code="stream_truncated", message=""),)
    else:
        stop = ("messageStop", {"stopReason": draw(st.sampled_from(_TO_WIRE[truth.finish_reason]))})
        tail: list[tuple[str, dict[str, Any]]] = [stop]
        if truth.usage is not None:
            metadata = {"metrics": {"latencyMs": draw(st.integers(1, 9999))}}
            metadata["usage"] = _usage_object(draw, truth.usage)
            tail = (
                [("metadata", metadata), stop]
                if chosen.every_block_started
                else [stop, ("metadata", metadata)]
            )
        events.extend(tail)
    payloads: list[str] = []
    for _, payload in events:
        payload["p"] = _PAD[: draw(st.integers(1, len(_PAD)))]
        payloads.append(_dump(payload))
    body = b"".join(
        encode.event(name, data.encode()) for (name, _), data in zip(events, payloads, strict=True)
    )
    body += exception
    truth = AgentResponse(
        text=truth.text,
        reasoning_text=truth.reasoning_text,
        tool_calls=truth.tool_calls,
        finish_reason=truth.finish_reason,
        usage=truth.usage,
        errors=errors,
    )
    return GeneratedStream(
        response=truth,
        payloads=tuple(payloads),
        body=body,
        chunks=tuple(chunked(draw, body)),
        profile=chosen,
    )


def render(
    response: AgentResponse, profile: str | Profile = "claude"
) -> st.SearchStrategy[GeneratedStream]:
    """``response`` (its text, reasoning, calls, finish reason and usage) as a ConverseStream
    of ``profile``: messages, event-stream encoding, network chunking, with the ground truth
    it carries. A response without a finish reason is a stream without ``messageStop``: cut
    (``stream_truncated``) or ended by an exception message (``provider_error``)."""
    return _render(response, _profile(profile))


def streams(
    profile: str | Profile | None = None,
    *,
    max_tool_calls: int = 3,
    max_text_deltas: int = 6,
    force: frozenset[str] = frozenset(),
) -> st.SearchStrategy[GeneratedStream]:
    """A whole stream with its ground truth: :func:`responses` put on the wire by
    :func:`render` for ``profile`` (``None``: any built-in one); ``force``: shapes every
    stream has (:data:`FORCEABLE`)."""
    if max_tool_calls < 0 or max_text_deltas < 0:
        raise InvalidArgument("max_tool_calls and max_text_deltas must be at least 0")
    unknown = frozenset(force) - FORCEABLE
    if unknown:
        raise InvalidArgument(f"cannot force {sorted(unknown)}; use some of {sorted(FORCEABLE)}")
    chosen = (
        st.sampled_from(list(PROFILES.values())) if profile is None else st.just(_profile(profile))
    )
    drawn = _responses(max_tool_calls, max_text_deltas, frozenset(force))
    cut = "truncated" in force
    return st.tuples(drawn, chosen).flatmap(lambda pair: _render(pair[0], pair[1], cut))
