"""The request rules of ``gemini_interactions`` (:mod:`raf.formats.request_rules`): each check
named by its rule's id in ``CHECKS``. Pure functions; never raise on a JSON object.

A stateless request carries the whole history in ``input``: the earlier turns (each a
:class:`~raf.formats.request_rules.Prior` whose ``turn`` is that turn's steps, as
``build_request`` writes them) are found in it by their calls' ids."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

from raf.formats.format import RuleCheck

__all__ = ["CHECKS"]

Found = Iterator[tuple[str, str]]
_CALL: Final = "function_call"
_RESULT: Final = "function_result"
_THOUGHT: Final = "thought"


def _steps(body: Mapping[str, Any]) -> list[Any]:
    steps = body.get("input")
    return steps if isinstance(steps, list) else []


def _kind(step: Any) -> str | None:
    kind = step.get("type") if isinstance(step, dict) else None
    return kind if isinstance(kind, str) else None


def _text(step: Any, name: str) -> str | None:
    value = step.get(name) if isinstance(step, dict) else None
    return value if isinstance(value, str) and value else None


def thought_signature_kept(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """A thought step's signature streamed before a turn's calls goes back on a thought step,
    unchanged, before those calls (the calls' own steps carry none)."""
    steps = _steps(body)
    for earlier in prior:
        turn = list(getattr(earlier, "turn", ()) or ())
        signatures = [
            s for step in turn if _kind(step) == _THOUGHT and (s := _text(step, "signature"))
        ]
        calls = {i for step in turn if _kind(step) == _CALL and (i := _text(step, "id"))}
        if not signatures or not calls:
            continue
        for k, step in enumerate(steps):
            if _kind(step) != _CALL or _text(step, "id") not in calls:
                continue
            sent = {_text(s, "signature") for s in steps[:k] if _kind(s) == _THOUGHT} - {None}
            if not set(signatures) <= sent:
                yield (
                    f"input[{k}]",
                    f"function call {_text(step, 'id')!r} is sent back without the thought step "
                    "that carried its signature (resend the thought step unchanged before it)",
                )
            break  # the turn's first call is where its thought must have come


def function_result_per_call(body: Mapping[str, Any], prior: Sequence[Any]) -> Found:
    """Each function_call step of the history is answered by exactly one function_result
    step after it, naming its id; a result answers a call sent before it."""
    steps = _steps(body)
    open_calls: dict[str, int] = {}
    answered: set[str] = set()
    for k, step in enumerate(steps):
        kind = _kind(step)
        if kind == _CALL:
            call_id = _text(step, "id")
            if call_id is not None:
                open_calls[call_id] = k
        elif kind == _RESULT:
            call_id = _text(step, "call_id")
            if call_id is None or (call_id not in open_calls and call_id not in answered):
                yield f"input[{k}].call_id", f"function_result for {call_id!r}: no call before it"
            elif call_id in answered:
                yield f"input[{k}].call_id", f"function call {call_id!r} is answered twice"
            else:
                del open_calls[call_id]
                answered.add(call_id)
    for call_id, k in open_calls.items():
        yield f"input[{k}]", f"function call {call_id!r} has no function_result after it"


CHECKS: Final[Mapping[str, RuleCheck]] = {
    "interactions.thought_signature_kept": thought_signature_kept,
    "interactions.function_result_per_call": function_result_per_call,
}
"""Each rule's check, by the rule's id."""
