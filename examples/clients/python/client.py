"""A minimal, correct streaming client for OpenAI Chat Completions, as a conformance target.

It stands for your own client: standard library only, no raf. It turns the bytes of a Chat
Completions stream (Server-Sent Events) into what a caller gets, the aggregated response, in
three parts you can copy:

1. ``EventStreamParser``: bytes -> events, by the WHATWG rules (docs/sse.md), fed one network
   read at a time, exactly as a client reading a socket would be;
2. ``ChatCompletionStream``: events -> text, reasoning, tool calls, finish reason, usage and
   errors, by the ``openai_chat`` rules (docs/dialects.md, docs/converter.md);
3. ``run_tool_loop``: a Chat Completions tool loop (send, run the calls, send the assistant
   message and one ``tool`` message per call, until the answer);
4. ``main``: the ``raf-conformance/1`` protocol (docs/protocol.md) on stdin/stdout, so that
   ``raf conform --impl 'python examples/clients/python/client.py'`` can test parts 1 to 3.

Part 4 gets the body's network reads in one of two ways, and hands them to the same
``read_response``:

* a ``chunks`` case carries the recorded body, already cut into reads (base64), so the
  chunking is exactly the one raf chose;
* an ``http`` case (this client declares the ``http`` capability; ``raf conform --transport
  http``) carries the request instead: ``fetch`` sends it to raf's replay server with
  ``http.client`` and yields each network read as it arrives, which is what a real client
  does::

      status, headers, reads = fetch({"method": "POST", "url": url, "headers": {...},
                                      "body": request})
      answer = read_response(status, reads)

With an HTTP library the loop is the same: ``response = http.post(url, json=request,
stream=True)``, then ``read_response(response.status_code, response.iter_bytes())``.

A ``tool_loop`` case (capability ``tool_loop``, level ``requests``: ``raf conform --impl ...
--transport http --level requests``) asks for a whole run instead: ``run_tool_loop`` sends
the first request, answers each call with the case's canned result, sends the follow-up,
and so on until the model answers; raf judges every request it sent.
"""

from __future__ import annotations

import base64
import codecs
import http.client
import json
import re
import sys
import traceback
from collections.abc import Iterable, Iterator
from typing import Any
from urllib.parse import urlsplit

HELLO = {
    "type": "hello",
    "protocol": "raf-conformance/1",
    "name": "example-python",
    "version": "1.0",
    "dialects": ["openai_chat"],
    "levels": ["response", "requests"],
    "capabilities": ["tool_calls", "reasoning", "usage", "http_errors", "http", "tool_loop"],
}

# -- 1. Server-sent events ---------------------------------------------------------------

_LINE_END = re.compile(r"\r\n|\r|\n")  # nothing else ends a line (not U+2028, not U+0085)


class EventStreamParser:
    """Incremental event-stream parser (HTML Living Standard, 9.2.6).

    ``feed(chunk)`` returns the events, as ``(type, data)``, that the chunk completed;
    ``close()`` says whether the stream ended inside an unfinished event, which is lost.
    """

    def __init__(self) -> None:
        # One decoder for the whole stream: a character cut between two reads is decoded when
        # its last byte arrives; invalid bytes become U+FFFD.
        self._utf8 = codecs.getincrementaldecoder("utf-8")("replace")
        self._at_start = True  # a byte-order mark is removed once, at the very start
        self._after_cr = False  # the last read ended with CR: a LF first in the next is its pair
        self._line: list[str] = []  # the unfinished line, in pieces
        self._data: list[str] = []  # the data lines of the block being read
        self._type = ""  # the block's "event:" field
        self._in_block = False  # a field line came after the last blank line

    def feed(self, chunk: bytes) -> list[tuple[str, str]]:
        events: list[tuple[str, str]] = []
        text = self._utf8.decode(chunk)
        if not text:
            return events  # e.g. the first byte of a character cut between reads
        if self._at_start:
            self._at_start = False
            text = text.removeprefix("\ufeff")
        if self._after_cr and text.startswith("\n"):
            text = text[1:]  # the LF of a CRLF cut between two reads
        start = 0
        for end in _LINE_END.finditer(text):
            self._line.append(text[start : end.start()])
            self._on_line("".join(self._line), events)
            self._line = []
            start = end.end()
        if start < len(text):
            self._line.append(text[start:])
        self._after_cr = text.endswith("\r")
        return events

    def close(self) -> bool:
        """End of the stream: ``True`` if it ended inside a line or a block (truncated)."""
        rest = self._utf8.decode(b"", final=True)  # an incomplete character: U+FFFD
        return bool(rest or self._line or self._in_block)

    def _on_line(self, line: str, events: list[tuple[str, str]]) -> None:
        if not line:  # a blank line ends the block: it is an event if it had data
            if self._data:
                events.append((self._type or "message", "\n".join(self._data)))
            self._data, self._type, self._in_block = [], "", False
            return
        if line.startswith(":"):
            return  # a comment: keep-alives, ": OPENROUTER PROCESSING"
        self._in_block = True
        name, _, value = line.partition(":")  # no colon: the whole line names the field
        value = value.removeprefix(" ")  # one optional space
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._type = value
        # "id" and "retry" only matter to a client that reconnects; other fields are ignored.


# -- 2. Chat Completions chunks ----------------------------------------------------------


def pick(obj: dict[str, Any], key: str, kind: type | tuple[type, ...], problems: list[str]) -> Any:
    """``obj[key]`` if it is of type ``kind``; ``None`` if missing, null or (noted) wrong."""
    value = obj.get(key)
    if value is None or (isinstance(value, kind) and not isinstance(value, bool)):
        return value
    problems.append(f"{key} is {type(value).__name__}")
    return None


def _no_constants(name: str) -> None:
    raise ValueError(f"{name} is not JSON")  # Python's json would accept NaN and Infinity


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"number {text} out of range")
    return value


# After json.loads, a surrogate left in a string is half of a pair whose other half is
# missing (the escape "\ud83d" alone, as servers send an emoji cut between two chunks).
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def parse_arguments(text: str) -> Any:
    """A call's arguments: one strict JSON document; empty (or blank) means ``{}``."""
    if not text.strip():
        return {}
    value = json.loads(text, parse_constant=_no_constants, parse_float=_finite)
    if _LONE_SURROGATE.search(json.dumps(value, ensure_ascii=False)):
        raise ValueError("a lone surrogate escape is not text")
    return value


class ToolCall:
    """One tool call, assembled from its deltas."""

    def __init__(self, number: int, call_id: str | None) -> None:
        self.number = number  # its position, in first-seen order
        self.id = call_id  # the provider's id, when one came
        self.name: str | None = None
        self.arguments: list[str] = []  # the fragments, joined once at the end


def is_chunk(chunk: dict[str, Any]) -> bool:
    """Whether a JSON object is a chat completion chunk at all (docs/dialects.md, "Chunks a
    dialect does not recognise"): its non-empty ``object`` starts with ``chat.completion``;
    without one, it has ``choices`` (``[]``, of another type, or with a choice that is not a
    legacy Completions one: ``text`` and no ``delta``) or a ``usage``, ``error`` or ``x_groq``."""
    kind = chunk.get("object")
    if isinstance(kind, str) and kind:
        return kind.startswith("chat.completion")
    choices = chunk.get("choices")
    if isinstance(choices, list):
        if not choices or any(
            not isinstance(c, dict) or c.get("delta") is not None or c.get("text") is None
            for c in choices
        ):
            return True
    elif choices is not None:
        return True  # of the wrong type: reported as such
    return any(chunk.get(key) is not None for key in ("usage", "error", "x_groq"))


class ChatCompletionStream:
    """Aggregates the events of one Chat Completions stream; ``finish`` gives the response."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.calls: list[ToolCall] = []
        self.by_id: dict[str, ToolCall] = {}
        self.by_index: dict[int, ToolCall] = {}  # the call most recently seen at each index
        self.current: ToolCall | None = None  # the call of the last tool-call delta
        self.response_id: str | None = None
        self.model: str | None = None
        self.finish_reason: str | None = None
        self.usage: dict[str, int] | None = None
        self.errors: list[str] = []
        self.done = False  # [DONE] came: nothing after it is read
        self.provider_error = False  # the provider said why the stream ends
        self.chunks = 0  # chat completion chunks read
        self.others: list[str] = []  # JSON objects of another format, skipped

    def on_event(self, kind: str, data: str) -> None:
        if self.done:
            return
        if kind == "error":  # "event: error": the provider's own error frame
            self.provider_error = True
            self.errors.append(f"provider sent an error event: {data[:300]}")
            return
        if data.strip(" \t\r\n") == "[DONE]":
            self.done = True
            return
        if not data.strip():
            return  # an empty data line is a keep-alive
        try:
            # A number too large for a float (1e400) is read as infinity; it does no harm in
            # the fields this client ignores, and is no count in those it reads.
            chunk = json.loads(data, parse_constant=_no_constants)
        except (ValueError, RecursionError) as exc:
            self.errors.append(f"data is not JSON ({exc}): {data[:300]}")
            return
        if not isinstance(chunk, dict):
            self.errors.append(f"not a chat completion chunk: {data[:300]}")
            return
        if "\\u" in data:  # perhaps a lone surrogate escape: keep the chunk, with U+FFFD
            text = json.dumps(chunk, ensure_ascii=False)
            if _LONE_SURROGATE.search(text):
                self.errors.append(f"lone surrogate escape, read as U+FFFD: {data[:300]}")
                chunk = json.loads(_LONE_SURROGATE.sub("\ufffd", text))
        if is_chunk(chunk):
            self.chunks += 1
            self.on_chunk(chunk, data)
        else:  # a legacy Completions, Cohere or Ollama chunk: nothing of it is read
            self.others.append(data)

    def on_chunk(self, chunk: dict[str, Any], data: str) -> None:
        problems: list[str] = []  # fields of the wrong type, skipped
        # Azure's filter chunks say "id": "" and "model": "": empty means absent.
        self.response_id = pick(chunk, "id", str, problems) or self.response_id
        self.model = pick(chunk, "model", str, problems) or self.model
        if chunk.get("error") is not None:  # OpenRouter reports failures inside a 200 stream
            self.provider_error = True
            self.errors.append(f"provider error in stream: {data[:300]}")
        usage = pick(chunk, "usage", dict, problems)  # "usage": null reports nothing
        groq = pick(chunk, "x_groq", dict, problems)
        if usage is None and groq is not None:
            usage = pick(groq, "usage", dict, problems)  # Groq's place for it
        for choice in pick(chunk, "choices", list, problems) or []:  # may be [] or null
            if not isinstance(choice, dict):
                problems.append(f"a choice is {type(choice).__name__}")
            elif not pick(choice, "index", int, problems):  # n > 1: only choice 0 counts
                self.on_delta(pick(choice, "delta", dict, problems) or {}, problems)
                reason = pick(choice, "finish_reason", str, problems)
                if reason:
                    self.finish_reason = reason
        if usage is not None:
            self.on_usage(usage)
        if problems:
            self.errors.append(f"chunk fields ignored: {'; '.join(problems)}: {data[:300]}")

    def on_delta(self, delta: dict[str, Any], problems: list[str]) -> None:
        # DeepSeek sends reasoning_content, OpenRouter and others reasoning; some send both,
        # with the same text.
        reasoning_content = pick(delta, "reasoning_content", str, problems)
        reasoning = pick(delta, "reasoning", str, problems)
        if reasoning_content or reasoning:
            self.reasoning.append(reasoning_content or reasoning)
        content = pick(delta, "content", (str, list), problems)
        if isinstance(content, str):
            self.text.append(content)
        for part in content if isinstance(content, list) else []:  # Mistral's content parts
            kind = part.get("type") if isinstance(part, dict) else None
            if isinstance(part, str):
                self.text.append(part)
            elif kind == "text" and isinstance(part.get("text"), str):
                self.text.append(part["text"])
            elif kind == "thinking":
                thinking = part.get("thinking")
                for piece in thinking if isinstance(thinking, list) else [thinking]:
                    text = piece.get("text") if isinstance(piece, dict) else piece
                    if isinstance(text, str):
                        self.reasoning.append(text)
            else:
                problems.append(f"content part {json.dumps(part)[:80]} not understood")
        for entry in pick(delta, "tool_calls", list, problems) or []:
            if isinstance(entry, dict):
                self.on_tool_call_delta(entry, problems)
            else:
                problems.append(f"a tool call is {type(entry).__name__}")

    def on_usage(self, raw: dict[str, Any]) -> None:
        def count(key: str) -> int | None:
            value = raw.get(key)
            return value if type(value) is int and value >= 0 else None

        prompt, completion = count("prompt_tokens") or 0, count("completion_tokens") or 0
        total = count("total_tokens")
        usage = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion if total is None else total,
        }
        if self.usage is None or any(usage.values()):  # all zeros never replace a real report
            self.usage = usage

    def on_tool_call_delta(self, entry: dict[str, Any], problems: list[str]) -> None:
        function = pick(entry, "function", dict, problems) or {}
        index = pick(entry, "index", int, problems)
        call_id = pick(entry, "id", str, problems) or None  # "" or null: no id
        name = pick(function, "name", str, problems) or None
        arguments = function.get("arguments")
        if arguments is None:
            arguments = ""
        elif not isinstance(arguments, str):  # some servers send an object: keep it as text
            arguments = json.dumps(arguments, separators=(",", ":"), ensure_ascii=False)
        call = self.route(index, call_id, name)
        self.current = call
        if call_id is not None and call_id not in self.by_id:
            self.by_id[call_id] = call
            call.id = call.id or call_id
        self.set_name(call, name)
        call.arguments.append(arguments)

    def set_name(self, call: ToolCall, name: str | None) -> None:
        if name is not None and call.name is None:
            call.name = name  # a repeated name is not appended: names are never concatenated

    def route(self, index: int | None, call_id: str | None, name: str | None) -> ToolCall:
        """The call a delta belongs to (docs/converter.md, "Tool calls")."""
        if call_id is not None:
            known = self.by_id.get(call_id)
            if known is not None:  # 1. a known id
                if index is not None:
                    self.by_index[index] = known
                return known
            existing = self.by_index.get(index) if index is not None else None
            if (
                existing is not None
                and existing.id is None
                and (name is None or existing.name in (None, name))
            ):
                return existing  # 2. the first id of a call so far known by its index only
            return self.new_call(index, call_id)  # 2. a new id: a new call, even at index 0
        # 3. an index: the call last seen there; 4. no index: the call of the last delta
        existing = self.current if index is None else self.by_index.get(index)
        if existing is None or (name is not None and existing.name not in (None, name)):
            return self.new_call(index, None)  # a new index, or another tool at a used one
        return existing

    def new_call(self, index: int | None, call_id: str | None) -> ToolCall:
        call = ToolCall(len(self.calls), call_id)
        self.calls.append(call)
        if call_id is not None:
            self.by_id[call_id] = call
        if index is not None:
            self.by_index[index] = call
        return call

    def finish(self, truncated: bool) -> dict[str, Any]:
        """The end of the stream (``truncated``: inside an unfinished event): the response."""
        cut = False  # the stream ended abnormally
        if self.others and not self.chunks:  # another format: an error, not an empty answer
            self.errors.append(
                f"no chat completion chunk in this stream: {len(self.others)} JSON object(s) "
                f"of another format, the first: {self.others[0][:300]}"
            )
            return {"errors": [{"message": m} for m in self.errors]}
        if not self.done and truncated:
            self.errors.append("the stream ended inside an unfinished event; it was lost")
            cut = True
        elif not self.done and self.finish_reason is None and not self.provider_error:
            self.errors.append("the stream ended without [DONE] and without a finish reason")
            cut = True
        tool_calls = []
        for call in self.calls:
            text = "".join(call.arguments)
            try:
                arguments, failure = parse_arguments(text), None
            except (ValueError, RecursionError) as exc:
                arguments, failure = None, exc
            if cut and self.finish_reason is None and (failure or not text.strip()):
                # Cut while its arguments were streaming: running it would be wrong.
                self.errors.append(f"tool call {call.name} was cut off: {text[:300]}")
            elif call.name is None:
                self.errors.append(f"a tool call never received a name: {text[:300]}")
            elif failure is not None:
                self.errors.append(
                    f"arguments of tool call {call.name} are not JSON ({failure}): {text[:300]}"
                )
            else:
                call_id = call.id or f"__tc_{call.number}"  # the provider sent none
                tool_calls.append({"id": call_id, "name": call.name, "arguments": arguments})
        return {
            "id": self.response_id,
            "model": self.model,
            "text": "".join(self.text),
            "reasoning_text": "".join(self.reasoning) or None,
            "tool_calls": tool_calls,
            "finish_reason": self.finish_reason,
            "usage": self.usage,
            "errors": [{"message": message} for message in self.errors],
        }


def read_response(status: int, reads: Iterable[bytes]) -> dict[str, Any]:
    """What a caller gets from one HTTP response: ``reads`` are the body's network reads.

    ``reads`` may raise ``ConnectionError`` (the connection broke mid-body): what was read
    until then is kept, and the break is one more error of the response.
    """
    if not 200 <= status < 300:  # an error status: the body is an error message, not a stream
        received: list[bytes] = []
        try:
            received.extend(reads)
        except ConnectionError as exc:  # the error body itself was cut: say so too
            received.append(f" ({exc})".encode())
        body = b"".join(received).decode("utf-8", "replace")
        return {"errors": [{"message": f"HTTP {status}: {body[:300] or '(empty body)'}"}]}
    parser, stream = EventStreamParser(), ChatCompletionStream()
    broken: ConnectionError | None = None
    try:
        for chunk in reads:
            for kind, data in parser.feed(chunk):
                stream.on_event(kind, data)
    except ConnectionError as exc:
        broken = exc
    response = stream.finish(truncated=parser.close())
    if broken is not None:
        response["errors"].append({"message": str(broken)})
    return response


# -- 3. The tool loop --------------------------------------------------------------------


class CannedTools:
    """The tools of a ``tool_loop`` case: each call gets the canned result of its name and
    arguments (several results of the same call answer such calls in turn); a call the case
    has no result for gets an error text."""

    def __init__(self, results: list[dict[str, Any]]) -> None:
        self.results = results
        self.used: set[int] = set()

    def run(self, name: str, arguments: Any) -> str:
        matching = [
            n
            for n, r in enumerate(self.results)
            if r["name"] == name and r.get("arguments") == arguments
        ]
        unused = [n for n in matching if n not in self.used]
        if not matching:
            return f"Error: no result for {name}({json.dumps(arguments)})"
        chosen = unused[0] if unused else matching[-1]
        self.used.add(chosen)
        return self.results[chosen]["content"]


def assistant_message(response: dict[str, Any]) -> dict[str, Any]:
    """The assistant message that asked for the calls, as Chat Completions wants it back."""
    message: dict[str, Any] = {
        "role": "assistant",
        "content": response["text"],
        "tool_calls": [
            {
                "id": call["id"],
                "type": "function",
                "function": {"name": call["name"], "arguments": json.dumps(call["arguments"])},
            }
            for call in response["tool_calls"]
        ],
    }
    if response.get("reasoning_text"):  # DeepSeek's thinking mode wants it back in the turn
        message["reasoning_content"] = response["reasoning_text"]
    return message


def tool_messages(response: dict[str, Any], tools: CannedTools) -> list[dict[str, Any]]:
    """One ``tool`` message per call, answering its id, in the order of the calls."""
    return [
        {
            "role": "tool",
            "tool_call_id": call["id"],
            "content": tools.run(call["name"], call["arguments"]),
        }
        for call in response["tool_calls"]
    ]


def run_tool_loop(request: dict[str, Any], loop: dict[str, Any]) -> dict[str, Any]:
    """Run a tool loop from the first ``request`` (its body: model, messages, tools,
    options); the response of the last request: the model's answer."""
    tools = CannedTools(loop["results"])
    body = dict(request["body"])
    response: dict[str, Any] = {}
    for _ in range(loop["max_rounds"]):
        status, _headers, reads = fetch({**request, "body": body})
        response = read_response(status, reads)
        if not response.get("tool_calls") or response.get("errors"):
            break  # the answer, or something went wrong: the caller gets it as it is
        body["messages"] = [
            *body["messages"],
            assistant_message(response),
            *tool_messages(response, tools),
        ]
    return response


# -- 4. The conformance protocol ---------------------------------------------------------


TIMEOUT = 30.0  # seconds: to connect, and for each read of the response


def fetch(request: dict[str, Any]) -> tuple[int, dict[str, str], Iterator[bytes]]:
    """Send one HTTP request; its response's status, headers and body reads.

    ``request`` is the ``request`` of an ``http`` case: ``method``, ``url``, ``headers`` and
    ``body`` (JSON, or ``None`` for no body). The body is not read here: ``reads`` yields
    each network read as it arrives (``read1``: at most one read of the socket, and never
    past the end of a chunk of the chunked encoding), so the parser sees the stream cut
    as the network cut it. If the connection breaks before the body ends (closed early, a
    chunk cut short, a read timed out), ``reads`` raises ``ConnectionError``.
    """
    url = urlsplit(request["url"])
    target = url.path + (f"?{url.query}" if url.query else "")
    body = request.get("body")
    payload = None if body is None else json.dumps(body, ensure_ascii=False).encode("utf-8")
    connection_class = (
        http.client.HTTPSConnection if url.scheme == "https" else http.client.HTTPConnection
    )
    connection = connection_class(url.hostname or "127.0.0.1", url.port, timeout=TIMEOUT)
    try:
        connection.request(
            request.get("method", "POST"), target, body=payload, headers=request.get("headers", {})
        )
        response = connection.getresponse()
    except BaseException:
        connection.close()
        raise
    # Names lower-case, a repeated header's values joined by ", " (as a case's "headers").
    headers: dict[str, str] = {}
    for name, value in response.getheaders():
        key = name.lower()
        headers[key] = f"{headers[key]}, {value}" if key in headers else value

    def reads() -> Iterator[bytes]:
        try:
            while chunk := response.read1(65536):  # b"": the body ended properly
                yield chunk
        except (OSError, http.client.HTTPException) as exc:  # IncompleteRead, reset, timeout
            raise ConnectionError(
                f"connection closed mid-stream: {type(exc).__name__}: {exc}"
            ) from exc
        finally:
            connection.close()

    return response.status, headers, reads()


def answer(case: dict[str, Any]) -> dict[str, Any] | None:
    """The result message for one case message (``None``: nothing to send)."""
    try:
        if case.get("tool_loop"):  # a whole run of the tool loop, from the first request
            response = run_tool_loop(case["request"], case["tool_loop"])
            return {"type": "result", "id": case["id"], "response": response}
        if case.get("transport") == "http":  # make the request; the network cuts the reads
            status, _headers, reads = fetch(case["request"])
        else:  # the recorded body, cut by raf: one read at a time
            status = case["status"]
            reads = (base64.b64decode(chunk) for chunk in case["chunks"])
        response = read_response(status, reads)
    except Exception as exc:  # a bug here: say so instead of dying
        traceback.print_exc()
        return {"type": "result", "id": case["id"], "raised": f"{type(exc).__name__}: {exc}"}
    return {"type": "result", "id": case["id"], "response": response}


def send(message: dict[str, Any]) -> None:
    line = json.dumps(message, ensure_ascii=False).encode("utf-8")
    sys.stdout.buffer.write(line + b"\n")
    sys.stdout.buffer.flush()


def main(answer: Any = answer) -> None:
    for line in sys.stdin.buffer:  # one JSON message per line
        message = json.loads(line)
        if message.get("type") == "hello":
            send(HELLO)
        elif message.get("type") == "case":
            reply = answer(message)
            if reply is not None:
                send(reply)
        elif message.get("type") == "bye":
            return


if __name__ == "__main__":
    main()
