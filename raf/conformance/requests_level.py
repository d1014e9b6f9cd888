"""The ``requests`` level: every request a client's tool loop sent, judged from what
``raf serve`` wrote in its journal for the run. Pure functions, no IO.

For each request of the run, in the order it arrived (``requests[n]``, the n-th request of
the run; the first is the conversation's opening request):

- each request rule it broke (:mod:`raf.formats.request_rules`, the journal entry's
  ``rules``) is a difference of kind ``wrong``, named by the rule's id and the field;
- each difference the request check found from the recorded request it was matched with
  (the journal entry's ``check``, under the check's normalisation: docs/serve.md) is a
  difference of kind ``wrong``, named by its path (``requests[1].messages[3].tool_call_id``);
- a request the server answered itself, without a round or a check (busy, a body that is not
  JSON), is a difference of kind ``wrong`` at ``requests[n].status``, with its outcome.

Then the count: fewer requests than the recording has is ``lost`` (the loop stopped early:
its user never got the final answer); more is ``invented`` (the loop asked again).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from raf.cassettes.tool_loops import ToolLoopSpec
from raf.conformance.levels import Mismatch
from raf.formats.request_rules import rule as find_rule

__all__ = ["LEVEL", "judge_requests", "request_line_mismatch"]

LEVEL = "requests"


def judge_requests(spec: ToolLoopSpec, entries: Sequence[Mapping[str, Any]]) -> list[Mismatch]:
    """The differences of the requests of one run (``entries``: the journal entries of its
    requests, in the order they arrived) from what ``spec`` recorded."""
    found: list[Mismatch] = []
    for n, entry in enumerate(entries):
        where = f"requests[{n}]"
        for broken in entry.get("rules") or ():
            rule_id = str(broken.get("rule", ""))
            known = find_rule(rule_id)
            statement = known.statement if known is not None else rule_id
            found.append(
                Mismatch(
                    where=f"{where}.{broken.get('field', '')} (rule {rule_id})",
                    expected=statement,
                    actual=str(broken.get("message", "")),
                    kind="wrong",
                    field=f"{where}.rule:{rule_id}",
                    level=LEVEL,
                )
            )
        check = entry.get("check")
        if not isinstance(check, Mapping):  # answered by the server itself, never checked
            found.append(
                Mismatch(
                    where=f"{where}.status",
                    expected="an answer from the recording",
                    actual=f"raf serve answered {entry.get('status')}: {entry.get('outcome')}",
                    kind="wrong",
                    field=f"{where}.status",
                    level=LEVEL,
                )
            )
            continue
        found.extend(
            request_line_mismatch(str(line), where, LEVEL) for line in check.get("mismatches") or ()
        )
    if len(entries) < spec.requests:
        found.append(
            Mismatch(
                where="requests",
                expected=f"{spec.requests} requests",
                actual=f"{len(entries)}",
                kind="lost",
                field="requests.count",
                level=LEVEL,
            )
        )
    elif len(entries) > spec.requests:
        found.append(
            Mismatch(
                where="requests",
                expected=f"{spec.requests} requests",
                actual=f"{len(entries)}",
                kind="invented",
                field="requests.count",
                level=LEVEL,
            )
        )
    return found


def request_line_mismatch(line: str, where: str, level: str) -> Mismatch:
    """A line of the request check (``messages[1].content: expected ..., got ...``, or a
    sentence) as a mismatch found at ``level``, its field under ``where`` (``request``,
    ``requests[2]``)."""
    path, sep, rest = line.partition(": ")
    if not sep or " " in path:
        return Mismatch(where, "a request like the recorded one", line, level=level)
    expected, actual = "the recorded request", rest
    said, got, value = rest.removeprefix("expected ").partition(", got ")
    if rest.startswith("expected ") and got:  # "expected X, got Y": as the other levels say it
        expected, actual = f"{said} (recorded)", value
    return Mismatch(f"{where}.{path}", expected, actual, field=f"{where}.{path}", level=level)
