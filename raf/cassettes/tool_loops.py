"""What a tool-loop case is, read from a tool-loop recording: the conversation to start, the
tools to offer, the canned result of every call the recording's stream makes, and what the
run must end with. Reads cassette files; no network.

A tool-loop recording (``conformance/tool_loops/<format>/<scenario>.yaml``) holds one
interaction per round: the first request, each follow-up request, and the streamed answer to
each. Its header's ``raf.run`` says how raf's own agent runs it; ``raf.expect`` is the reviewed
final response. :func:`load_tool_loop` turns one into a :class:`ToolLoopSpec`, which any client
can run without knowing raf's agent: the canned results are read from the recorded follow-up
requests themselves (the ``tool`` message, ``tool_result`` block, ``functionResponse`` part or
``function_call_output`` item that answers each call), paired with the calls of the streamed
answer before them, so the results a client sends are the recorded ones, byte for byte.

Used by ``raf conform``'s ``tool_loop`` cases (docs/protocol.md) and by the client matrix's
tool loops (docs/clients.md).

    from raf.cassettes.tool_loops import tool_loop_specs

    for spec in tool_loop_specs(bundled().tool_loops):
        spec.result_for("get_weather", {"city": "Paris"})
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from raf import formats
from raf.cassettes.format import Cassette
from raf.cassettes.lint import cassette_files
from raf.cassettes.persister import load as load_cassette
from raf.errors import CassetteError
from raf.formats.conversation import blocks_of
from raf.model import blocks
from raf.model.response import AgentResponse
from raf.pipeline import respond

__all__ = [
    "CannedResult",
    "ToolDefinition",
    "ToolLoopError",
    "ToolLoopSpec",
    "load_tool_loop",
    "recorded_responses",
    "tool_loop_specs",
]


class ToolLoopError(ValueError):
    """A recording cannot be run as a tool loop (why, naming the file and the place)."""


@dataclass(frozen=True)
class ToolDefinition:
    """A tool the client offers: its name, description and JSON Schema of its parameters."""

    name: str
    description: str
    parameters: Mapping[str, Any]

    def to_builtins(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "parameters": self.parameters}


@dataclass(frozen=True)
class CannedResult:
    """What the tool returns for one call of the recording: the call it answers (its id as
    the stream gave it, ``None`` when the stream gave none, as Gemini's), the tool, the
    arguments it was called with (parsed JSON), the result's text and whether it is an
    error."""

    name: str
    arguments: Any
    content: str
    is_error: bool = False
    call_id: str | None = None
    round: int = 0

    def to_builtins(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "arguments": self.arguments,
            "content": self.content,
            "is_error": self.is_error,
            "call_id": self.call_id,
            "round": self.round,
        }


@dataclass(frozen=True)
class ToolLoopSpec:
    """One tool-loop recording, as a client runs it (module docstring).

    Attributes:
        dialect: the wire format.
        scenario: the recording's scenario (its file name).
        path: the recording's file.
        provider_path: the recorded provider path of the first request
            (``/v1/chat/completions``; Gemini's has the model and method).
        first_request: the recorded first request body (format-native: model, messages,
            tools, options), which a client may send as it is.
        model: the model asked for.
        messages: the conversation the run starts from, as ``{role, content}`` with text
            content (``system`` and ``user`` messages).
        tools: the tools offered.
        results: every call's canned result, in the order the calls were streamed.
        requests: how many requests the run makes (the recording's interactions).
        max_rounds: the most model calls the run may make.
        expect: the reviewed final response (``raf.expect``, canonical ``agent_response``).
    """

    dialect: str
    scenario: str
    path: Path
    provider_path: str
    first_request: Mapping[str, Any]
    model: str
    messages: tuple[Mapping[str, str], ...]
    tools: tuple[ToolDefinition, ...]
    results: tuple[CannedResult, ...]
    requests: int
    max_rounds: int
    expect: Mapping[str, Any] | None

    @property
    def case(self) -> str:
        return f"{self.dialect}/{self.scenario}"

    def result_for(self, name: str, arguments: Any) -> CannedResult | None:
        """The canned result of a call of ``name`` with ``arguments`` (parsed JSON): the
        first recorded one with that name and equal arguments, else ``None`` (the recording
        never made that call)."""
        for result in self.results:
            if result.name == name and result.arguments == arguments:
                return result
        return None


def recorded_responses(dialect: str, cassette: Cassette) -> list[AgentResponse]:
    """The response raf reads from each interaction's recorded body, in order."""
    return [respond([i.response.body], dialect) for i in cassette.interactions]


def _json(text: str | bytes | None, where: str) -> dict[str, Any]:
    try:
        value = msgspec.json.decode(text or b"")
    except msgspec.DecodeError as exc:
        raise ToolLoopError(f"{where}: the request body is not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise ToolLoopError(f"{where}: the request body is not a JSON object")
    return value


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return msgspec.json.encode(content).decode()


def _results_of(dialect: str, body: Mapping[str, Any]) -> list[blocks.ToolResult]:
    """The tool results of the request's last message(s): those that answer the round before."""
    found = formats.get(dialect)
    assert found.read_request is not None
    conversation = found.read_request(body)
    out: list[blocks.ToolResult] = []
    for message in reversed(conversation.messages):
        results = [b for b in blocks_of(message) if isinstance(b, blocks.ToolResult)]
        if not results and out:
            break
        out[:0] = results
    return out


def _pair(
    calls: tuple[blocks.ToolCall, ...] | tuple[Any, ...],
    results: list[blocks.ToolResult],
    round_: int,
    where: str,
) -> list[CannedResult]:
    by_id = {r.call_id: r for r in results}
    unnamed = list(results)
    out: list[CannedResult] = []
    for call in calls:
        result = by_id.get(call.id)
        if result is None:  # answered by name and order (Gemini sends no call ids)
            result = next((r for r in unnamed if r.name == call.name), None)
        if result is None:
            raise ToolLoopError(f"{where}: no recorded result answers call {call.id} ({call.name})")
        unnamed.remove(result)
        out.append(
            CannedResult(
                name=call.name,
                arguments=call.arguments,
                content=_text(result.content),
                is_error=result.is_error,
                call_id=None if call.id.startswith("__tc_") else call.id,
                round=round_,
            )
        )
    return out


def load_tool_loop(path: Path) -> ToolLoopSpec:
    """The tool-loop case of the recording at ``path``.

    Raises:
        ToolLoopError: it is not a tool-loop recording (no ``raf.run``, a follow-up that
            answers none of the calls before it...), or cannot be read.
    """
    try:
        cassette = load_cassette(path)
    except CassetteError as exc:
        raise ToolLoopError(str(exc)) from None
    info = cassette.info
    if info is None or info.run is None:
        raise ToolLoopError(f"{path}: no raf.run in the header: not a tool-loop recording")
    if not cassette.interactions:
        raise ToolLoopError(f"{path}: no interaction")
    dialect = info.dialect
    run = info.run
    responses = recorded_responses(dialect, cassette)
    results: list[CannedResult] = []
    for n in range(1, len(cassette.interactions)):
        where = f"{path}: interactions[{n}].request"
        body = _json(cassette.interactions[n].request.body, where)
        results += _pair(responses[n - 1].tool_calls, _results_of(dialect, body), n, where)
    first = cassette.interactions[0].request
    try:
        tools = tuple(
            ToolDefinition(str(t["name"]), str(t.get("description", "")), dict(t["parameters"]))
            for t in run["tools"]
        )
        messages = tuple(
            {"role": str(m["role"]), "content": str(m["content"])} for m in run["messages"]
        )
    except (KeyError, TypeError) as exc:
        raise ToolLoopError(f"{path}: raf.run lacks {exc}") from None
    expect = None if info.expect is None else msgspec.to_builtins(info.expect)
    return ToolLoopSpec(
        dialect=dialect,
        scenario=info.scenario,
        path=path,
        provider_path=_path_of(first.uri),
        first_request=_json(first.body, f"{path}: interactions[0].request"),
        model=str(run.get("model", "")),
        messages=messages,
        tools=tools,
        results=tuple(results),
        requests=len(cassette.interactions),
        max_rounds=int(run.get("max_rounds", 10)),
        expect=expect,
    )


def _path_of(uri: str) -> str:
    from urllib.parse import urlsplit  # noqa: PLC0415 - one use

    parts = urlsplit(uri)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def tool_loop_specs(folder: Path) -> Iterator[ToolLoopSpec]:
    """Every tool-loop case under ``folder`` (``<format>/<scenario>.yaml``), sorted by path.

    Raises:
        ToolLoopError: one of them cannot be run as a tool loop.
    """
    for path in sorted(cassette_files([folder])):
        yield load_tool_loop(path)
