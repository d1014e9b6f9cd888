"""Per-content metadata (raf-spec 1.2). No IO."""

from __future__ import annotations

from datetime import datetime

import msgspec

from raf.model._base import JSONValue, Record


class ResponseMetadata(Record, frozen=True, kw_only=True):
    """Who produced a content or event, and when.

    ``timestamp`` is timezone-aware UTC (RFC 3339 with ``Z`` in JSON). ``properties`` is a copy
    of the run options' properties. Canonical JSON leaves metadata out unless asked for,
    because timestamps differ between runs.
    """

    agent_id: str | None = None
    model_id: str | None = None
    executor_id: str | None = None
    timestamp: datetime
    properties: dict[str, JSONValue] = msgspec.field(default_factory=dict)
