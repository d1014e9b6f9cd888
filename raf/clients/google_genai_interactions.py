"""Google's Gen AI Python SDK (``google-genai``) on the Interactions API, as its docs show:
``for event in client.interactions.create(model=..., input=..., stream=True)``.

The recorded request is given to the SDK as its users would write it: each member of the
body (``input``, ``system_instruction``, ``tools``, ``generation_config``, ``store``...) as the
keyword argument of the same name, ``stream=True``. The client speaks the Gemini API with an
API key and the recorded API version; retries are off (``HttpRetryOptions(attempts=0)``:
the Interactions client counts retries, not attempts); automatic continuation is left as the
SDK has it (on).

The user's loop is the streaming guide's: it looks at each event's ``event_type``. At
``step.start`` a ``function_call`` step's ``id``, ``name`` and ``arguments``, by the step's
``index``; at ``step.delta`` a ``text`` delta's ``text`` is text, a ``thought_summary``
delta's ``content.text`` is reasoning, an ``arguments_delta``'s ``arguments`` are appended to
the call of that index (the guide: "must be accumulated"; without any, the start's arguments
stand); at ``interaction.completed`` the ``status`` (``completed`` is ``tool_calls`` when a
call streamed, as raf reads it) and the ``usage`` (prompt = input + tool-use tokens,
completion = output + thought tokens, as raf counts them); an ``error`` event's
``error.message`` is reported as an error, and ``failed`` too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from raf.clients.base import (
    TEST_API_KEY,
    Adapter,
    ClientCase,
    ClientRaised,
    finish_reason,
    tool_call,
    usage,
)
from raf.shared.client_response import (
    ClientError,
    ClientResponse,
    ClientToolCall,
    ClientUsage,
)

__all__ = ["ADAPTER"]

DIALECT = "gemini_interactions"


def _get(obj: Any, name: str) -> Any:
    """A field of an SDK model, or of the dict it kept for a shape it does not know."""
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def _count(obj: Any, name: str) -> int | None:
    value = _get(obj, name)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _usage(raw: Any) -> ClientUsage | None:
    if raw is None:
        return None
    thought = _count(raw, "total_thought_tokens")
    return usage(
        (_count(raw, "total_input_tokens") or 0) + (_count(raw, "total_tool_use_tokens") or 0),
        (_count(raw, "total_output_tokens") or 0) + (thought or 0),
        _count(raw, "total_tokens"),
        prompt_cache_hit_tokens=_count(raw, "total_cached_tokens"),
        reasoning_tokens=thought,
    )


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _plain(value: Any) -> Any:
    """An SDK model (or what it kept) as plain JSON."""
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json", exclude_unset=True)
    return json.loads(json.dumps(value, default=str)) if value is not None else None


def _name(value: Any) -> str | None:
    """An SDK enum (or the string it kept) as its wire name."""
    if value is None:
        return None
    return str(getattr(value, "value", value))


@dataclass
class _Call:
    id: str | None
    name: str
    start: Any
    fragments: list[str] = field(default_factory=list)


@dataclass
class _Seen:
    text: str = ""
    reasoning: str = ""
    calls: dict[int, _Call] = field(default_factory=dict)
    status: str | None = None
    usage: Any = None
    errors: list[ClientError] = field(default_factory=list)

    def read(self, event: Any) -> None:
        kind = _name(_get(event, "event_type"))
        if kind == "step.start":
            step = _get(event, "step")
            step_type = _name(_get(step, "type")) or ""
            index = _get(event, "index")
            if step_type == "function_call":
                self.calls[index] = _Call(
                    id=_get(step, "id"),
                    name=_get(step, "name") or "",
                    start=_get(step, "arguments"),
                )
        elif kind == "step.delta":
            delta = _get(event, "delta")
            delta_type = _name(_get(delta, "type"))
            if delta_type == "text":
                self.text += _text(_get(delta, "text"))
            elif delta_type == "thought_summary":
                self.reasoning += _text(_get(_get(delta, "content"), "text"))
            elif delta_type == "arguments_delta":
                call = self.calls.get(_get(event, "index"))
                if call is not None:
                    call.fragments.append(_text(_get(delta, "arguments")))
        elif kind == "interaction.completed":
            interaction = _get(event, "interaction")
            self.status = _name(_get(interaction, "status"))
            self.usage = _get(interaction, "usage")
            if self.status == "failed":
                self.errors.append(ClientError(message="the interaction failed"))
        elif kind == "error":
            error = _get(event, "error")
            self.errors.append(ClientError(message=_text(_get(error, "message")) or "error event"))

    def response(self) -> ClientResponse:
        calls: list[ClientToolCall] = []
        for call in self.calls.values():
            args: Any = "".join(call.fragments) if call.fragments else _plain(call.start)
            calls.append(tool_call(call.id, call.name, args))
        status = self.status
        if status == "completed" and calls:
            status = "requires_action"
        reason = None if status in (None, "failed") else finish_reason(DIALECT, status)
        return ClientResponse(
            text=self.text,
            reasoning_text=self.reasoning or None,
            tool_calls=calls,
            finish_reason=reason,
            usage=_usage(self.usage),
            errors=list(self.errors),
        )


def _run(case: ClientCase) -> ClientResponse:
    from google import genai  # noqa: PLC0415 - optional library
    from google.genai import types  # noqa: PLC0415

    path = case.path.split("?", 1)[0]
    version = path.strip("/").split("/", 1)[0] or "v1beta"
    client = genai.Client(
        api_key=TEST_API_KEY,
        http_options=types.HttpOptions(
            base_url=case.base_url,
            api_version=version,
            timeout=int(case.timeout * 1000),
            retry_options=types.HttpRetryOptions(attempts=0),
        ),
    )
    arguments = {k: v for k, v in case.request.items() if k != "stream"}
    arguments.setdefault("model", case.model)
    seen = _Seen()
    try:
        for event in client.interactions.create(**arguments, stream=True):
            seen.read(event)
    except Exception as exc:  # what the library raised, after what the user had seen
        raise ClientRaised(exc, seen.response()) from exc
    finally:
        client.close()
    return seen.response()


ADAPTER = Adapter(
    name="google-genai-interactions",
    distribution="google-genai",
    dialects=(DIALECT,),
    capabilities=("tool_calls", "reasoning", "usage", "http_errors"),
    how=(
        "genai.Client(api_key=..., http_options=HttpOptions(base_url=..., api_version=the "
        "recorded one, retry_options=HttpRetryOptions(attempts=0))), then for event in "
        "client.interactions.create(**the recorded body, stream=True) (automatic continuation "
        "as the SDK has it). The user reads event.event_type as the streaming guide does: "
        "a step.start of type function_call gives a call's id, name and arguments by the "
        "step's index; step.delta: "
        "text is text, thought_summary's content.text is reasoning, arguments_delta fragments "
        "are appended to the call of that index (the start's arguments stand when none came); "
        "interaction.completed gives the status (completed with a call is tool_calls, as raf "
        "reads it; failed is an error) and the usage (input + tool-use tokens, output + "
        "thought tokens, total, cached and thought tokens); an error event's error.message is "
        "reported as an error. An exception is the library raising, with what the loop had read."
    ),
    run=_run,
    module="google.genai",
)
