"""Shared configuration of every model value.

Model values are ``msgspec.Struct`` classes: immutable, slotted, keyword-only, compared by
value, and tagged by a snake_case ``"type"`` field in canonical JSON. ``msgspec`` was chosen by
measurement (``bench/model_construction.py``): constructing a struct is about 10x cheaper than
a frozen slotted dataclass and about 12x cheaper than a frozen pydantic model, and the same
library gives the JSON codec and the JSON Schemas (see ``docs/model.md``).

Values are immutable trees built bottom-up, so they cannot form reference cycles; they are
declared ``gc=False``, which keeps the cyclic garbage collector from scanning the many small
objects a stream produces.

This module does no IO.
"""

from __future__ import annotations

import re
from typing import Any, TypeAlias

import msgspec

JSONValue: TypeAlias = Any
"""Any JSON value: ``dict``, ``list``, ``str``, ``int``, ``float``, ``bool`` or ``None``."""


_CAMEL_BOUNDARY = re.compile(r"(?<!^)(?=[A-Z])")


def snake_case_tag(class_name: str) -> str:
    """The canonical ``"type"`` tag of a class.

    ``ToolCallArgsParsed`` -> ``tool_call_args_parsed``.
    """
    return _CAMEL_BOUNDARY.sub("_", class_name).lower()


class Value(
    msgspec.Struct, frozen=True, kw_only=True, gc=False, tag=snake_case_tag, tag_field="type"
):
    """Base of every tagged model value (update, content, event, result, response).

    The tag is derived from the class name, so ``updates.TextDelta`` is
    ``{"type": "text_delta", ...}`` in canonical JSON.
    """


class Record(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """Base of plain model records that are never part of a union (no ``type`` tag)."""
