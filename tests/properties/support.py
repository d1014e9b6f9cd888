"""What the property tests compare: the parts of a response a client must get right."""

from __future__ import annotations

from typing import Any

from raf.model import AgentResponse


def summary(response: AgentResponse) -> dict[str, Any]:
    """Text, reasoning, calls (id, name, arguments), finish reason, usage and error codes."""
    return {
        "text": response.text,
        "reasoning": response.reasoning_text,
        "tool_calls": [(c.id, c.name, c.arguments) for c in response.tool_calls],
        "finish_reason": response.finish_reason,
        "usage": response.usage,
        "errors": [e.error_code for e in response.errors],
    }
