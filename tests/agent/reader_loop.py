"""An independent reader of the tool loop's stream: what the agent streams over a recording.

``read_runs(scenario, header, rounds)`` derives, for each run of an agent scenario, the
canonical JSON of the ``AgentResponseUpdate`` values the tool loop emits (what the agent
goldens hold, ``conformance/tool_loops_goldens/<scenario>.json``, key ``updates`` of each
run). It is written from the documentation only, so that the agent goldens are checked
against something other than the code that wrote them:

- ``docs/agent.md``: the diagram's summary of the stream, "The stream it emits", "States",
  "A round's calls", "Approval and resume", and "Recordings and replay" (what a scenario and
  a recording's ``raf.run`` hold);
- ``conformance/schema/update.schema.json``: the canonical JSON of ``RoundFinished``,
  ``ToolCalled``, ``ToolApprovalRequest`` and ``Finish`` (a ``"type"`` tag first, then every
  field in the order of the schema).

Its inputs are plain data, read by the test that calls it:

- ``rounds``: the updates of every model response of the recording, in order, each read by
  the independent reader of the recording's format (``tests/conformance/reader_<format>.py``,
  ``read_updates``);
- ``scenario``: the scenario (``conformance/tool_loop_scenarios.yaml``): its ``runs`` (each
  with its person-reviewed ``expect`` and ``approve``), ``max_rounds``, ``requires_approval``
  and the agent's ``tools`` (``name``, ``description``, ``requires_approval``);
- ``header``: the ``expect`` of the recording's ``raf.run`` (a multi-round recording's
  reviewed outcome), or ``None`` for a bundled follow-up cassette, which has none.

From the reviewed expectations it takes what the bodies cannot say: which calls each round
made, in call order (``rounds[].calls``; ``tool_calls`` and ``approval_requests``), what each
call was answered (``tool_messages``: ``content``, and ``is_error``), and which calls wait for
approval (``approval_requests``). It checks what the bodies do say against them (each tool
round's finish reason and usage).

It imports nothing from raf, only the standard library. Marks: ``READING:`` a place where
docs/agent.md does not say it in so many words, and the comment gives the reading taken.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["ReaderError", "read_runs"]

Update = dict[str, Any]

COUNTED = ("prompt_tokens", "completion_tokens", "total_tokens")
"""The usage fields a reviewed expectation states (docs/agent.md: "each round's finish reason
and usage")."""


class ReaderError(Exception):
    """The reviewed expectation does not say what the reader needs, or contradicts the
    recorded bodies (the message says where)."""


# =============================================================================================
# Canonical JSON of the loop's own updates (conformance/schema/update.schema.json).
# =============================================================================================


def round_finished(number: int, finish_reason: str | None, usage: Any) -> Update:
    """``RoundFinished(round, finish_reason, usage)``."""
    return {
        "type": "round_finished",
        "round": number,
        "finish_reason": finish_reason,
        "usage": usage,
    }


def tool_called(call_id: str, content: str, is_error: bool) -> Update:
    """``ToolCalled(id, result | error)``: docs/agent.md, "What collect makes of a tool loop's
    run": a tool message's ``content`` is the ``ToolCalled``'s result, else its error ("the
    loop sets exactly one"), and ``is_error`` says whether it is the error."""
    return {
        "type": "tool_called",
        "id": call_id,
        "result": None if is_error else content,
        "error": content if is_error else None,
    }


def approval_request(call_id: str, name: str, arguments: Any, description: str) -> Update:
    """``ToolApprovalRequest(call_id, name, arguments, description)``: docs/agent.md,
    "Approval and resume": ``arguments`` parsed, ``description`` the tool's."""
    return {
        "type": "tool_approval_request",
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        "description": description,
    }


def finish(finish_reason: str) -> Update:
    """The loop's own ``Finish`` (``awaiting_approval``, ``max_rounds``).

    READING: docs/agent.md names these ``Finish(awaiting_approval)`` and
    ``Finish(max_rounds)`` with no usage: they end no model round, so they carry none
    (``usage`` null); the rounds' usages are on their ``RoundFinished``."""
    return {"type": "finish", "finish_reason": finish_reason, "usage": None}


# =============================================================================================
# One model round, as the loop sees it.
# =============================================================================================


def split_round(updates: Sequence[Update]) -> tuple[list[Update], Update | None, Any]:
    """The updates of a round the loop forwards, the round's ``Finish``, and its last usage.

    docs/agent.md, "The stream it emits": "the wrapped client's updates are forwarded as they
    arrive, except its ``Finish``"; "States": the ``Finish`` is "kept for the round".
    ``RoundFinished`` carries "the round's last usage": the usage of the last update of the
    round that carried one (a ``Usage`` update, or the ``Finish`` itself).

    READING: when a round streams several ``Finish`` updates, the one kept is the last (the
    table says "kept for the round", as one value). No recorded round has two.
    """
    forwarded: list[Update] = []
    kept: Update | None = None
    usage: Any = None
    for update in updates:
        if update["type"] == "finish":
            kept = update
            if update["usage"] is not None:
                usage = update["usage"]
            continue
        if update["type"] == "usage":
            usage = update["usage"]
        forwarded.append(update)
    return forwarded, kept, usage


def counted(usage: Any) -> Any:
    """The fields of a usage a reviewed expectation states."""
    if usage is None:
        return None
    return {key: usage.get(key) for key in COUNTED}


# =============================================================================================
# What the reviewed expectations say.
# =============================================================================================


def call_ids(entries: Sequence[Any]) -> list[str]:
    """The call ids of ``tool_calls`` (ids, or records with an ``id``) or of
    ``approval_requests`` (records with a ``call_id``)."""
    out = []
    for entry in entries:
        if isinstance(entry, str):
            out.append(entry)
        elif "call_id" in entry:
            out.append(str(entry["call_id"]))
        else:
            out.append(str(entry["id"]))
    return out


class Expectations:
    """The reviewed data of one scenario, looked up the way the reader needs it."""

    def __init__(self, scenario: Mapping[str, Any], header: Mapping[str, Any] | None) -> None:
        self.scenario = scenario
        self.header = header
        tools = scenario.get("tools") or ()
        self.descriptions = {str(t["name"]): str(t.get("description", "")) for t in tools}
        needs = set(scenario.get("requires_approval") or ())
        needs.update(str(t["name"]) for t in tools if t.get("requires_approval"))
        self.requiring_approval = needs
        # What each call was answered, by call id, as a multi-round recording's own run states
        # it (a scenario's run that omits its tool messages, as the max-rounds and paused
        # runs do, runs the same calls of the same recording with the same tools).
        self.header_answers: dict[str, Mapping[str, Any]] = {}
        for message in (header or {}).get("tool_messages") or ():
            self.header_answers[str(message["call_id"])] = message

    def round_calls(self, expect: Mapping[str, Any], first: int, requests: int) -> list[list[str]]:
        """The call ids of each model round of a run, in call order; ``first`` is the
        recording's response the run starts at.

        Where the run's expectation lists each round's ``calls``, they are taken; else those
        of the recording's own run (``header``), whose rounds are the recording's responses;
        else (a bundled follow-up cassette: "a call then the answer", one tool round) every
        call the run lists belongs to its first round.
        """
        rounds = expect.get("rounds") or ()
        if rounds and all("calls" in r for r in rounds):
            if len(rounds) != requests:
                raise ReaderError(f"{len(rounds)} rounds listed for {requests} requests")
            return [call_ids(r["calls"]) for r in rounds]
        header_rounds = (self.header or {}).get("rounds") or ()
        if header_rounds and all("calls" in r for r in header_rounds):
            if first + requests > len(header_rounds):
                raise ReaderError("the recording's run lists fewer rounds than the run makes")
            return [call_ids(r["calls"]) for r in header_rounds[first : first + requests]]
        listed = call_ids(expect.get("tool_calls") or expect.get("approval_requests") or ())
        return [listed if n == 0 else [] for n in range(requests)]

    def reviewed_round(
        self, expect: Mapping[str, Any], first: int, number: int
    ) -> Mapping[str, Any] | None:
        """The reviewed entry of a run's round ``number``: the run's own ``rounds``, else the
        recording's own run's entry for that response, else none."""
        rounds = expect.get("rounds")
        if rounds:
            if number >= len(rounds):
                raise ReaderError(f"round {number} is not among the reviewed rounds")
            found: Mapping[str, Any] = rounds[number]
            return found
        header_rounds = (self.header or {}).get("rounds") or ()
        if first + number < len(header_rounds):
            found = header_rounds[first + number]
            return found
        return None

    def answer(self, call_id: str, answers: list[Mapping[str, Any]] | None) -> Update:
        """The ``ToolCalled`` of ``call_id``: the run's next tool message when the run lists
        them (one per ``ToolCalled``, in order: docs/agent.md, "What collect makes..."), else
        the recording's own run's answer to that call."""
        if answers is not None:
            if not answers:
                raise ReaderError(f"no tool message left for call {call_id}")
            message = answers.pop(0)
            if str(message["call_id"]) != call_id:
                raise ReaderError(
                    f"the next tool message answers {message['call_id']}, the next call is "
                    f"{call_id}"
                )
        else:
            found = self.header_answers.get(call_id)
            if found is None:
                raise ReaderError(f"no reviewed tool message answers call {call_id}")
            message = found
        return tool_called(call_id, str(message["content"]), bool(message["is_error"]))


# =============================================================================================
# The runs.
# =============================================================================================


def read_runs(
    scenario: Mapping[str, Any],
    header: Mapping[str, Any] | None,
    rounds: Sequence[Sequence[Update]],
) -> list[list[Update]]:
    """The tool loop's stream of each run of ``scenario``, in canonical JSON.

    Raises:
        ReaderError: the expectations do not say what a run needs, or contradict the bodies.
    """
    known = Expectations(scenario, header)
    max_rounds = int(scenario.get("max_rounds", 10))
    out: list[list[Update]] = []
    answered = 0  # the recording's responses used by the runs before
    pending: list[str] = []  # the calls a paused run left waiting
    for number, run in enumerate(scenario["runs"]):
        expect = run["expect"]
        requests = int(expect["requests"])
        if answered + requests > len(rounds):
            raise ReaderError(f"run {number}: the recording has too few responses")
        try:
            stream, pending = read_run(
                known,
                expect,
                rounds[answered : answered + requests],
                first=answered,
                max_rounds=max_rounds,
                resumed=pending if number and run.get("approve") is not None else [],
            )
        except ReaderError as exc:
            raise ReaderError(f"run {number}: {exc}") from None
        out.append(stream)
        answered += requests
    return out


def read_run(
    known: Expectations,
    expect: Mapping[str, Any],
    rounds: Sequence[Sequence[Update]],
    *,
    first: int,
    max_rounds: int,
    resumed: Sequence[str],
) -> tuple[list[Update], list[str]]:
    """One run's stream, and the calls it leaves waiting for approval."""
    listed = expect.get("tool_messages")
    answers: list[Mapping[str, Any]] | None = (
        [dict(m) for m in listed] if listed is not None else None
    )
    calls_of = known.round_calls(expect, first, len(rounds))
    paused = expect["finish_reason"] == "awaiting_approval"
    out: list[Update] = []

    # "Approval and resume": the next run resumes when it carries approval responses; "a
    # ToolCalled is emitted for each [pending call], in call order, then the model is
    # called". "States": ready --Begin--> resuming --ToolsDone--> "ToolCalled per pending
    # call; CallModel".
    out.extend(known.answer(call_id, answers) for call_id in resumed)
    if max_rounds == 0:
        # "States": ready --Begin--> "max_rounds 0: Finish(max_rounds), DONE"; resuming
        # --ToolsDone--> "CallModel or Finish(max_rounds)": the model is never called.
        if rounds:
            raise ReaderError("max_rounds is 0, yet the run calls the model")
        out.append(finish("max_rounds"))
        return out, []

    waiting: list[str] = []
    for number, updates in enumerate(rounds):
        forwarded, kept, usage = split_round(updates)
        out.extend(forwarded)
        calls = calls_of[number]
        if kept is None:
            # "A round whose stream ended without a finish reason ... ends the run there: no
            # tool runs". No recording does this; a run that does ends here.
            if number != len(rounds) - 1:
                raise ReaderError(f"round {number} has no finish but is not the last")
            break
        check_round(known.reviewed_round(expect, first, number), number, kept, usage)
        if not calls:
            # "A round without calls ends the run: its Finish is forwarded unchanged."
            if number != len(rounds) - 1:
                raise ReaderError(f"round {number} calls no tool but is not the last")
            out.append(kept)
            break
        # "If the round calls tools: RoundFinished(round, finish_reason, usage) (the
        # provider's finish reason and the round's last usage)".
        out.append(round_finished(number, kept["finish_reason"], usage))
        if paused and number == len(rounds) - 1:
            # "when a called tool requires approval, one ToolApprovalRequest per call whose
            # tool requires it and Finish(awaiting_approval)"; "The other calls of the round
            # wait with them, and are answered on resume."
            out.extend(requests_for_approval(known, expect, calls))
            out.append(finish("awaiting_approval"))
            waiting = list(calls)
            break
        # "one ToolCalled(id, result | error) per call in call order once all ran"
        out.extend(known.answer(call_id, answers) for call_id in calls)
        # "After max_rounds model calls: Finish(max_rounds) after the last round's ToolCalled."
        if number + 1 == max_rounds:
            if number != len(rounds) - 1:
                raise ReaderError(f"the run makes more than max_rounds ({max_rounds}) calls")
            out.append(finish("max_rounds"))
            break
    else:
        raise ReaderError("the run's last round neither ended it nor reached max_rounds")
    if answers:
        raise ReaderError(f"{len(answers)} tool message(s) answer no call the run made")
    if out[-1]["type"] != "finish" or out[-1]["finish_reason"] != expect["finish_reason"]:
        raise ReaderError(f"the run does not end with its expected {expect['finish_reason']}")
    return out, waiting


def check_round(want: Mapping[str, Any] | None, number: int, kept: Update, usage: Any) -> None:
    """The recorded finish reason and last usage of a round agree with its reviewed entry
    (``rounds[]``: "each round's finish reason and usage"), when there is one."""
    if want is None:
        return
    finish_reason = kept["finish_reason"]
    if want.get("finish_reason") != finish_reason:
        raise ReaderError(
            f"round {number}: the body finishes {finish_reason!r}, the review says "
            f"{want.get('finish_reason')!r}"
        )
    if "usage" in want and counted(usage) != want["usage"]:
        raise ReaderError(
            f"round {number}: the body's last usage is {counted(usage)}, the review says "
            f"{want['usage']}"
        )


def requests_for_approval(
    known: Expectations, expect: Mapping[str, Any], calls: Sequence[str]
) -> list[Update]:
    """The approval requests of a paused round: the reviewed ``approval_requests``, each a call
    of the round whose tool requires approval, in call order, with its tool's description.

    READING: "one ToolApprovalRequest per call whose tool requires it" and whose arguments
    passed the checks ("a call the tool would run"); which calls those are, and their parsed
    arguments, is what the reviewed ``approval_requests`` state. They come in call order
    ("the calls of a round ... are answered in call order"; the requests are per call).
    """
    asked = expect.get("approval_requests")
    if not asked:
        raise ReaderError("a paused run lists no approval_requests")
    order = {call_id: n for n, call_id in enumerate(calls)}
    out = []
    last = -1
    for entry in asked:
        call_id, name = str(entry["call_id"]), str(entry["name"])
        if call_id not in order:
            raise ReaderError(f"approval requested for {call_id}, not a call of the round")
        if order[call_id] < last:
            raise ReaderError("approval_requests are not in call order")
        last = order[call_id]
        if name not in known.requiring_approval:
            raise ReaderError(f"approval requested for {call_id}, but {name} needs none")
        out.append(
            approval_request(call_id, name, entry["arguments"], known.descriptions.get(name, ""))
        )
    return out
