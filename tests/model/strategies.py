"""Hypothesis strategies for every model type, derived from the classes' own field types.

Deriving them from ``msgspec.inspect`` means a field added to the model is generated (and so
round-trip tested) without touching this file.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import msgspec
from hypothesis import strategies as st

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
json_values: st.SearchStrategy[Any] = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def _deferred(info: msgspec.inspect.Type) -> st.SearchStrategy[Any]:
    """``from_type_info(info)``, made when first drawn (a struct's fields may name it)."""
    return st.deferred(lambda: from_type_info(info))


def from_type_info(info: msgspec.inspect.Type) -> st.SearchStrategy[Any]:
    """A strategy for values of the type ``msgspec.inspect`` describes."""
    match info:
        case msgspec.inspect.AnyType():
            return json_values
        case msgspec.inspect.NoneType():
            return st.none()
        case msgspec.inspect.StrType():
            return st.text(max_size=20)
        case msgspec.inspect.IntType():
            return st.integers(min_value=0, max_value=2**40)
        case msgspec.inspect.FloatType():
            return st.floats(allow_nan=False, allow_infinity=False)
        case msgspec.inspect.BoolType():
            return st.booleans()
        case msgspec.inspect.DateTimeType():
            return st.datetimes(
                timezones=st.just(UTC),
                min_value=datetime(1970, 1, 2),
                max_value=datetime(2999, 1, 1),
            )
        case msgspec.inspect.EnumType(cls=cls):
            return st.sampled_from(list(cls))
        case msgspec.inspect.UnionType(types=types):
            return st.one_of([from_type_info(t) for t in types])
        case msgspec.inspect.VarTupleType(item_type=item):
            return st.lists(from_type_info(item), max_size=3).map(tuple)
        case msgspec.inspect.ListType(item_type=item):
            return st.lists(from_type_info(item), max_size=3)
        case msgspec.inspect.DictType(key_type=key, value_type=value):
            return st.dictionaries(from_type_info(key), from_type_info(value), max_size=3)
        case msgspec.inspect.StructType(cls=cls, fields=fields):
            return st.fixed_dictionaries({f.name: _deferred(f.type) for f in fields}).map(
                lambda kw: cls(**kw)
            )
    raise NotImplementedError(f"no strategy for {info!r}")  # pragma: no cover


def values_of(type_: Any) -> st.SearchStrategy[Any]:
    """Values of a model class or union (e.g. ``Content``)."""
    return from_type_info(msgspec.inspect.type_info(type_))
