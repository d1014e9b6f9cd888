"""Handpicked ``result`` responses, each with the JSON path of the field that breaks the
published schema (``None``: it is valid), shared by the schema test and the process test."""

from __future__ import annotations

from typing import Any

# (the "response" of a result, the JSON path the schema error names, or None when valid)
RESPONSES: list[tuple[Any, str | None]] = [
    (None, None),
    ({}, None),
    ({"text": "hi", "finish_reason": "stop", "unknown": [1, {"x": None}]}, None),
    ({"tool_calls": [{"arguments": {"city": "Paris"}}]}, None),  # a call that never got a name
    ({"tool_calls": [{"id": None, "name": None, "arguments": None}]}, None),
    ({"tool_calls": [{"id": "c1", "name": "f", "arguments": "{not parsed", "extra": 1}]}, None),
    ({"usage": {"prompt_tokens": 1e21, "completion_tokens": 2.0, "x": "y"}}, None),
    ({"usage": None, "errors": [{}], "reasoning_text": None}, None),
    ({"errors": [{"error_code": None, "message": "boom"}]}, None),
    ({"tool_calls": "get_weather"}, "$.response.tool_calls"),
    ({"tool_calls": [{"name": 3}]}, "$.response.tool_calls[0].name"),
    ({"tool_calls": [{"id": 7, "name": "f"}]}, "$.response.tool_calls[0].id"),
    ({"tool_calls": [None]}, "$.response.tool_calls[0]"),
    ({"usage": {"prompt_tokens": "3"}}, "$.response.usage.prompt_tokens"),
    ({"usage": {"total_tokens": True}}, "$.response.usage.total_tokens"),
    ({"usage": {"reasoning_tokens": [1]}}, "$.response.usage.reasoning_tokens"),
    ({"usage": 12}, "$.response.usage"),
    ({"text": None}, "$.response.text"),
    ({"reasoning_text": 1}, "$.response.reasoning_text"),
    ({"finish_reason": ["stop"]}, "$.response.finish_reason"),
    ({"errors": {"message": "x"}}, "$.response.errors"),
    ({"errors": [{"message": None}]}, "$.response.errors[0].message"),
    ({"errors": [{"error_code": 4}]}, "$.response.errors[0].error_code"),
    ("a text", "$.response"),
]

# Fields of the result itself, beside "type", "id" and "response".
RESULT_FIELDS: list[tuple[dict[str, Any], str | None]] = [
    ({"results": [], "updates": [{"type": "text_delta", "delta": "x"}], "raised": None}, None),
    ({"raised": "ValueError: boom", "response": None}, None),
    ({"raised": 1}, "$.raised"),
    ({"results": {}}, "$.results"),
    ({"updates": "none"}, "$.updates"),
]
