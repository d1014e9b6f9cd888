"""Check a golden against the expectation a person wrote in its cassette. No IO.

A golden is produced by the code under test, so it cannot be trusted on its own: every
cassette's ``raf.expect`` block states, in a few fields, what the aggregated response must
be, and :func:`expectation_problems` lists where a response (a golden's, or any
implementation's) disagrees with it.
"""

from __future__ import annotations

from typing import Any

import msgspec

from raf.cassettes.format import Expectation

__all__ = ["expectation_problems"]


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
    got_usage = (
        None
        if usage is None
        else {k: usage.get(k) for k in ("prompt_tokens", "completion_tokens", "total_tokens")}
    )
    differ("usage", None if expect.usage is None else msgspec.to_builtins(expect.usage), got_usage)
    differ(
        "errors",
        list(expect.errors),
        [error.get("error_code") for error in response.get("errors", [])],
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
    return problems
