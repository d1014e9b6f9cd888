"""A scripted chat client for the tool loop's tests: each call streams the next list of
updates of its script and records the messages and options it was given."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence

from raf.agent.options import ChatOptions
from raf.model import updates
from raf.model.messages import ChatMessage
from raf.model.updates import AgentResponseUpdate
from raf.model.usage import Usage


class ScriptedClient:
    """Streams ``script[n]`` on its n-th call (a call past the script is a test failure)."""

    def __init__(self, script: Sequence[Sequence[AgentResponseUpdate]]) -> None:
        self.script = [list(turn) for turn in script]
        self.requests: list[tuple[ChatMessage, ...]] = []
        self.options: list[ChatOptions | None] = []

    @property
    def inner_client(self) -> None:
        return None

    def _next(
        self, messages: Sequence[ChatMessage], options: ChatOptions | None
    ) -> list[AgentResponseUpdate]:
        assert len(self.requests) < len(self.script), "the model was called past its script"
        self.requests.append(tuple(messages))
        self.options.append(options)
        return self.script[len(self.requests) - 1]

    def stream(
        self, messages: Sequence[ChatMessage], options: ChatOptions | None = None
    ) -> Iterator[AgentResponseUpdate]:
        return iter(self._next(messages, options))


class AsyncScriptedClient(ScriptedClient):
    """The async twin."""

    def stream(  # type: ignore[override]
        self, messages: Sequence[ChatMessage], options: ChatOptions | None = None
    ) -> AsyncIterator[AgentResponseUpdate]:
        turn = self._next(messages, options)

        async def gen() -> AsyncIterator[AgentResponseUpdate]:
            for update in turn:
                yield update

        return gen()


def usage(n: int) -> Usage:
    return Usage(prompt_tokens=n, completion_tokens=1, total_tokens=n + 1)


def call_turn(
    *calls: tuple[str, str, str], text: str = "", reason: str = "tool_calls", n: int = 10
) -> list[AgentResponseUpdate]:
    """A Chat Completions-like turn: text, then each (id, name, arguments) as legacy deltas
    at its index, then the finish with usage."""
    out: list[AgentResponseUpdate] = [updates.ResponseMetadata(id=f"r{n}", model="m")]
    if text:
        out.append(updates.TextDelta(delta=text))
    for index, (call_id, name, arguments) in enumerate(calls):
        out.append(updates.ToolCallDelta(index=index, id=call_id, name=name))
        if arguments:
            out.append(updates.ToolCallDelta(index=index, arguments_delta=arguments))
    out.append(updates.Finish(finish_reason=reason, usage=usage(n)))
    return out


def text_turn(text: str, n: int = 20) -> list[AgentResponseUpdate]:
    return [
        updates.TextDelta(delta=text),
        updates.Finish(finish_reason="stop", usage=usage(n)),
    ]
