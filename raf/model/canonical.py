"""Canonical JSON: the language-neutral form of every model value. No IO.

Rules (docs/model.md has the full description):

* a tagged value is a JSON object whose first key is ``"type"``, the snake_case class name
  (``{"type": "text_delta", "delta": "Hi"}``); plain records (usage, tool calls, messages,
  metadata) have no tag;
* every field is present, in declaration order, ``null`` when unset; field names are RAF's;
* ``meta`` (per-content metadata) is left out unless ``include_meta=True``, because it holds
  timestamps that differ between runs;
* sequences are arrays; enums are their string value; datetimes are RFC 3339 with ``Z``.

``from_json(to_json(x, include_meta=True), T) == x`` holds for every model value ``x`` of type
``T``; without metadata it holds for values whose ``meta`` is ``None``.
"""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Any, TypeVar, overload

import msgspec

__all__ = ["from_canonical", "from_json", "to_canonical", "to_json"]

T = TypeVar("T")

_META = "meta"


def to_canonical(value: Any, *, include_meta: bool = False) -> Any:
    """Turn a model value (or a list/tuple of them) into canonical JSON builtins.

    Args:
        value: a model value, a sequence of them, or a plain JSON value.
        include_meta: keep the ``meta`` field of contents and events.

    Returns:
        ``dict``/``list``/``str``/``int``/``float``/``bool``/``None`` ready for any JSON encoder.
    """
    if isinstance(value, msgspec.Struct):
        out: dict[str, Any] = {}
        tag = value.__struct_config__.tag
        if tag is not None:
            out[value.__struct_config__.tag_field or "type"] = tag
        for name in value.__struct_fields__:
            if name == _META and not include_meta:
                continue
            out[name] = to_canonical(getattr(value, name), include_meta=include_meta)
        return out
    if isinstance(value, list | tuple):
        return [to_canonical(v, include_meta=include_meta) for v in value]
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dict):
        return {k: to_canonical(v, include_meta=include_meta) for k, v in value.items()}
    if isinstance(value, datetime):
        return msgspec.to_builtins(value)
    return value


def to_json(value: Any, *, include_meta: bool = False, indent: int | None = None) -> str:
    """Canonical JSON text of a model value.

    Args:
        value: what :func:`to_canonical` accepts.
        include_meta: keep per-content metadata.
        indent: ``None`` for one compact line (JSON Lines), else the indentation width.

    Returns:
        The JSON text; non-ASCII characters are written as themselves (UTF-8).
    """
    data = msgspec.json.encode(to_canonical(value, include_meta=include_meta))
    if indent is not None:
        data = msgspec.json.format(data, indent=indent)
    return data.decode("utf-8")


@overload
def from_canonical(data: Any, type_: type[T]) -> T: ...
@overload
def from_canonical(data: Any, type_: Any) -> Any: ...
def from_canonical(data: Any, type_: Any) -> Any:
    """Build a model value of ``type_`` (a class or a union such as ``Content``) from builtins.

    Raises:
        msgspec.ValidationError: the data does not match the type; the message names the path.
    """
    return msgspec.convert(data, type=type_)


@overload
def from_json(text: str | bytes, type_: type[T]) -> T: ...
@overload
def from_json(text: str | bytes, type_: Any) -> Any: ...
def from_json(text: str | bytes, type_: Any) -> Any:
    """Parse canonical JSON text into a model value of ``type_``.

    Raises:
        msgspec.DecodeError: the text is not JSON.
        msgspec.ValidationError: the JSON does not match the type.
    """
    return msgspec.json.decode(text, type=type_)
