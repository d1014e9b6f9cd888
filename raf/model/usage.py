"""Token usage and finish reasons (raf-spec 1.9 and 1.10). No IO."""

from __future__ import annotations

from enum import StrEnum

from raf.model._base import Record


class FinishReason(StrEnum):
    """Why a model turn ended.

    A finish reason is a plain ``str`` wherever the model stores one, so any provider string
    that is not listed here (``"function_call"``, ``"insufficient_system_resource"``, ...) is
    kept verbatim, like RAF's ``Other(s)``. Members compare equal to their string value.
    """

    STOP = "stop"
    LENGTH = "length"
    TOOL_CALLS = "tool_calls"
    CONTENT_FILTER = "content_filter"
    AWAITING_APPROVAL = "awaiting_approval"
    MAX_ROUNDS = "max_rounds"

    @classmethod
    def parse(cls, value: str) -> str:
        """Return the member for a known value, else the string itself (case-sensitive)."""
        try:
            return cls(value)
        except ValueError:
            return value


class Usage(Record, frozen=True, kw_only=True):
    """Token counts of a model turn.

    The three totals default to 0; the optional counts are ``None`` when the provider did not
    report them (which is different from a reported 0).
    """

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    prompt_cache_hit_tokens: int | None = None
    prompt_cache_miss_tokens: int | None = None
    reasoning_tokens: int | None = None

    @property
    def cache_hit_tokens(self) -> int:
        """Prompt tokens served from the provider's cache (0 when unknown)."""
        return self.prompt_cache_hit_tokens or 0

    @property
    def cache_miss_tokens(self) -> int:
        """Prompt tokens not served from cache: the reported value, else prompt - hit (>= 0)."""
        if self.prompt_cache_miss_tokens is not None:
            return self.prompt_cache_miss_tokens
        return max(self.prompt_tokens - self.cache_hit_tokens, 0)

    @property
    def cache_stats_available(self) -> bool:
        """Whether the provider reported any cache statistic."""
        return self.prompt_cache_hit_tokens is not None or self.prompt_cache_miss_tokens is not None

    @property
    def cache_hit_ratio(self) -> float:
        """Share of prompt tokens served from cache, by the rule of raf-spec 1.9."""
        hit = self.cache_hit_tokens
        if hit == 0:
            return 0.0
        miss = self.prompt_cache_miss_tokens
        if miss is not None and hit + miss > 0:
            return hit / (hit + miss)
        if self.prompt_tokens > 0:
            return hit / self.prompt_tokens
        return 0.0


def add_usage(first: Usage | None, second: Usage | None) -> Usage | None:
    """The sum of two usages (``None`` counts as nothing): the three totals are added, and each
    optional count is the sum of the reported ones (``None`` when neither reported it). The
    tool loop's total over its rounds (docs/agent.md)."""
    if first is None:
        return second
    if second is None:
        return first

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
