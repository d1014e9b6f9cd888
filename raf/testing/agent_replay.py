"""The agent scenarios, replayed through ``raf serve``: the agent with scripted tools, its leaf
client pointed at a replay server, every request it sends checked against the recorded one.

The scenarios are data (``conformance/tool_loop_scenarios.yaml``, bundled with the wheel;
docs/agent.md, "Recordings and replay"): each names a recording, the agent that replays it
(its messages, model, extra body, and tools that each return text, return a ``ToolResult``,
fail or raise) and one or more runs on one session, each with what it must produce. A
multi-round recording of ``conformance/tool_loops`` holds its own agent and expected outcome
in its ``raf.run`` block.

    from raf.testing.agent_replay import load_scenarios, replay

    scenario = load_scenarios()["openai_chat/two_tools"]
    for report in replay(scenario):
        print(report.response.text, [r.ok for r in report.requests])

``raf chat --cassette NAME`` prints such a replay as it goes; tests/agent/test_agent_replay.py
asserts it. Needs no test dependency (it runs from a plain install).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import yaml

from raf.agent.chat_client import (
    AsyncChatClient,
    AsyncChatClientDecorator,
    ChatClient,
    ChatClientDecorator,
)
from raf.agent.options import ChatOptions
from raf.agent.tools import ToolResult
from raf.cassettes.persister import load
from raf.model._base import JSONValue
from raf.model.messages import ChatMessage, ToolApprovalResponse
from raf.model.response import AgentResponse, AgentResponseResult
from raf.model.updates import AgentResponseUpdate
from raf.shared.bundled import bundled

if TYPE_CHECKING:
    from raf.serve.server import ReplayServer

__all__ = [
    "BEHAVIOURS",
    "CLIENT_SETTINGS",
    "AgentScript",
    "RequestVerdict",
    "RunReport",
    "RunScript",
    "Scenario",
    "ScenarioError",
    "ScriptedTool",
    "ToolScript",
    "approval_responses",
    "load_scenarios",
    "replay",
    "scenarios_table",
]

BEHAVIOURS: Final = ("text", "result", "failure", "raise")
"""What a scripted tool does: return ``value`` as text, return ``ToolResult.success(value)``,
return ``ToolResult.failure(value)``, or raise ``RuntimeError(value)``."""

CLIENT_SETTINGS: Final = ("stream_usage",)
"""What a scenario may set on its agent's leaf client (``client`` in its data): whether the
client asks for usage in the stream (a provider that refuses ``stream_options``, as Mistral,
is run without it)."""

RECORDINGS: Final = ("tool_loops", "cassettes")
"""Where a scenario's recording is: the agent's multi-round recordings or the bundled
cassettes."""


class ScenarioError(Exception):
    """A scenario that does not exist or whose data is malformed (the message says which)."""


@dataclass(frozen=True)
class ToolScript:
    """A tool of a scenario: its definition as recorded and what each call does."""

    name: str
    description: str
    parameters: Mapping[str, JSONValue]
    does: str
    value: JSONValue = None
    values: tuple[tuple[JSONValue, JSONValue], ...] = ()
    requires_approval: bool = False

    def outcome(self, arguments: JSONValue) -> JSONValue:
        """The value of a call with ``arguments``: the ``values`` entry whose arguments are
        these, else ``value``."""
        for when, value in self.values:
            if when == arguments:
                return value
        return self.value


class ScriptedTool:
    """A :class:`raf.agent.tools.Tool` that does what its :class:`ToolScript` says, and keeps
    the arguments of every call (thread-safe: the sync loop runs tools in worker threads)."""

    def __init__(self, script: ToolScript, *, requires_approval: bool | None = None) -> None:
        self.script = script
        self._requires_approval = (
            script.requires_approval if requires_approval is None else requires_approval
        )
        self._lock = threading.Lock()
        self.calls: list[JSONValue] = []

    @property
    def name(self) -> str:
        return self.script.name

    @property
    def description(self) -> str:
        return self.script.description

    @property
    def parameters(self) -> Mapping[str, JSONValue]:
        return self.script.parameters

    @property
    def requires_approval(self) -> bool:
        return self._requires_approval

    def invoke(self, arguments: JSONValue) -> ToolResult | str:
        with self._lock:
            self.calls.append(arguments)
        value = self.script.outcome(arguments)
        if self.script.does == "raise":
            raise RuntimeError(str(value))
        if self.script.does == "result":
            return ToolResult.success(value)
        if self.script.does == "failure":
            return ToolResult.failure(str(value))
        return value if isinstance(value, str) else str(value)

    async def ainvoke(self, arguments: JSONValue) -> ToolResult | str:
        return self.invoke(arguments)

    def take_calls(self) -> list[JSONValue]:
        """The arguments of the calls run since the last time, in the order they ran."""
        with self._lock:
            taken, self.calls = self.calls, []
        return taken


@dataclass(frozen=True)
class AgentScript:
    """The agent of a scenario: its input messages, the model, what else the first request
    carries (``extra_body``), its tools, and the settings of its leaf client (``client``,
    among :data:`CLIENT_SETTINGS`)."""

    messages: tuple[Mapping[str, Any], ...]
    model: str
    extra_body: Mapping[str, JSONValue]
    tools: tuple[ToolScript, ...]
    client: Mapping[str, JSONValue] = field(default_factory=dict)

    def chat_messages(self) -> list[ChatMessage]:
        """The input messages as :class:`ChatMessage` values."""
        out = []
        for message in self.messages:
            role, content = message.get("role"), message.get("content", "")
            if role == "system":
                out.append(ChatMessage.system(str(content)))
            else:
                out.append(ChatMessage.user(str(content)))
        return out


@dataclass(frozen=True)
class RunScript:
    """One run of a scenario: the approvals it answers the previous run's requests with
    (``"all"``, ``"none"``, or the approved call ids; ``None``: no approval responses) and
    what it must produce."""

    expect: Mapping[str, Any]
    approve: str | tuple[str, ...] | None = None


@dataclass(frozen=True)
class Scenario:
    """A scenario: the recording it replays, its agent, and its runs on one session."""

    name: str
    kind: str
    title: str
    recording: str
    dialect: str
    cassette: str
    agent: AgentScript
    runs: tuple[RunScript, ...]
    max_rounds: int = 10
    requires_approval: tuple[str, ...] = ()
    path: Path = field(default=Path())

    @property
    def case(self) -> str:
        """``<dialect>/<cassette>``: the case ``raf serve`` answers."""
        return f"{self.dialect}/{self.cassette}"

    @property
    def folder(self) -> Path:
        """The folder ``raf serve`` serves for this scenario."""
        return self.path.parent.parent


def _tool(raw: Mapping[str, Any], where: str) -> ToolScript:
    try:
        does = raw["does"]
        if does not in BEHAVIOURS:
            raise ScenarioError(f"{where}: does {does!r} is not one of {', '.join(BEHAVIOURS)}")
        return ToolScript(
            name=str(raw["name"]),
            description=str(raw.get("description", "")),
            parameters=dict(raw["parameters"]),
            does=does,
            value=raw.get("value"),
            values=tuple((v["arguments"], v["value"]) for v in raw.get("values", ())),
            requires_approval=bool(raw.get("requires_approval", False)),
        )
    except (KeyError, TypeError) as exc:
        raise ScenarioError(f"{where}: a tool lacks {exc}") from None


def _agent(raw: Mapping[str, Any], where: str) -> AgentScript:
    try:
        client = dict(raw.get("client") or {})
    except (TypeError, ValueError):
        raise ScenarioError(f"{where}: client is not a mapping of settings") from None
    unknown = sorted(set(client) - set(CLIENT_SETTINGS))
    if unknown:
        raise ScenarioError(
            f"{where}: client setting {unknown[0]!r} is not one of {CLIENT_SETTINGS}"
        )
    try:
        return AgentScript(
            messages=tuple(raw["messages"]),
            model=str(raw["model"]),
            extra_body=dict(raw.get("extra_body") or {}),
            tools=tuple(_tool(t, where) for t in raw["tools"]),
            client=client,
        )
    except (KeyError, TypeError) as exc:
        raise ScenarioError(f"{where}: the agent lacks {exc}") from None


def _approve(value: Any) -> str | tuple[str, ...] | None:
    if value is None or value in ("all", "none"):
        return value  # type: ignore[no-any-return]
    return tuple(str(v) for v in value)


def load_scenarios(path: Path | None = None) -> dict[str, Scenario]:
    """Every scenario of ``path`` (default: the bundled scenario file), by name, in the
    file's order.

    Raises:
        ScenarioError: the file, or a recording it names, is missing or malformed.
    """
    suite = bundled()
    path = suite.tool_loop_scenarios if path is None else path
    folders = {"tool_loops": suite.tool_loops, "cassettes": suite.cassettes}
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ScenarioError(f"{path}: {exc}") from None
    agents = document.get("agents") or {}
    out: dict[str, Scenario] = {}
    for entry in document.get("scenarios") or ():
        name = entry.get("name", "?")
        recording = entry.get("recording")
        if recording not in folders:
            raise ScenarioError(f"{name}: recording {recording!r} is not one of {RECORDINGS}")
        dialect, _, cassette = str(entry["case"]).partition("/")
        file = folders[recording] / dialect / f"{cassette}.yaml"
        header: Mapping[str, Any] = {}
        if recording == "tool_loops":
            try:
                info = load(file).info
            except Exception as exc:  # a missing or malformed recording
                raise ScenarioError(f"{name}: {exc}") from None
            if info is None or info.run is None:
                raise ScenarioError(f"{name}: {file} has no raf.run block")
            header = info.run
            agent = _agent(header, name)
        elif entry["case"] in agents:
            agent = _agent(agents[entry["case"]], name)
        else:
            raise ScenarioError(f"{name}: no agent for {entry['case']}")
        runs = []
        for run in entry.get("runs") or ():
            expect = run.get("expect")
            if expect == "header":
                expect = header.get("expect")
            if not isinstance(expect, dict):
                raise ScenarioError(f"{name}: a run without an expectation")
            runs.append(RunScript(expect=expect, approve=_approve(run.get("approve"))))
        out[name] = Scenario(
            name=name,
            kind=str(entry.get("kind", "")),
            title=str(entry.get("title", "")),
            recording=recording,
            dialect=dialect,
            cassette=cassette,
            agent=agent,
            runs=tuple(runs),
            max_rounds=int(entry.get("max_rounds", header.get("max_rounds", 10))),
            requires_approval=tuple(entry.get("requires_approval", ())),
            path=file,
        )
    return out


def _runs_text(scenario: Scenario) -> str:
    parts = []
    for run in scenario.runs:
        expect = run.expect
        what = f"{expect['requests']} request(s), {expect['finish_reason']}"
        if run.approve is not None:
            approve = run.approve if isinstance(run.approve, str) else " ".join(run.approve)
            what = f"approve {approve}: {what}"
        parts.append(what)
    return "; then ".join(parts)


def scenarios_table(scenarios: Mapping[str, Scenario]) -> str:
    """The Markdown table of the scenarios (docs/agent.md has it, checked by a test)."""
    lines = [
        "| scenario (`raf chat --cassette`) | kind | recording | max rounds | runs |",
        "|---|---|---|---|---|",
    ]
    for name, scenario in scenarios.items():
        where = (
            f"`conformance/tool_loops/{scenario.case}.yaml`"
            if scenario.recording == "tool_loops"
            else f"`cassettes/{scenario.case}.yaml`"
        )
        approval = (
            f" ({', '.join(scenario.requires_approval)} requires approval)"
            if scenario.requires_approval
            else ""
        )
        lines.append(
            f"| `{name}` | {scenario.kind}{approval} | {where} | {scenario.max_rounds} | "
            f"{_runs_text(scenario)} |"
        )
    return "\n".join(lines) + "\n"


# -- running -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class RequestVerdict:
    """One request the agent sent, as the replay server's journal has it: the interaction it
    was answered with and the request check's verdict against the recorded request."""

    seq: int
    interaction: int | None
    ok: bool
    mismatches: tuple[str, ...]
    status: int | None


@dataclass
class RunReport:
    """One run of a scenario: the results as they streamed, the response collected from them,
    the approval responses it was given, every request it sent, the arguments of every
    call each tool ran (by tool name, in the order they ran), and the updates the agent's
    client streamed (the tool loop's stream: what the results were made of)."""

    results: list[AgentResponseResult]
    response: AgentResponse
    approvals: tuple[ToolApprovalResponse, ...]
    requests: list[RequestVerdict]
    invocations: dict[str, list[JSONValue]] = field(default_factory=dict)
    updates: list[AgentResponseUpdate] = field(default_factory=list)


def approval_responses(
    response: AgentResponse | None, approve: str | Sequence[str] | None
) -> tuple[ToolApprovalResponse, ...]:
    """The answers to the approval requests of ``response`` (the previous run): ``"all"``
    approves each, ``"none"`` rejects each, a list of call ids approves those and rejects the
    others; ``None`` gives none."""
    if response is None or approve is None:
        return ()
    out = []
    for request in response.approval_requests:
        approved = approve == "all" or (approve != "none" and request.call_id in approve)
        out.append(ToolApprovalResponse(call_id=request.call_id, approved=approved, reason=None))
    return tuple(out)


def _verdicts(server: ReplayServer, mark: int) -> list[RequestVerdict]:
    out = []
    for entry in server.journal.since(mark):
        check = entry.get("check") or {}
        out.append(
            RequestVerdict(
                seq=int(entry.get("seq", 0)),
                interaction=entry.get("interaction"),
                ok=bool(check.get("ok", False)),
                mismatches=tuple(check.get("mismatches", ())),
                status=entry.get("status"),
            )
        )
    return out


OnResult = Callable[[int, AgentResponseResult], None]
OnRun = Callable[[int, RunReport], None]


@dataclass(frozen=True)
class _Setup:
    """What one replay runs with."""

    scenario: Scenario
    server: ReplayServer
    base_url: str
    tools: list[ScriptedTool]
    max_rounds: int
    approve: str | Sequence[str] | None
    on_result: OnResult | None
    on_run: OnRun | None


def replay(
    scenario: Scenario,
    *,
    asynchronous: bool = False,
    max_rounds: int | None = None,
    approve: str | Sequence[str] | None = None,
    on_result: OnResult | None = None,
    on_run: OnRun | None = None,
) -> list[RunReport]:
    """Run the scenario's agent against a replay server started for it on 127.0.0.1 (a
    free port, stopped at the end), every run on one session. ``max_rounds`` and ``approve``
    override the scenario's (``approve`` applies to every run after the first);
    ``on_result(run, result)`` sees each result as it streams and ``on_run(run, report)``
    each run's report as it ends.

    Raises:
        ChatClientError: a request failed before its stream started (raised by the client).
    """
    tools = [
        ScriptedTool(t, requires_approval=True if t.name in scenario.requires_approval else None)
        for t in scenario.agent.tools
    ]
    from raf.serve.server import ReplayServer  # noqa: PLC0415 - aiohttp only when replaying

    rounds = scenario.max_rounds if max_rounds is None else max_rounds
    reports: list[RunReport] = []
    with ReplayServer([scenario.folder], port=0) as server:
        setup = _Setup(
            scenario,
            server,
            server.case_url(scenario.dialect, scenario.cassette) + _version_path(scenario.dialect),
            tools,
            rounds,
            approve,
            on_result,
            on_run,
        )
        reports = asyncio.run(_areplay(setup)) if asynchronous else _replay(setup)
    return reports


def _version_path(dialect: str) -> str:
    """The path of the format's own base URL (``/v1``, ``/v1beta``, or none): a client
    pointed at a replay server keeps it, as it would in front of the provider."""
    from urllib.parse import urlsplit  # noqa: PLC0415 - one use

    from raf import formats  # noqa: PLC0415

    api = formats.get(dialect).http
    return urlsplit(api.base_url).path.rstrip("/") if api is not None else ""


def _options(scenario: Scenario, approvals: tuple[ToolApprovalResponse, ...]) -> ChatOptions:
    return ChatOptions(
        model=scenario.agent.model,
        extra_body=scenario.agent.extra_body,
        tool_approval_responses=approvals,
    )


def _invocations(setup: _Setup) -> dict[str, list[JSONValue]]:
    out: dict[str, list[JSONValue]] = {}
    for tool in setup.tools:
        out[tool.name] = tool.take_calls()
    return out


def _runs(setup: _Setup) -> Iterator[tuple[int, str | Sequence[str] | None]]:
    for n, run in enumerate(setup.scenario.runs):
        yield n, (run.approve if setup.approve is None else setup.approve)


class _Tap(ChatClientDecorator):
    """Passes the wrapped client's updates on, keeping each in ``seen``."""

    def __init__(self, inner: ChatClient, seen: list[AgentResponseUpdate]) -> None:
        super().__init__(inner)
        self.seen = seen

    def stream(
        self, messages: Sequence[ChatMessage], options: ChatOptions | None = None
    ) -> Iterator[AgentResponseUpdate]:
        stream = iter(self.inner_client.stream(messages, options))
        try:
            for update in stream:
                self.seen.append(update)
                yield update
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                close()


class _AsyncTap(AsyncChatClientDecorator):
    """The async :class:`_Tap`."""

    def __init__(self, inner: AsyncChatClient, seen: list[AgentResponseUpdate]) -> None:
        super().__init__(inner)
        self.seen = seen

    async def stream(
        self, messages: Sequence[ChatMessage], options: ChatOptions | None = None
    ) -> AsyncIterator[AgentResponseUpdate]:
        stream = aiter(self.inner_client.stream(messages, options))
        try:
            async for update in stream:
                self.seen.append(update)
                yield update
        finally:
            aclose = getattr(stream, "aclose", None)
            if aclose is not None:
                await aclose()


def _replay(setup: _Setup) -> list[RunReport]:
    from raf.agent import (  # noqa: PLC0415
        AgentSession,
        ChatClientAgent,
        HttpChatClient,
        InMemoryHistoryProvider,
    )

    scenario, server = setup.scenario, setup.server
    client = HttpChatClient(
        scenario.dialect, setup.base_url, model=scenario.agent.model, **scenario.agent.client
    )
    agent = ChatClientAgent(
        client,
        tools=setup.tools,
        context_providers=(InMemoryHistoryProvider(),),
        max_rounds=setup.max_rounds,
    )
    seen: list[AgentResponseUpdate] = []
    agent.chat_client = _Tap(agent.chat_client, seen)  # the tool loop's stream, as it goes
    session = AgentSession()
    reports: list[RunReport] = []
    previous: AgentResponse | None = None
    try:
        for n, approving in _runs(setup):
            approvals = approval_responses(previous, approving) if n else ()
            messages = scenario.agent.chat_messages() if n == 0 else []
            mark = server.journal.count
            seen.clear()
            results: list[AgentResponseResult] = []
            run = agent.run(messages, session=session, options=_options(scenario, approvals))
            for result in run:
                results.append(result)
                if setup.on_result is not None:
                    setup.on_result(n, result)
            # The run's own response: it knows the calls a resumed approval answers (their
            # tool names), which the results alone do not carry.
            previous = run.response
            report = RunReport(
                results,
                previous,
                approvals,
                _verdicts(server, mark),
                _invocations(setup),
                list(seen),
            )
            reports.append(report)
            if setup.on_run is not None:
                setup.on_run(n, report)
    finally:
        client.close()
    return reports


async def _areplay(setup: _Setup) -> list[RunReport]:
    from raf.agent import (  # noqa: PLC0415
        AgentSession,
        AsyncChatClientAgent,
        AsyncHttpChatClient,
        InMemoryHistoryProvider,
    )

    scenario, server = setup.scenario, setup.server
    client = AsyncHttpChatClient(
        scenario.dialect, setup.base_url, model=scenario.agent.model, **scenario.agent.client
    )
    agent = AsyncChatClientAgent(
        client,
        tools=setup.tools,
        context_providers=(InMemoryHistoryProvider(),),
        max_rounds=setup.max_rounds,
    )
    seen: list[AgentResponseUpdate] = []
    agent.chat_client = _AsyncTap(agent.chat_client, seen)
    session = AgentSession()
    reports: list[RunReport] = []
    previous: AgentResponse | None = None
    try:
        for n, approving in _runs(setup):
            approvals = approval_responses(previous, approving) if n else ()
            messages = scenario.agent.chat_messages() if n == 0 else []
            mark = server.journal.count
            seen.clear()
            results: list[AgentResponseResult] = []
            arun = agent.run(messages, session=session, options=_options(scenario, approvals))
            async for result in arun:
                results.append(result)
                if setup.on_result is not None:
                    setup.on_result(n, result)
            previous = arun.response
            report = RunReport(
                results,
                previous,
                approvals,
                _verdicts(server, mark),
                _invocations(setup),
                list(seen),
            )
            reports.append(report)
            if setup.on_run is not None:
                setup.on_run(n, report)
    finally:
        await client.aclose()
    return reports
