"""Usage and finish-reason tables: how a dialect maps its wire fields into raf's model. No IO.

Each dialect declares one :class:`UsageTable` and one finish-reason mapping; docs/dialects.md
shows them per dialect. Declaring them as data (instead of parsing code per dialect) keeps the
rules in one place, testable and printable.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from raf.model.usage import FinishReason, Usage

__all__ = ["Count", "UsageTable", "finish_reason"]

Count = tuple[tuple[str, ...], ...]
"""How one :class:`Usage` field is read: alternatives tried in order; each alternative is a
tuple of dotted paths whose counts are added. An alternative applies when at least one of its
paths holds a count (a non-negative integer); counts that are missing or malformed count 0."""


def _count(raw: Mapping[str, Any], path: str) -> int | None:
    value: Any = raw
    for key in path.split("."):
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value if type(value) is int and value >= 0 else None


def _read(raw: Mapping[str, Any], count: Count) -> int | None:
    for alternative in count:
        found = [c for path in alternative if (c := _count(raw, path)) is not None]
        if found:
            return sum(found)
    return None


@dataclass(frozen=True)
class UsageTable:
    """Where each :class:`Usage` field comes from in a format's usage object.

    ``prompt_tokens`` and ``completion_tokens`` are 0 when absent; ``total_tokens`` is
    prompt + completion when absent; ``cache_miss`` is prompt - hit (at least 0) when absent
    and the hit count is known; the other optional counts are ``None`` when absent.
    """

    prompt_tokens: Count
    completion_tokens: Count
    total_tokens: Count = ()
    cache_hit: Count = ()
    cache_miss: Count = ()
    reasoning: Count = ()

    def parse(self, raw: Mapping[str, Any]) -> Usage:
        """The :class:`Usage` a usage object holds, by this table."""
        prompt = _read(raw, self.prompt_tokens) or 0
        completion = _read(raw, self.completion_tokens) or 0
        total = _read(raw, self.total_tokens)
        hit = _read(raw, self.cache_hit)
        miss = _read(raw, self.cache_miss)
        if miss is None and hit is not None:
            miss = max(prompt - hit, 0)
        return Usage(
            prompt_tokens=prompt,
            completion_tokens=completion,
            total_tokens=total if total is not None else prompt + completion,
            prompt_cache_hit_tokens=hit,
            prompt_cache_miss_tokens=miss,
            reasoning_tokens=_read(raw, self.reasoning),
        )

    def has_any(self, raw: Mapping[str, Any]) -> bool:
        """Whether the object holds any count this table reads."""
        return any(
            _read(raw, count) is not None
            for count in (
                self.prompt_tokens,
                self.completion_tokens,
                self.total_tokens,
                self.cache_hit,
                self.cache_miss,
                self.reasoning,
            )
        )


def finish_reason(table: Mapping[str, str], value: str) -> str:
    """A wire finish reason in raf's terms: the table's entry, else the value itself (kept
    verbatim, like RAF's ``Other(s)``); known values become :class:`FinishReason` members."""
    return FinishReason.parse(table.get(value, value))
