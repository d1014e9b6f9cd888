"""Google's Gen AI Python SDK (``google-genai``), as its docs show: ``for chunk in
client.models.generate_content_stream(model=..., contents=..., config=...)``.

The recorded REST request is given to the SDK as its users would write it: ``contents`` as
the ``contents`` argument (the SDK accepts the REST field names in dicts), and
``generationConfig`` (flattened), ``systemInstruction``, ``tools``, ``toolConfig`` and
``cachedContent`` as the ``config`` (automatic function calling off: the tools are
declarations). The client speaks the Gemini API with an API key, or, for a recorded Vertex AI
path (``.../publishers/google/models/...``), Vertex AI in express mode (``vertexai=True`` with
an API key), with the recorded API version. Retries are off (``HttpRetryOptions(attempts=1)``).

The user's loop reads each chunk's first candidate's ``content.parts``: a text part is text,
or reasoning when its ``thought`` is true (the thinking guide's loop); a ``function_call``
part is a call (``id``, often ``None``, ``name``, ``args``); the finish reason is the last
candidate ``finish_reason`` the stream gave (``STOP`` is ``tool_calls`` when the stream had a
function call, as raf reads it); a ``prompt_feedback.block_reason`` without candidates is
reported as an error with the ``content_filter`` finish; the usage is the last
``usage_metadata`` (prompt = prompt + tool-use prompt tokens, completion = candidates +
thoughts tokens, as raf counts them).
"""

from __future__ import annotations

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
from raf.shared.client_response import ClientError, ClientResponse, ClientToolCall, ClientUsage

__all__ = ["ADAPTER"]

DIALECT = "gemini"

_CONFIG_FIELDS = ("systemInstruction", "tools", "toolConfig", "cachedContent", "safetySettings")


def _config(request: dict[str, Any]) -> dict[str, Any]:
    """The SDK's ``config`` for the recorded request: the generation config flattened, the
    rest under the SDK's names (REST names are accepted)."""
    config: dict[str, Any] = dict(request.get("generationConfig") or {})
    for name in _CONFIG_FIELDS:
        if request.get(name) is not None:
            config[name] = request[name]
    # The tools are declarations, not Python functions: automatic function calling has
    # nothing to run (and the SDK refuses it with streamed function call arguments).
    config["automatic_function_calling"] = {"disable": True}
    return config


def _count(obj: Any, name: str) -> int | None:
    value = getattr(obj, name, None)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _usage(raw: Any) -> ClientUsage | None:
    if raw is None:
        return None
    prompt = _count(raw, "prompt_token_count")
    tool_prompt = _count(raw, "tool_use_prompt_token_count")
    candidates = _count(raw, "candidates_token_count")
    thoughts = _count(raw, "thoughts_token_count")
    return usage(
        (prompt or 0) + (tool_prompt or 0),
        (candidates or 0) + (thoughts or 0),
        _count(raw, "total_token_count"),
        prompt_cache_hit_tokens=_count(raw, "cached_content_token_count"),
        reasoning_tokens=thoughts,
    )


def _name(value: Any) -> str | None:
    """An SDK enum (or the string the SDK kept for an unknown value) as its wire name."""
    if value is None:
        return None
    name = getattr(value, "value", value)
    return str(name)


@dataclass
class _Seen:
    text: str = ""
    reasoning: str = ""
    calls: list[ClientToolCall] = field(default_factory=list)
    finish: str | None = None
    blocked: str | None = None
    usage: Any = None

    def read(self, chunk: Any) -> None:
        if chunk.usage_metadata is not None:
            self.usage = chunk.usage_metadata
        feedback = chunk.prompt_feedback
        if feedback is not None and feedback.block_reason is not None:
            self.blocked = _name(feedback.block_reason)
        if not chunk.candidates:
            return
        candidate = chunk.candidates[0]
        content = candidate.content
        for part in (content.parts if content is not None else None) or []:
            if part.text is not None:
                if part.thought:
                    self.reasoning += part.text
                else:
                    self.text += part.text
            call = part.function_call
            if call is not None:
                self.calls.append(tool_call(call.id, call.name or "", call.args))
        if candidate.finish_reason is not None:
            self.finish = _name(candidate.finish_reason)

    def response(self) -> ClientResponse:
        raw = self.finish
        if raw == "STOP" and self.calls:
            raw = "tool_calls"
        errors = []
        if self.blocked is not None:
            errors.append(ClientError(message=f"prompt blocked: {self.blocked}"))
        reason = finish_reason(DIALECT, raw)
        if reason is None and self.blocked is not None:
            reason = "content_filter"
        return ClientResponse(
            text=self.text,
            reasoning_text=self.reasoning or None,
            tool_calls=list(self.calls),
            finish_reason=reason,
            usage=_usage(self.usage),
            errors=errors,
        )


def _run(case: ClientCase) -> ClientResponse:
    from google import genai  # noqa: PLC0415 - optional library
    from google.genai import types  # noqa: PLC0415

    path = case.path.split("?", 1)[0]
    version = path.strip("/").split("/", 1)[0] or "v1beta"
    client = genai.Client(
        vertexai="/publishers/" in path,  # Vertex AI express mode (an API key, no project)
        api_key=TEST_API_KEY,
        http_options=types.HttpOptions(
            base_url=case.base_url,
            api_version=version,
            timeout=int(case.timeout * 1000),
            retry_options=types.HttpRetryOptions(attempts=1),
        ),
    )
    seen = _Seen()
    try:
        for chunk in client.models.generate_content_stream(
            model=case.model,
            contents=case.request.get("contents") or [],
            config=_config(case.request),
        ):
            seen.read(chunk)
    except Exception as exc:  # what the library raised, after what the user had seen
        raise ClientRaised(exc, seen.response()) from exc
    finally:
        client.close()
    return seen.response()


ADAPTER = Adapter(
    name="google-genai",
    distribution="google-genai",
    dialects=(DIALECT,),
    capabilities=("tool_calls", "reasoning", "usage", "http_errors"),
    how=(
        "genai.Client(api_key=..., vertexai=True for a recorded Vertex path, "
        "http_options=HttpOptions(base_url=..., api_version=the recorded one, "
        "retry_options=HttpRetryOptions(attempts=1))), then for chunk in "
        "client.models.generate_content_stream(model, contents, config) with the recorded "
        "generationConfig, systemInstruction, tools and toolConfig as config (automatic "
        "function calling disabled). The user reads "
        "chunk.candidates[0].content.parts: text parts are text, or reasoning when part.thought; "
        "function_call parts are the calls (id, name, args); the finish reason is the last "
        "candidate finish_reason (STOP with a call is tool_calls, as raf reads it); "
        "prompt_feedback.block_reason is reported as an error (finish content_filter); usage is "
        "the last usage_metadata (prompt + tool-use prompt tokens, candidates + thoughts tokens, "
        "total, cached content and thoughts token counts). An exception is the library raising, "
        "with what the loop had read."
    ),
    run=_run,
    module="google.genai",
    # models.py Models.generate_content_stream (and its async twin) always sends
    # '{model}:streamGenerateContent?alt=sse': a JSON-array body is never asked for.
    framings=("sse",),
)
