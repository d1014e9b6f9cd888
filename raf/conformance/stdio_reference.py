"""raf's reference pipeline as a program speaking ``raf-conformance/1`` on stdin/stdout.

``python -m raf.conformance.stdio_reference`` is an implementation like any other: every
dialect raf has, every level and every capability. It is what the harness itself is tested
with (the reference must pass every level through the protocol too), the baseline the cost
of the protocol is measured against, and an example of the protocol's server side.

A ``tool_loop`` case is run by raf's own agent (:mod:`raf.agent`): a
:class:`~raf.agent.ChatClientAgent` over an :class:`~raf.agent.HttpChatClient` at the case's
base URL, offering the case's tools, whose every call returns the canned result of its name
and arguments as it is, with its error flag (:class:`raf.agent.tools.ToolText`). The result is
the response of the run's last request, as the pipeline reads it.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, BinaryIO
from urllib.parse import urlsplit

import msgspec

from raf import __version__, dialects, formats
from raf.conformance.goldens import InteractionOutput
from raf.conformance.protocol import (
    CAPABILITIES,
    LEVELS,
    PROTOCOL,
    CannedResult,
    Case,
    HttpRequest,
    ImplementationHello,
    ToolLoop,
)
from raf.conformance.reference import output_for, output_of, output_of_reads

if TYPE_CHECKING:
    from raf.agent.options import ChatOptions
    from raf.agent.tools import ToolText
    from raf.model._base import JSONValue
    from raf.model.messages import ChatMessage
    from raf.model.updates import AgentResponseUpdate

__all__ = ["main", "serve"]

_Incoming = msgspec.json.Decoder(dict[str, object])


def serve(stdin: BinaryIO, stdout: BinaryIO) -> int:
    """Answer messages until ``bye`` or the end of ``stdin``."""
    encoder = msgspec.json.Encoder()
    case_decoder = msgspec.json.Decoder(Case)
    for line in stdin:
        try:
            reply = _answer(line, case_decoder)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:  # not a raf message
            print(f"raf-reference: ignored a malformed line: {exc}", file=sys.stderr, flush=True)
            continue
        if reply is _BYE:
            return 0
        if reply is not None:
            stdout.write(encoder.encode(reply) + b"\n")
            stdout.flush()
    return 0


_BYE = object()


def _answer(line: bytes, case_decoder: msgspec.json.Decoder[Case]) -> object:
    """The reply to one line (``None`` for none, ``_BYE`` to stop)."""
    kind = _Incoming.decode(line).get("type")
    if kind == "hello":
        return ImplementationHello(
            protocol=PROTOCOL,
            name="raf-reference",
            version=__version__,
            dialects=dialects.names(),
            levels=list(LEVELS),
            capabilities=list(CAPABILITIES),
        )
    if kind == "case":
        case = case_decoder.decode(line)
        if case.tool_loop is not None and case.request is not None:
            try:
                output = _tool_loop(case.request, case.tool_loop, case.dialect)
            except Exception as exc:  # the agent raised: that is its answer
                return {"type": "result", "id": case.id, "raised": f"{type(exc).__name__}: {exc}"}
        elif case.transport == "http" and case.request is not None:
            output = _over_http(case.request, case.dialect)
        else:
            output = output_for(case.status, "", case.body_chunks(), case.dialect)
        return {
            "type": "result",
            "id": case.id,
            "response": output.response,
            "results": output.results,
            "updates": output.updates,
        }
    if kind == "bye":
        return _BYE
    print(f"raf-reference: unknown message {kind!r}", file=sys.stderr, flush=True)
    return None


def _over_http(request: HttpRequest, dialect: str) -> InteractionOutput:
    """Make the case's request with httpx and feed each network read to the pipeline."""
    import httpx  # noqa: PLC0415 - only http cases need it

    reads: list[bytes] = []
    failure: Exception | None = None
    status, reason = 0, ""
    try:
        with (
            httpx.Client(timeout=_HTTP_TIMEOUT) as client,
            client.stream(
                request.method,
                request.url,
                headers=request.headers,
                content=None if request.body is None else msgspec.json.encode(request.body),
            ) as response,
        ):
            status, reason = response.status_code, response.reason_phrase
            reads.extend(response.iter_raw())
    except httpx.HTTPError as exc:
        failure = exc
    if status == 0:  # no response at all
        return output_of_reads(200, "", [], dialect, failure or OSError("no response"))
    return output_of_reads(status, reason, reads, dialect, failure)


_HTTP_TIMEOUT = 30.0

_CONVERSATION = frozenset(
    {"messages", "contents", "input", "tools", "system", "systemInstruction", "instructions"}
)
"""Members of a first request the agent writes from the conversation and the tools; the
others (model, stream, thinking, store...) are the run's options, sent as they are."""


class _CannedTool:
    """A tool whose every call returns the canned result of its name and arguments, as it is
    and with its error flag; several results of the same arguments in the order given, and a
    call the case has no result for an error. Any arguments are accepted (an empty schema):
    the canned result of a call the model made with wrong arguments is the recording's."""

    def __init__(self, name: str, results: Sequence[CannedResult]) -> None:
        self.name = name
        self.description = ""
        self.parameters: Mapping[str, JSONValue] = {}
        self.requires_approval = False
        self._results = [r for r in results if r.name == name]
        self._used: set[int] = set()
        self._lock = threading.Lock()  # the sync loop runs parallel calls in worker threads

    def invoke(self, arguments: JSONValue) -> ToolText:
        from raf.agent.tools import ToolText  # noqa: PLC0415

        with self._lock:
            matching = [n for n, r in enumerate(self._results) if r.arguments == arguments]
            unused = [n for n in matching if n not in self._used]
            if not matching:
                text = f"no canned result for {self.name} with these arguments"
                return ToolText(text=text, is_error=True)
            chosen = unused[0] if unused else matching[-1]
            self._used.add(chosen)
        result = self._results[chosen]
        return ToolText(text=result.content, is_error=result.is_error)

    async def ainvoke(self, arguments: JSONValue) -> ToolText:
        return self.invoke(arguments)


class _LastCall:
    """A middleware keeping the updates of the last model call (the run's final answer)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.updates: list[AgentResponseUpdate] = []

    @property
    def inner_client(self) -> Any:
        return self._inner

    def stream(
        self, messages: Sequence[ChatMessage], options: ChatOptions | None = None
    ) -> Iterator[AgentResponseUpdate]:
        self.updates = []
        for update in self._inner.stream(messages, options):
            self.updates.append(update)
            yield update


def _tool_loop(request: HttpRequest, loop: ToolLoop, dialect: str) -> InteractionOutput:
    """Run the case's tool loop with raf's agent; the output of its last model call."""
    from raf.agent import FunctionInvokingChatClient, HttpChatClient  # noqa: PLC0415
    from raf.agent.options import ChatOptions  # noqa: PLC0415
    from raf.converter import AgentResponseConverter  # noqa: PLC0415
    from raf.model.messages import ChatMessage  # noqa: PLC0415
    from raf.model.request import ToolSpec  # noqa: PLC0415

    body = request.body if isinstance(request.body, dict) else {}
    names = dict.fromkeys([t.name for t in loop.tools] + [r.name for r in loop.results])
    # The base URL keeps the version path of the format's own (``/v1``, ``/v1beta``), as a
    # client in front of the provider does (Interactions answers only ``.../v1beta/interactions``).
    api = formats.get(dialect).http
    version = urlsplit(api.base_url).path.rstrip("/") if api is not None else ""
    leaf = HttpChatClient(dialect, request.base_url + version, model=loop.model or None)
    last = _LastCall(leaf)
    results = [_as_sent(r, dialect) for r in loop.results]
    agent = FunctionInvokingChatClient(
        last, tools=[_CannedTool(n, results) for n in names], max_rounds=loop.max_rounds
    )
    options = ChatOptions(
        model=loop.model or None,
        tools=tuple(
            ToolSpec(name=t.name, description=t.description, parameters=t.parameters)
            for t in loop.tools
        ),
        extra_body={k: v for k, v in body.items() if k not in _CONVERSATION},
    )
    messages = [
        ChatMessage.system(m.get("content", ""))
        if m.get("role") == "system"
        else ChatMessage.user(m.get("content", ""))
        for m in loop.messages
    ]
    try:
        for _ in agent.stream(messages, options):
            pass
    finally:
        leaf.close()
    converter = AgentResponseConverter()
    out = converter.results(last.updates)
    out.append(converter.finalize(converter.finish_reason))
    return output_of(last.updates, out)


def _as_sent(result: CannedResult, dialect: str) -> CannedResult:
    """A canned result as raf's agent returns it for the format to send: Gemini's content is
    the JSON text of the recorded ``functionResponse.response``, which raf's Gemini requests
    write as ``{"result": text}`` (``{"error": text}`` for an error): that text."""
    if dialect != "gemini":
        return result
    try:
        response = msgspec.json.decode(result.content)
    except msgspec.DecodeError:
        return result
    if isinstance(response, dict) and len(response) == 1:
        ((key, text),) = response.items()
        if key in ("result", "error") and isinstance(text, str):
            return msgspec.structs.replace(result, content=text, is_error=key == "error")
    return result


def main() -> int:
    """Serve on this process's standard input and output."""
    return serve(sys.stdin.buffer, sys.stdout.buffer)


if __name__ == "__main__":
    sys.exit(main())
