"""raf's ``respond()`` beside the libraries that aggregate the same streams, per format.

Run ``python bench/peers.py`` (``--rounds N``, ``--formats ...``, ``--deltas N``,
``--calls N``, ``--arg-bytes N``, ``--budget S``, ``--slow S``). Every contender gets the same
body in 4 KiB reads (``bench/peers_wire.py``: per format, a ``text`` and a ``tools``
workload), is checked against the stream's truth (text, each call's name and parsed
arguments, prompt and completion tokens) before it is timed, and is timed by the harness
(``bench/harness.py``: thread CPU time, paired rounds with ``respond()``, the budget and the
``slow`` rule so that a quadratic library cannot hang the run). The table gives each
library's time over ``respond()``'s.

Each library runs as its users run it, from the request to the final aggregate, over an httpx
``MockTransport`` that serves the body (:data:`SPECS` says what is timed for each):

* Chat Completions: openai-python's ``chat.completions.stream()`` + ``get_final_completion()``
  and ``ChatCompletionStreamState`` fed the chunks of ``create(stream=True)``; langchain-openai's
  ``ChatOpenAI.stream``, the ``AIMessageChunk`` s summed (langchain-core's ``+``);
* Anthropic: the anthropic SDK's ``messages.stream()`` + ``get_final_message()`` and its
  ``accumulate_event`` fed the events of ``create(stream=True)``; langchain-anthropic;
* Responses: openai-python's ``responses.stream()`` + ``get_final_response()``;
  langchain-openai with ``use_responses_api=True``;
* Gemini: google-genai's ``generate_content_stream`` (it has no accumulator: the text parts
  joined, the calls kept, as its users do); langchain-google-genai;
* every format: a hand-written client, httpx-sse's ``connect_sse`` with ``json.loads`` of
  each data and the text and arguments gathered by index (what a team writes by hand).

:func:`peers` serves ``pipeline.py --peers`` (Chat Completions only, its own workloads):
openai-python's stream helper, langchain-openai and the hand-written httpx-sse client, each
reduced to :data:`Reduced` (text, calls with ids, finish reason, usage).

None of these is a dependency of raf: the ``bench`` extra installs them; a library that is
not installed is reported so, not timed.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from harness import Contender, metered
from peers_wire import Summary, Workload, diff, parsed

Reduced = tuple[str, list[tuple[Any, Any, Any]], Any, tuple[int, int, int] | None]
"""text, [(call id, name, parsed arguments or the raw text)], finish reason, usage."""

_MESSAGES = [{"role": "user", "content": "go"}]


@dataclasses.dataclass(frozen=True)
class Peer:
    """A library, ready to stream.

    Attributes:
        stream: given the chunks and the names of the tools the stream calls, what the
            library ends with; the measured call.
        reduce: that result as :data:`Reduced`.
    """

    name: str
    stream: Callable[[Sequence[bytes], Sequence[str]], Any]
    reduce: Callable[[Any], Reduced]


class _MockServer:
    """An httpx ``MockTransport`` answering every request with the current chunks (through
    :func:`harness.metered`), from the first of ``modules`` that imports."""

    def __init__(self, modules: Sequence[str] = ("httpx2", "httpx")) -> None:
        # openai and anthropic >= 3 / 2 speak httpx2 (a fork of httpx with the same API; the
        # anthropic SDK refuses httpx objects): each library gets the client it uses itself.
        self.http: Any = None
        for name in modules:
            try:
                self.http = importlib.import_module(name)
                break
            except ImportError:
                continue
        if self.http is None:
            raise ImportError(f"none of {', '.join(modules)} is installed")
        self.chunks: Sequence[bytes] = ()
        server = self

        class Body(self.http.SyncByteStream):  # type: ignore[misc, name-defined]
            def __iter__(self) -> Iterator[bytes]:
                return metered(server.chunks)

        self._body = Body

    def client(self) -> Any:
        def handler(request: Any) -> Any:
            headers = {"content-type": "text/event-stream"}
            return self.http.Response(200, headers=headers, stream=self._body())

        return self.http.Client(transport=self.http.MockTransport(handler))


def _parsed(text: str | None) -> Any:
    try:
        return json.loads(text or "")
    except ValueError:
        return text or ""


def openai_python(model: str) -> Peer | None:
    """openai-python's stream helper, or ``None`` when ``openai`` is not installed."""
    try:
        import openai  # noqa: PLC0415
    except ImportError:
        return None
    server = _MockServer()
    client = openai.OpenAI(api_key="x", base_url="http://test/v1", http_client=server.client())
    schema = {"type": "object", "properties": {}, "additionalProperties": True}

    def stream(chunks: Sequence[bytes], tools: Sequence[str]) -> Any:
        server.chunks = chunks
        extra: dict[str, Any] = {}
        if tools:
            extra["tools"] = [
                {
                    "type": "function",
                    "function": {"name": n, "description": n, "parameters": schema},
                }
                for n in tools
            ]
        with client.chat.completions.stream(
            model=model, messages=_MESSAGES, stream_options={"include_usage": True}, **extra
        ) as events:
            for _ in events:
                pass
            return events.get_final_completion()

    def reduce(final: Any) -> Reduced:
        if not final.choices:
            return "", [], None, None
        message, usage = final.choices[0].message, final.usage
        calls = [
            (tc.id, tc.function.name, _parsed(tc.function.arguments))
            for tc in message.tool_calls or []
        ]
        counts = (
            (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) if usage else None
        )
        return message.content or "", calls, final.choices[0].finish_reason, counts

    return Peer("openai-python", stream, reduce)


def langchain_openai(model: str) -> Peer | None:
    """langchain-openai's ``ChatOpenAI.stream``, or ``None`` when it is not installed."""
    try:
        from langchain_openai import ChatOpenAI  # noqa: PLC0415
    except ImportError:
        return None
    server = _MockServer()
    llm = ChatOpenAI(
        model=model,
        api_key="x",
        base_url="http://test/v1",
        http_client=server.client(),
        streaming=True,
        stream_usage=True,
        max_retries=0,
    )

    def stream(chunks: Sequence[bytes], tools: Sequence[str]) -> Any:
        server.chunks = chunks
        acc = None
        for chunk in llm.stream(_MESSAGES):
            acc = chunk if acc is None else acc + chunk
        return acc

    def reduce(acc: Any) -> Reduced:
        if acc is None:
            return "", [], None, None
        calls = [(tc.get("id"), tc.get("name"), tc.get("args")) for tc in acc.tool_calls]
        calls += [
            (tc.get("id"), tc.get("name"), tc.get("args") or "")
            for tc in getattr(acc, "invalid_tool_calls", None) or []
        ]
        usage = acc.usage_metadata
        counts = (
            (usage["input_tokens"], usage["output_tokens"], usage["total_tokens"])
            if usage
            else None
        )
        text = acc.content if isinstance(acc.content, str) else str(acc.content)
        return text, calls, acc.response_metadata.get("finish_reason"), counts

    return Peer("langchain-openai", stream, reduce)


def httpx_sse_by_hand(model: str) -> Peer | None:
    """What a team writes by hand: httpx-sse's ``connect_sse``, ``json.loads`` of every data,
    text and arguments gathered by index; ``None`` when ``httpx-sse`` is not installed."""
    try:
        import httpx_sse  # noqa: PLC0415

        server = _MockServer(("httpx",))
    except ImportError:
        return None
    client = server.client()

    def stream(chunks: Sequence[bytes], tools: Sequence[str]) -> Reduced:
        server.chunks = chunks
        text: list[str] = []
        calls: dict[int, dict[str, Any]] = {}
        finish = counts = None
        with httpx_sse.connect_sse(client, "POST", "http://test/v1/chat", json={}) as source:
            for sse in source.iter_sse():
                if sse.data == "[DONE]":
                    break
                chunk = json.loads(sse.data)
                if usage := chunk.get("usage"):
                    counts = (
                        usage["prompt_tokens"], usage["completion_tokens"], usage["total_tokens"]
                    )  # fmt: skip
                for choice in chunk.get("choices") or ():
                    finish = choice.get("finish_reason") or finish
                    delta = choice.get("delta") or {}
                    if delta.get("content"):
                        text.append(delta["content"])
                    for entry in delta.get("tool_calls") or ():
                        call = calls.setdefault(entry["index"], {"arguments": []})
                        if entry.get("id"):
                            call["id"] = entry["id"]
                        function = entry.get("function") or {}
                        if function.get("name"):
                            call["name"] = function["name"]
                        if function.get("arguments"):
                            call["arguments"].append(function["arguments"])
        gathered = [
            (c.get("id"), c.get("name"), _parsed("".join(c["arguments"])))
            for _, c in sorted(calls.items())
        ]
        return "".join(text), gathered, finish, counts

    return Peer("httpx-sse by hand", stream, lambda reduced: reduced)


def peers(model: str) -> dict[str, Peer | None]:
    """Every peer by name; ``None`` for one whose library is not installed."""
    return {
        "openai-python": openai_python(model),
        "langchain-openai": langchain_openai(model),
        "httpx-sse by hand": httpx_sse_by_hand(model),
    }


# -- every format: the libraries beside raf's respond() (python bench/peers.py) -----------------


@dataclasses.dataclass(frozen=True)
class FormatPeer:
    """A library that aggregates one format's stream, ready to run.

    Attributes:
        name: its label in the tables.
        format: the raf dialect whose wire it reads.
        run: given a workload, what the library ends with (the measured call: the request
            through the library's client, the stream read to the end, the aggregate).
        reduce: that result as a :data:`peers_wire.Summary` (not timed).
    """

    name: str
    format: str
    run: Callable[[Workload], Any]
    reduce: Callable[[Any], Summary]


@dataclasses.dataclass(frozen=True)
class PeerSpec:
    """How to build a :class:`FormatPeer`: the modules it needs and what it times."""

    name: str
    format: str
    modules: tuple[str, ...]
    timed: str
    build: Callable[[], FormatPeer]


def _mock_url(server: _MockServer) -> tuple[Any, str]:
    return server.client(), "http://test/v1"


# Chat Completions ------------------------------------------------------------------------------


def _completion_summary(final: Any) -> Summary:
    if not final.choices:
        return "", [], None
    message, usage = final.choices[0].message, final.usage
    calls = [(tc.function.name, parsed(tc.function.arguments)) for tc in message.tool_calls or []]
    counts = (usage.prompt_tokens, usage.completion_tokens) if usage else None
    return message.content or "", calls, counts


def _openai_tools(names: Sequence[str]) -> dict[str, Any]:
    schema = {"type": "object", "properties": {}, "additionalProperties": True}
    if not names:
        return {}
    tools = [
        {"type": "function", "function": {"name": n, "description": n, "parameters": schema}}
        for n in names
    ]
    return {"tools": tools}


def _openai_client(server: _MockServer) -> Any:
    import openai  # noqa: PLC0415

    http_client, url = _mock_url(server)
    return openai.OpenAI(api_key="x", base_url=url, http_client=http_client, max_retries=0)


def _openai_stream() -> FormatPeer:
    server = _MockServer()
    client = _openai_client(server)

    def run(w: Workload) -> Any:
        server.chunks = w.chunks
        with client.chat.completions.stream(
            model="gpt-4o", messages=_MESSAGES, stream_options={"include_usage": True},
            **_openai_tools(w.tools),
        ) as events:  # fmt: skip
            for _ in events:
                pass
            return events.get_final_completion()

    return FormatPeer("openai .stream()", "openai_chat", run, _completion_summary)


def _openai_state() -> FormatPeer:
    from openai.lib.streaming.chat import ChatCompletionStreamState  # noqa: PLC0415

    server = _MockServer()
    client = _openai_client(server)

    def run(w: Workload) -> Any:
        server.chunks = w.chunks
        state: Any = ChatCompletionStreamState()
        for chunk in client.chat.completions.create(
            model="gpt-4o", messages=_MESSAGES, stream=True,
            stream_options={"include_usage": True},
        ):  # fmt: skip
            state.handle_chunk(chunk)
        return state.get_final_completion()

    return FormatPeer("openai ChatCompletionStreamState", "openai_chat", run, _completion_summary)


def _langchain_summary(acc: Any) -> Summary:
    if acc is None:
        return "", [], None
    calls = [(tc["name"], tc["args"]) for tc in acc.tool_calls]
    calls += [(tc["name"], tc["args"] or "") for tc in acc.invalid_tool_calls or []]
    usage = acc.usage_metadata
    counts = (usage["input_tokens"], usage["output_tokens"]) if usage else None
    text = acc.text if isinstance(acc.text, str) else acc.text()
    return text, calls, counts


def _summed(chunks: Iterator[Any]) -> Any:
    """langchain-core's aggregation: ``acc = acc + chunk`` (``AIMessageChunk.__add__``)."""
    acc = None
    for chunk in chunks:
        acc = chunk if acc is None else acc + chunk
    return acc


def _langchain_openai(responses: bool = False) -> FormatPeer:
    from langchain_openai import ChatOpenAI  # noqa: PLC0415

    server = _MockServer()
    http_client, url = _mock_url(server)
    llm = ChatOpenAI(
        model="gpt-5" if responses else "gpt-4o", api_key="x", base_url=url,  # type: ignore[arg-type]
        http_client=http_client, streaming=True, stream_usage=True, max_retries=0,
        use_responses_api=responses,
    )  # fmt: skip

    def run(w: Workload) -> Any:
        server.chunks = w.chunks
        tools = _openai_tools(w.tools).get("tools", [])
        return _summed((llm.bind_tools(tools) if tools else llm).stream(_MESSAGES))

    fmt = "openai_responses" if responses else "openai_chat"
    return FormatPeer("langchain-openai", fmt, run, _langchain_summary)


def _by_hand(fmt: str, accumulate: Callable[[Any], Summary]) -> Callable[[], FormatPeer]:
    """A hand-written client: httpx-sse's ``connect_sse`` over httpx, ``json.loads`` of
    every data, ``accumulate`` gathering text, calls and usage."""

    def build() -> FormatPeer:
        import httpx_sse  # noqa: PLC0415

        server = _MockServer(("httpx",))
        client = server.client()

        def run(w: Workload) -> Summary:
            server.chunks = w.chunks
            with httpx_sse.connect_sse(client, "POST", "http://test/v1/stream", json={}) as source:
                return accumulate(source.iter_sse())

        return FormatPeer("httpx-sse by hand", fmt, run, lambda summary: summary)

    return build


def chat_by_hand(events: Iterable[Any]) -> Summary:
    """Chat Completions chunks: content appended, tool-call arguments gathered by index."""
    text: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    usage = None
    for sse in events:
        if sse.data == "[DONE]":
            break
        chunk = json.loads(sse.data)
        if chunk.get("usage"):
            usage = (chunk["usage"]["prompt_tokens"], chunk["usage"]["completion_tokens"])
        for choice in chunk.get("choices") or ():
            delta = choice.get("delta") or {}
            if delta.get("content"):
                text.append(delta["content"])
            for entry in delta.get("tool_calls") or ():
                call = calls.setdefault(entry["index"], {"name": "", "arguments": []})
                function = entry.get("function") or {}
                if function.get("name"):
                    call["name"] = function["name"]
                if function.get("arguments"):
                    call["arguments"].append(function["arguments"])
    return "".join(text), _calls(calls), usage


def _calls(calls: dict[Any, dict[str, Any]]) -> list[tuple[str, Any]]:
    return [(c["name"], parsed("".join(c["arguments"]))) for _, c in sorted(calls.items())]


# Anthropic -------------------------------------------------------------------------------------


def _message_summary(message: Any) -> Summary:
    text = "".join(block.text for block in message.content if block.type == "text")
    calls = [(block.name, block.input) for block in message.content if block.type == "tool_use"]
    usage = message.usage
    return text, calls, (usage.input_tokens, usage.output_tokens) if usage else None


def _anthropic_client(server: _MockServer) -> Any:
    import anthropic  # noqa: PLC0415

    http_client, _ = _mock_url(server)
    return anthropic.Anthropic(
        api_key="x", base_url="http://test", http_client=http_client, max_retries=0
    )


_ANTHROPIC = {"model": "claude-sonnet-4-5", "max_tokens": 64_000, "messages": _MESSAGES}


def _anthropic_stream() -> FormatPeer:
    server = _MockServer()
    client = _anthropic_client(server)

    def run(w: Workload) -> Any:
        server.chunks = w.chunks
        with client.messages.stream(**_ANTHROPIC) as events:
            for _ in events:
                pass
            return events.get_final_message()

    return FormatPeer("anthropic .stream()", "anthropic_messages", run, _message_summary)


def _anthropic_accumulate() -> FormatPeer:
    from anthropic.lib.streaming._messages import accumulate_event  # noqa: PLC0415

    server = _MockServer()
    client = _anthropic_client(server)

    def run(w: Workload) -> Any:
        server.chunks = w.chunks
        snapshot = None
        buffers: dict[int, bytes] = {}
        for event in client.messages.create(**_ANTHROPIC, stream=True):
            snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=buffers)
        return snapshot

    return FormatPeer("anthropic accumulate_event", "anthropic_messages", run, _message_summary)


def _langchain_anthropic() -> FormatPeer:
    from langchain_anthropic import ChatAnthropic  # noqa: PLC0415

    server = _MockServer()
    llm = ChatAnthropic(
        model_name="claude-sonnet-4-5", api_key="x", max_retries=0, streaming=True,  # type: ignore[arg-type, call-arg]
        max_tokens=64_000,  # type: ignore[call-arg]
    )  # fmt: skip
    llm.__dict__["_client"] = _anthropic_client(server)  # its cached client, on the mock

    def run(w: Workload) -> Any:
        server.chunks = w.chunks
        tools = [{"name": n, "description": n, "input_schema": {"type": "object"}} for n in w.tools]
        return _summed((llm.bind_tools(tools) if tools else llm).stream(_MESSAGES))

    return FormatPeer("langchain-anthropic", "anthropic_messages", run, _langchain_summary)


def anthropic_by_hand(events: Iterable[Any]) -> Summary:
    """Anthropic events: text and ``partial_json`` gathered by content block index."""
    text: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    prompt = completion = 0
    for sse in events:
        event = json.loads(sse.data)
        kind = event["type"]
        if kind == "content_block_delta":
            delta = event["delta"]
            if delta["type"] == "text_delta":
                text.append(delta["text"])
            elif delta["type"] == "input_json_delta":
                calls[event["index"]]["arguments"].append(delta["partial_json"])
        elif kind == "content_block_start" and event["content_block"]["type"] == "tool_use":
            calls[event["index"]] = {"name": event["content_block"]["name"], "arguments": []}
        elif kind == "message_start":
            prompt = event["message"]["usage"]["input_tokens"]
        elif kind == "message_delta":
            completion = event["usage"]["output_tokens"]
    return "".join(text), _calls(calls), (prompt, completion)


# Responses -------------------------------------------------------------------------------------


def _response_summary(response: Any) -> Summary:
    calls = [
        (item.name, parsed(item.arguments))
        for item in response.output
        if item.type == "function_call"
    ]
    usage = response.usage
    return response.output_text, calls, (usage.input_tokens, usage.output_tokens)


def _responses_stream() -> FormatPeer:
    server = _MockServer()
    client = _openai_client(server)

    def run(w: Workload) -> Any:
        server.chunks = w.chunks
        with client.responses.stream(model="gpt-5", input="go") as events:
            for _ in events:
                pass
            return events.get_final_response()

    return FormatPeer("openai responses.stream()", "openai_responses", run, _response_summary)


def responses_by_hand(events: Iterable[Any]) -> Summary:
    """Responses events: text deltas and argument deltas gathered by output index."""
    text: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    usage = None
    for sse in events:
        event = json.loads(sse.data)
        kind = event["type"]
        if kind == "response.output_text.delta":
            text.append(event["delta"])
        elif kind == "response.function_call_arguments.delta":
            calls[event["output_index"]]["arguments"].append(event["delta"])
        elif kind == "response.output_item.added" and event["item"]["type"] == "function_call":
            calls[event["output_index"]] = {"name": event["item"]["name"], "arguments": []}
        elif kind == "response.completed":
            counts = event["response"]["usage"]
            usage = (counts["input_tokens"], counts["output_tokens"])
    return "".join(text), _calls(calls), usage


# Gemini ----------------------------------------------------------------------------------------


def _genai_client(server: _MockServer) -> Any:
    from google import genai  # noqa: PLC0415
    from google.genai import types  # noqa: PLC0415

    http_client, _ = _mock_url(server)
    options = types.HttpOptions(base_url="http://test", httpx_client=http_client)
    return genai.Client(api_key="x", http_options=options)


def _genai_stream() -> FormatPeer:
    server = _MockServer()
    client = _genai_client(server)

    def run(w: Workload) -> Summary:
        server.chunks = w.chunks
        text: list[str] = []
        calls: list[tuple[str, Any]] = []
        usage = None
        for chunk in client.models.generate_content_stream(model="gemini-2.5-flash", contents="go"):
            for candidate in chunk.candidates or ():
                for part in (candidate.content and candidate.content.parts) or ():
                    if part.text:
                        text.append(part.text)
                    if part.function_call:
                        calls.append((part.function_call.name, part.function_call.args))
            if chunk.usage_metadata and chunk.usage_metadata.prompt_token_count is not None:
                meta = chunk.usage_metadata
                usage = (meta.prompt_token_count, meta.candidates_token_count)
        return "".join(text), calls, usage

    return FormatPeer("google-genai stream", "gemini", run, lambda summary: summary)


def _langchain_google() -> FormatPeer:
    from langchain_google_genai import ChatGoogleGenerativeAI  # noqa: PLC0415

    server = _MockServer()
    llm = ChatGoogleGenerativeAI(model="gemini-2.5-flash", api_key="x", max_retries=0)  # type: ignore[call-arg]
    llm.client = _genai_client(server)

    def run(w: Workload) -> Any:
        server.chunks = w.chunks
        return _summed(llm.stream(_MESSAGES))

    return FormatPeer("langchain-google-genai", "gemini", run, _langchain_summary)


def gemini_by_hand(events: Iterable[Any]) -> Summary:
    """Gemini chunks: text parts joined, whole ``functionCall`` parts kept."""
    text: list[str] = []
    calls: list[tuple[str, Any]] = []
    usage = None
    for sse in events:
        chunk = json.loads(sse.data)
        for candidate in chunk.get("candidates") or ():
            for part in candidate.get("content", {}).get("parts") or ():
                if "text" in part:
                    text.append(part["text"])
                elif "functionCall" in part:
                    calls.append((part["functionCall"]["name"], part["functionCall"]["args"]))
        if "usageMetadata" in chunk:
            meta = chunk["usageMetadata"]
            usage = (meta["promptTokenCount"], meta["candidatesTokenCount"])
    return "".join(text), calls, usage


_OPENAI = ("openai",)
_SSE = ("httpx_sse", "httpx")
SPECS: tuple[PeerSpec, ...] = (
    PeerSpec("openai .stream()", "openai_chat", _OPENAI,
             "client.chat.completions.stream(...) read to the end, get_final_completion()",
             _openai_stream),
    PeerSpec("openai ChatCompletionStreamState", "openai_chat", _OPENAI,
             "client.chat.completions.create(stream=True), each chunk to "
             "ChatCompletionStreamState.handle_chunk, get_final_completion()", _openai_state),
    PeerSpec("langchain-openai", "openai_chat", ("langchain_openai",),
             "ChatOpenAI(...).bind_tools(...).stream(...), the AIMessageChunks summed "
             "(langchain-core's +)",
             _langchain_openai),
    PeerSpec("httpx-sse by hand", "openai_chat", _SSE,
             "connect_sse + iter_sse, json.loads each data, text and arguments by index",
             _by_hand("openai_chat", chat_by_hand)),
    PeerSpec("anthropic .stream()", "anthropic_messages", ("anthropic",),
             "client.messages.stream(...) read to the end, get_final_message()",
             _anthropic_stream),
    PeerSpec("anthropic accumulate_event", "anthropic_messages", ("anthropic",),
             "client.messages.create(stream=True), each event to accumulate_event",
             _anthropic_accumulate),
    PeerSpec("langchain-anthropic", "anthropic_messages", ("langchain_anthropic",),
             "ChatAnthropic(...).bind_tools(...).stream(...), the AIMessageChunks summed",
             _langchain_anthropic),
    PeerSpec("httpx-sse by hand", "anthropic_messages", _SSE,
             "connect_sse + iter_sse, json.loads each data, text and partial_json by block",
             _by_hand("anthropic_messages", anthropic_by_hand)),
    PeerSpec("openai responses.stream()", "openai_responses", _OPENAI,
             "client.responses.stream(...) read to the end, get_final_response()",
             _responses_stream),
    PeerSpec("langchain-openai", "openai_responses", ("langchain_openai",),
             "ChatOpenAI(use_responses_api=True).stream(...), the chunks summed",
             lambda: _langchain_openai(responses=True)),
    PeerSpec("httpx-sse by hand", "openai_responses", _SSE,
             "connect_sse + iter_sse, json.loads each data, text and arguments by item",
             _by_hand("openai_responses", responses_by_hand)),
    PeerSpec("google-genai stream", "gemini", ("google.genai",),
             "client.models.generate_content_stream(...), text parts joined, calls kept",
             _genai_stream),
    PeerSpec("langchain-google-genai", "gemini", ("langchain_google_genai",),
             "ChatGoogleGenerativeAI.stream(...), the chunks summed", _langchain_google),
    PeerSpec("httpx-sse by hand", "gemini", _SSE,
             "connect_sse + iter_sse, json.loads each data, text parts joined",
             _by_hand("gemini", gemini_by_hand)),
)  # fmt: skip


def missing(spec: PeerSpec) -> str | None:
    """The first module ``spec`` needs that does not import, or ``None``."""
    for module in spec.modules:
        try:
            importlib.import_module(module)
        except ImportError:
            return module
    return None


def contender(peer: FormatPeer, workload: Workload) -> Contender[Any]:
    """``peer`` on ``workload``, checked against its truth."""

    def check(result: Any) -> str | None:
        return diff(peer.reduce(result), workload.truth)

    return Contender(peer.name, lambda: peer.run(workload), check)


def respond_contender(workload: Workload) -> Contender[Any]:
    """raf's ``respond()`` on the same reads."""
    from raf.pipeline import respond  # noqa: PLC0415

    def go() -> Any:
        return respond(metered(workload.chunks), workload.format)

    def check(response: Any) -> str | None:
        if response.errors:
            return f"{len(response.errors)} error(s), first {response.errors[0].error_code}"
        usage = response.usage
        counts = (usage.prompt_tokens, usage.completion_tokens) if usage else None
        calls = [(c.name, c.arguments) for c in response.tool_calls]
        return diff((response.text, calls, counts), workload.truth)

    return Contender("respond()", go, check)


# -- the report ---------------------------------------------------------------------------------

DISTRIBUTIONS = (
    "openai", "anthropic", "google-genai", "langchain-core", "langchain-openai",
    "langchain-anthropic", "langchain-google-genai", "httpx", "httpx2", "httpx-sse",
)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    import argparse  # noqa: PLC0415
    import time  # noqa: PLC0415

    import peers_wire  # noqa: PLC0415
    from harness import Settings, compare, print_environment, table  # noqa: PLC0415

    parser = argparse.ArgumentParser(description="raf's respond() beside the libraries, per format")
    parser.add_argument("--rounds", type=int, default=5, help="paired rounds (5)")
    parser.add_argument("--formats", nargs="*", default=list(peers_wire.FORMATS))
    parser.add_argument("--deltas", type=int, default=3000, help="text deltas (3000)")
    parser.add_argument("--calls", type=int, default=4, help="tool calls (4)")
    parser.add_argument("--arg-bytes", type=int, default=8000, help="bytes per call (8000)")
    parser.add_argument("--budget", type=float, default=120.0, help="wall s per run (120)")
    parser.add_argument(
        "--slow", type=float, default=10.0, help="a run over this many s is not repeated (10)"
    )
    args = parser.parse_args(argv)
    settings = Settings(budget=args.budget)
    began = time.perf_counter()
    print_environment(DISTRIBUTIONS, settings)
    print(f"{args.rounds} paired rounds; 4 KiB reads; a run over {args.slow:g} s is not repeated")
    loads = peers_wire.workloads(
        tuple(args.formats), deltas=args.deltas, calls=args.calls, arg_bytes=args.arg_bytes
    )
    built: dict[tuple[str, str], FormatPeer | str] = {}
    print("\nwhat is timed (each over an httpx MockTransport serving the body)")
    for spec in SPECS:
        if spec.format not in args.formats:
            continue
        absent = missing(spec)
        try:
            built[spec.format, spec.name] = f"not installed ({absent})" if absent else spec.build()
        except Exception as exc:  # a library that cannot be set up is a row of the table
            built[spec.format, spec.name] = f"error: {type(exc).__name__}: {str(exc)[:120]}"
        print(f"  {spec.format} / {spec.name}: {spec.timed}")
    print(
        f"\nworkloads: text = {args.deltas:,} text deltas; tools = a sentence, then "
        f"{args.calls} calls x {args.arg_bytes:,} B arguments in 8 B fragments"
    )
    print("time / respond()'s time, paired rounds: median (min-max); higher is slower")
    results: dict[tuple[str, str], dict[str, tuple[str, str]]] = {}
    for w in loads:
        entries = [respond_contender(w)]
        problems: dict[str, str] = {}
        for (fmt, name), peer in built.items():
            if fmt != w.format:
                continue
            if isinstance(peer, str):
                problems[name] = peer
            else:
                entries.append(contender(peer, w))
        comparison = compare(entries, rounds=args.rounds, settings=settings, slow=args.slow)
        rows = []
        for entry in entries:
            seconds = comparison.seconds(entry.name)
            ms = f"{seconds.median * 1000:,.1f}" if seconds else "-"
            if entry.name == "respond()":
                ratio = "1" if seconds else comparison.outcomes[entry.name].verdict
            else:
                spread = comparison.slowdown(entry.name)
                verdict = comparison.outcomes[entry.name].verdict
                ratio = spread.format(digits=1, unit="x") if spread else verdict
            rows.append([entry.name, ms, ratio])
        rows += [[name, "-", problem] for name, problem in problems.items()]
        for name, ms, ratio in rows:
            results.setdefault((w.format, name), {})[w.name] = (ms, ratio)
        print(f"\n{w.format}, {w.name} ({w.kilobytes:,.0f} KB)")
        print(table(["contender", "ms", "/ respond()"], rows))
    print("\nas Markdown (docs/benchmarks.md):\n")
    print("| format | contender | text ms | text / `respond()` | tools ms | tools / `respond()` |")
    print("|---|---|---|---|---|---|")
    for (fmt, name), by_load in results.items():
        cells = [c for load in ("text", "tools") for c in by_load.get(load, ("-", "-"))]
        label = f"`{name}`" if name == "respond()" else name
        print(f"| {fmt} | {label} | " + " | ".join(cells) + " |")
    print(f"total runtime {time.perf_counter() - began:.0f} s")
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main())
