"""What must hold for ANY input, however hostile: the checks the hostile-input properties share.

* nothing raises out of the byte-fed path (the caller of these checks would see it);
* raf never reports a bug of its own (``internal_error``), and every error code is known;
* an error keeps a bounded ``raw`` excerpt, except a tool call's (its arguments, bounded by
  ``max_arguments_chars``);
* every tool call that started is accounted for at the end: called, or named by an error;
* every result and the response encode as canonical JSON and decode back to themselves;
* streaming the results and aggregating them gives what ``respond`` gives.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from raf.collect import collect_agent_response
from raf.limits import DEFAULT_MAX_RAW_CHARS
from raf.model import AgentResponse, AgentResponseResult, ErrorCode, contents
from raf.model.canonical import from_json, to_json
from raf.pipeline import respond, run

T0 = datetime(2026, 12, 1, tzinfo=UTC)
KNOWN_CODES = {code.value for code in ErrorCode} - {ErrorCode.INTERNAL_ERROR.value}
# raw_excerpt's marker adds "...[N characters omitted]..." to the two halves.
RAW_BOUND = DEFAULT_MAX_RAW_CHARS + 64


def sound_response(chunks: Sequence[bytes], **options: Any) -> AgentResponse:
    """Run ``chunks`` through the pipeline, check every invariant above, return the response."""
    options.setdefault("clock", lambda: T0)  # two runs, one timestamp: results compare equal
    results = list(run(chunks, **options))
    response = respond(chunks, **options)
    assert collect_agent_response(results) == response
    check_response(response, results)
    return response


def check_response(response: AgentResponse, results: Sequence[AgentResponseResult]) -> None:
    for error in response.errors:
        assert error.error_code in KNOWN_CODES, (error.error_code, error.message)
        if error.call_id is None and error.raw is not None:
            assert len(error.raw) <= RAW_BOUND, len(error.raw)
    started = {
        c.call_id for r in results for c in r.contents if isinstance(c, contents.ToolCallStart)
    }
    accounted = {c.id for c in response.tool_calls} | {
        e.call_id for e in response.errors if e.call_id is not None
    }
    assert started <= accounted, started - accounted
    assert from_json(to_json(response, include_meta=True), AgentResponse) == response
    for result in results:
        assert from_json(to_json(result, include_meta=True), AgentResponseResult) == result
