"""Dialects: one module per wire format, each mapping SSE events to updates. No IO.

Use :func:`create` to get a fresh dialect by name, :func:`names` for what is available and
:func:`register` to add your own.
"""

from __future__ import annotations

from collections.abc import Callable

from raf.dialects.base import Dialect
from raf.dialects.openai_chat import OpenAIChatDialect
from raf.errors import DialectError

__all__ = ["Dialect", "OpenAIChatDialect", "create", "names", "register"]

_REGISTRY: dict[str, Callable[..., Dialect]] = {
    OpenAIChatDialect.name: OpenAIChatDialect,
}


def register(name: str, factory: Callable[..., Dialect]) -> None:
    """Make ``create(name)`` return ``factory(**limits)``; replaces an earlier registration.

    The factory is called with the keyword limits ``max_json_depth`` and ``max_raw_chars``
    (:mod:`raf.limits`); one that has no use for them accepts and ignores them (``**_``).
    """
    _REGISTRY[name] = factory


def names() -> list[str]:
    """The names of the registered dialects, sorted."""
    return sorted(_REGISTRY)


def create(dialect: str | Dialect, **limits: int) -> Dialect:
    """A new dialect for one stream.

    Args:
        dialect: a registered name, or a dialect object (returned as it is).
        **limits: ``max_json_depth``, ``max_raw_chars``: passed to the dialect's factory.

    Raises:
        DialectError: the name is not registered; the message lists the known names.
    """
    if not isinstance(dialect, str):
        return dialect
    try:
        factory = _REGISTRY[dialect]
    except KeyError:
        known = ", ".join(names())
        raise DialectError(f"unknown dialect {dialect!r}; known dialects: {known}") from None
    return factory(**limits)
