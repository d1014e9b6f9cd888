"""``Event``: structured events beside the contents of a result (raf-spec 1.4). No IO."""

from __future__ import annotations

from typing import TypeAlias

from raf.model._base import JSONValue, Value
from raf.model.metadata import ResponseMetadata


class ExecutorInvoking(Value, frozen=True, kw_only=True):
    """An executor (e.g. a workflow node) is about to run."""

    executor_id: str
    executor_type: str
    input_message_count: int
    meta: ResponseMetadata | None = None


class ExecutorInvoked(Value, frozen=True, kw_only=True):
    """An executor finished."""

    executor_id: str
    duration_ms: int
    output_content_count: int
    meta: ResponseMetadata | None = None


class Custom(Value, frozen=True, kw_only=True):
    """An application-defined event, e.g. ``reasoning_signature``."""

    event_type: str
    payload: JSONValue
    meta: ResponseMetadata | None = None


Event: TypeAlias = ExecutorInvoking | ExecutorInvoked | Custom
"""Any event."""

VARIANTS: tuple[type[Value], ...] = (ExecutorInvoking, ExecutorInvoked, Custom)
"""Every event class."""
