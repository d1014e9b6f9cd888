"""Dialects: the toolkit every wire format's dialect is built from, and the registry. No IO.

A format's dialect lives in its package, ``raf/formats/<name>/dialect.py``; every format of
:mod:`raf.formats` is a dialect of the same name. Use :func:`create` to get a fresh dialect
by name, :func:`names` for what is available and :func:`register` to add your own. Dialects
of other packages are found through the entry point group ``raf.dialects``
(``name = "package.module:Factory"``), loaded on first use.

What the dialects share stays here: :mod:`~raf.dialects.base` (the protocol and the JSON
event dialect), :mod:`~raf.dialects.tables` (usage and finish-reason tables),
:mod:`~raf.dialects.templates`, :mod:`~raf.dialects.sniff` (``--dialect auto``) and
:mod:`~raf.dialects.unread` (formats raf recognises but does not read).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

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

_REGISTRY: dict[str, Callable[..., Dialect]] = {}
_TARGETS: dict[str, str] = {}  # the entry points: name -> "module:attribute"
_LOADED: list[bool] = []  # non-empty once the entry points were read


def _load_entry_points() -> None:
    if _LOADED:
        return
    _LOADED.append(True)
    # Imported late: importlib.metadata pulls in email, socket and more.
    from importlib.metadata import entry_points  # noqa: PLC0415

    for point in entry_points(group=ENTRY_POINT_GROUP):
        if point.name not in _TARGETS and point.name not in _REGISTRY:
            _TARGETS[point.name] = point.value  # a format's own dialect still comes first


def register(name: str, factory: Callable[..., Dialect]) -> None:
    """Make ``create(name)`` return ``factory(**limits)``; replaces an earlier registration.

    The factory is called with the keyword limits ``max_json_depth`` and ``max_raw_chars``
    (:mod:`raf.limits`); one that has no use for them accepts and ignores them (``**_``).
    """
    _REGISTRY[name] = factory


def names() -> list[str]:
    """The names of the available dialects (the formats', registered, and entry points),
    sorted."""
    from raf import formats  # noqa: PLC0415 - raf.formats imports this package

    _load_entry_points()
    return sorted(set(_REGISTRY) | set(_TARGETS) | set(formats.names()))


def factory(name: str) -> Callable[..., Dialect]:
    """The factory of a dialect name, imported if needed.

    Raises:
        DialectError: the name is unknown (the message lists the known names), or its
            module could not be imported.
    """
    found = _REGISTRY.get(name)
    if found is not None:
        return found
    from raf import formats  # noqa: PLC0415 - raf.formats imports this package

    value: Callable[..., Dialect]
    try:
        value = formats.get(name).dialect  # a format's dialect: the one in its package
    except formats.FormatError as exc:
        if name in formats.names():  # a format that cannot be loaded
            raise DialectError(f"dialect {name!r} could not be loaded: {exc}") from exc
        value = _from_entry_point(name)
    _REGISTRY[name] = value
    return value


def _from_entry_point(name: str) -> Callable[..., Dialect]:
    _load_entry_points()  # only for names no format has
    target = _TARGETS.get(name)
    if target is None:
        raise DialectError(f"unknown dialect {name!r}; known dialects: {', '.join(names())}")
    module_name, _, attribute = target.partition(":")
    try:
        value: Callable[..., Dialect] = getattr(importlib.import_module(module_name), attribute)
    except Exception as exc:  # a broken third-party package must not break raf
        raise DialectError(
            f"dialect {name!r} could not be loaded from {target!r}: {type(exc).__name__}: {exc}"
        ) from exc
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
