"""The request rules of ``anthropic_messages`` (:mod:`raf.formats.request_rules`): each check
named by its rule's id in ``CHECKS``. Pure functions; never raise on a JSON object.

The checks that compare with what was streamed find, for each earlier round that called
tools, the assistant message of the body that sends it back: the one holding its
``tool_use`` ids."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

from raf.formats.format import RuleCheck

__all__ = ["CHECKS"]

Found = Iterator[tuple[str, str]]
_THINKING: Final = ("thinking", "redacted_thinking")


def _messages(body: Mapping[str, Any]) -> list[Any]:
    messages = body.get("messages")
    return messages if isinstance(messages, list) else []


def _blocks(message: Any) -> list[Any]:
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, list) else []


def _role(message: Any) -> Any:
    return message.get("role") if isinstance(message, dict) else None


def _kind(block: Any) -> Any:
    return block.get("type") if isinstance(block, dict) else None


def _uses(message: Any) -> list[tuple[int, str]]:
    """The ``tool_use`` ids of a message, with their block index."""
    if _role(message) != "assistant":
        return []
    return [
        (k, b["id"])
        for k, b in enumerate(_blocks(message))
        if _kind(b) == "tool_use" and isinstance(b.get("id"), str)
    ]


def _results(message: Any) -> list[tuple[int, Any]]:
    """The ``tool_result`` blocks of a message: (block index, ``tool_use_id``)."""
    if _role(message) != "user":
        return []
    return [
        (k, b.get("tool_use_id"))
        for k, b in enumerate(_blocks(message))
        if _kind(b) == "tool_result"
    ]


def _text(value: Any) -> str | None:
    """``value`` when it is a string (an id, a kind), else ``None``: never anything
    unhashable in a set, never a structure in a message."""
    return value if isinstance(value, str) else None


def _thinking_enabled(body: Mapping[str, Any]) -> Any:
    thinking = body.get("thinking")
    return thinking.get("type") if isinstance(thinking, dict) else None


def _streamed(prior: Sequence[Any]) -> list[tuple[set[str], list[dict[str, Any]]]]:
    """Each earlier round that called tools: its ``tool_use`` ids and its thinking blocks."""
    out: list[tuple[set[str], list[dict[str, Any]]]] = []
    for one in prior:
        for message in getattr(one, "turn", ()) or ():
            ids = {i for _, i in _uses(message)}
            if ids:
                thinking = [b for b in _blocks(message) if _kind(b) in _THINKING]
                out.append((ids, thinking))
    return out


def _sent_back(
    body: Mapping[str, Any], prior: Sequence[Any]
) -> Iterator[tuple[int, Any, list[dict[str, Any]]]]:
    """For each earlier round that called tools and that the body sends back: the index of
    its assistant message in the body, the message, and the thinking blocks streamed."""
    streamed = _streamed(prior)
    if not streamed:
        return
    for at, message in enumerate(_messages(body)):
        ids = {i for _, i in _uses(message)}
        for made, thinking in streamed:
            if ids & made:
                yield at, message, thinking
                break


def tool_use_answered(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """``anthropic.tool_use_answered``: every ``tool_use`` is answered by a ``tool_result``
    in the next message."""
    messages = _messages(body)
    for at, message in enumerate(messages):
        uses = _uses(message)
        if not uses:
            continue
        following = messages[at + 1] if at + 1 < len(messages) else None
        answered = {_text(i) for _, i in _results(following)}
        for k, use_id in uses:
            if use_id not in answered:
                yield (
                    f"messages[{at}].content[{k}]",
                    f"tool_use {use_id} has no tool_result in the next message",
                )


def tool_result_answers_previous(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """``anthropic.tool_result_answers_previous``: every ``tool_result`` answers a
    ``tool_use`` of the assistant message right before it."""
    messages = _messages(body)
    for at, message in enumerate(messages):
        results = _results(message)
        if not results:
            continue
        made = {i for _, i in _uses(messages[at - 1])} if at > 0 else set()
        for k, answers in results:
            if _text(answers) not in made:
                yield (
                    f"messages[{at}].content[{k}].tool_use_id",
                    f"tool_result answers {_text(answers)}, which is no tool_use of the message "
                    "before it",
                )


def tool_results_first(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """``anthropic.tool_results_first``: in the message answering tool calls, the
    ``tool_result`` blocks come before any other block."""
    messages = _messages(body)
    for at, message in enumerate(messages):
        if at == 0 or not _uses(messages[at - 1]):
            continue
        other = None
        for k, block in enumerate(_blocks(message)):
            if _kind(block) != "tool_result":
                other = k if other is None else other
            elif other is not None:
                yield (
                    f"messages[{at}].content[{other}]",
                    f"a {_text(_kind(_blocks(message)[other]))} block comes before the "
                    f"tool_result of {_text(block.get('tool_use_id'))}; put the tool results "
                    "first",
                )
                break


def tool_result_once(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """``anthropic.tool_result_once``: no ``tool_use`` is answered twice."""
    for at, message in enumerate(_messages(body)):
        seen: set[Any] = set()
        for k, answers in _results(message):
            if isinstance(answers, str) and answers in seen:
                yield (
                    f"messages[{at}].content[{k}]",
                    f"tool_use {answers} is answered a second time; answer each call once",
                )
            if isinstance(answers, str):
                seen.add(answers)


def thinking_first(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """``anthropic.thinking_first``: with thinking on, the assistant message of the tool
    calls the request answers starts with its thinking (or redacted thinking) block."""
    mode = _thinking_enabled(body)
    if mode not in ("enabled", "adaptive"):
        return
    messages = _messages(body)
    if len(messages) < 2 or not _results(messages[-1]):
        return
    at = len(messages) - 2
    message = messages[at]
    if not _uses(message):
        return
    content = _blocks(message)
    streamed = [t for m_at, _, t in _sent_back(body, prior) if m_at == at]
    thought = bool(streamed and streamed[0]) or any(_kind(b) in _THINKING for b in content)
    if mode == "adaptive" and not thought:
        return  # adaptive thinking may skip it: nothing to send back
    if not content or _kind(content[0]) not in _THINKING:
        yield (
            f"messages[{at}].content[0]",
            f"found {_kind(content[0]) if content else 'no block'} where the turn that called "
            f"{', '.join(i for _, i in _uses(message))} must start with its thinking block",
        )


def thinking_signed(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """``anthropic.thinking_signed``: a ``thinking`` block has the non-blank ``signature`` it
    was streamed with; a ``redacted_thinking`` block its ``data``, unchanged."""
    streamed = {at: thinking for at, _, thinking in _sent_back(body, prior)}
    for at, message in enumerate(_messages(body)):
        if _role(message) != "assistant":
            continue
        known = streamed.get(at)
        signatures = {_text(b.get("signature")) for b in known or () if _kind(b) == "thinking"}
        data = {_text(b.get("data")) for b in known or () if _kind(b) == "redacted_thinking"}
        for k, block in enumerate(_blocks(message)):
            kind = _kind(block)
            if kind == "thinking":
                signature = block.get("signature")
                if not isinstance(signature, str) or not signature.strip():
                    yield (
                        f"messages[{at}].content[{k}].signature",
                        "thinking block without its signature: send it back as streamed",
                    )
                elif known is not None and signature not in signatures:
                    yield (
                        f"messages[{at}].content[{k}].signature",
                        "thinking block with a signature the turn did not stream",
                    )
            elif kind == "redacted_thinking":
                value = block.get("data")
                if not isinstance(value, str) or not value.strip():
                    yield (
                        f"messages[{at}].content[{k}].data",
                        "redacted_thinking block without its data: send it back as streamed",
                    )
                elif known is not None and value not in data:
                    yield (
                        f"messages[{at}].content[{k}].data",
                        "redacted_thinking block with data the turn did not stream",
                    )


def thinking_has_text(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """``anthropic.thinking_has_text``: a ``thinking`` block has its ``thinking`` field (a
    string, empty when the turn streamed none)."""
    for at, message in enumerate(_messages(body)):
        for k, block in enumerate(_blocks(message)):
            if _kind(block) == "thinking" and not isinstance(block.get("thinking"), str):
                yield (
                    f"messages[{at}].content[{k}].thinking",
                    'thinking block without its thinking field: send "" when none was streamed',
                )


def thinking_unchanged(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """``anthropic.thinking_unchanged``: a thinking block sent back with its signature has
    the text it was streamed with."""
    for at, message, thinking in _sent_back(body, prior):
        texts = {
            _text(b.get("signature")): b.get("thinking") for b in thinking if _kind(b) == "thinking"
        }
        for k, block in enumerate(_blocks(message)):
            signature = _text(block.get("signature")) if _kind(block) == "thinking" else None
            if signature is None or signature not in texts:
                continue
            if block.get("thinking") != texts[signature]:
                yield (
                    f"messages[{at}].content[{k}].thinking",
                    "thinking text differs from what was streamed with this signature",
                )


def _missing(message: Any, thinking: list[dict[str, Any]], empty: bool) -> list[str]:
    """The streamed thinking blocks (the empty signed ones, or the others) the message lacks."""
    sent = [b for b in _blocks(message) if _kind(b) in _THINKING]
    signatures = {_text(b.get("signature")) for b in sent}
    data = {_text(b.get("data")) for b in sent}
    out: list[str] = []
    for block in thinking:
        if _kind(block) == "redacted_thinking":
            if not empty and _text(block.get("data")) not in data:
                out.append("a redacted_thinking block")
        elif (block.get("thinking") == "") == empty and _text(
            block.get("signature")
        ) not in signatures:
            out.append("an empty signed thinking block" if empty else "a thinking block")
    return out


def thinking_kept(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """``anthropic.thinking_kept``: the thinking and redacted thinking blocks of a turn that
    called tools are all sent back with it."""
    for at, message, thinking in _sent_back(body, prior):
        for what in _missing(message, thinking, empty=False):
            ids = ", ".join(i for _, i in _uses(message))
            yield f"messages[{at}].content", f"the turn that called {ids} lacks {what} it streamed"


def omitted_thinking_kept(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """``anthropic.omitted_thinking_kept``: the empty signed thinking block of ``display:
    "omitted"`` is sent back like any other."""
    for at, message, thinking in _sent_back(body, prior):
        for what in _missing(message, thinking, empty=True):
            ids = ", ".join(i for _, i in _uses(message))
            yield f"messages[{at}].content", f"the turn that called {ids} lacks {what} it streamed"


CHECKS: Final[Mapping[str, RuleCheck]] = {
    "anthropic.tool_use_answered": tool_use_answered,
    "anthropic.tool_result_answers_previous": tool_result_answers_previous,
    "anthropic.tool_results_first": tool_results_first,
    "anthropic.tool_result_once": tool_result_once,
    "anthropic.thinking_first": thinking_first,
    "anthropic.thinking_signed": thinking_signed,
    "anthropic.thinking_has_text": thinking_has_text,
    "anthropic.thinking_unchanged": thinking_unchanged,
    "anthropic.thinking_kept": thinking_kept,
    "anthropic.omitted_thinking_kept": omitted_thinking_kept,
}
"""The checks, by rule id."""
