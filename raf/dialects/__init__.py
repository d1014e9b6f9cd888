"""Dialects: one module per wire format, each mapping frames to updates. No IO.

Use :func:`create` to get a fresh dialect by name, :func:`names` for what is available and
:func:`register` to add your own. Dialects of other packages are found through the entry
point group ``raf.dialects`` (``name = "package.module:Factory"``), loaded on first use, and
a format's dialect through its descriptor (:attr:`raf.formats.Format.dialect`): a format
whose package holds its dialect needs no line here.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType

from raf.dialects.base import Dialect, JSONEventDialect
from raf.errors import DialectError

__all__ = [
    "ENTRY_POINT_GROUP",
    "Dialect",
    "JSONEventDialect",
    "create",
    "factory",
    "names",
    "register",
]

ENTRY_POINT_GROUP = "raf.dialects"
"""The entry point group third-party dialects register under."""

# The built-in dialects, imported when first used: name -> "module:attribute".
_BUILTIN: dict[str, str] = {
    "anthropic_messages": "raf.dialects.anthropic_messages:AnthropicMessagesDialect",
    "gemini": "raf.dialects.gemini:GeminiDialect",
    "openai_chat": "raf.dialects.openai_chat:OpenAIChatDialect",
    "openai_responses": "raf.dialects.openai_responses:OpenAIResponsesDialect",
}

_REGISTRY: dict[str, Callable[..., Dialect]] = {}
_TARGETS: dict[str, str] = dict(_BUILTIN)
_LOADED: list[bool] = []  # non-empty once the entry points were read


def _load_entry_points() -> None:
    if _LOADED:
        return
    _LOADED.append(True)
    # Imported late: importlib.metadata pulls in email, socket and more.
    from importlib.metadata import entry_points  # noqa: PLC0415

    for point in entry_points(group=ENTRY_POINT_GROUP):
        if point.name not in _TARGETS and point.name not in _REGISTRY:
            _TARGETS[point.name] = point.value


def register(name: str, factory: Callable[..., Dialect]) -> None:
    """Make ``create(name)`` return ``factory(**limits)``; replaces an earlier registration.

    The factory is called with the keyword limits ``max_json_depth`` and ``max_raw_chars``
    (:mod:`raf.limits`); one that has no use for them accepts and ignores them (``**_``).
    """
    _REGISTRY[name] = factory


def names() -> list[str]:
    """The names of the available dialects (built-in, registered, entry points, and the
    dialects of the formats, :func:`raf.formats.names`), sorted."""
    _load_entry_points()
    return sorted(set(_REGISTRY) | set(_TARGETS) | set(_formats().names()))


def _formats() -> ModuleType:
    """:mod:`raf.formats`, imported late (its descriptors import the dialects)."""
    from raf import formats  # noqa: PLC0415

    return formats


def _of_format(name: str) -> Callable[..., Dialect] | None:
    """The dialect factory a format's descriptor names (a format whose package holds its
    dialect needs no line in :data:`_BUILTIN`), or ``None``."""
    described = _formats().find(name) if name in _formats().names() else None
    return None if described is None else described.dialect


def factory(name: str) -> Callable[..., Dialect]:
    """The factory of a dialect name, imported if needed.

    Raises:
        DialectError: the name is unknown (the message lists the known names), or its
            module could not be imported.
    """
    found = _REGISTRY.get(name)
    if found is not None:
        return found
    if name not in _TARGETS:
        _load_entry_points()  # only for names raf does not know itself
    target = _TARGETS.get(name)
    if target is None:
        described = _of_format(name)
        if described is not None:
            _REGISTRY[name] = described
            return described
        known = ", ".join(names())
        raise DialectError(f"unknown dialect {name!r}; known dialects: {known}")
    module_name, _, attribute = target.partition(":")
    try:
        value: Callable[..., Dialect] = getattr(importlib.import_module(module_name), attribute)
    except Exception as exc:  # a broken third-party package must not break raf
        raise DialectError(
            f"dialect {name!r} could not be loaded from {target!r}: {type(exc).__name__}: {exc}"
        ) from exc
    _REGISTRY[name] = value
    return value


def create(dialect: str | Dialect, **limits: int) -> Dialect:
    """A new dialect for one stream.

    Args:
        dialect: a dialect name, or a dialect object (returned as it is).
        **limits: ``max_json_depth``, ``max_raw_chars``: passed to the dialect's factory.

    Raises:
        DialectError: the name is unknown; the message lists the known names.
    """
    if not isinstance(dialect, str):
        return dialect
    return factory(dialect)(**limits)
