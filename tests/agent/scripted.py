"""Chat clients whose streams are scripted: each call streams the next script's updates (the
updates a leaf client, or the tool loop around one, streams), records what it was sent, and
notes when its stream was closed. A script item that is an exception is raised there."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field

from raf.agent.options import ChatOptions
from raf.model import ChatMessage, Usage, updates
from raf.model.updates import AgentResponseUpdate

Script = Sequence[AgentResponseUpdate | BaseException | asyncio.Event]


@dataclass
class Call:
    """One call of the client: what it was sent, and whether its stream was closed early."""

    messages: tuple[ChatMessage, ...]
    options: ChatOptions | None
    closed: bool = False
    finished: bool = False


@dataclass
class ScriptedClient:
    """A synchronous chat client (``raise_on_call``: raise it from ``stream`` itself)."""

    scripts: list[Script]
    calls: list[Call] = field(default_factory=list)
    raise_on_call: BaseException | None = None

    @property
    def inner_client(self) -> None:
        return None

    def stream(
        self, messages: Sequence[ChatMessage], options: ChatOptions | None = None
    ) -> Iterator[AgentResponseUpdate]:
        call = Call(tuple(messages), options)
        self.calls.append(call)
        if self.raise_on_call is not None:
            raise self.raise_on_call
        return self._stream(self.scripts.pop(0), call)

    @staticmethod
    def _stream(script: Script, call: Call) -> Iterator[AgentResponseUpdate]:
        try:
            for item in script:
                if isinstance(item, BaseException):
                    raise item
                assert not isinstance(item, asyncio.Event)
                yield item
            call.finished = True
        except GeneratorExit:
            call.closed = True
            raise


@dataclass
class AsyncScriptedClient:
    """The asynchronous twin; an ``asyncio.Event`` in a script is waited for there."""

    scripts: list[Script]
    calls: list[Call] = field(default_factory=list)

    @property
    def inner_client(self) -> None:
        return None

    def stream(
        self, messages: Sequence[ChatMessage], options: ChatOptions | None = None
    ) -> AsyncIterator[AgentResponseUpdate]:
        call = Call(tuple(messages), options)
        self.calls.append(call)
        return self._stream(self.scripts.pop(0), call)

    @staticmethod
    async def _stream(script: Script, call: Call) -> AsyncIterator[AgentResponseUpdate]:
        try:
            for item in script:
                if isinstance(item, asyncio.Event):
                    await item.wait()
                    continue
                if isinstance(item, BaseException):
                    raise item
                yield item
            call.finished = True
        except (GeneratorExit, asyncio.CancelledError):
            call.closed = True
            raise


def usage(prompt: int, completion: int) -> Usage:
    return Usage(
        prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion
    )


def answer(
    text: str, *, finish: str = "stop", response_id: str | None = None
) -> list[AgentResponseUpdate]:
    """A model turn that answers ``text``."""
    out: list[AgentResponseUpdate] = []
    if response_id is not None:
        out.append(updates.ResponseMetadata(id=response_id, model="m"))
    out += [updates.TextDelta(delta=text), updates.Finish(finish_reason=finish, usage=usage(10, 2))]
    return out


def call(call_id: str, name: str, arguments: str) -> list[AgentResponseUpdate]:
    return [
        updates.ToolCallStart(id=call_id, name=name),
        updates.ToolCallArgs(id=call_id, args_delta=arguments),
        updates.ToolCallEnd(id=call_id),
    ]
