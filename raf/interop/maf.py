"""Microsoft Agent Framework (``agent-framework-core``): raf's results as ``ChatResponseUpdate`` s,
raf's response as a ``ChatResponse``, and back. No IO, no third-party import.

Each item is what ``ChatResponseUpdate.to_dict()`` writes (and ``ChatResponseUpdate.from_dict``
reads): ``{"type": "chat_response_update", "contents": [...], "role": ..., "message_id": ...,
"response_id": ..., "model": ..., "finish_reason": ...}``, whose contents are Agent Framework's
one ``Content`` class in its dictionary form (``text``, ``text_reasoning``, ``function_call``,
``function_result``, ``function_approval_request``, ``usage``, ``error``). The framework's own
fold, ``ChatResponse.from_updates``, turns them into the ``ChatResponse`` that
:func:`aggregate` writes for raf's response (the tests check both).

The choices:

* a tool call streams as ``function_call`` fragments that all carry the call's ``call_id`` (the
  framework joins fragments by ``call_id``, so interleaved parallel calls stay apart): the
  start with the name and ``arguments: ""``, then each raw fragment of the arguments, and when
  raf has the complete call, a last fragment with ``status: "completed"`` (with the whole
  arguments and ``merge_mode: "replace"`` when the fragments alone do not parse to them);
* a tool result (an agent run's ``ToolCalled``) is a ``function_result`` in a ``tool`` message;
  a failed one carries the framework's ``exception`` marker and the error text as its result;
* usage is given once per model round, as the framework sums it (``usage_details`` with the
  framework's names; raf's cache-miss count under ``cache_miss_input_token_count``): the round's
  usage on an update that ends the round, the last round's when the run ends;
* a round of raf's tool loop is a message of its own ``message_id``, and ends with an update
  whose ``finish_reason`` is the round's and whose ``additional_properties`` say
  ``{"raf": {"round": n}}`` (without the mark, the decoder reads a round's end from the
  framework's fields: a message's finish followed by tool results, an approval request or a
  message of another ``message_id``);
* a reasoning signature is a ``text_reasoning`` content's ``protected_data``;
* what the framework has no content for (a Gemini part signature, Anthropic redacted thinking,
  Responses reasoning and call item ids, an item raf keeps whole, the id an error is about, an
  approval request's description) rides in ``additional_properties["raf"]``, the namespaced
  place the framework keeps for data of its own (it is not shown and not sent; :func:`native`
  is an item without it, what a consumer of the framework alone reads);
* a tool the provider ran itself is the framework's content for it where there is one
  (:data:`HOSTED_TYPES`: ``search_tool_call`` and ``search_tool_result``,
  ``code_interpreter_tool_call`` and ``code_interpreter_tool_result``), else a
  ``function_call`` with ``hosted: true`` and ``informational_only: true`` and a
  ``function_result`` in the assistant's message; raf's reading of it (name, arguments, output,
  error, the provider's item) rides along in ``additional_properties["raf"]``.

The decoder reads any such stream, the framework's own included (calls without ``status`` end
when the stream does; a fragment without ``call_id`` continues the call of the same ``id``,
else the last call), and
:func:`from_chat_response` reads a whole ``ChatResponse`` or ``AgentResponse`` (the object or
its ``to_dict()``). :func:`objects` builds the framework's own ``ChatResponseUpdate`` s (it
imports ``agent_framework``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Final

from raf.collect import collect_agent_response
from raf.interop.base import JSON, Model, Row
from raf.model import blocks, contents, events
from raf.model.codes import ErrorCode
from raf.model.messages import MessageRole
from raf.model.response import AgentResponse, AgentResponseResult
from raf.model.usage import Usage

__all__ = [
    "HOSTED_TYPES",
    "MODEL",
    "USAGE_FIELDS",
    "Decoder",
    "Encoder",
    "aggregate",
    "from_chat_response",
    "native",
    "objects",
    "updates_of",
]

UPDATE: Final = "chat_response_update"
"""The ``type`` of a ``ChatResponseUpdate`` in its dictionary form."""

RAF: Final = "raf"
"""The namespace of ``additional_properties`` where raf keeps what the framework has no field
for."""

COMPLETED: Final = "completed"
"""The ``status`` of the ``function_call`` fragment that completes a call."""

EXCEPTION: Final = "FunctionInvocationError"
"""What ``to_dict()`` writes for a ``function_result`` whose call failed."""

USAGE_FIELDS: Final[tuple[tuple[str, str], ...]] = (
    ("prompt_tokens", "input_token_count"),
    ("completion_tokens", "output_token_count"),
    ("total_tokens", "total_token_count"),
    ("prompt_cache_hit_tokens", "cache_read_input_token_count"),
    ("prompt_cache_miss_tokens", "cache_miss_input_token_count"),
    ("reasoning_tokens", "reasoning_output_token_count"),
)
"""raf's usage field and the ``UsageDetails`` key that carries it (the framework's names; its
``UsageDetails`` is open, and a cache miss, which it has no name for, gets one in its style)."""


def _props(**values: JSON) -> dict[str, JSON]:
    """``additional_properties``: raf's namespace with ``values`` that are set, else empty."""
    kept = {key: value for key, value in values.items() if value is not None}
    return {RAF: kept} if kept else {}


def _usage_details(usage: Usage) -> dict[str, int]:
    details: dict[str, int] = {}
    for ours, theirs in USAGE_FIELDS:
        value = getattr(usage, ours)
        if value is not None:
            details[theirs] = value
    return details


def _usage_content(usage: Usage) -> dict[str, JSON]:
    return {"type": "usage", "usage_details": _usage_details(usage), "additional_properties": {}}


def _is_empty(usage: Usage) -> bool:
    return not (usage.prompt_tokens or usage.completion_tokens or usage.total_tokens)


def _dumps(value: JSON) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _call_arguments(value: JSON) -> JSON:
    """A call's arguments as the framework takes them: an object as it is, else JSON text."""
    return value if isinstance(value, dict) else _dumps(value)


def _parse(text: str) -> tuple[bool, JSON]:
    """``text`` parsed as JSON (empty text is no arguments: ``{}``)."""
    if not text.strip():
        return True, {}
    try:
        return True, json.loads(text)
    except ValueError:
        return False, text


class Encoder:
    """raf results in, ``ChatResponseUpdate.to_dict()`` items out (:mod:`raf.interop.base`)."""

    def __init__(self) -> None:
        self._args: dict[str, list[str]] = {}
        self._round_usage: Usage | None = None
        self._message = 0
        # the message of the last round's calls: its approval requests go there
        self._asked = "msg_0"
        self._hosted: dict[str, str] = {}  # the tools the provider ran, by call id

    # -- one content ---------------------------------------------------------------------

    def _content(self, content: contents.Content) -> tuple[str, dict[str, JSON]] | None:
        """The framework content of ``content`` and the role of its message, or ``None``."""
        if isinstance(content, contents.Text):
            return "assistant", {"type": "text", "text": content.delta, "additional_properties": {}}
        if isinstance(content, contents.Reasoning):
            return "assistant", {
                "type": "text_reasoning",
                "text": content.delta,
                "additional_properties": {},
            }
        if isinstance(content, contents.ToolCallStart):
            self._args.setdefault(content.call_id, [])
            return "assistant", _call(content.call_id, content.name, "")
        if isinstance(content, contents.ToolCallArgs):
            self._args.setdefault(content.call_id, []).append(content.args_delta)
            return "assistant", _call(content.call_id, None, content.args_delta)
        if isinstance(content, contents.ToolCalling):
            return "assistant", self._completed(content)
        if isinstance(content, contents.ToolCalled):
            failed = content.result is None and content.error is not None
            text = content.error if failed else content.result
            return "tool", _result(content.call_id, text or "", failed=failed)
        if isinstance(content, contents.ToolApprovalRequest):
            call = _call(content.call_id, content.name, _call_arguments(content.arguments))
            return "approval", {
                "type": "function_approval_request",
                "function_call": call,
                "user_input_request": True,
                "id": content.call_id,
                "additional_properties": _props(description=content.description or None),
            }
        if isinstance(content, contents.Error):
            item: dict[str, JSON] = {"type": "error", "message": content.message}
            item["error_code"] = str(content.error_code)
            if content.raw is not None:
                item["error_details"] = content.raw
            item["additional_properties"] = _props(call_id=content.call_id)
            return "assistant", item
        if isinstance(content, contents.HostedToolCall):
            self._hosted[content.call_id] = content.name
            call = _hosted_call(content.call_id, content.name, content.arguments, content.item)
            if call["type"] == "function_call":
                call["merge_mode"] = "replace"
            return "assistant", call
        if isinstance(content, contents.HostedToolResult):
            called = self._hosted.get(content.call_id, content.name)
            return "assistant", _hosted_result(
                content.call_id,
                called,
                name=content.name,
                output=content.output,
                error=content.error,
                item=content.item,
            )
        return None  # the arguments' progress (derived from the fragments), a link

    def _completed(self, content: contents.ToolCalling) -> dict[str, JSON]:
        """The fragment that completes a call: its arguments replaced when the fragments alone
        do not parse to raf's."""
        call = _call(content.call_id, content.name, "")
        call["status"] = COMPLETED
        ok, parsed = _parse("".join(self._args.pop(content.call_id, [])))
        if not ok or parsed != content.arguments or type(parsed) is not type(content.arguments):
            call["arguments"] = _dumps(content.arguments)
            call["merge_mode"] = "replace"
        return call

    # -- the machine ---------------------------------------------------------------------

    def _update(
        self, role: str | None, items: list[dict[str, JSON]], **fields: JSON
    ) -> dict[str, JSON]:
        update: dict[str, JSON] = {"type": UPDATE, "contents": items}
        if role is not None:
            update["role"] = role
        for key in ("response_id", "message_id", "model", "finish_reason"):
            value = fields.get(key)
            if value:
                update[key] = value
        props = fields.get("additional_properties")
        if props:
            update["additional_properties"] = props
        return update

    def feed(self, result: AgentResponseResult) -> list[JSON]:
        out: list[dict[str, JSON]] = []
        role: str | None = None
        pending: list[dict[str, JSON]] = []

        def flush() -> None:
            nonlocal pending, role
            if pending:
                message = f"msg_{self._message}" if role == "assistant" else None
                if role == "approval":
                    role, message = "assistant", self._asked
                elif role == "assistant":
                    self._asked = str(message)
                out.append(self._update(role, pending, message_id=message))
            pending, role = [], None

        for content in result.contents:
            if isinstance(content, contents.Usage):
                if self._round_usage is None or not _is_empty(content.usage):
                    self._round_usage = content.usage
                continue
            if isinstance(content, contents.RoundFinished):
                flush()
                usage = content.usage if content.usage is not None else self._round_usage
                out.append(
                    self._update(
                        "assistant",
                        [] if usage is None else [_usage_content(usage)],
                        message_id=f"msg_{self._message}",
                        finish_reason=content.finish_reason,
                        additional_properties={RAF: {"round": content.round}},
                    )
                )
                self._round_usage = None
                self._asked = f"msg_{self._message}"
                self._message += 1
                continue
            mapped = self._content(content)
            if mapped is None:
                continue
            if mapped[0] != role:
                flush()
                role = mapped[0]
            pending.append(mapped[1])
        kept: list[JSON] = []
        for event in result.events:
            if not isinstance(event, events.Custom):
                continue
            payload = event.payload
            if event.event_type == "reasoning_signature" and isinstance(payload, dict):
                if role != "assistant":
                    flush()
                    role = "assistant"
                pending.append(
                    {
                        "type": "text_reasoning",
                        "protected_data": str(payload.get("signature") or ""),
                        "additional_properties": {},
                    }
                )
            else:
                kept.append({"event_type": event.event_type, "payload": payload})
                if (
                    event.event_type == "part_signature"
                    and isinstance(payload, dict)
                    and payload.get("part") == "empty"
                ):  # a part with nothing but a signature: an empty text the framework sees
                    if role != "assistant":
                        flush()
                        role = "assistant"
                    pending.append(
                        {
                            "type": "text",
                            "text": "",
                            "additional_properties": {RAF: {"part_signature": True}},
                        }
                    )
        flush()
        head = {"response_id": result.id, "model": result.model}
        if result.finish_reason:
            head["finish_reason"] = result.finish_reason
        if any(head.values()):
            first = out[0] if out else None
            if first is None or (result.finish_reason and _is_round(first)):
                out.insert(0, self._update("assistant", [], **head))
            else:
                first.update({k: v for k, v in head.items() if v})
        if kept:
            if not out or _is_round(out[-1]):
                out.append(self._update("assistant", []))
            props = out[-1].setdefault("additional_properties", {})
            props.setdefault(RAF, {})["events"] = kept
        return list(out)

    def close(self) -> list[JSON]:
        usage, self._round_usage = self._round_usage, None
        if usage is None:
            return []
        return [self._update("assistant", [_usage_content(usage)])]


def _is_round(update: Mapping[str, JSON]) -> bool:
    props = update.get("additional_properties")
    return isinstance(props, dict) and "round" in (props.get(RAF) or {})


def _call(
    call_id: str, name: str | None, arguments: JSON, *, hosted: bool = False
) -> dict[str, JSON]:
    call: dict[str, JSON] = {"type": "function_call", "call_id": call_id}
    if name is not None:
        call["name"] = name
    if arguments is not None:
        call["arguments"] = arguments
    if hosted:
        call["informational_only"] = True
    call["hosted"] = hosted
    call["additional_properties"] = {}
    return call


def _result(call_id: str, text: str, *, failed: bool) -> dict[str, JSON]:
    result: dict[str, JSON] = {"type": "function_result", "call_id": call_id}
    if failed:
        result["exception"] = EXCEPTION
    result["result"] = text
    result["items"] = [{"type": "text", "text": text, "additional_properties": {}}]
    result["additional_properties"] = {}
    return result


HOSTED_TYPES: Final[dict[str, tuple[str, str]]] = {
    "web_search": ("search_tool_call", "search_tool_result"),
    "file_search": ("search_tool_call", "search_tool_result"),
    "code_interpreter": ("code_interpreter_tool_call", "code_interpreter_tool_result"),
    "code_execution": ("code_interpreter_tool_call", "code_interpreter_tool_result"),
    "bash_code_execution": ("code_interpreter_tool_call", "code_interpreter_tool_result"),
}
"""The framework's contents for a tool the provider ran, by raf's name of the tool (OpenAI's
and Anthropic's searches, OpenAI's code interpreter, Gemini's and Anthropic's code
execution); any other is a ``function_call`` with ``hosted: true`` and a ``function_result``."""

_GENERIC: Final = ("function_call", "function_result")


def _code(value: JSON) -> str:
    """The code of a code tool's arguments (``code``, else ``command``), else its JSON."""
    if isinstance(value, dict):
        for key in ("code", "command"):
            if isinstance(value.get(key), str):
                return str(value[key])
    return value if isinstance(value, str) else _dumps(value)


def _hosted_call(call_id: str, name: str, arguments: JSON, item: JSON) -> dict[str, JSON]:
    """A tool the provider ran: the framework's content for it (:data:`HOSTED_TYPES`)."""
    kind = HOSTED_TYPES.get(name, _GENERIC)[0]
    if kind == "search_tool_call":
        call: dict[str, JSON] = {"type": kind, "call_id": call_id, "tool_name": name}
        if arguments is not None:
            call["arguments"] = _call_arguments(arguments)
        call["additional_properties"] = _props(item=item)
        return call
    if kind == "code_interpreter_tool_call":
        call = {"type": kind, "call_id": call_id}
        if arguments is not None:
            call["inputs"] = [_text_content(_code(arguments))]
        call["additional_properties"] = _props(name=name, arguments=arguments, item=item)
        return call
    call = _call(call_id, name, None, hosted=True)
    if arguments is not None:
        call["arguments"] = _call_arguments(arguments)
    call["additional_properties"] = _props(item=item)
    return call


def _hosted_result(
    call_id: str, called: str, *, name: str, output: JSON, error: str | None, item: JSON
) -> dict[str, JSON]:
    """What a tool the provider ran returned (``called``: the tool), in the framework's
    content for it; raf's own reading of it in ``additional_properties["raf"]``."""
    kind = HOSTED_TYPES.get(called, _GENERIC)[1]
    text = output if isinstance(output, str) else "" if output is None else _dumps(output)
    ours = {RAF: {"hosted": name, "output": output, "error": error, "item": item}}
    if kind == "search_tool_result":
        result: dict[str, JSON] = {"type": kind, "call_id": call_id, "tool_name": called}
        if output is not None:
            result["result"] = output
    elif kind == "code_interpreter_tool_result":
        result = {"type": kind, "call_id": call_id, "outputs": [_text_content(text)]}
    else:
        result = _result(call_id, text, failed=error is not None)
    result["additional_properties"] = ours
    return result


# -- back ----------------------------------------------------------------------------------


class _Call:
    __slots__ = ("args", "done", "given", "name", "whole")

    def __init__(self, name: str) -> None:
        self.name = name
        self.args: list[str] = []
        self.whole: JSON = None  # arguments given as an object, merged
        self.given = False  # any arguments came (text, even empty, or an object)
        self.done = False


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _ours(value: Mapping[str, Any]) -> dict[str, Any]:
    props = value.get("additional_properties")
    ours = props.get(RAF) if isinstance(props, dict) else None
    return ours if isinstance(ours, dict) else {}


def _usage(details: object) -> Usage | None:
    if not isinstance(details, dict) or not details:
        return None
    values: dict[str, int | None] = {}
    for ours, theirs in USAGE_FIELDS:
        value = details.get(theirs)
        values[ours] = value if isinstance(value, int) and not isinstance(value, bool) else None
    prompt, completion = values["prompt_tokens"] or 0, values["completion_tokens"] or 0
    total = values["total_tokens"]
    return Usage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=prompt + completion if total is None else total,
        prompt_cache_hit_tokens=values["prompt_cache_hit_tokens"],
        prompt_cache_miss_tokens=values["prompt_cache_miss_tokens"],
        reasoning_tokens=values["reasoning_tokens"],
    )


def _sum(usages: Iterable[Usage]) -> Usage | None:
    total = None
    for each in usages:
        total = _add(total, each)
    return total


def _add(first: Usage | None, second: Usage) -> Usage:
    """The framework's sum of two usages (``add_usage_details``)."""
    if first is None:
        return second

    def optional(a: int | None, b: int | None) -> int | None:
        return None if a is None and b is None else (a or 0) + (b or 0)

    return Usage(
        prompt_tokens=first.prompt_tokens + second.prompt_tokens,
        completion_tokens=first.completion_tokens + second.completion_tokens,
        total_tokens=first.total_tokens + second.total_tokens,
        prompt_cache_hit_tokens=optional(
            first.prompt_cache_hit_tokens, second.prompt_cache_hit_tokens
        ),
        prompt_cache_miss_tokens=optional(
            first.prompt_cache_miss_tokens, second.prompt_cache_miss_tokens
        ),
        reasoning_tokens=optional(first.reasoning_tokens, second.reasoning_tokens),
    )


_KNOWN: Final = frozenset(
    {
        "data",
        "uri",
        "hosted_file",
        "hosted_vector_store",
        "image_generation_tool_call",
        "image_generation_tool_result",
        "mcp_server_tool_call",
        "mcp_server_tool_result",
        "shell_tool_call",
        "shell_tool_result",
        "shell_command_output",
        "computer_tool_call",
        "computer_tool_result",
        "function_approval_response",
        "oauth_consent_request",
    }
)
"""Content types of the framework the decoder has no use for (a notice, not an error)."""


class Decoder:
    """``ChatResponseUpdate`` items (their ``to_dict()`` form) in, raf results out; never
    raises (:mod:`raf.interop.base`).

    A ``function_call`` without ``call_id`` continues the call of the same ``id`` (the
    framework's id of the occurrence), else the call before it, as the framework's fold does;
    with ``whole`` (the contents of a whole response, each a complete call) it is a call of
    its own. A call that has no id at all gets raf's ``__tc_<n>``.
    """

    def __init__(self, *, whole: bool = False) -> None:
        self._whole = whole
        self._unnamed = 0
        self._calls: dict[str, _Call] = {}
        self._occurrences: dict[str, str] = {}
        self._last: str | None = None
        self._usage: Usage | None = None
        self._position = 0
        # a message's finish, held until the next message shows whether it ended a round
        self._held: tuple[str, str, list[Usage]] | None = None
        self._round = 0

    def _invalid(self, what: str) -> contents.Error:
        return contents.Error(
            error_code=ErrorCode.INVALID_CHUNK,
            message=f"Agent Framework update {self._position - 1}: {what}",
        )

    def feed(self, item: JSON) -> list[AgentResponseResult]:
        self._position += 1
        if not isinstance(item, dict) or item.get("type") not in (UPDATE, "agent_response_update"):
            return [AgentResponseResult(contents=(self._invalid("not a chat_response_update"),))]
        items = item.get("contents", [])
        if not isinstance(items, list):
            return [AgentResponseResult(contents=(self._invalid("contents is not a list"),))]
        ours = _ours(item)
        out: list[contents.Content] = []
        found: list[events.Event] = []
        usages: list[Usage] = []
        role = _str(item.get("role"))
        message = _str(item.get("message_id"))
        finish = _str(item.get("finish_reason"))
        earlier = self._release(role, message, finish, items, out)
        for index, content in enumerate(items):
            if not isinstance(content, dict) or not isinstance(content.get("type"), str):
                out.append(self._invalid(f"content {index} is not a content"))
                continue
            try:
                self._content(content, role, out, found, usages)
            except (TypeError, ValueError, AttributeError) as exc:
                out.append(self._invalid(f"content {index} ({content['type']}): {exc}"))
        if "round" in ours and isinstance(ours["round"], int):
            out.append(
                contents.RoundFinished(
                    round=ours["round"], finish_reason=finish, usage=_sum(usages)
                )
            )
            self._round = ours["round"] + 1
            finish = None
            self._usage = None
        elif finish and role == "assistant" and message and not self._whole:
            self._held = (message, finish, usages)  # a round's end, if another message follows
            finish = None
        else:
            for each in usages:
                self._usage = _add(self._usage, each)
                out.append(contents.Usage(usage=self._usage))
        found.extend(
            events.Custom(event_type=event["event_type"], payload=event.get("payload"))
            for event in ours.get("events") or ()
            if isinstance(event, dict) and isinstance(event.get("event_type"), str)
        )
        result = AgentResponseResult(
            id=_str(item.get("response_id")) or None,
            model=_str(item.get("model")) or None,
            finish_reason=finish or earlier or None,
            contents=tuple(out),
            events=tuple(found),
        )
        if result.id or result.model or result.finish_reason or out or found:
            return [result]
        return []

    def _release(
        self,
        role: str | None,
        message: str | None,
        finish: str | None,
        contents_of: list[Any],
        out: list[Any],
    ) -> str | None:
        """The held finish of a message (its ``finish_reason`` and usage, on an update
        without raf's round mark), now that the next update tells what it was: the end of a
        round of the tool loop when a message of another ``message_id`` follows (the
        framework's own mark of a new model call), or tool results, or an approval request
        (the message's calls were run, or wait for approval); else the stream's finish,
        released as it came when another finish supersedes it (returned, unless this update
        has its own)."""
        held = self._held
        if held is None:
            return None
        if (
            role == "tool"
            or (role == "assistant" and message and message != held[0])
            or any(
                isinstance(c, dict) and c.get("type") == "function_approval_request"
                for c in contents_of
            )
        ):
            self._held = None
            out.append(
                contents.RoundFinished(
                    round=self._round, finish_reason=held[1], usage=_sum(held[2])
                )
            )
            self._round += 1
            self._usage = None
            return None
        if finish is None:
            return None
        self._held = None
        for each in held[2]:
            self._usage = _add(self._usage, each)
            out.append(contents.Usage(usage=self._usage))
        return held[1]

    def _content(
        self,
        content: dict[str, Any],
        role: str | None,
        out: list[contents.Content],
        found: list[events.Event],
        usages: list[Usage],
    ) -> None:
        kind = content["type"]
        ours = _ours(content)
        if kind == "text":
            delta = str(content.get("text") or "")
            if delta or not ours.get("part_signature"):  # else raf's event makes the part
                out.append(contents.Text(delta=delta))
        elif kind == "text_reasoning":
            text = _str(content.get("text"))
            if text is not None:
                out.append(contents.Reasoning(delta=text))
            signature = _str(content.get("protected_data"))
            if signature is not None:
                found.append(
                    events.Custom(
                        event_type="reasoning_signature", payload={"signature": signature}
                    )
                )
        elif kind == "function_call":
            if content.get("hosted") is True:
                out.append(
                    contents.HostedToolCall(
                        call_id=str(content.get("call_id") or ""),
                        name=str(content.get("name") or ""),
                        arguments=_arguments(content.get("arguments")),
                        item=ours.get("item"),
                    )
                )
            else:
                self._call(content, out)
        elif kind == "function_result":
            call_id = str(content.get("call_id") or "")
            text = content.get("result")
            text = text if isinstance(text, str) else "" if text is None else _dumps(text)
            failed = content.get("exception") is not None
            if "hosted" in ours or role == "assistant":
                out.append(_hosted_result_of(content, ours, text, text if failed else None))
            else:
                out.append(
                    contents.ToolCalled(
                        call_id=call_id,
                        result=None if failed else text,
                        error=text if failed else None,
                    )
                )
        elif kind in ("search_tool_call", "code_interpreter_tool_call"):
            if kind == "search_tool_call":
                arguments = _arguments(content.get("arguments"))
            else:
                arguments = {"code": _texts(content.get("inputs"))}
            out.append(
                contents.HostedToolCall(
                    call_id=str(content.get("call_id") or ""),
                    name=str(ours.get("name") or content.get("tool_name") or kind[:-10]),
                    arguments=ours.get("arguments", arguments),
                    item=ours.get("item"),
                )
            )
        elif kind in ("search_tool_result", "code_interpreter_tool_result"):
            if kind == "search_tool_result":
                output = content.get("result")
            else:
                output = _texts(content.get("outputs"))
            out.append(_hosted_result_of(content, ours, output, None))
        elif kind == "function_approval_request":
            call = content.get("function_call")
            call = call if isinstance(call, dict) else {}
            out.append(
                contents.ToolApprovalRequest(
                    call_id=str(call.get("call_id") or content.get("id") or ""),
                    name=str(call.get("name") or ""),
                    arguments=_arguments(call.get("arguments")),
                    description=str(ours.get("description") or ""),
                )
            )
        elif kind == "usage":
            usage = _usage(content.get("usage_details"))
            if usage is not None:
                if content.get("merge_mode") == "replace":
                    self._usage = None
                usages.append(usage)
        elif kind == "error":
            about = _str(ours.get("call_id"))
            details = _str(content.get("error_details"))
            if about is None and details is not None:
                about = self._failed(details)
            if about is not None and about in self._calls:
                self._calls[about].done = True  # the call failed: raf reports it so
            out.append(
                contents.Error(
                    error_code=str(content.get("error_code") or ErrorCode.PROVIDER_ERROR),
                    message=str(content.get("message") or ""),
                    call_id=about,
                    raw=_str(content.get("error_details")),
                )
            )
        elif kind in _KNOWN:
            out.append(
                contents.Error(
                    error_code=ErrorCode.UNRECOGNISED_CHUNKS,
                    message=f"Agent Framework update {self._position - 1}: "
                    f"a {kind} content, which raf does not model",
                )
            )
        else:
            out.append(self._invalid(f"unknown content type {kind!r}"))

    def _call(self, content: dict[str, Any], out: list[contents.Content]) -> None:
        occurrence = _str(content.get("id"))  # the framework's stable id of the call
        call_id = _str(content.get("call_id"))
        if call_id and occurrence:
            self._occurrences[occurrence] = call_id
        elif not call_id:
            call_id = self._occurrences.get(occurrence or "")
            if call_id is None:
                call_id = None if self._whole else self._last
            if call_id is None:  # a call of its own with no id: raf's id for it
                call_id = f"__tc_{self._unnamed}"
                self._unnamed += 1
        call = self._calls.get(call_id)
        if call is None or call.done:
            call = self._calls[call_id] = _Call(str(content.get("name") or ""))
            out.append(contents.ToolCallStart(call_id=call_id, name=call.name))
        elif not call.name and content.get("name"):
            call.name = str(content["name"])
        self._last = call_id
        arguments = content.get("arguments")
        replace = content.get("merge_mode") == "replace"
        if isinstance(arguments, str | dict):
            call.given = True
        if isinstance(arguments, str):
            if replace:
                call.args, call.whole = [arguments], None
            elif arguments:
                call.args.append(arguments)
                out.append(contents.ToolCallArgs(call_id=call_id, args_delta=arguments))
        elif isinstance(arguments, dict):
            if replace or not isinstance(call.whole, dict):
                call.whole = dict(arguments)
            else:
                call.whole.update(arguments)
            call.args = []
        if content.get("status") == COMPLETED:
            out.extend(self._end(call_id, call))

    def _failed(self, details: str) -> str | None:
        """The open call an ``error`` is about when raf's data does not say: the last one
        whose arguments so far are exactly the error's ``error_details`` (raf keeps the text
        of arguments that are not JSON there)."""
        for call_id, call in reversed(self._calls.items()):
            if not call.done and call.whole is None and "".join(call.args) == details:
                return call_id
        return None

    def _end(self, call_id: str, call: _Call) -> list[contents.Content]:
        call.done = True
        ended = contents.ToolCallEnd(call_id=call_id)
        if not call.given:
            ok, arguments = True, None  # the call came with no arguments at all
        elif call.whole is not None and not call.args:
            ok, arguments = True, call.whole
        else:
            ok, arguments = _parse("".join(call.args))
        if not ok:
            return [
                ended,
                contents.Error(
                    error_code=ErrorCode.INVALID_TOOL_ARGUMENTS,
                    message=f"the arguments of tool call {call_id} ({call.name}) are not JSON",
                    call_id=call_id,
                    raw=arguments,
                ),
            ]
        return [
            ended,
            contents.ToolCalling(call_id=call_id, name=call.name, arguments=arguments),
        ]

    def close(self) -> list[AgentResponseResult]:
        ended: list[contents.Content] = []
        for call_id, call in self._calls.items():
            if not call.done:
                ended.extend(self._end(call_id, call))
        held, self._held = self._held, None
        finish = None
        if held is not None:  # the stream's own finish, and its usage
            finish = held[1]
            for each in held[2]:
                self._usage = _add(self._usage, each)
                ended.append(contents.Usage(usage=self._usage))
        if ended or finish:
            return [AgentResponseResult(finish_reason=finish, contents=tuple(ended))]
        return []


def _texts(items: JSON) -> str:
    """The text of a list of ``text`` contents."""
    if not isinstance(items, list):
        return ""
    return "".join(
        str(item.get("text") or "")
        for item in items
        if isinstance(item, dict) and item.get("type") == "text"
    )


def _hosted_result_of(
    content: dict[str, Any], ours: dict[str, Any], output: JSON, error: str | None
) -> contents.HostedToolResult:
    """A result of a tool the provider ran: raf's own reading when the item has it."""
    hosted = "hosted" in ours
    return contents.HostedToolResult(
        call_id=str(content.get("call_id") or ""),
        name=str(ours.get("hosted") or content.get("tool_name") or content["type"]),
        output=ours["output"] if hosted else output,
        error=_str(ours.get("error")) if hosted else error,
        item=ours.get("item"),
    )


def _arguments(value: JSON) -> JSON:
    """A call's arguments as raf holds them: an object as it is, JSON text parsed (kept as the
    text when it is not JSON)."""
    if isinstance(value, str):
        ok, parsed = _parse(value)
        return parsed if ok else value
    return value


# -- whole responses -----------------------------------------------------------------------


def _text_content(text: str) -> dict[str, JSON]:
    return {"type": "text", "text": text, "additional_properties": {}}


def _coalesce(items: list[dict[str, JSON]]) -> list[dict[str, JSON]]:
    """Adjacent ``text`` and adjacent ``text_reasoning`` contents joined, as the framework's
    ``ChatResponse.from_updates`` joins them."""
    out: list[dict[str, JSON]] = []
    for item in items:
        last = out[-1] if out else None
        if last is not None and last["type"] == item["type"] == "text":
            last["text"] = str(last["text"]) + str(item["text"])
        elif last is not None and last["type"] == item["type"] == "text_reasoning":
            if "text" in item:
                last["text"] = str(last.get("text") or "") + str(item["text"])
            if "protected_data" in item:
                last["protected_data"] = item["protected_data"]
            last.pop("additional_properties")
            last["additional_properties"] = {}
        else:
            out.append(dict(item))
    return out


def _assistant(message: Any, called: set[str]) -> list[dict[str, JSON]]:
    items: list[dict[str, JSON]] = []
    for block in message.blocks:
        if isinstance(block, blocks.Text):
            items.append(_text_content(block.text))
        elif isinstance(block, blocks.Reasoning):
            reasoning: dict[str, JSON] = {"type": "text_reasoning"}
            if block.text:
                reasoning["text"] = block.text
            if block.signature is not None:
                reasoning["protected_data"] = block.signature
            if len(reasoning) > 1:
                reasoning["additional_properties"] = {}
                items.append(reasoning)
        elif isinstance(block, blocks.ToolCall):
            arguments = block.arguments
            if block.id in called or not isinstance(arguments, str):
                arguments = _dumps(arguments)
            items.append(_call(block.id, block.name, arguments))
        elif isinstance(block, blocks.HostedTool):
            items.append(_hosted_call(block.id, block.name, block.arguments, None))
            if block.output is not None or block.error is not None:
                items.append(
                    _hosted_result(
                        block.id,
                        block.name,
                        name="",
                        output=block.output,
                        error=block.error,
                        item=None,
                    )
                )
    return _coalesce(items)


def aggregate(response: AgentResponse) -> JSON:
    """raf's response as ``ChatResponse.to_dict()`` writes it: the assistant message of each
    model round (text, reasoning with its signature, calls with their arguments as JSON text,
    hosted calls; approval requests and errors in the last one) and the tool messages
    answering them, ``usage_details``, ``finish_reason``, ``response_id``, ``model``. It is what
    ``ChatResponse.from_updates`` makes of the run's updates."""
    called = {call.id for call in response.tool_calls}
    messages: list[dict[str, JSON]] = []
    for message in response.turn_transcript:
        if message.role == MessageRole.TOOL:
            results = [
                _result(b.call_id, _text(b.content), failed=b.is_error)
                for b in message.blocks
                if isinstance(b, blocks.ToolResult)
            ]
            if messages and messages[-1]["role"] == "tool":
                messages[-1]["contents"].extend(results)
            else:
                messages.append({"type": "message", "role": "tool", "contents": results})
        elif message.role == MessageRole.ASSISTANT:
            messages.append(
                {"type": "message", "role": "assistant", "contents": _assistant(message, called)}
            )
    extra: list[dict[str, JSON]] = []
    for request in response.approval_requests:
        call = _call(request.call_id, request.name, _call_arguments(request.arguments))
        extra.append(
            {
                "type": "function_approval_request",
                "function_call": call,
                "user_input_request": True,
                "id": request.call_id,
                "additional_properties": _props(description=request.description or None),
            }
        )
    for error in (*response.errors, *response.notices):
        item: dict[str, JSON] = {
            "type": "error",
            "message": error.message,
            "error_code": str(error.error_code),
        }
        if error.raw is not None:
            item["error_details"] = error.raw
        item["additional_properties"] = _props(call_id=error.call_id)
        extra.append(item)
    if extra:
        if not messages or messages[-1]["role"] != "assistant":
            messages.append({"type": "message", "role": "assistant", "contents": []})
        messages[-1]["contents"].extend(extra)
    for each in messages:
        each["additional_properties"] = {}
    out: dict[str, JSON] = {
        "type": "chat_response",
        "messages": [m for m in messages if m["contents"]],
    }
    if response.id:
        out["response_id"] = response.id
    if response.model:
        out["model"] = response.model
    finish = response.finish_reason or next(
        (r.finish_reason for r in reversed(response.rounds) if r.finish_reason), None
    )
    if finish:
        out["finish_reason"] = finish
    if response.usage is not None:
        out["usage_details"] = _usage_details(response.usage)
    return out


def _text(value: JSON) -> str:
    return value if isinstance(value, str) else _dumps(value)


def _as_dict(value: Any) -> dict[str, Any] | None:
    """A mapping as a dict, an object of the framework by its ``to_dict()``, else ``None``."""
    if isinstance(value, Mapping):
        return dict(value)
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        found = to_dict()
        if isinstance(found, Mapping):
            return dict(found)
    return None


def updates_of(response: Any) -> list[JSON]:
    """A whole ``ChatResponse`` or ``AgentResponse`` (the object or its ``to_dict()``) as the
    updates it folds from: one per message, then one with its ids, finish reason and usage (a
    message that is none is passed on as it is, for the decoder to report).

    Raises:
        TypeError: ``response`` is neither a mapping nor has ``to_dict()``.
    """
    data = _as_dict(response)
    if data is None:
        raise TypeError(f"not an Agent Framework response: {type(response).__name__}")
    out: list[JSON] = []
    messages = data.get("messages")
    for each in messages if isinstance(messages, list | tuple) else ():
        message = _as_dict(each)
        if message is None:
            out.append(each)
            continue
        update: dict[str, JSON] = {"type": UPDATE, "contents": message.get("contents") or []}
        for key in ("role", "message_id", "author_name"):
            if message.get(key) is not None:
                update[key] = message[key]
        out.append(update)
    tail: dict[str, JSON] = {"type": UPDATE, "contents": []}
    for key in ("response_id", "model", "finish_reason"):
        value = data.get(key)
        if isinstance(value, str) and value:
            tail[key] = value
    usage = data.get("usage_details")
    if isinstance(usage, Mapping) and usage:
        tail["contents"] = [{"type": "usage", "usage_details": dict(usage)}]
    out.append(tail)
    return out


def from_chat_response(response: Any) -> AgentResponse:
    """raf's response of a whole Agent Framework ``ChatResponse`` or ``AgentResponse`` (the
    object, or its ``to_dict()``): its text, reasoning, calls (arguments parsed; a call whose
    arguments are not JSON is an ``invalid_tool_arguments`` error keeping the text), tool
    results, approval requests, errors, usage, finish reason, id and model."""
    decoder = Decoder(whole=True)
    results: list[AgentResponseResult] = []
    for update in updates_of(response):
        results.extend(decoder.feed(update))
    results.extend(decoder.close())
    return collect_agent_response(results)


def _without_ours(value: JSON) -> JSON:
    """``value`` with raf's namespace taken out of every ``additional_properties`` in it."""
    if isinstance(value, list):
        return [_without_ours(each) for each in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, JSON] = {}
    for key, each in value.items():
        if key == "additional_properties" and isinstance(each, dict):
            out[key] = {k: _without_ours(v) for k, v in each.items() if k != RAF}
        else:
            out[key] = _without_ours(each)
    return out


def native(item: JSON) -> JSON:
    """``item`` as a consumer that knows only the framework reads it: ``additional_properties``
    without raf's namespace, on the update and on every content (the framework's own fields
    untouched). Every update stays one: none is raf's alone."""
    return _without_ours(item)


def objects(items: Iterable[JSON]) -> list[Any]:
    """``items`` as the framework's own ``ChatResponseUpdate`` s (imports ``agent_framework``)."""
    from agent_framework import ChatResponseUpdate  # noqa: PLC0415

    return [ChatResponseUpdate.from_dict(dict(item)) for item in items]


def _block(field: str, model: str) -> Row:
    """A row of the transcript's blocks (kept in raf's extension only: see :data:`MODEL`)."""
    return Row(f"turn_transcript[].blocks[].{field}", model, extension=True)


_ABOUT: Final = (
    "`error` `additional_properties.raf.call_id`; without it, the open `function_call` whose "
    "arguments so far are the error's `error_details` (an `invalid_tool_arguments` error)"
)
_ROUND: Final = (
    "the update that ends a round (`additional_properties.raf.round`; without it, the last "
    "update with a `finish_reason` of a message followed by tool results, an approval "
    "request or a message of another `message_id`): its "
)


MODEL = Model(
    name="maf",
    title="Microsoft Agent Framework",
    validator="agent-framework-core",
    encoder=Encoder,
    decoder=Decoder,
    aggregate=aggregate,
    native=native,
    rows=(
        Row("id", "`response_id`"),
        Row("model", "`model`"),
        Row("text", "`text` contents"),
        Row("reasoning_text", "`text_reasoning` contents' `text`"),
        Row("tool_calls[].id", "`function_call` `call_id` (on every fragment)"),
        Row("tool_calls[].name", "`function_call` `name`"),
        Row(
            "tool_calls[].arguments",
            "`function_call` `arguments` fragments (JSON text); `status: completed` ends the call",
        ),
        Row(
            "hosted_tool_calls[].id",
            "`call_id` of `search_tool_call`, `code_interpreter_tool_call`, else of a "
            "`function_call` with `hosted: true`",
        ),
        Row(
            "hosted_tool_calls[].name",
            "`tool_name` of `search_tool_call`, `name` of a hosted `function_call`; a code "
            "tool's (`code_interpreter_tool_call` has no name) in `additional_properties.raf.name`",
            extension=True,
        ),
        Row(
            "hosted_tool_calls[].arguments",
            "`arguments`; `code_interpreter_tool_call` `inputs` (the code; the whole arguments "
            "in `additional_properties.raf` only)",
            extension=True,
        ),
        Row(
            "hosted_tool_calls[].output",
            "`search_tool_result` `result`, `code_interpreter_tool_result` `outputs`, else a "
            "`function_result` in the assistant's message, as text (the JSON in "
            "`additional_properties.raf.output` only)",
            extension=True,
        ),
        Row(
            "hosted_tool_calls[].error",
            "`function_result` `exception` (its text is the output); the error's own text, and "
            "any error of a search or code tool, in `additional_properties.raf.error` only",
            extension=True,
        ),
        Row("approval_requests[].call_id", "`function_approval_request` `function_call.call_id`"),
        Row("approval_requests[].name", "`function_approval_request` `function_call.name`"),
        Row(
            "approval_requests[].arguments",
            "`function_approval_request` `function_call.arguments`",
        ),
        Row(
            "approval_requests[].description",
            "`function_approval_request` `additional_properties.raf.description`",
            extension=True,
        ),
        Row("tool_messages[].tool_call_id", "`function_result` `call_id` (role `tool`)"),
        Row("tool_messages[].content", "`function_result` `result`"),
        Row("tool_messages[].role", "the `tool` message"),
        Row("tool_messages[].source", "the `tool` message"),
        Row("tool_messages[].name", "the `tool` message"),
        Row("tool_messages[].blocks", "`function_result` (`exception` marks an error)"),
        Row("turn_transcript[].role", "`role` of the messages"),
        Row("turn_transcript[].content", "`text` contents"),
        Row("turn_transcript[].tool_calls", "`function_call` contents"),
        Row("turn_transcript[].source", "the `tool` message"),
        Row("turn_transcript[].tool_call_id", "`function_result` `call_id`"),
        # A consumer of the framework's fields alone reads the blocks from the contents, but
        # the blocks raf's data alone makes or splits off (Anthropic's redacted thinking, a
        # Responses reasoning item with no text, a reasoning or text part ended by an item or
        # a Gemini part signature: the framework joins adjacent text and reasoning) change the
        # list, so every path into it is raf's own in those turns.
        _block("type", "the content's `type` (`text`, `text_reasoning`, `function_call`, ...)"),
        _block("text", "`text` and `text_reasoning` contents, in order"),
        _block(
            "signature",
            "`text_reasoning` `protected_data`; on other parts (Gemini's part signatures) "
            "`additional_properties.raf` of the update only",
        ),
        _block("redacted", "`additional_properties.raf` of the update only"),
        _block("encrypted_content", "`additional_properties.raf` of the update only"),
        _block("item_id", "`additional_properties.raf` of the update only"),
        _block("summary", "`additional_properties.raf` of the update only"),
        _block("id", "`function_call` `call_id`"),
        _block("name", "`function_call` `name`; a hosted tool's in `additional_properties.raf`"),
        _block(
            "arguments",
            "`function_call` `arguments`; a hosted tool's in `additional_properties.raf`",
        ),
        _block("item", "`additional_properties.raf.item` only"),
        _block(
            "output",
            "`search_tool_result` `result`, `code_interpreter_tool_result` `outputs`, "
            "`function_result`; as JSON in `additional_properties.raf.output` only",
        ),
        _block("error", "`additional_properties.raf.error` only"),
        _block("value", "`additional_properties.raf` of the update only"),
        _block("call_id", "`function_result` `call_id`"),
        _block("content", "`function_result` `result`"),
        _block("is_error", "`function_result` `exception`"),
        Row("finish_reason", "`finish_reason`"),
        Row("usage.prompt_tokens", "`usage_details.input_token_count`"),
        Row("usage.completion_tokens", "`usage_details.output_token_count`"),
        Row("usage.total_tokens", "`usage_details.total_token_count`"),
        Row("usage.prompt_cache_hit_tokens", "`usage_details.cache_read_input_token_count`"),
        Row(
            "usage.prompt_cache_miss_tokens",
            "`usage_details.cache_miss_input_token_count` (a key of raf's; `UsageDetails` is open)",
        ),
        Row("usage.reasoning_tokens", "`usage_details.reasoning_output_token_count`"),
        Row("errors[].error_code", "`error` `error_code`"),
        Row("errors[].message", "`error` `message`"),
        Row("errors[].raw", "`error` `error_details`"),
        Row("errors[].call_id", _ABOUT),
        Row("notices[].error_code", "`error` `error_code`"),
        Row("notices[].message", "`error` `message`"),
        Row("notices[].raw", "`error` `error_details`"),
        Row("notices[].call_id", _ABOUT),
        Row("rounds[].finish_reason", _ROUND + "`finish_reason`"),
        Row("rounds[].usage", _ROUND + "`usage` content"),
    ),
)
"""Microsoft Agent Framework's ``ChatResponseUpdate`` s and ``ChatResponse``."""
