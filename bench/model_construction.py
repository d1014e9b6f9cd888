"""Which representation should raf's model types use?

Construction is on the hot path (one object per streamed delta), so this script builds the
same 4-field update (like ``ToolCallDelta``) with every candidate, in one process and one run,
and prints each as a ratio to a plain function that packs the same keyword arguments into a
tuple (the cheapest possible container). It also times JSON encoding of 1,000 such values,
because snapshots, the CLI and the conformance runner serialise every update.

Run: ``python bench/model_construction.py`` (install ``pydantic`` to include it).
"""

from __future__ import annotations

import dataclasses
import json
import timeit
from collections.abc import Callable
from typing import Any, NamedTuple

import msgspec

N = 200_000


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class DcFrozen:
    index: int | None
    id: str | None
    name: str | None
    arguments_delta: str


@dataclasses.dataclass(slots=True, kw_only=True)
class DcMutable:
    index: int | None
    id: str | None
    name: str | None
    arguments_delta: str


class NT(NamedTuple):
    index: int | None
    id: str | None
    name: str | None
    arguments_delta: str


class MsFrozen(msgspec.Struct, frozen=True, kw_only=True, tag="tool_call_delta", tag_field="type"):
    index: int | None
    id: str | None
    name: str | None
    arguments_delta: str


def plain_tuple(
    *, index: int | None, id: str | None, name: str | None, arguments_delta: str
) -> tuple[int | None, str | None, str | None, str]:
    return (index, id, name, arguments_delta)


def _candidates() -> dict[str, Callable[..., Any]]:
    out: dict[str, Callable[..., Any]] = {
        "dataclass(frozen, slots)": DcFrozen,
        "dataclass(slots)": DcMutable,
        "NamedTuple": NT,
        "msgspec.Struct(frozen)": MsFrozen,
    }
    try:
        import pydantic  # noqa: PLC0415 - optional comparison
    except ImportError:  # pragma: no cover
        return out

    class Pd(pydantic.BaseModel):
        model_config = pydantic.ConfigDict(frozen=True)
        index: int | None
        id: str | None
        name: str | None
        arguments_delta: str

    out["pydantic.BaseModel(frozen)"] = Pd
    out["pydantic.model_construct"] = Pd.model_construct
    return out


def _time(make: Callable[..., Any]) -> float:
    return min(
        timeit.repeat(
            lambda: make(index=0, id="call_1", name=None, arguments_delta='{"a'),
            number=N,
            repeat=5,
        )
    )


def main() -> None:
    base = _time(plain_tuple)
    print(f"construct a 4-field update, {N:,} objects; ratio to a tuple-returning function")
    rows = sorted((_time(make) / base, name) for name, make in _candidates().items())
    for ratio, name in rows:
        print(f"  {name:30s} {ratio:6.2f}x")

    objs = [MsFrozen(index=i, id="call_1", name=None, arguments_delta='{"a') for i in range(1000)]
    dcs = [DcFrozen(index=i, id="call_1", name=None, arguments_delta='{"a') for i in range(1000)]
    t_ms = min(timeit.repeat(lambda: msgspec.json.encode(objs), number=200, repeat=5))
    t_dc = min(
        timeit.repeat(
            lambda: json.dumps([{"type": "tool_call_delta", **dataclasses.asdict(d)} for d in dcs]),
            number=200,
            repeat=5,
        )
    )
    print("encode 1,000 updates to JSON; ratio to msgspec")
    print(f"  msgspec.json.encode            {1.0:6.2f}x")
    print(f"  dataclasses.asdict + json      {t_dc / t_ms:6.2f}x")


if __name__ == "__main__":
    main()
