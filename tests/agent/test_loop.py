"""The tool loop (raf-spec 5) through its sync shell over a scripted model: the error texts
of 5.4 and 5.4.1, the stream it emits, the approval gate and resume, max rounds; and the
state machine itself (its table, the docs drawn from it)."""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import msgspec
import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from raf.agent.invoking import AsyncFunctionInvokingChatClient, FunctionInvokingChatClient
from raf.agent.loop import (
    ERROR_TEXTS,
    TRANSITIONS,
    Begin,
    CallModel,
    Cancel,
    Done,
    Emit,
    InnerEnded,
    InnerUpdate,
    LoopError,
    State,
    ToolLoop,
    state_table,
)
from raf.agent.options import Cancellation, ChatOptions
from raf.agent.tools import FunctionTool, ToolRegistry, ToolResult, tool
from raf.model import blocks, updates
from raf.model.messages import ChatMessage, MessageRole, ToolApprovalResponse, ToolCall
from raf.model.updates import AgentResponseUpdate
from tests.agent.fakes import AsyncScriptedClient, ScriptedClient, call_turn, text_turn, usage

ROOT = Path(__file__).resolve().parents[2]


class Point(msgspec.Struct):
    x: int


@tool
def get(q: int, unit: Literal["c", "f"] = "c", to: Point | None = None) -> dict[str, Any]:
    """Get q."""
    return {"q": q}


@tool
def ping() -> str:
    """No parameters."""
    return "pong"


@tool
def fails() -> ToolResult:
    return ToolResult.failure("no such city")


@tool
def boom() -> str:
    raise RuntimeError("it broke")


SCHEMA = msgspec.json.encode(get.parameters).decode()
TOOLS = [get, ping, fails, boom]


def run(
    script: list[list[AgentResponseUpdate]],
    tools: list[Any] = TOOLS,
    messages: tuple[ChatMessage, ...] = (ChatMessage.user("hi"),),
    **options: Any,
) -> tuple[list[AgentResponseUpdate], ScriptedClient, FunctionInvokingChatClient]:
    max_rounds = options.pop("max_rounds", 10)
    client = ScriptedClient(script)
    fi = FunctionInvokingChatClient(client, tools, max_rounds=max_rounds)
    out = list(fi.stream(messages, ChatOptions(**options)))
    return out, client, fi


def answer(name: str, arguments: str) -> tuple[str | None, str | None]:
    """(result, error) of one call."""
    out, _, _ = run([call_turn(("c1", name, arguments)), text_turn("ok")])
    called = [u for u in out if isinstance(u, updates.ToolCalled)]
    assert len(called) == 1
    return called[0].result, called[0].error


def not_object(raw: str, what: str) -> str:
    return invalid(
        raw,
        f"Expected a JSON object with named parameters, but received: {what}. "
        'Please use the format {"param1": value1, "param2": value2}.',
    )


def invalid(raw: str, problems: str) -> str:
    return (
        f"Tool 'get' was called with invalid or incomplete arguments.\nYou sent: {raw}\n"
        f"Problem: {problems}\nExpected schema: {SCHEMA}\nPlease fix your arguments and retry."
    )


ERROR_CASES = [
    pytest.param(
        "get",
        "",
        None,
        f"Tool 'get' was called without any arguments. Expected schema: {SCHEMA}. "
        "Please provide all required fields.",
        id="no-arguments",
    ),
    pytest.param("ping", "", "pong", None, id="no-arguments-no-required-parameter"),
    pytest.param(
        "get",
        '{"q":',
        None,
        "Tool 'get' was called with invalid JSON arguments: {\"q\":\n"
        "Parse error: Input data was truncated\n"
        f"Please provide valid JSON with all required fields. Expected schema: {SCHEMA}",
        id="invalid-json",
    ),
    pytest.param(
        "nope",
        "{x",
        None,
        "Tool 'nope' was called with invalid JSON arguments: {x\n"
        "Parse error: JSON is malformed: object keys must be strings (byte 1)\n"
        "Please provide valid JSON with all required fields.",
        id="invalid-json-unknown-tool",
    ),
    pytest.param("get", "[1]", None, not_object("[1]", "an array"), id="array"),
    pytest.param("get", "5", None, not_object("5", "a number"), id="number"),
    pytest.param("get", "true", None, not_object("true", "a boolean"), id="bool"),
    pytest.param("get", "null", None, not_object("null", "null"), id="null"),
    pytest.param("get", '""', None, not_object('""', "an empty string"), id="empty-string"),
    pytest.param(
        "get",
        '"Paris"',
        None,
        invalid(
            '"Paris"',
            'Expected a JSON object, but received a bare string: "Paris". Did you mean '
            '{"<parameter_name>": "Paris"}? Check the schema below for the correct parameter '
            "names.",
        ),
        id="bare-string",
    ),
    pytest.param("get", "{}", None, invalid("{}", 'Missing required field: "q"'), id="missing"),
    pytest.param(
        "get",
        '{"q":"x"}',
        None,
        invalid('{"q":"x"}', 'Field "q" has type "string", but expected type "integer".'),
        id="wrong-type",
    ),
    pytest.param(
        "get",
        '{"unit":"k","to":{"x":"a"}}',
        None,
        invalid(
            '{"unit":"k","to":{"x":"a"}}',
            'Missing required field: "q"; '
            "At $.to.x: 'a' is not of type 'integer'; "
            "At $.unit: 'k' is not one of ['c', 'f']",
        ),
        id="enum-nested-and-missing",
    ),
    pytest.param(
        "get",
        '{"q":1.5}',
        None,
        invalid('{"q":1.5}', 'Field "q" has type "number", but expected type "integer".'),
        id="integer-is-not-any-number",
    ),
    pytest.param("get", '{"q":2}', '{"ok":true,"data":{"q":2}}', None, id="success"),
    pytest.param("nope", "{}", None, "Tool 'nope' not found", id="unknown-tool"),
    pytest.param("fails", "{}", '{"ok":false,"error":"no such city"}', None, id="tool-failure"),
    pytest.param(
        "boom",
        "{}",
        None,
        '{"data":null,"error":"Framework error: RuntimeError: it broke","ok":false}',
        id="tool-raised",
    ),
]


@pytest.mark.parametrize(("name", "arguments", "result", "error"), ERROR_CASES)
def test_each_outcome_has_raf_specs_text(
    name: str, arguments: str, result: str | None, error: str | None
) -> None:
    assert answer(name, arguments) == (result, error)


def test_a_round_emits_round_finished_then_tool_called_in_call_order_and_sends_all_back() -> None:
    first = call_turn(("c1", "get", '{"q":1}'), ("c2", "nope", "{}"), ("c3", "get", "{"), text="Hi")
    out, client, _fi = run([first, text_turn("done")])
    inner = [u for u in first if not isinstance(u, updates.Finish)]
    assert out[: len(inner)] == inner  # forwarded as they came, the Finish held back
    assert out[len(inner)] == updates.RoundFinished(
        round=0, finish_reason="tool_calls", usage=usage(10)
    )
    called = [c for c in out[len(inner) + 1 : len(inner) + 4] if isinstance(c, updates.ToolCalled)]
    assert [(c.id, c.error is None) for c in called] == [
        ("c1", True),
        ("c2", False),
        ("c3", False),
    ]
    assert out[len(inner) + 4 :] == text_turn("done")  # the final Finish forwarded unchanged
    # The next request: the assistant message with its blocks (the call whose arguments were
    # not JSON included, with its raw text), then one tool message per call, in call order.
    request = client.requests[1]
    assistant, *tools = request[1:]
    assert assistant.role is MessageRole.ASSISTANT
    assert assistant.content == "Hi"
    assert [b.id for b in assistant.blocks if isinstance(b, blocks.ToolCall)] == ["c1", "c2", "c3"]
    assert [b for b in assistant.blocks if isinstance(b, blocks.ToolCall)][2].arguments == "{"
    assert [m.tool_call_id for m in tools] == ["c1", "c2", "c3"]
    assert [m.blocks for m in tools] == [
        (
            blocks.ToolResult(
                call_id=c.id, content=c.result or c.error, is_error=c.error is not None, name=n
            ),
        )
        for c, n in zip(called, ["get", "nope", "get"], strict=True)
    ]
    assert all(m.name is None and m.content == m.blocks[0].content for m in tools)  # type: ignore[union-attr]


def test_explicit_and_legacy_updates_of_one_call_run_it_once() -> None:
    """raf-spec 5.9 [quirk]: RAF runs such a call twice, the second time without arguments."""
    turn: list[AgentResponseUpdate] = [
        updates.ToolCallStart(id="toolu_1", name="get"),
        updates.ToolCallDelta(index=0, id="toolu_1", arguments_delta='{"q":'),
        updates.ToolCallDelta(index=0, arguments_delta="3}"),
        updates.ToolCallEnd(id="toolu_1"),
        updates.Finish(finish_reason="tool_calls"),
    ]
    out, _, _ = run([turn, text_turn("ok")])
    assert [u for u in out if isinstance(u, updates.ToolCalled)] == [
        updates.ToolCalled(id="toolu_1", result='{"ok":true,"data":{"q":3}}')
    ]


def test_calls_are_answered_by_the_id_the_message_gives_them() -> None:
    """A provider id that arrives after the call started is the id the call has in the
    message (and the answer's); a call without any id gets the converter's ``__tc_<n>``,
    counted across the run's rounds as a converter downstream counts them."""
    late: list[AgentResponseUpdate] = [
        updates.ToolCallDelta(index=0, name="get", arguments_delta='{"q":'),
        updates.ToolCallDelta(index=0, id="call_late", arguments_delta="1}"),
        updates.Finish(finish_reason="tool_calls"),
    ]
    anonymous: list[AgentResponseUpdate] = [
        updates.ToolCallDelta(index=0, name="get", arguments_delta='{"q":2}'),
        updates.Finish(finish_reason="tool_calls"),
    ]
    out, client, _ = run([late, anonymous, text_turn("done")])
    assert [u.id for u in out if isinstance(u, updates.ToolCalled)] == ["call_late", "__tc_1"]
    sent = client.requests[2][1:]
    assert [[b.id for b in m.blocks if isinstance(b, blocks.ToolCall)] for m in sent[::2]] == [
        ["call_late"],
        ["__tc_1"],
    ]
    assert [m.tool_call_id for m in sent[1::2]] == ["call_late", "__tc_1"]


def test_a_turn_without_a_finish_reason_runs_nothing_and_ends() -> None:
    error = updates.Error(error_code="stream_truncated", message="cut")
    turn = [*call_turn(("c1", "get", '{"q":1}'))[:-1], error]
    out, client, _ = run([turn])
    assert out == turn  # forwarded, the error included; nothing runs, no Finish is invented
    assert len(client.requests) == 1


def test_inner_errors_of_a_finished_round_are_forwarded_and_the_calls_run() -> None:
    notice = updates.Error(error_code="protocol_notice", message="odd but fine")
    turn = call_turn(("c1", "ping", "{}"))
    turn.insert(1, notice)
    out, _client, _ = run([turn, text_turn("ok")])
    assert notice in out
    assert updates.ToolCalled(id="c1", result="pong") in out


@pytest.mark.parametrize(("max_rounds", "calls"), [(0, 0), (1, 1), (3, 3)])
def test_max_rounds_bounds_the_model_calls(max_rounds: int, calls: int) -> None:
    script = [call_turn((f"c{n}", "ping", "{}"), n=n) for n in range(5)]
    out, client, _ = run(script, max_rounds=max_rounds)
    assert len(client.requests) == calls
    assert out[-1] == updates.Finish(finish_reason="max_rounds")
    if calls:
        assert isinstance(out[-2], updates.ToolCalled)  # after the last round's ToolCalled
        rounds = [u.round for u in out if isinstance(u, updates.RoundFinished)]
        assert rounds == list(range(calls))


def test_a_final_round_within_max_rounds_ends_with_its_own_finish() -> None:
    out, client, _ = run([call_turn(("c1", "ping", "{}")), text_turn("done")], max_rounds=2)
    assert len(client.requests) == 2
    assert out[-1] == updates.Finish(finish_reason="stop", usage=usage(20))


# -- approval (raf-spec 5.6, 5.7) ------------------------------------------------------------

ran: list[str] = []


@tool(requires_approval=True)
def delete(path: str) -> str:
    """Delete a file."""
    ran.append(path)
    return f"deleted {path}"


@tool
def look(path: str) -> str:
    """Look at a file."""
    ran.append(f"look {path}")
    return f"saw {path}"


APPROVAL_TOOLS = [delete, look]


def pause() -> tuple[list[AgentResponseUpdate], ScriptedClient, list[ChatMessage]]:
    ran.clear()
    turn = call_turn(("d1", "delete", '{"path":"a"}'), ("l1", "look", '{"path":"b"}'), text="ok")
    client = ScriptedClient([turn])
    fi = FunctionInvokingChatClient(client, APPROVAL_TOOLS)
    loop, stream = fi.loop([ChatMessage.user("clean up")])
    out = list(stream)
    return out, client, [ChatMessage.user("clean up"), *loop.transcript]


def test_approval_is_asked_only_for_the_calls_whose_tool_requires_it() -> None:
    out, _, transcript = pause()
    tail = out[-3:]
    assert tail == [
        updates.RoundFinished(round=0, finish_reason="tool_calls", usage=usage(10)),
        updates.ToolApprovalRequest(
            call_id="d1", name="delete", arguments={"path": "a"}, description="Delete a file."
        ),
        updates.Finish(finish_reason="awaiting_approval"),
    ]
    assert ran == []  # nothing ran, the other call of the batch waits too
    assert [m.role for m in transcript] == [MessageRole.USER, MessageRole.ASSISTANT]


def resume(
    transcript: list[ChatMessage], responses: list[ToolApprovalResponse], *more: ChatMessage
) -> tuple[list[AgentResponseUpdate], ScriptedClient]:
    ran.clear()
    client = ScriptedClient([text_turn("done")])
    fi = FunctionInvokingChatClient(client, APPROVAL_TOOLS, max_rounds=1)
    options = ChatOptions(tool_approval_responses=tuple(responses))
    out = list(fi.stream([*transcript, *more], options))
    return out, client


@pytest.mark.parametrize(
    ("responses", "delete_answer", "ran_delete"),
    [
        ([ToolApprovalResponse(call_id="d1", approved=True)], "deleted a", True),
        (
            [ToolApprovalResponse(call_id="d1", approved=False, reason="not now")],
            "Rejected: not now",
            False,
        ),
        ([ToolApprovalResponse(call_id="d1", approved=False)], "Rejected: User denied", False),
        ([ToolApprovalResponse(call_id="other", approved=True)], "Rejected: User denied", False),
    ],
)
def test_resume_answers_the_pending_calls_right_after_their_assistant_message(
    responses: list[ToolApprovalResponse], delete_answer: str, ran_delete: bool
) -> None:
    _, _, transcript = pause()
    new_user = ChatMessage.user("and then?")
    out, client = resume(transcript, responses, new_user)
    assert ("a" in ran) is ran_delete
    assert "look b" in ran  # the call that needs no approval runs on resume
    called = [u for u in out if isinstance(u, updates.ToolCalled)]
    assert [c.id for c in called] == ["d1", "l1"]  # RAF emits none for resumed calls
    assert (called[0].result or called[0].error) == delete_answer
    assert called[0].error is None if ran_delete else called[0].error == delete_answer
    request = client.requests[0]
    # user, assistant, the two answers, then the caller's new message (RAF appends at the end)
    assert [m.role for m in request] == [
        MessageRole.USER,
        MessageRole.ASSISTANT,
        MessageRole.TOOL,
        MessageRole.TOOL,
        MessageRole.USER,
    ]
    assert [m.tool_call_id for m in request[2:4]] == ["d1", "l1"]
    assert request[2].content == delete_answer
    assert out[-1] == updates.Finish(finish_reason="stop", usage=usage(20))
    assert len(client.requests) == 1  # the resume is not a model round (max_rounds=1)


def test_resume_answers_only_the_calls_still_unanswered() -> None:
    _, _, transcript = pause()
    answered = ChatMessage(
        role=MessageRole.TOOL,
        content="saw b",
        tool_call_id="l1",
        blocks=(blocks.ToolResult(call_id="l1", content="saw b", name="look"),),
    )
    out, client = resume(
        [*transcript, answered], [ToolApprovalResponse(call_id="d1", approved=True)]
    )
    assert [u.id for u in out if isinstance(u, updates.ToolCalled)] == ["d1"]
    assert [m.tool_call_id for m in client.requests[0][2:]] == ["l1", "d1"]


def test_resume_reads_raf_style_messages_with_string_arguments() -> None:
    ran.clear()
    assistant = ChatMessage.assistant_with_tools(
        "", [ToolCall(id="d9", name="delete", arguments='{"path":"z"}')]
    )
    _out, client = resume(
        [ChatMessage.user("x"), assistant], [ToolApprovalResponse(call_id="d9", approved=True)]
    )
    assert ran == ["z"]
    assert client.requests[0][2].content == "deleted z"


# -- the state machine ----------------------------------------------------------------------


def test_the_loop_refuses_events_its_state_does_not_take() -> None:
    loop = ToolLoop([ChatMessage.user("x")], ToolRegistry())
    with pytest.raises(LoopError):
        loop.feed(InnerEnded())
    actions = loop.feed(Begin())
    assert actions == [CallModel(messages=(ChatMessage.user("x"),), round=0)]
    assert loop.state is State.STREAMING
    actions = loop.feed(Cancel())
    assert actions == [
        Emit(updates.Error(error_code="cancelled", message="Agent run cancelled")),
        Done(),
    ]
    with pytest.raises(LoopError):
        loop.feed(InnerUpdate(updates.TextDelta(delta="late")))


def test_the_loop_alone_answers_a_round_it_cannot_run() -> None:
    """Sans-IO: no tool to run (an unknown one), so the loop answers and asks for the next
    round itself."""
    loop = ToolLoop([ChatMessage.user("x")], ToolRegistry(), max_rounds=1)
    loop.feed(Begin())
    for update in call_turn(("c1", "nope", "{}")):
        loop.feed(InnerUpdate(update))
    actions = loop.feed(InnerEnded())
    assert [type(a) for a in actions] == [Emit, Emit, Emit, Done]
    assert actions[1] == Emit(updates.ToolCalled(id="c1", error="Tool 'nope' not found"))
    assert loop.state is State.DONE


def section(title: str) -> str:
    text = (ROOT / "docs" / "agent.md").read_text(encoding="utf-8")
    assert f"\n## {title}\n" in text
    return text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_the_docs_draw_the_transition_table() -> None:
    doc = section("The tool loop")
    rows = [
        tuple(cell.strip().strip("`") for cell in line.strip("|").split("|"))
        for line in doc.splitlines()
        if line.startswith("| `")
    ]
    table = [r for r in rows if len(r) == 4]
    assert table == state_table()
    for (state, kind), targets in TRANSITIONS.items():
        for target in targets:
            assert f"{state.value} --> {target.value}: {kind.__name__}" in doc


def test_the_docs_list_every_error_text() -> None:
    doc = section("The tool loop")
    rows = {
        cells[1].strip().strip("`"): cells[2].strip()
        for line in doc.splitlines()
        if line.startswith("| ") and len(cells := line.strip("|").split("|")) == 3
    }
    for _, constant, template in ERROR_TEXTS:
        assert rows.get(constant) == "`" + template.replace("\n", "\\n").replace("|", "\\|") + "`"


# -- the loop's invariants over generated conversations ------------------------------------


HANG = 10.0
USER_MESSAGES = (ChatMessage.user("hi"),)
CANCELLED = updates.Error(error_code="cancelled", message="Agent run cancelled")
BEHAVIOURS = ("result", "failure", "raise", "unknown", "invalid")
RUNS = frozenset({"result", "failure", "raise"})


@dataclass(frozen=True)
class GenCall:
    number: int
    id: str | None
    explicit: bool
    behaviour: str
    fragments: int

    @property
    def name(self) -> str:
        return {"result": "ok", "failure": "fails", "raise": "boom", "invalid": "ok"}.get(
            self.behaviour, f"nope_{self.number}"
        )

    @property
    def arguments(self) -> str:
        return f'{{"n": {self.number}' + ("" if self.behaviour == "invalid" else "}")


@dataclass(frozen=True)
class GenRound:
    calls: tuple[GenCall, ...]
    finish_order: tuple[int, ...]  # the order the running calls finish in
    text: str
    reason: str
    usage_update: bool

    def updates(self, n: int) -> list[AgentResponseUpdate]:
        out: list[AgentResponseUpdate] = [updates.ResponseMetadata(id=f"resp_{n}", model="m")]
        if self.text:
            out.append(updates.TextDelta(delta=self.text))
        for index, call in enumerate(self.calls):
            text = call.arguments
            cut = max(1, len(text) // call.fragments)
            pieces = [text[i : i + cut] for i in range(0, len(text), cut)]
            if call.explicit:
                assert call.id is not None
                out.append(updates.ToolCallStart(id=call.id, name=call.name))
                out.extend(updates.ToolCallArgs(id=call.id, args_delta=p) for p in pieces)
                out.append(updates.ToolCallEnd(id=call.id))
            else:
                out.append(updates.ToolCallDelta(index=index, id=call.id, name=call.name))
                out.extend(updates.ToolCallDelta(index=index, arguments_delta=p) for p in pieces)
        if self.usage_update:
            out.append(updates.Usage(usage=usage(n)))
        out.append(
            updates.Finish(
                finish_reason=self.reason, usage=None if self.usage_update else usage(n + 100)
            )
        )
        return out


@st.composite
def gen_rounds(draw: st.DrawFn) -> tuple[GenRound, ...]:
    rounds: list[GenRound] = []
    number = 0
    for _ in range(draw(st.integers(0, 4))):
        calls = []
        for _ in range(draw(st.integers(1, 3))):
            has_id = draw(st.booleans())
            calls.append(
                GenCall(
                    number=number,
                    id=f"call_{number}" if has_id else None,
                    explicit=has_id and draw(st.booleans()),
                    behaviour=draw(st.sampled_from(BEHAVIOURS)),
                    fragments=draw(st.integers(1, 3)),
                )
            )
            number += 1
        rounds.append(
            GenRound(
                calls=tuple(calls),
                finish_order=tuple(draw(st.permutations(range(len(calls))))),
                text=draw(st.sampled_from(["", "Checking."])),
                reason=draw(st.sampled_from(["tool_calls", "stop"])),
                usage_update=draw(st.booleans()),
            )
        )
    return tuple(rounds)


class Gates:
    """Tools that finish in a chosen order (each waits for its predecessor's event), and a
    count of the running ones so the test can wait until every thread it started is done."""

    def __init__(self, rounds: Sequence[GenRound]) -> None:
        self.events: dict[int, threading.Event] = {}
        self.after: dict[int, int] = {}
        for gen in rounds:
            running = [gen.calls[i] for i in gen.finish_order if gen.calls[i].behaviour in RUNS]
            for call in running:
                self.events[call.number] = threading.Event()
            for before, call in itertools.pairwise(running):
                self.after[call.number] = before.number
        self.active = 0
        self.changed = threading.Condition()

    def tools(self) -> list[FunctionTool]:
        def enter(n: int) -> None:
            with self.changed:
                self.active += 1
            before = self.after.get(n)
            if before is not None:
                assert self.events[before].wait(HANG), "the calls did not run concurrently"

        def leave(n: int) -> None:
            self.events[n].set()
            with self.changed:
                self.active -= 1
                self.changed.notify_all()

        def ok(n: int) -> str:
            enter(n)
            try:
                return f"ok {n}"
            finally:
                leave(n)

        def fails(n: int) -> ToolResult:
            enter(n)
            try:
                return ToolResult.failure(f"failed {n}")
            finally:
                leave(n)

        def boom(n: int) -> str:
            enter(n)
            try:
                raise ValueError(f"boom {n}")
            finally:
                leave(n)

        return [FunctionTool(f) for f in (ok, fails, boom)]

    def release(self) -> None:
        for gate in self.events.values():
            gate.set()
        with self.changed:
            assert self.changed.wait_for(lambda: self.active == 0, HANG)


LOOP_ONLY = (updates.RoundFinished, updates.ToolCalled, updates.ToolApprovalRequest)


@pytest.mark.parametrize("mode", ["sync", "async"])
@given(
    rounds=gen_rounds(),
    max_rounds=st.integers(0, 6) | st.just(10),
    cancel_at=st.none() | st.integers(0, 80),
)
def test_the_loops_invariants_over_generated_conversations(
    mode: str, rounds: tuple[GenRound, ...], max_rounds: int, cancel_at: int | None
) -> None:
    """The same invariants for the sync loop (tools in a thread pool) and the async one
    (tools in worker threads under asyncio, the stream an async iterator)."""
    turns = [gen.updates(n) for n, gen in enumerate(rounds)]
    turns.append(text_turn("All done.", n=len(rounds)))
    client = ScriptedClient(turns) if mode == "sync" else AsyncScriptedClient(turns)
    gates = Gates(rounds)
    cancellation = Cancellation()
    options = ChatOptions(cancellation=cancellation)
    out: list[AgentResponseUpdate] = []
    calls_at_cancel: int | None = None

    def seen(update: AgentResponseUpdate) -> None:
        nonlocal calls_at_cancel
        out.append(update)
        if cancel_at is not None and len(out) == cancel_at + 1:
            cancellation.cancel()
            calls_at_cancel = len(client.requests)

    try:
        if mode == "sync":
            fi = FunctionInvokingChatClient(client, gates.tools(), max_rounds=max_rounds)
            loop, stream = fi.loop(USER_MESSAGES, options)
            for update in stream:
                seen(update)
        else:
            afi = AsyncFunctionInvokingChatClient(
                client,  # type: ignore[arg-type]
                gates.tools(),
                max_rounds=max_rounds,
            )
            loop, astream = afi.loop(USER_MESSAGES, options)

            async def drain() -> None:
                async for update in astream:
                    seen(update)

            asyncio.run(drain())
    finally:
        gates.release()

    requests = client.requests
    event(f"tool rounds generated: {len(rounds)}; max_rounds: {max_rounds}")
    event(f"model calls: {len(requests)}")
    for gen in rounds:
        event(f"calls in a round: {len(gen.calls)}")
        for call in gen.calls:
            event(f"call: {call.behaviour}")
            event(
                f"call form: {'explicit' if call.explicit else 'legacy'}, id {call.id is not None}"
            )
    cancelled = bool(out) and out[-1] == CANCELLED
    last = out[-1] if out else None
    ending = last.finish_reason if isinstance(last, updates.Finish) else "other"
    event(f"ended: {'cancelled' if cancelled else ending}")
    if cancel_at is not None:
        event(f"cancel: {'set during the run' if calls_at_cancel is not None else 'past the end'}")

    # No model call after max_rounds, nor after the cancellation.
    assert len(requests) <= max_rounds
    if calls_at_cancel is not None:
        assert len(requests) == calls_at_cancel
    # Every request extends the previous one by the round's assistant message and one tool
    # message per call, answering every call of the message exactly once, in call order, by id.
    assert loop.messages == [*USER_MESSAGES, *loop.transcript]
    for earlier, later in itertools.pairwise(requests):
        assert later[: len(earlier)] == earlier
        assistant, *answers = later[len(earlier) :]
        ids = [b.id for b in assistant.blocks if isinstance(b, blocks.ToolCall)]
        assert len(set(ids)) == len(ids)
        assert [m.tool_call_id for m in answers] == ids
        assert [m.blocks[0].call_id for m in answers] == ids  # type: ignore[union-attr]
    for request in requests:
        assert list(request) == loop.messages[: len(request)]
    # What was forwarded is the model's updates as they came, the Finish of each tool round
    # replaced by RoundFinished with its reason and usage; the tool rounds' ToolCalled match the
    # tool messages that were sent.
    forwarded = [
        u
        for u in out
        if not isinstance(u, LOOP_ONLY)
        and u != CANCELLED
        and u != updates.Finish(finish_reason="max_rounds")
    ]
    expected: list[AgentResponseUpdate] = []
    for n in range(len(requests)):
        turn = turns[n]
        expected.extend(turn if n == len(rounds) else turn[:-1])
    if calls_at_cancel is None:
        assert forwarded == expected
    else:
        assert forwarded == expected[: len(forwarded)]
    marks = [u for u in out if isinstance(u, updates.RoundFinished)]
    for mark in marks:
        gen, turn = rounds[mark.round], turns[mark.round]
        finish = turn[-1]
        assert isinstance(finish, updates.Finish)
        assert mark.finish_reason == gen.reason
        assert mark.usage == (usage(mark.round) if gen.usage_update else finish.usage)
    answered = [m for m in loop.transcript if m.role is MessageRole.TOOL]
    reported = [u for u in out if isinstance(u, updates.ToolCalled)]
    assert [(u.id, u.result or u.error, u.error is not None) for u in reported] == [
        (m.tool_call_id, m.content, m.blocks[0].is_error)  # type: ignore[union-attr]
        for m in answered
    ]
    # Each call got the answer its behaviour calls for, in call order.
    behaviours = [c for gen in rounds[: len(reported)] for c in gen.calls][: len(reported)]
    for call, update in zip(behaviours, reported, strict=False):
        if call.id is not None:
            assert update.id == call.id
        text = update.result or update.error or ""
        prefix = {
            "result": f"ok {call.number}",
            "failure": '{"ok":false,"error":"failed',
            "raise": '{"data":null,"error":"Framework error: ValueError: boom',
            "unknown": f"Tool 'nope_{call.number}' not found",
            "invalid": "Tool 'ok' was called with invalid JSON arguments",
        }[call.behaviour]
        assert text.startswith(prefix)
        assert (update.error is not None) == (call.behaviour in {"raise", "unknown", "invalid"})
    # How the run ended.
    if calls_at_cancel is None:
        if len(rounds) < max_rounds:
            assert len(requests) == len(rounds) + 1
            assert out[-1] == turns[len(rounds)][-1]
        else:
            assert len(requests) == max_rounds
            assert out[-1] == updates.Finish(finish_reason="max_rounds")
    else:
        assert cancelled or isinstance(out[-1], updates.Finish)
