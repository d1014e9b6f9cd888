"""The request rules of ``openai_responses`` (:mod:`raf.formats.request_rules`): each check
named by its rule's id in ``CHECKS``. Pure functions; never raise on a JSON object.

A request that names ``previous_response_id`` continues the provider's stored chain: the
checks take the earlier rounds up to the one with that id (:class:`Prior.response_id`) as
what the chain already holds; a ``previous_response_id`` no earlier round has is a chain the
checks cannot see, and they judge only the ``input`` then."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

from raf.formats.format import RuleCheck

__all__ = ["CHECKS"]

Found = Iterator[tuple[str, str]]
_INPUT_ONLY: Final = ("function_call_output", "custom_tool_call_output")
_NOT_FOLLOWING: Final = ("user", "system", "developer")


def _items(body: Mapping[str, Any]) -> list[Any]:
    items = body.get("input")
    return items if isinstance(items, list) else []


def _kind(item: Any) -> Any:
    if not isinstance(item, dict):
        return None
    kind = item.get("type")
    if kind is None and "role" in item:
        return "message"
    return kind


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _chain(body: Mapping[str, Any], prior: Sequence[Any]) -> list[Any] | None:
    """The items the chain ``previous_response_id`` names holds of the earlier rounds (the
    rounds up to that one, their output items), ``[]`` without ``previous_response_id``,
    ``None`` when no earlier round has that id (the chain is unknown)."""
    previous = body.get("previous_response_id")
    if previous is None:
        return []
    for n, one in enumerate(prior):
        if getattr(one, "response_id", None) == previous:
            return [i for p in prior[: n + 1] for i in getattr(p, "turn", ()) or ()]
    return None


def _last_round(body: Mapping[str, Any], prior: Sequence[Any]) -> list[Any]:
    """The output items of the round ``previous_response_id`` names (``[]``: none known)."""
    previous = body.get("previous_response_id")
    for one in prior:
        if previous is not None and getattr(one, "response_id", None) == previous:
            return list(getattr(one, "turn", ()) or ())
    return []


def _call_ids(items: list[Any], kinds: tuple[str, ...] = ("function_call",)) -> list[str]:
    return [i["call_id"] for i in items if _kind(i) in kinds and isinstance(i.get("call_id"), str)]


def function_calls_answered(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """``responses.function_calls_answered``: every ``function_call`` (in ``input``, or the
    last round of the chain ``previous_response_id`` names) has a ``function_call_output``
    with its ``call_id``."""
    items = _items(body)
    answered = set(_call_ids(items, _INPUT_ONLY))
    for at, item in enumerate(items):
        call_id = _text(item.get("call_id")) if _kind(item) == "function_call" else None
        if call_id is not None and call_id not in answered:
            yield (
                f"input[{at}]",
                f"function_call {call_id} has no function_call_output in the input",
            )
    for call_id in _call_ids(_last_round(body, prior)):
        if call_id not in answered:
            yield (
                "previous_response_id",
                f"the response named by previous_response_id called {call_id}; the input has "
                "no function_call_output for it",
            )


def outputs_answer_calls(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """``responses.outputs_answer_calls``: every ``function_call_output`` answers a
    ``function_call`` of the input before it or of the chain ``previous_response_id``
    names."""
    chain = _chain(body, prior)
    if chain is None:
        return
    made = set(_call_ids(chain))
    for at, item in enumerate(_items(body)):
        kind = _kind(item)
        if kind == "function_call" and isinstance(item.get("call_id"), str):
            made.add(item["call_id"])
        elif kind == "function_call_output":
            call_id = _text(item.get("call_id"))
            if call_id not in made:
                yield (
                    f"input[{at}].call_id",
                    f"function_call_output answers {call_id}, which no function_call before it "
                    "made",
                )


def output_once(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """``responses.output_once``: no ``call_id`` is answered by two outputs."""
    seen: set[str] = set()
    for at, item in enumerate(_items(body)):
        call_id = _text(item.get("call_id")) if _kind(item) in _INPUT_ONLY else None
        if call_id is not None and call_id in seen:
            yield (
                f"input[{at}].call_id",
                f"call {call_id} is answered a second time; answer each call once",
            )
        if call_id is not None:
            seen.add(call_id)


def reasoning_followed(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """``responses.reasoning_followed``: a ``reasoning`` item is followed by the item it
    came with (a call, a message of the assistant), not by the end of the input or by input
    of the client's."""
    items = _items(body)
    for at, item in enumerate(items):
        if _kind(item) != "reasoning":
            continue
        following = items[at + 1] if at + 1 < len(items) else None
        role = following.get("role") if isinstance(following, dict) else None
        if following is None or _kind(following) in _INPUT_ONLY or role in _NOT_FOLLOWING:
            shown = _text(item.get("id")) or "without an id"
            yield (
                f"input[{at}]",
                f"reasoning item {shown} is not followed by the item it came with",
            )


def item_with_its_reasoning(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """``responses.item_with_its_reasoning``: an item sent back with the ``id`` of an output
    that followed a reasoning item comes right after that reasoning item."""
    needs: dict[str, str] = {}
    for one in prior:
        turn = list(getattr(one, "turn", ()) or ())
        for before, item in zip(turn, turn[1:], strict=False):
            reasoning = _text(before.get("id")) if _kind(before) == "reasoning" else None
            item_id = _text(item.get("id")) if isinstance(item, dict) else None
            if reasoning is not None and item_id is not None:
                needs[item_id] = reasoning
    if not needs or body.get("previous_response_id") is not None:
        return  # on a chain, the reasoning is the stored one's
    items = _items(body)
    for at, item in enumerate(items):
        item_id = _text(item.get("id")) if isinstance(item, dict) else None
        if item_id is None or item_id not in needs:
            continue
        before = items[at - 1] if at > 0 else None
        if _kind(before) != "reasoning" or before.get("id") != needs[item_id]:
            yield (
                f"input[{at}]",
                f"item {item_id} is sent without the reasoning item {needs[item_id]} it "
                "followed; send both, in order",
            )


def no_resend_on_chain(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """``responses.no_resend_on_chain``: no item is sent twice: not twice in the input, and
    not one the response ``previous_response_id`` names already holds."""
    stored = {_text(i.get("id")) for i in _last_round(body, prior) if isinstance(i, dict)} - {None}
    seen: set[str] = set()
    for at, item in enumerate(_items(body)):
        item_id = _text(item.get("id")) if isinstance(item, dict) else None
        if item_id is None:
            continue
        if item_id in stored:
            yield (
                f"input[{at}].id",
                f"item {item_id} is already on the chain of previous_response_id; send only "
                "what is new",
            )
        elif item_id in seen:
            yield f"input[{at}].id", f"item {item_id} is sent twice"
        seen.add(item_id)


def encrypted_reasoning_when_not_stored(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """``responses.encrypted_reasoning_when_not_stored``: with ``store: false``, a reasoning
    item sent back by id carries its ``encrypted_content``."""
    if body.get("store") is not False:
        return
    for at, item in enumerate(_items(body)):
        if _kind(item) != "reasoning" or _text(item.get("id")) is None:
            continue
        content = item.get("encrypted_content")
        if not isinstance(content, str) or not content:
            yield (
                f"input[{at}].encrypted_content",
                f"reasoning item {item['id']} without encrypted_content under store: false: "
                "nothing is stored under its id",
            )


def encrypted_content_unchanged(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """``responses.encrypted_content_unchanged``: a reasoning item's ``encrypted_content`` is
    sent back as it was streamed."""
    streamed: dict[str, Any] = {}
    for one in prior:
        for item in getattr(one, "turn", ()) or ():
            item_id = _text(item.get("id")) if _kind(item) == "reasoning" else None
            if item_id is not None and isinstance(item.get("encrypted_content"), str):
                streamed[item_id] = item["encrypted_content"]
    for at, item in enumerate(_items(body)):
        item_id = _text(item.get("id")) if _kind(item) == "reasoning" else None
        if item_id is None or item_id not in streamed or "encrypted_content" not in item:
            continue
        if item["encrypted_content"] != streamed[item_id]:
            yield (
                f"input[{at}].encrypted_content",
                f"reasoning item {item_id}: encrypted_content differs from what was streamed",
            )


def arguments_string(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """``responses.arguments_string``: a ``function_call`` item's ``arguments`` is JSON text
    (a string)."""
    for at, item in enumerate(_items(body)):
        if _kind(item) == "function_call" and "arguments" in item:
            if not isinstance(item["arguments"], str):
                yield (
                    f"input[{at}].arguments",
                    f"function_call {_text(item.get('call_id'))}: arguments are not a string; "
                    "send them as JSON text",
                )


CHECKS: Final[Mapping[str, RuleCheck]] = {
    "responses.function_calls_answered": function_calls_answered,
    "responses.outputs_answer_calls": outputs_answer_calls,
    "responses.output_once": output_once,
    "responses.reasoning_followed": reasoning_followed,
    "responses.item_with_its_reasoning": item_with_its_reasoning,
    "responses.no_resend_on_chain": no_resend_on_chain,
    "responses.encrypted_reasoning_when_not_stored": encrypted_reasoning_when_not_stored,
    "responses.encrypted_content_unchanged": encrypted_content_unchanged,
    "responses.arguments_string": arguments_string,
}
"""The checks, by rule id."""
