"""An independent reading of the agent's recordings, for the tests that check their data: each
response body parsed here by hand (SSE, JSON lines, per format), not by raf's pipeline, and
each recorded request read for the tool results it sends back and what it echoes of the turn
before. What the tests compare raf's data with."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

Usage3 = dict[str, int]


@dataclass
class Call:
    id: str | None
    name: str
    arguments: Any
    signature: str | None = None


@dataclass
class Turn:
    """One response: its text, reasoning (with what must be echoed), calls, finish, usage."""

    text: str = ""
    reasoning: str = ""
    signatures: list[str] = field(default_factory=list)
    redacted: list[str] = field(default_factory=list)
    encrypted: list[str] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    provider_finish: str | None = None
    usage: Usage3 = field(default_factory=dict)

    @property
    def finish_reason(self) -> str:
        return "tool_calls" if self.calls else "stop"


@dataclass
class Answer:
    """A tool result a recorded request sends back."""

    call_id: str | None
    name: str | None
    content: str
    is_error: bool


def _usage(prompt: int, completion: int, total: int | None = None) -> Usage3:
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion if total is None else total,
    }


def _sse(body: str) -> list[tuple[str | None, Any]]:
    out: list[tuple[str | None, Any]] = []
    for block in body.replace("\r\n", "\n").split("\n\n"):
        name, data = None, []
        for line in block.split("\n"):
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].strip())
        if data and data != ["[DONE]"]:
            out.append((name, json.loads("\n".join(data))))
    return out


def read_turn(dialect: str, body: bytes) -> Turn:
    """The turn of one recorded response body (bytes: Bedrock's are binary)."""
    reader: Any = _READERS[dialect]
    return reader(body if dialect == "bedrock_converse" else body.decode())  # type: ignore[no-any-return]


def _openai_chat(body: str) -> Turn:
    turn = Turn()
    by_index: dict[int, dict[str, Any]] = {}
    for _, chunk in _sse(body):
        if chunk.get("usage"):
            u = chunk["usage"]
            turn.usage = _usage(u["prompt_tokens"], u["completion_tokens"], u["total_tokens"])
        for choice in chunk.get("choices") or ():
            delta = choice.get("delta") or {}
            turn.text += delta.get("content") or ""
            turn.reasoning += delta.get("reasoning_content") or ""
            for call in delta.get("tool_calls") or ():
                slot = by_index.setdefault(call["index"], {"id": None, "name": "", "args": ""})
                slot["id"] = call.get("id") or slot["id"]
                function = call.get("function") or {}
                slot["name"] = function.get("name") or slot["name"]
                slot["args"] += function.get("arguments") or ""
            turn.provider_finish = choice.get("finish_reason") or turn.provider_finish
    turn.calls = [
        Call(s["id"], s["name"], json.loads(s["args"])) for _, s in sorted(by_index.items())
    ]
    return turn


def _anthropic(body: str) -> Turn:
    turn = Turn()
    blocks: dict[int, dict[str, Any]] = {}
    prompt = output = 0
    for _, event in _sse(body):
        kind = event["type"]
        if kind == "message_start":
            u = event["message"]["usage"]
            prompt = (
                u["input_tokens"]
                + (u.get("cache_creation_input_tokens") or 0)
                + (u.get("cache_read_input_tokens") or 0)
            )
            output = u.get("output_tokens", 0)
        elif kind == "content_block_start":
            blocks[event["index"]] = {**event["content_block"], "json": ""}
            if event["content_block"]["type"] == "redacted_thinking":
                turn.redacted.append(event["content_block"]["data"])
        elif kind == "content_block_delta":
            block, delta = blocks[event["index"]], event["delta"]
            if delta["type"] == "text_delta":
                turn.text += delta["text"]
            elif delta["type"] == "thinking_delta":
                turn.reasoning += delta["thinking"]
            elif delta["type"] == "signature_delta":
                turn.signatures.append(delta["signature"])
            elif delta["type"] == "input_json_delta":
                block["json"] += delta["partial_json"]
        elif kind == "message_delta":
            turn.provider_finish = event["delta"].get("stop_reason")
            output = event.get("usage", {}).get("output_tokens", output)
    for _, block in sorted(blocks.items()):
        if block["type"] == "tool_use":
            arguments = json.loads(block["json"]) if block["json"] else block["input"]
            turn.calls.append(Call(block["id"], block["name"], arguments))
    turn.usage = _usage(prompt, output)
    return turn


def _gemini(body: str) -> Turn:
    turn = Turn()
    for _, chunk in _sse(body):
        for candidate in chunk.get("candidates") or ():
            for part in (candidate.get("content") or {}).get("parts") or ():
                if "thoughtSignature" in part:
                    turn.signatures.append(part["thoughtSignature"])
                if "functionCall" in part:
                    call = part["functionCall"]
                    turn.calls.append(
                        Call(
                            call.get("id"),
                            call["name"],
                            call.get("args", {}),
                            part.get("thoughtSignature"),
                        )
                    )
                elif part.get("thought"):
                    turn.reasoning += part.get("text", "")
                elif "text" in part:
                    turn.text += part["text"]
            turn.provider_finish = candidate.get("finishReason") or turn.provider_finish
        if "usageMetadata" in chunk:
            u = chunk["usageMetadata"]
            prompt, total = u.get("promptTokenCount", 0), u.get("totalTokenCount", 0)
            turn.usage = _usage(prompt, total - prompt, total)
    return turn


def _responses(body: str) -> Turn:
    turn = Turn()
    for _, event in _sse(body):
        if event["type"] == "response.output_item.done":
            item = event["item"]
            if item["type"] == "reasoning":
                turn.reasoning += "".join(s["text"] for s in item.get("summary", ()))
                turn.encrypted.append(item["encrypted_content"])
            elif item["type"] == "function_call":
                turn.calls.append(
                    Call(item["call_id"], item["name"], json.loads(item["arguments"]))
                )
            elif item["type"] == "message":
                turn.text += "".join(c.get("text", "") for c in item["content"])
        elif event["type"] == "response.completed":
            u = event["response"]["usage"]
            turn.usage = _usage(u["input_tokens"], u["output_tokens"], u["total_tokens"])
            turn.provider_finish = event["response"]["status"]
    return turn


def _ollama(body: str) -> Turn:
    turn = Turn()
    for line in body.splitlines():
        if not line.strip():
            continue
        chunk = json.loads(line)
        message = chunk.get("message") or {}
        turn.text += message.get("content") or ""
        turn.reasoning += message.get("thinking") or ""
        for call in message.get("tool_calls") or ():
            function = call["function"]
            turn.calls.append(Call(call.get("id"), function["name"], function["arguments"]))
        if chunk.get("done"):
            turn.provider_finish = chunk.get("done_reason")
            turn.usage = _usage(chunk.get("prompt_eval_count", 0), chunk.get("eval_count", 0))
    return turn


def _cohere(body: str) -> Turn:
    """Cohere v2: the tool plan is the reasoning; calls by index (ids on tool-call-start);
    usage from ``tokens`` (``billed_units`` is the smaller billed count)."""
    turn = Turn()
    by_index: dict[int, dict[str, Any]] = {}
    for _, event in _sse(body):
        kind = event.get("type")
        message = (event.get("delta") or {}).get("message") or {}
        if kind == "tool-plan-delta":
            turn.reasoning += message["tool_plan"]
        elif kind == "content-delta":
            content = message["content"]
            turn.text += content.get("text", "")
            turn.reasoning += content.get("thinking", "")
        elif kind == "tool-call-start":
            call = message["tool_calls"]
            function = call["function"]
            by_index[event["index"]] = {
                "id": call["id"],
                "name": function["name"],
                "args": function.get("arguments") or "",
            }
        elif kind == "tool-call-delta":
            by_index[event["index"]]["args"] += message["tool_calls"]["function"]["arguments"]
        elif kind == "message-end":
            turn.provider_finish = event["delta"]["finish_reason"]
            tokens = event["delta"]["usage"]["tokens"]
            turn.usage = _usage(tokens["input_tokens"], tokens["output_tokens"])
    turn.calls = [
        Call(s["id"], s["name"], json.loads(s["args"]) if s["args"] else {})
        for _, s in sorted(by_index.items())
    ]
    return turn


def _interactions(body: str) -> Turn:
    """Google's Interactions API (steps): thought summaries are the reasoning, their
    ``thought_signature`` deltas the signatures; a function_call step's arguments are its
    ``arguments_delta`` text (the start's ``{}`` is a placeholder); usage from
    ``interaction.completed`` (completion: output and thought tokens)."""
    turn = Turn()
    steps: dict[int, dict[str, Any]] = {}
    for _, event in _sse(body):
        kind = event.get("event_type")
        if kind == "step.start":
            steps[event["index"]] = {**event["step"], "json": ""}
        elif kind == "step.delta":
            step, delta = steps[event["index"]], event["delta"]
            if delta["type"] == "thought_summary":
                turn.reasoning += delta["content"].get("text", "")
            elif delta["type"] == "thought_signature":
                turn.signatures.append(delta["signature"])
            elif delta["type"] == "text":
                turn.text += delta["text"]
            elif delta["type"] == "arguments_delta":
                step["json"] += delta["arguments"]
        elif kind == "interaction.completed":
            interaction = event["interaction"]
            turn.provider_finish = interaction["status"]
            u = interaction["usage"]
            turn.usage = _usage(
                u.get("total_input_tokens", 0) + u.get("total_tool_use_tokens", 0),
                u.get("total_output_tokens", 0) + u.get("total_thought_tokens", 0),
                u["total_tokens"],
            )
    for _, step in sorted(steps.items()):
        if step["type"] == "function_call":
            arguments = json.loads(step["json"]) if step["json"] else step["arguments"]
            turn.calls.append(Call(step["id"], step["name"], arguments))
    return turn


def _eventstream(body: bytes) -> list[tuple[str | None, Any]]:
    """The events of an AWS event stream (``application/vnd.amazon.eventstream``): each
    message is a 12-byte prelude (total length, headers length, CRC), string headers
    (name length, name, type 7, value length, value), the JSON payload and a CRC."""
    out: list[tuple[str | None, Any]] = []
    at = 0
    while at + 12 <= len(body):
        total = int.from_bytes(body[at : at + 4], "big")
        header_length = int.from_bytes(body[at + 4 : at + 8], "big")
        headers: dict[str, str] = {}
        h, end = at + 12, at + 12 + header_length
        while h < end:
            size = body[h]
            name = body[h + 1 : h + 1 + size].decode()
            h += 1 + size
            assert body[h] == 7, "only string headers in these recordings"
            length = int.from_bytes(body[h + 1 : h + 3], "big")
            headers[name] = body[h + 3 : h + 3 + length].decode()
            h += 3 + length
        payload = body[end : at + total - 4]
        out.append((headers.get(":event-type"), json.loads(payload) if payload else None))
        at += total
    return out


def _bedrock(body: bytes | str) -> Turn:
    """Bedrock ConverseStream: reasoning and its signature as flat ``reasoningContent``
    deltas, calls opened by ``contentBlockStart`` (``toolUse``) with ``toolUse.input`` text
    deltas; usage from ``metadata`` (the prompt is input plus cache read and write)."""
    assert isinstance(body, bytes)
    turn = Turn()
    calls: dict[int, dict[str, Any]] = {}
    for name, event in _eventstream(body):
        if name == "contentBlockStart":
            use = event["start"].get("toolUse")
            if use is not None:
                calls[event["contentBlockIndex"]] = {**use, "json": ""}
        elif name == "contentBlockDelta":
            delta = event["delta"]
            if "text" in delta:
                turn.text += delta["text"]
            elif "reasoningContent" in delta:
                reasoning = delta["reasoningContent"]
                turn.reasoning += reasoning.get("text", "")
                if "signature" in reasoning:
                    turn.signatures.append(reasoning["signature"])
            elif "toolUse" in delta:
                calls[event["contentBlockIndex"]]["json"] += delta["toolUse"]["input"]
        elif name == "messageStop":
            turn.provider_finish = event["stopReason"]
        elif name == "metadata":
            u = event["usage"]
            prompt = (
                u["inputTokens"]
                + u.get("cacheReadInputTokens", 0)
                + u.get("cacheWriteInputTokens", 0)
            )
            turn.usage = _usage(prompt, u["outputTokens"])
    turn.calls = [
        Call(c["toolUseId"], c["name"], json.loads(c["json"]) if c["json"] else {})
        for _, c in sorted(calls.items())
    ]
    return turn


_READERS = {
    "openai_chat": _openai_chat,
    "anthropic_messages": _anthropic,
    "gemini": _gemini,
    "openai_responses": _responses,
    "ollama_chat": _ollama,
    "cohere_v2": _cohere,
    "gemini_interactions": _interactions,
    "bedrock_converse": _bedrock,
}


def name_calls(turns: list[Turn]) -> None:
    """Give the calls without a provider id raf's name for them: ``__tc_<n>``, ``n`` counting
    the calls of the run from 0 (docs/converter.md, "Stable call ids")."""
    ordinal = 0
    for turn in turns:
        for call in turn.calls:
            if call.id is None:
                call.id = f"__tc_{ordinal}"
            ordinal += 1


# -- the requests ------------------------------------------------------------------------------


def conversation(dialect: str, body: dict[str, Any]) -> list[Any]:
    """The conversation items of a request body."""
    key = {"gemini": "contents", "openai_responses": "input", "gemini_interactions": "input"}.get(
        dialect, "messages"
    )
    items = body[key]
    if dialect == "gemini_interactions" and isinstance(items, str):
        return [{"type": "user_input", "content": [{"type": "text", "text": items}]}]
    assert isinstance(items, list)
    return items


def answers(dialect: str, items: list[Any]) -> list[Answer]:
    """The tool results at the end of a conversation (after its last assistant turn)."""
    out: list[Answer] = []
    if dialect in ("openai_chat", "ollama_chat", "cohere_v2"):
        for message in reversed(items):
            if message["role"] != "tool":
                break
            out.insert(
                0,
                Answer(
                    message.get("tool_call_id"),
                    message.get("tool_name"),
                    message["content"],
                    False,
                ),
            )
    elif dialect == "anthropic_messages":
        out.extend(
            Answer(block["tool_use_id"], None, block["content"], bool(block.get("is_error")))
            for block in items[-1]["content"]
        )
    elif dialect == "gemini":
        for part in items[-1]["parts"]:
            answer = part["functionResponse"]
            response = answer["response"]
            is_error = "error" in response
            out.append(
                Answer(
                    answer.get("id"),
                    answer["name"],
                    response["error" if is_error else "result"],
                    is_error,
                )
            )
    elif dialect == "openai_responses":
        for item in reversed(items):
            if item.get("type") != "function_call_output":
                break
            out.insert(0, Answer(item["call_id"], None, item["output"], False))
    elif dialect == "bedrock_converse":
        for block in items[-1]["content"]:
            result = block["toolResult"]
            (item,) = result["content"]
            content = item["text"] if "text" in item else json.dumps(item["json"])
            out.append(Answer(result["toolUseId"], None, content, result["status"] == "error"))
    elif dialect == "gemini_interactions":
        for step in reversed(items):
            if step.get("type") != "function_result":
                break
            out.insert(
                0,
                Answer(step["call_id"], step["name"], step["result"], bool(step.get("is_error"))),
            )
    return out


def echoed(dialect: str, items: list[Any], answered: int) -> dict[str, Any]:
    """What the request echoes of the assistant turn before its ``answered`` tool results:
    its reasoning text, signatures or encrypted items, and its calls (id, name, arguments)."""
    if dialect == "openai_responses":
        turn = items[: len(items) - answered]
        calls: list[Any] = []
        reasoning: list[Any] = []
        for item in reversed(turn):
            if item.get("type") == "function_call":
                calls.insert(0, item)
            elif item.get("type") == "reasoning":
                reasoning.insert(0, item)
            else:
                break
        return {
            "reasoning": "".join(s["text"] for r in reasoning for s in r["summary"]),
            "encrypted": [r["encrypted_content"] for r in reasoning],
            "calls": [(c["call_id"], c["name"], json.loads(c["arguments"])) for c in calls],
        }
    if dialect == "gemini_interactions":
        turn = []
        for step in reversed(items[: len(items) - answered]):
            if step.get("type") not in ("thought", "function_call", "model_output"):
                break
            turn.insert(0, step)
        thoughts = [s for s in turn if s["type"] == "thought"]
        return {
            "reasoning": "".join(t["text"] for s in thoughts for t in s.get("summary", ())),
            "signatures": [s["signature"] for s in thoughts if "signature" in s],
            "calls": [
                (s["id"], s["name"], s["arguments"]) for s in turn if s["type"] == "function_call"
            ],
        }
    if dialect in ("openai_chat", "ollama_chat", "cohere_v2"):
        message = items[len(items) - answered - 1]
        assert message["role"] == "assistant"
        calls = []
        for call in message["tool_calls"]:
            arguments = call["function"]["arguments"]
            if isinstance(arguments, str):
                arguments = json.loads(arguments)
            calls.append((call.get("id"), call["function"]["name"], arguments))
        return {
            "reasoning": message.get("reasoning_content")
            or message.get("thinking")
            or message.get("tool_plan")
            or "",
            "calls": calls,
        }
    message = items[-2]
    if dialect == "bedrock_converse":
        content = message["content"]
        thinking = [b["reasoningContent"] for b in content if "reasoningContent" in b]
        return {
            "reasoning": "".join(
                r["reasoningText"]["text"] for r in thinking if "reasoningText" in r
            ),
            "signatures": [
                r["reasoningText"]["signature"]
                for r in thinking
                if "signature" in r.get("reasoningText", {})
            ],
            "redacted": [r["redactedContent"] for r in thinking if "redactedContent" in r],
            "calls": [
                (b["toolUse"]["toolUseId"], b["toolUse"]["name"], b["toolUse"]["input"])
                for b in content
                if "toolUse" in b
            ],
        }
    if dialect == "anthropic_messages":
        content = message["content"]
        return {
            "reasoning": "".join(b["thinking"] for b in content if b["type"] == "thinking"),
            "signatures": [b["signature"] for b in content if b["type"] == "thinking"],
            "redacted": [b["data"] for b in content if b["type"] == "redacted_thinking"],
            "calls": [(b["id"], b["name"], b["input"]) for b in content if b["type"] == "tool_use"],
        }
    parts = message["parts"]
    return {
        "reasoning": "".join(p["text"] for p in parts if p.get("thought")),
        "signatures": [p["thoughtSignature"] for p in parts if "thoughtSignature" in p],
        "calls": [
            (p["functionCall"].get("id"), p["functionCall"]["name"], p["functionCall"]["args"])
            for p in parts
            if "functionCall" in p
        ],
    }


def recorded_tools(dialect: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool definitions of a request body: name, description, parameter schema."""
    out: list[dict[str, Any]] = []
    if dialect == "bedrock_converse":
        specs = [t["toolSpec"] for t in body.get("toolConfig", {}).get("tools", ())]
        return [
            {
                "name": spec["name"],
                "description": spec.get("description", ""),
                "parameters": spec["inputSchema"]["json"],
            }
            for spec in specs
        ]
    for entry in body.get("tools", ()):
        if dialect == "gemini":
            out.extend(
                {
                    "name": d["name"],
                    "description": d.get("description", ""),
                    "parameters": d["parametersJsonSchema"],
                }
                for d in entry["functionDeclarations"]
            )
            continue
        if dialect == "anthropic_messages":
            schema = entry["input_schema"]
        elif dialect in ("openai_responses", "gemini_interactions"):
            schema = entry["parameters"]
        else:
            entry = entry["function"]  # noqa: PLW2901 - the definition inside
            schema = entry["parameters"]
        out.append(
            {
                "name": entry["name"],
                "description": entry.get("description", ""),
                "parameters": schema,
            }
        )
    return out


def first_user_text(dialect: str, body: dict[str, Any]) -> str:
    """The text of the first message of a request (the user's question)."""
    first = conversation(dialect, body)[0]
    if dialect == "gemini":
        return "".join(p.get("text", "") for p in first["parts"])
    content = first["content"]  # an Interactions user_input step's content is a list of texts
    return content if isinstance(content, str) else "".join(p["text"] for p in content)


def system_texts(dialect: str, body: dict[str, Any]) -> list[str]:
    """The system instructions of a request kept apart from its conversation (Bedrock's
    ``system`` blocks, one text per request); the other recordings have none."""
    if dialect == "bedrock_converse" and body.get("system"):
        return ["".join(b["text"] for b in body["system"])]
    return []
