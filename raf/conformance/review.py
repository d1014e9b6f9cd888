"""Check a golden against the expectation a person wrote in its cassette, and turn the other
readings the expectation accepts into expected responses. No IO.

A golden is produced by the code under test, so it cannot be trusted on its own: every
cassette's ``raf.expect`` block states, in a few fields, what the aggregated response must
be, and :func:`expectation_problems` lists where a response (a golden's, or any
implementation's) disagrees with it. Where reasonable readings of a stream differ, the block's
``also`` lists the other correct ones (each with why): :func:`other_readings` gives each as the
golden's response with those fields changed, for the levels to accept as well.
"""

from __future__ import annotations

import copy
from typing import Any

import msgspec
from msgspec import UNSET

from raf.cassettes.format import Expectation, ExpectedCall, Reading

__all__ = ["OtherReading", "expectation_problems", "other_readings", "reading_problems"]

_COUNTS = ("prompt_tokens", "completion_tokens", "total_tokens")


def expectation_problems(expect: Expectation, response: dict[str, Any]) -> list[str]:
    """Where ``response`` (a canonical ``AgentResponse``) differs from ``expect``; empty when
    it matches."""
    problems: list[str] = []

    def differ(field: str, want: Any, got: Any) -> None:
        if want != got:
            problems.append(f"{field}: expected {want!r}, got {got!r}")

    differ("text", expect.text, response.get("text"))
    differ("reasoning", expect.reasoning, response.get("reasoning_text"))
    differ("finish_reason", expect.finish_reason, response.get("finish_reason"))
    usage = response.get("usage")
    got_usage = None if usage is None else {k: usage.get(k) for k in _COUNTS}
    differ("usage", None if expect.usage is None else msgspec.to_builtins(expect.usage), got_usage)
    differ(
        "errors",
        list(expect.errors),
        [error.get("error_code") for error in response.get("errors", [])],
    )
    differ(
        "notices",
        list(expect.notices),
        [notice.get("error_code") for notice in response.get("notices", [])],
    )
    calls = response.get("tool_calls", [])
    if len(calls) != len(expect.tool_calls):
        problems.append(
            f"tool_calls: expected {len(expect.tool_calls)} call(s), got {len(calls)}: "
            f"{[c.get('name') for c in calls]}"
        )
    for n, (want, got) in enumerate(zip(expect.tool_calls, calls, strict=False)):
        differ(f"tool_calls[{n}].name", want.name, got.get("name"))
        differ(f"tool_calls[{n}].arguments", want.arguments, got.get("arguments"))
        if want.id is not None:
            differ(f"tool_calls[{n}].id", want.id, got.get("id"))
    hosted = response.get("hosted_tool_calls") or []
    if len(hosted) != len(expect.hosted_tool_calls):
        problems.append(
            f"hosted_tool_calls: expected {len(expect.hosted_tool_calls)} call(s), got "
            f"{len(hosted)}: {[c.get('name') for c in hosted]}"
        )
    for n, (h_want, h_got) in enumerate(zip(expect.hosted_tool_calls, hosted, strict=False)):
        where = f"hosted_tool_calls[{n}]"
        differ(f"{where}.name", h_want.name, h_got.get("name"))
        if h_want.arguments is not UNSET:
            differ(f"{where}.arguments", h_want.arguments, h_got.get("arguments"))
        if h_want.id is not None:
            differ(f"{where}.id", h_want.id, h_got.get("id"))
        answered = h_got.get("output") is not None or h_got.get("error") is not None
        differ(f"{where}.answered", h_want.answered, answered)
    approvals = response.get("approval_requests") or []
    if len(approvals) != len(expect.approval_requests):
        problems.append(
            f"approval_requests: expected {len(expect.approval_requests)} request(s), got "
            f"{len(approvals)}: {[a.get('name') for a in approvals]}"
        )
    for n, (a_want, a_got) in enumerate(zip(expect.approval_requests, approvals, strict=False)):
        differ(f"approval_requests[{n}].name", a_want.name, a_got.get("name"))
        differ(f"approval_requests[{n}].arguments", a_want.arguments, a_got.get("arguments"))
        if a_want.id is not None:
            differ(f"approval_requests[{n}].id", a_want.id, a_got.get("call_id"))
    return problems


class OtherReading(msgspec.Struct, frozen=True, kw_only=True):
    """Another correct response of a case: ``response`` (canonical JSON), and ``why`` it is
    correct too."""

    why: str
    response: dict[str, Any]


def reading_problems(expect: Expectation) -> list[str]:
    """What is wrong with the ``also`` readings of ``expect``: a reading without a reason, or
    one that changes nothing."""
    problems = []
    for n, reading in enumerate(expect.also):
        if not reading.why.strip():
            problems.append(f"also[{n}]: says no 'why'")
        changed = [
            name
            for name in (
                "text",
                "reasoning",
                "tool_calls",
                "finish_reason",
                "usage",
                "errors",
                "notices",
            )
            if getattr(reading, name) is not UNSET
            and getattr(reading, name) != getattr(expect, name)
        ]
        if not changed:
            problems.append(f"also[{n}]: changes nothing the expectation says")
    return problems


def other_readings(expect: Expectation | None, response: dict[str, Any]) -> list[OtherReading]:
    """Each reading of ``expect.also`` as a whole expected response: ``response`` (the
    golden's, which satisfies the expectation) with the fields the reading changes.

    A changed tool call takes the id of the golden's call with the same name and arguments
    (the first not yet taken), else the id the reading gives, else none: an id raf would
    make up, so that any unique id matches it.
    """
    if expect is None:
        return []
    return [
        OtherReading(why=reading.why, response=_applied(reading, response))
        for reading in expect.also
    ]


def _applied(reading: Reading, response: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(response)
    if reading.text is not UNSET:
        out["text"] = reading.text
    if reading.reasoning is not UNSET:
        out["reasoning_text"] = reading.reasoning
    if reading.finish_reason is not UNSET:
        out["finish_reason"] = reading.finish_reason
    if reading.usage is not UNSET:
        out["usage"] = (
            None
            if reading.usage is None
            else {
                **dict.fromkeys(
                    ("prompt_cache_hit_tokens", "prompt_cache_miss_tokens", "reasoning_tokens")
                ),
                **msgspec.to_builtins(reading.usage),
            }
        )
    if reading.errors is not UNSET:
        out["errors"] = [{"error_code": code, "message": ""} for code in reading.errors]
    if reading.notices is not UNSET:
        out["notices"] = [{"error_code": code, "message": ""} for code in reading.notices]
    if reading.tool_calls is not UNSET:
        out["tool_calls"] = _calls(reading.tool_calls, response.get("tool_calls") or [])
    return out


def _calls(calls: tuple[ExpectedCall, ...], golden: list[dict[str, Any]]) -> list[dict[str, Any]]:
    taken: set[int] = set()
    out = []
    for n, call in enumerate(calls):
        match = next(
            (
                i
                for i, g in enumerate(golden)
                if i not in taken
                and g.get("name") == call.name
                and g.get("arguments") == call.arguments
            ),
            None,
        )
        if match is not None:
            taken.add(match)
            call_id = golden[match].get("id")
        else:
            call_id = call.id if call.id is not None else f"__tc_reading_{n}"
        out.append({"id": call_id, "name": call.name, "arguments": call.arguments})
    return out
