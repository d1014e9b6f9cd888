"""Context providers and the history: the chain builds the request in order, sources mark
where each message came from, and the history keeps the conversation (blocks included)
without ever storing a message twice."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field

import msgspec
from hypothesis import event, given
from hypothesis import strategies as st

from raf.agent import (
    AgentSession,
    ChatClientAgent,
    Context,
    FileSystemSessionStore,
    HttpStatusError,
    InMemoryHistoryProvider,
    InvokedContext,
    InvokingContext,
)
from raf.model import ChatMessage, MessageRole, MessageSource, blocks, updates
from raf.model.updates import AgentResponseUpdate
from tests.agent.scripted import Script, ScriptedClient, answer, call, usage


@dataclass
class Adds:
    """A provider that adds what it is given and records what it saw."""

    context: Context
    seen: list[InvokingContext] = field(default_factory=list)
    invoked: list[InvokedContext] = field(default_factory=list)

    def on_invoking(self, context: InvokingContext) -> Context:
        self.seen.append(context)
        return self.context

    def on_invoked(self, context: InvokedContext) -> None:
        self.invoked.append(context)


def sources(messages: Sequence[ChatMessage]) -> list[tuple[str, str, str | None]]:
    return [(m.role, m.content, m.source) for m in messages]


def test_the_chain_runs_in_order_each_provider_seeing_the_previous_ones() -> None:
    first = Adds(Context(instructions="Know the notes.", messages=(ChatMessage.user("note 1"),)))
    second = Adds(
        Context(
            instructions="Be brief.",
            replace_messages=(ChatMessage.user("summary of note 1"),),
            messages=(
                ChatMessage.user("note 2"),
                ChatMessage(
                    role=MessageRole.USER, content="kept", source=MessageSource.CHAT_HISTORY
                ),
            ),
        )
    )
    client = ScriptedClient([answer("Hi")])
    agent = ChatClientAgent(client, instructions="You help.", context_providers=[first, second])
    agent.run_to_response("Hello")

    (seen,) = second.seen
    assert seen.instructions == "You help.\n\nKnow the notes."
    assert sources(seen.messages) == [
        ("user", "note 1", "context_provider"),
        ("user", "Hello", "external"),
    ]
    assert sources(client.calls[0].messages) == [
        ("system", "You help.\n\nKnow the notes.\n\nBe brief.", None),
        ("user", "summary of note 1", "context_provider"),  # the history was replaced
        ("user", "note 2", "context_provider"),
        ("user", "kept", "chat_history"),  # a source set by a provider is kept
        ("user", "Hello", "external"),
    ]
    (invoked,) = second.invoked
    assert invoked.request_messages == client.calls[0].messages
    assert invoked.response is not None
    assert invoked.response.text == "Hi"
    assert invoked.completed


def test_the_history_is_added_before_the_new_messages_and_stored_once() -> None:
    history = InMemoryHistoryProvider()
    client = ScriptedClient([answer("Paris."), answer("About 2 million.")])
    agent = ChatClientAgent(client, instructions="Be brief.", context_providers=[history])
    agent.run_to_response("Capital of France?")
    # A caller resending a message it got from the history marks it: not stored again.
    echoed = ChatMessage(
        role=MessageRole.USER, content="Capital of France?", source=MessageSource.CHAT_HISTORY
    )
    agent.run_to_response([echoed, ChatMessage.user("Its population?")])
    assert sources(client.calls[1].messages) == [
        ("system", "Be brief.", None),
        ("user", "Capital of France?", "chat_history"),
        ("assistant", "Paris.", "chat_history"),
        ("user", "Capital of France?", "chat_history"),
        ("user", "Its population?", "external"),
    ]
    assert [(m.role, m.content) for m in history.messages] == [
        ("user", "Capital of France?"),
        ("assistant", "Paris."),
        ("user", "Its population?"),
        ("assistant", "About 2 million."),
    ]


def test_the_history_keeps_every_round_with_its_blocks_for_the_next_run() -> None:
    rounds: list[AgentResponseUpdate] = [
        updates.ReasoningDelta(delta="Need the weather."),
        updates.ReasoningSignature(signature="SIG"),
        *call("c1", "get_weather", '{"city": "Paris"}'),
        updates.PartSignature(signature="TS", part="tool_call"),
        updates.RoundFinished(round=0, finish_reason="tool_calls", usage=usage(10, 1)),
        updates.ToolCalled(id="c1", result="21"),
        *answer("21 degrees."),
    ]
    session = AgentSession(id="s")
    client = ScriptedClient([rounds, answer("You're welcome.")])
    agent = ChatClientAgent(client, context_providers=[InMemoryHistoryProvider()])
    agent.run_to_response("Weather in Paris?", session)
    assert [m.role for m in session.messages] == ["user", "assistant", "tool", "assistant"]
    assistant = session.messages[1]
    assert assistant.blocks == (
        blocks.Reasoning(text="Need the weather.", signature="SIG"),
        blocks.ToolCall(id="c1", name="get_weather", arguments={"city": "Paris"}, signature="TS"),
    )
    assert session.messages[2].blocks == (
        blocks.ToolResult(call_id="c1", content="21", name="get_weather"),
    )
    # Saved and loaded, the next run sends the whole conversation back, signatures included.
    with tempfile.TemporaryDirectory() as folder:
        store = FileSystemSessionStore(folder)
        store.save(session)
        loaded = store.load("s")
    assert loaded == session
    agent.run_to_response("Thanks", loaded)
    sent = client.calls[1].messages
    assert [m.blocks for m in sent[:4]] == [m.blocks for m in session.messages[:4]]
    assert sent[1].blocks[0].signature == "SIG"  # type: ignore[union-attr]


def test_a_failed_or_cut_run_stores_nothing_so_it_can_be_run_again() -> None:
    history = InMemoryHistoryProvider()
    failed = HttpStatusError("503", status=503, reason="Service Unavailable")
    truncated: list[AgentResponseUpdate] = [
        updates.TextDelta(delta="Par"),
        updates.Error(error_code="stream_truncated", message="the stream ended early"),
    ]
    client = ScriptedClient([[failed], truncated, answer("Paris.")])
    agent = ChatClientAgent(client, context_providers=[history])
    for _ in range(3):
        agent.run_to_response("Capital of France?")
    assert [(m.role, m.content) for m in history.messages] == [
        ("user", "Capital of France?"),
        ("assistant", "Paris."),
    ]
    # Each attempt was sent the same request.
    assert client.calls[0].messages == client.calls[1].messages == client.calls[2].messages


def test_the_history_lives_in_the_session_when_there_is_one() -> None:
    history = InMemoryHistoryProvider()
    client = ScriptedClient([answer("A"), answer("B")])
    agent = ChatClientAgent(client, context_providers=[history])
    one, two = AgentSession(id="1"), AgentSession(id="2")
    agent.run_to_response("to one", one)
    agent.run_to_response("to two", two)
    assert [m.content for m in one.messages] == ["to one", "A"]
    assert [m.content for m in two.messages] == ["to two", "B"]
    assert history.messages == []
    assert [m.content for m in client.calls[1].messages] == ["to two"]  # not one's history


@given(
    st.lists(
        st.tuples(
            st.integers(1, 3),  # the caller's new messages
            st.booleans(),  # whether the caller also resends the last stored message
            st.sampled_from(["ok", "fails", "cut"]),
        ),
        max_size=6,
    )
)
def test_the_history_is_the_completed_runs_in_order_without_duplicates(
    runs: list[tuple[int, bool, str]],
) -> None:
    scripts: list[Script] = []
    expected: list[str] = []
    history = InMemoryHistoryProvider()
    agent = ChatClientAgent(ScriptedClient(scripts), context_providers=[history])
    for n, (count, resend, outcome) in enumerate(runs):
        event(outcome)
        new = [ChatMessage.user(f"run {n} message {k}") for k in range(count)]
        if resend and history.messages:
            last = history.messages[-1]
            new.insert(0, msgspec.structs.replace(last, source=MessageSource.CHAT_HISTORY))
        if outcome == "ok":
            scripts.append(answer(f"answer {n}"))
            expected += [m.content for m in new if m.source is None] + [f"answer {n}"]
        elif outcome == "fails":
            scripts.append([HttpStatusError("500", status=500)])
        else:
            scripts.append([updates.TextDelta(delta="x")])  # no finish: cut short
        agent.run_to_response(new)
    assert [m.content for m in history.messages] == expected
