"""Draft a cassette's ``expect`` block from raf's own reading, for a person to review. No IO.

A recording of one's own becomes a test only once a person has said what a correct client
must make of it (docs/cassettes.md). :func:`draft_expectation` writes the first version of
that statement from raf's reference pipeline: the text, the reasoning, the tool calls (with
the provider's id, when the stream carried one), the finish reason, the three token counts
and the error and notice codes of the last interaction's aggregated response, marked ``reviewed:
false``. Such a cassette is not blessed (no golden is written for it, ``raf conform`` names
it) until the person has read every field against the recording, corrected what raf got
wrong, and deleted the ``reviewed: false`` line.

    from raf.cassettes import load
    from raf.conformance.draft import draft_expectation

    expect = draft_expectation(load("mine/openai_chat/refund.yaml"))
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from raf.cassettes.format import (
    Cassette,
    Expectation,
    ExpectedCall,
    ExpectedHostedCall,
    ExpectedUsage,
    ScenarioInfo,
)
from raf.conformance.reference import run_cassette

__all__ = ["draft_expectation"]


def _carried(call_id: Any, body: bytes) -> bool:
    if not isinstance(call_id, str) or not call_id:
        return False
    return any(
        json.dumps(call_id, ensure_ascii=ascii).encode("utf-8") in body for ascii in (True, False)
    )


def draft_expectation(cassette: Cassette, dialect: str | None = None) -> Expectation:
    """The expectation raf's reference pipeline would write for ``cassette`` (its last
    interaction, read in one piece), marked unreviewed. ``dialect`` overrides the cassette's
    own (``raf.dialect``; ``openai_chat`` when it has none). A body recorded with a
    ``content-encoding`` is read decoded.

    Raises:
        BodyNotDecoded: a body has a ``content-encoding`` and does not decode.
    """
    if dialect is not None:
        info = cassette.info or ScenarioInfo(scenario="draft")
        cassette = Cassette(
            interactions=cassette.interactions,
            info=msgspec.structs.replace(info, dialect=dialect),
        )
    outputs = run_cassette(cassette)
    if not outputs:
        return Expectation(reviewed=False)
    response = outputs[-1].response
    body = cassette.interactions[-1].response.content()
    usage = response.get("usage")
    return Expectation(
        text=response.get("text") or "",
        reasoning=response.get("reasoning_text") or None,
        tool_calls=tuple(
            ExpectedCall(
                name=call.get("name") or "",
                arguments=call.get("arguments"),
                id=call.get("id") if _carried(call.get("id"), body) else None,
            )
            for call in response.get("tool_calls") or []
        ),
        hosted_tool_calls=tuple(
            ExpectedHostedCall(
                name=call.get("name") or "",
                arguments=call.get("arguments"),
                id=call.get("id") if _carried(call.get("id"), body) else None,
                answered=call.get("output") is not None or call.get("error") is not None,
            )
            for call in response.get("hosted_tool_calls") or []
        ),
        approval_requests=tuple(
            ExpectedCall(
                name=request.get("name") or "",
                arguments=request.get("arguments"),
                id=request.get("call_id") if _carried(request.get("call_id"), body) else None,
            )
            for request in response.get("approval_requests") or []
        ),
        finish_reason=response.get("finish_reason"),
        usage=None
        if usage is None
        else ExpectedUsage(
            prompt_tokens=usage.get("prompt_tokens") or 0,
            completion_tokens=usage.get("completion_tokens") or 0,
            total_tokens=usage.get("total_tokens") or 0,
        ),
        errors=tuple(str(e.get("error_code")) for e in response.get("errors") or []),
        notices=tuple(str(e.get("error_code")) for e in response.get("notices") or []),
        reviewed=False,
    )
