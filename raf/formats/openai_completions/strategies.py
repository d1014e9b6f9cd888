"""Hypothesis strategies of legacy Completions streams, with their ground truth. No IO.

:func:`streams` draws what a correct client must end with (an
:class:`~raf.model.AgentResponse`: text, finish reason, usage) and a stream that carries it
the way OpenAI or vLLM stream it: ``text_completion`` chunks (vLLM's with ``stop_reason`` and
``"usage": null``), a final usage chunk (``stream_options.include_usage``), ``[DONE]``,
Server-Sent Events framed every way (:mod:`raf.formats._strategies.sse`), and network
chunking. :func:`render` puts a given response on the wire the same way; :func:`responses`
draws the ground truth alone::

    from hypothesis import given
    from raf.formats.openai_completions import strategies

    @given(strategies.streams(profile="vllm"))
    def test_my_parser(stream):
        assert my_parser(stream.chunks).text == stream.response.text

Imported only by tests: the format's descriptor does not import it (hypothesis is a test
dependency).
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from typing import Any

import msgspec
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from raf.formats._strategies.common import GeneratedStream, chunked
from raf.formats._strategies.sse import framed
from raf.model import AgentResponse, contents
from raf.model.usage import Usage

__all__ = [
    "FORCEABLE",
    "PROFILES",
    "GeneratedStream",
    "Profile",
    "completion_chunks",
    "render",
    "responses",
    "streams",
]


@dataclass(frozen=True)
class Profile:
    """How one provider streams the format.

    Attributes:
        name: ``openai`` or ``vllm``.
        model: the model it names.
        stop_reason: each choice carries vLLM's ``stop_reason`` (``null``, or on the finish
            chunk the stop string that matched).
        usage_null: each chunk carries ``"usage": null`` until the usage chunk.
    """

    name: str
    model: str
    stop_reason: bool
    usage_null: bool


PROFILES: dict[str, Profile] = {
    "openai": Profile("openai", "gpt-3.5-turbo-instruct", stop_reason=False, usage_null=False),
    "vllm": Profile("vllm", "Qwen/Qwen2.5-1.5B-Instruct", stop_reason=True, usage_null=True),
}
"""The built-in profiles, by name."""

FINISH_REASONS = ("stop", "length", "content_filter")
"""The finish reasons the format sends (all raf's own)."""

_ID = "cmpl-7Qm2xK9bT4vLz8Rn"


def _profile(profile: str | Profile) -> Profile:
    if isinstance(profile, Profile):
        return profile
    found = PROFILES.get(profile)
    if found is None:
        raise InvalidArgument(f"unknown profile {profile!r}; known: {', '.join(sorted(PROFILES))}")
    return found


_USAGE = st.builds(
    lambda prompt, completion, cached: Usage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=prompt + completion,
        prompt_cache_hit_tokens=cached,
        prompt_cache_miss_tokens=None if cached is None else max(prompt - cached, 0),
    ),
    st.integers(0, 10**6),
    st.integers(0, 10**5),
    st.none() | st.integers(0, 10**6),
)


def responses(*, max_text_deltas: int = 6) -> st.SearchStrategy[AgentResponse]:
    """The ground truth of a stream: text, a finish reason (``stop``, ``length``,
    ``content_filter`` or none) and usage (or none). Shrinks toward no text, no finish
    reason and no usage."""
    if max_text_deltas < 0:
        raise InvalidArgument("max_text_deltas must be at least 0")
    return st.builds(
        lambda text, finish, usage: AgentResponse(text=text, finish_reason=finish, usage=usage),
        st.text(max_size=8 * max_text_deltas),
        st.none() | st.sampled_from(FINISH_REASONS),
        st.none() | _USAGE,
    )


def _usage_object(usage: Usage) -> dict[str, Any]:
    out: dict[str, Any] = {
        "prompt_tokens": usage.prompt_tokens,
        "total_tokens": usage.total_tokens,
        "completion_tokens": usage.completion_tokens,
    }
    if usage.prompt_cache_hit_tokens is not None:
        out["prompt_tokens_details"] = {"cached_tokens": usage.prompt_cache_hit_tokens}
    return out


def _dump(payload: dict[str, Any]) -> str:
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False)


@st.composite
def completion_chunks(
    draw: st.DrawFn, response: AgentResponse, profile: str | Profile = "openai"
) -> list[str]:
    """``response`` as the chunks' JSON texts (no ``[DONE]``): its text cut into pieces, one
    chunk each, the finish reason on a last chunk with empty text (or on the last piece), and
    the usage on a chunk of its own with ``"choices": []``."""
    chosen = _profile(profile)
    text = response.text
    cuts = sorted(set(draw(st.lists(st.integers(1, max(len(text) - 1, 1)), max_size=6))))
    points = [0, *(c for c in cuts if 0 < c < len(text)), len(text)]
    pieces = [text[a:b] for a, b in itertools.pairwise(points) if b > a]
    finish = response.finish_reason
    finish_alone = draw(st.booleans()) or not pieces
    if finish is not None and finish_alone:
        pieces.append("")

    def chunk(choices: list[dict[str, Any]], usage: dict[str, Any] | None = None) -> str:
        payload: dict[str, Any] = {
            "id": _ID,
            "object": "text_completion",
            "created": 1762100300,
            "model": chosen.model,
            "choices": choices,
        }
        if usage is not None or chosen.usage_null:
            payload["usage"] = usage
        return _dump(payload)

    out: list[str] = []
    for number, piece in enumerate(pieces):
        last = number == len(pieces) - 1
        reason = finish if last else None
        choice: dict[str, Any] = {
            "index": 0,
            "text": piece,
            "logprobs": None,
            "finish_reason": reason,
        }
        if chosen.stop_reason:
            choice["stop_reason"] = "\n" if reason == "stop" and draw(st.booleans()) else None
        out.append(chunk([choice]))
    if response.usage is not None:
        out.append(chunk([], _usage_object(response.usage)))
    return out


@st.composite
def _render(
    draw: st.DrawFn, truth: AgentResponse, chosen: Profile, truncate: bool | None
) -> GeneratedStream:
    cut = draw(st.booleans()) if truncate is None else truncate
    truncated = truth.finish_reason is None and cut
    truth = AgentResponse(
        id=_ID if truth.text or truth.finish_reason or truth.usage else None,
        model=chosen.model if truth.text or truth.finish_reason or truth.usage else None,
        text=truth.text,
        finish_reason=truth.finish_reason,
        usage=truth.usage,
        errors=(contents.Error(error_code="stream_truncated", message=""),) if truncated else (),
    )
    payloads = draw(completion_chunks(truth, chosen))
    if not truncated:
        payloads.append("[DONE]")
    body = framed(draw, payloads)
    return GeneratedStream(
        response=truth,
        payloads=tuple(payloads),
        body=body,
        chunks=tuple(chunked(draw, body)),
        profile=chosen,
    )


def render(
    response: AgentResponse, profile: str | Profile = "openai", *, truncate: bool | None = None
) -> st.SearchStrategy[GeneratedStream]:
    """``response`` (its text, finish reason and usage) as a legacy Completions stream of
    ``profile``: chunks, SSE framing, network chunking, with the ground truth it carries (the
    response's id and model are the stream's).

    Args:
        response: what the stream must aggregate to.
        profile: a built-in profile's name or a :class:`Profile`.
        truncate: for a response without a finish reason, end the stream without ``[DONE]``
            (a cut stream, reported ``stream_truncated``); ``None``: either.
    """
    return _render(response, _profile(profile), truncate)


FORCEABLE = frozenset({"truncated", "text", "non_ascii_text"})
"""What ``streams(force=...)`` can make every stream have: no finish reason and no
``[DONE]`` (``truncated``); text (``text``); non-ASCII text (``non_ascii_text``)."""


def streams(
    profile: str | Profile | None = None,
    *,
    max_text_deltas: int = 6,
    force: frozenset[str] = frozenset(),
) -> st.SearchStrategy[GeneratedStream]:
    """A whole stream with its ground truth: :func:`responses` put on the wire by
    :func:`render` for ``profile`` (``None``: any built-in one); ``force``: shapes every
    stream has (:data:`FORCEABLE`)."""
    unknown = frozenset(force) - FORCEABLE
    if unknown:
        raise InvalidArgument(f"cannot force {sorted(unknown)}; use some of {sorted(FORCEABLE)}")
    chosen = (
        st.sampled_from(list(PROFILES.values())) if profile is None else st.just(_profile(profile))
    )
    drawn = responses(max_text_deltas=max_text_deltas)
    if not force:
        return st.tuples(drawn, chosen).flatmap(lambda pair: render(pair[0], pair[1]))
    forced = frozenset(force)
    return st.tuples(drawn, chosen).flatmap(
        lambda pair: render(
            _forced(pair[0], forced), pair[1], truncate=True if "truncated" in forced else None
        )
    )


def _forced(response: AgentResponse, force: frozenset[str]) -> AgentResponse:
    text = response.text
    if "text" in force and not text:
        text = "a"
    if "non_ascii_text" in force and text.isascii():
        text += "é"
    finish = None if "truncated" in force else response.finish_reason
    return msgspec.structs.replace(response, text=text, finish_reason=finish)
