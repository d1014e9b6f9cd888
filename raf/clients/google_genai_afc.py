"""The Google Gen AI SDK's own tool loop: automatic function calling (AFC), as its
function-calling docs show it: Python functions passed as ``config.tools``, the SDK declares
them from their signatures, calls them when the model asks and sends their results back
itself, until a round ends without calls.

The recordings stream (``streamGenerateContent?alt=sse``), and this release runs AFC on
streamed calls too, in a chat as the SDK recommends (it warns against AFC on
``Models.generate_content_stream`` directly): ``chat = client.chats.create(model, config)``,
``for chunk in chat.send_message_stream(question)`` (``google/genai/chats.py``
``Chat.send_message_stream``: every round's chunks are yielded, then the calls of the round
are run and the next request sent), so that is what is driven. Each tool is a Python
function whose signature is the recording's JSON schema (``city: str``, ``people: int``...),
whose docstring is the tool's description, and whose body is
:meth:`~raf.clients.base.ToolLoopCase.tool_result`: Gemini's recorded result is the
``functionResponse.response`` object, ``{"result": ...}`` or ``{"error": ...}``, which AFC
makes of a function's return value or of the exception it raised, so the function returns
the one and raises the other. A call of a function the user did not give AFC has no result
of the user's.

The user reads the chunks of the last round (a round ends with the chunk that carries a
finish reason) as the stream adapter reads a stream (:mod:`raf.clients.google_genai_stream`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from raf.clients.base import TEST_API_KEY, ClientRaised, ToolLoopAdapter, ToolLoopCase
from raf.clients.google_genai_stream import _Seen
from raf.shared.client_response import ClientResponse

__all__ = ["TOOL_LOOP_ADAPTER", "function_for"]

DIALECT = "gemini"
_TYPES: dict[str, type] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "array": list,
    "object": dict,
}


class ToolFailed(Exception):
    """The recorded error of a tool (AFC sends ``{"error": str(exception)}``)."""


def function_for(
    name: str, description: str, schema: Mapping[str, Any], body: Callable[[dict[str, Any]], Any]
) -> Callable[..., Any]:
    """A Python function named ``name`` whose signature is the JSON ``schema`` of an object's
    properties (required ones first, the others ``= None``), whose docstring is
    ``description``, and which calls ``body`` with its keyword arguments."""
    properties: Mapping[str, Any] = schema.get("properties") or {}
    required = [p for p in schema.get("required") or [] if p in properties]
    optional = [p for p in properties if p not in required]
    parameters = [
        inspect.Parameter(
            p,
            inspect.Parameter.KEYWORD_ONLY,
            annotation=_TYPES.get(str(properties[p].get("type")), Any),
        )
        for p in required
    ] + [
        inspect.Parameter(
            p,
            inspect.Parameter.KEYWORD_ONLY,
            default=None,
            annotation=_TYPES.get(str(properties[p].get("type")), Any) | None,
        )
        for p in optional
    ]

    def tool(**arguments: Any) -> Any:
        return body({k: v for k, v in arguments.items() if v is not None or k in required})

    tool.__name__ = tool.__qualname__ = name
    tool.__doc__ = description
    tool.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    tool.__annotations__ = {p.name: p.annotation for p in parameters}
    return tool


def _body(case: ToolLoopCase, name: str) -> Callable[[dict[str, Any]], Any]:
    def body(arguments: dict[str, Any]) -> Any:
        content, _ = case.tool_result(name, arguments)
        try:
            response = msgspec.json.decode(content)
        except msgspec.DecodeError:
            return content
        if isinstance(response, dict) and set(response) == {"error"}:
            raise ToolFailed(response["error"])
        if isinstance(response, dict) and set(response) == {"result"}:
            return response["result"]
        return response

    return body


def _config(case: ToolLoopCase) -> dict[str, Any]:
    request = case.spec.first_request
    config: dict[str, Any] = dict(request.get("generationConfig") or {})
    if request.get("systemInstruction") is not None:
        config["systemInstruction"] = request["systemInstruction"]
    config["tools"] = [
        function_for(t.name, t.description, t.parameters, _body(case, t.name))
        for t in case.spec.tools
    ]
    config["automatic_function_calling"] = {"maximum_remote_calls": case.spec.max_rounds}
    return config


def _question(case: ToolLoopCase) -> Any:
    """The user's message: the parts of the recording's first (and only) user content."""
    contents = list(case.spec.first_request.get("contents") or [])
    parts = contents[-1].get("parts", []) if contents else []
    texts = [p["text"] for p in parts if isinstance(p, dict) and "text" in p]
    return texts[0] if len(texts) == 1 else parts


def _one_attempt(types: Any) -> dict[str, Any]:
    """One HTTP attempt, where the release has retry options (releases before 1.2x make one
    attempt anyway)."""
    retry = getattr(types, "HttpRetryOptions", None)
    return {} if retry is None else {"retry_options": retry(attempts=1)}


def _run(case: ToolLoopCase) -> ClientResponse:
    from google import genai  # noqa: PLC0415 - optional library
    from google.genai import types  # noqa: PLC0415

    path = case.spec.provider_path.split("?", 1)[0]
    version = path.strip("/").split("/", 1)[0] or "v1beta"
    client = genai.Client(
        vertexai="/publishers/" in path,
        api_key=TEST_API_KEY,
        http_options=types.HttpOptions(
            base_url=case.base_url,
            api_version=version,
            timeout=int(case.timeout * 1000),
            **_one_attempt(types),
        ),
    )
    seen = _Seen()
    ended = False
    try:
        chat = client.chats.create(model=case.model, config=_config(case))
        for chunk in chat.send_message_stream(_question(case)):
            if ended:  # the first chunk of the next round
                seen, ended = _Seen(), False
            seen.read(chunk)
            ended = bool(chunk.candidates) and chunk.candidates[0].finish_reason is not None
    except Exception as exc:  # what the library raised, after what the user had seen
        raise ClientRaised(exc, seen.response()) from exc
    finally:
        if hasattr(client, "close"):  # releases before 1.2x have no close()
            client.close()
    return seen.response()


TOOL_LOOP_ADAPTER = ToolLoopAdapter(
    name="google-genai-afc",
    distribution="google-genai",
    dialects=(DIALECT,),
    capabilities=("tool_calls", "reasoning", "usage", "http_errors"),
    how=(
        "automatic function calling, streamed, in a chat: chat = client.chats.create(model, "
        "config={tools: [Python functions], the recording's generationConfig}), for chunk in "
        "chat.send_message_stream(question), one HTTP attempt; each function's signature is "
        "the recording's JSON schema (str, int, ...), its docstring the description, it returns "
        "the recorded result or raises "
        "the recorded error (AFC sends {result} or {error}); the SDK runs the calls of each "
        "round and sends the next request itself; the answer is the last round's chunks "
        "(after the chunk with the previous round's finish reason), read as the google-genai "
        "column reads a stream."
    ),
    run=_run,
    module="google.genai",
)
