"""Client libraries that aggregate the same Chat Completions stream, for ``pipeline.py --peers``.

Each peer drives its library over an httpx ``MockTransport`` that serves the chunks it is
given (through :func:`harness.metered`, so a run past its budget stops), and reduces what the
library ends with to :data:`Reduced`: text, calls (id, name, parsed arguments), finish reason
and usage. The reduction is separate from the measured call, so it is not timed.

* ``openai-python``: ``client.chat.completions.stream(...)`` with the request's ``tools``
  when the stream has calls (non-strict, so it does not partial-parse the arguments on every
  delta), then ``stream.get_final_completion()``;
* ``langchain-openai``: ``ChatOpenAI(streaming=True).stream(...)``, the chunks summed with
  ``acc = acc + chunk``, as LangChain aggregates.

Neither is a dependency of raf: ``pip install openai langchain-openai`` (the ``bench``
extra) to include them.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from harness import metered

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
    """An httpx ``MockTransport`` answering every request with the current chunks."""

    def __init__(self) -> None:
        try:
            self.http: Any = importlib.import_module("httpx")
        except ImportError:  # openai >= 3 is typed for httpx2, a fork with the same API
            self.http = importlib.import_module("httpx2")
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


def peers(model: str) -> dict[str, Peer | None]:
    """Every peer by name; ``None`` for one whose library is not installed."""
    return {"openai-python": openai_python(model), "langchain-openai": langchain_openai(model)}
