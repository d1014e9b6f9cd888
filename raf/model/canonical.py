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

__all__ = ["encode_json", "from_canonical", "from_json", "to_canonical", "to_json"]

T = TypeVar("T")

_META = "meta"
_SCALARS = frozenset({str, int, float, bool})


def to_canonical(value: Any, *, include_meta: bool = False) -> Any:
    """Turn a model value (or a list/tuple of them) into canonical JSON builtins.

    Works for values of any nesting depth: it walks the value with an explicit stack, never
    recursing per level (tool-call arguments can nest as deep as ``max_json_depth`` allows).

    Args:
        value: a model value, a sequence of them, or a plain JSON value.
        include_meta: keep the ``meta`` field of contents and events.

    Returns:
        ``dict``/``list``/``str``/``int``/``float``/``bool``/``None`` ready for any JSON encoder.
    """
    root: list[Any] = [None]
    # (value, container, key): convert value and store it at container[key].
    stack: list[tuple[Any, Any, Any]] = [(value, root, 0)]
    push = stack.append
    while stack:
        item, parent, key = stack.pop()
        if item is None or type(item) in _SCALARS:
            parent[key] = item
        elif isinstance(item, msgspec.Struct):
            out: dict[str, Any] = {}
            config = item.__struct_config__
            if config.tag is not None:
                out[config.tag_field or "type"] = config.tag
            for name in item.__struct_fields__:
                if name == _META and not include_meta:
                    continue
                out[name] = None  # keeps the declaration order
                push((getattr(item, name), out, name))
            parent[key] = out
        elif isinstance(item, list | tuple):
            seq: list[Any] = [None] * len(item)
            for n, element in enumerate(item):
                push((element, seq, n))
            parent[key] = seq
        elif isinstance(item, Enum):
            parent[key] = item.value
        elif isinstance(item, dict):
            mapping: dict[Any, Any] = dict.fromkeys(item)
            for k, element in item.items():
                push((element, mapping, k))
            parent[key] = mapping
        elif isinstance(item, datetime):
            parent[key] = msgspec.to_builtins(item)
        else:
            parent[key] = item
    return root[0]


def encode_json(value: Any, *, indent: int | None = None) -> str:
    """JSON text of canonical builtins (what :func:`to_canonical` returns), compact or indented.

    msgspec's encoder is used when it can; a value nested deeper than the interpreter's stack
    lets it go (it recurses) is written by an equivalent iterative encoder instead, so the
    output is the same text either way.
    """
    try:
        data = msgspec.json.encode(value)
        if indent is not None:
            data = msgspec.json.format(data, indent=indent)
        return data.decode("utf-8")
    except RecursionError:
        return _encode_iteratively(value, indent)


def _encode_iteratively(value: Any, indent: int | None) -> str:
    encode = msgspec.json.encode
    colon = ":" if indent is None else ": "
    out: list[str] = []
    # Items: (True, text) to write as is, or (False, value, level) to encode.
    stack: list[tuple[Any, ...]] = [(False, value, 0)]
    while stack:
        item = stack.pop()
        if item[0]:
            out.append(item[1])
            continue
        node, level = item[1], item[2]
        is_map = isinstance(node, dict)
        if not is_map and not isinstance(node, list | tuple):
            out.append(encode(node).decode("utf-8"))
            continue
        if not node:
            out.append("{}" if is_map else "[]")
            continue
        inner = "" if indent is None else "\n" + " " * (indent * (level + 1))
        outer = "" if indent is None else "\n" + " " * (indent * level)
        out.append("{" if is_map else "[")
        pending: list[tuple[Any, ...]] = []
        entries = node.items() if is_map else enumerate(node)
        for n, (k, element) in enumerate(entries):
            prefix = ("," if n else "") + inner
            if is_map:
                prefix += encode(k).decode("utf-8") + colon
            pending.append((True, prefix))
            pending.append((False, element, level + 1))
        pending.append((True, outer + ("}" if is_map else "]")))
        stack.extend(reversed(pending))
    return "".join(out)


def to_json(value: Any, *, include_meta: bool = False, indent: int | None = None) -> str:
    """Canonical JSON text of a model value.

    Args:
        value: what :func:`to_canonical` accepts.
        include_meta: keep per-content metadata.
        indent: ``None`` for one compact line (JSON Lines), else the indentation width.

    Returns:
        The JSON text; non-ASCII characters are written as themselves (UTF-8).
    """
    return encode_json(to_canonical(value, include_meta=include_meta), indent=indent)


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
