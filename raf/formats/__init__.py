"""Wire formats: one self-describing :class:`Format` per format raf reads. No IO.

:func:`get` gives a format's descriptor by name, :func:`names` the names of every format.
The shells (the replay server, the cassette importer, the client adapters) read what they
need of a format here instead of keeping their own per-format tables. Formats of other
packages are found through the entry point group ``raf.formats``
(``name = "package.module:FORMAT"``, a :class:`Format`), loaded on first use; one that cannot
be loaded raises :class:`FormatError` and never breaks raf.
"""

from __future__ import annotations

import importlib

from raf.errors import RafError
from raf.formats.format import (
    CONTENT_TYPES,
    Endpoint,
    ErrorDocument,
    Format,
    HttpApi,
    RequestUrl,
)

__all__ = [
    "CONTENT_TYPES",
    "ENTRY_POINT_GROUP",
    "Endpoint",
    "ErrorDocument",
    "Format",
    "FormatError",
    "HttpApi",
    "RequestUrl",
    "find",
    "get",
    "names",
    "register",
]

ENTRY_POINT_GROUP = "raf.formats"
"""The entry point group third-party formats register under."""


class FormatError(RafError, LookupError):
    """A format name is unknown, or its descriptor could not be loaded."""


# The built-in formats, imported when first used: name -> "module:attribute".
_BUILTIN: dict[str, str] = {
    "anthropic_messages": "raf.formats.anthropic_messages:FORMAT",
    "bedrock_converse": "raf.formats.bedrock_converse:FORMAT",
    "cohere_v2": "raf.formats.cohere_v2:FORMAT",
    "gemini": "raf.formats.gemini:FORMAT",
    "gemini_interactions": "raf.formats.gemini_interactions:FORMAT",
    "ollama_chat": "raf.formats.ollama_chat:FORMAT",
    "openai_chat": "raf.formats.openai_chat:FORMAT",
    "openai_completions": "raf.formats.openai_completions:FORMAT",
    "openai_responses": "raf.formats.openai_responses:FORMAT",
}

_REGISTRY: dict[str, Format] = {}
_TARGETS: dict[str, str] = dict(_BUILTIN)
_LOADED: list[bool] = []  # non-empty once the entry points were read


def _load_entry_points() -> None:
    if _LOADED:
        return
    _LOADED.append(True)
    # Imported late: importlib.metadata pulls in email, socket and more.
    from importlib.metadata import entry_points  # noqa: PLC0415

    try:
        points = list(entry_points(group=ENTRY_POINT_GROUP))
    except Exception:  # broken package metadata must not break raf  # pragma: no cover
        return
    for point in points:
        if point.name not in _TARGETS and point.name not in _REGISTRY:
            _TARGETS[point.name] = point.value


def register(descriptor: Format) -> None:
    """Make ``get(descriptor.name)`` return ``descriptor``; replaces an earlier registration."""
    _REGISTRY[descriptor.name] = descriptor


def names() -> list[str]:
    """The names of every format (built-in, registered, and entry points), sorted."""
    _load_entry_points()
    return sorted(set(_REGISTRY) | set(_TARGETS))


def get(name: str) -> Format:
    """The descriptor of a format, imported if needed.

    Raises:
        FormatError: the name is unknown (the message lists the known names), or its
            descriptor could not be imported or is not a :class:`Format` of that name.
    """
    found = _REGISTRY.get(name)
    if found is not None:
        return found
    if name not in _TARGETS:
        _load_entry_points()  # only for names raf does not know itself
    target = _TARGETS.get(name)
    if target is None:
        raise FormatError(f"unknown format {name!r}; known formats: {', '.join(names())}")
    module_name, _, attribute = target.partition(":")
    try:
        value: object = getattr(importlib.import_module(module_name), attribute)
    except Exception as exc:  # a broken third-party package must not break raf
        raise FormatError(
            f"format {name!r} could not be loaded from {target!r}: {type(exc).__name__}: {exc}"
        ) from exc
    if not isinstance(value, Format) or value.name != name:
        raise FormatError(f"format {name!r}: {target!r} is not a Format named {name!r}")
    _REGISTRY[name] = value
    return value


def find(name: str) -> Format | None:
    """:func:`get`, or ``None`` when the name is unknown or its format cannot be loaded (a
    shell then treats it as a format it has no table for)."""
    try:
        return get(name)
    except FormatError:
        return None
