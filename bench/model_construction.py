"""Which representation should raf's model types use?

Construction is on the hot path (one object per streamed delta), so this script builds the
same two shapes with every candidate, in one process and one run, and prints each as a ratio
to a plain tuple (the cheapest possible container):

* a 4-field update (like ``ToolCallDelta``), and
* a 3-field content with a metadata reference (like ``contents.ToolCallArgs``).

It also times canonical encoding of a list of such objects, because snapshots, the CLI and
the conformance runner serialise every update.

Run: ``python bench/model_construction.py`` (needs ``pydantic`` installed to include it).
"""

from __future__ import annotations

import dataclasses
import json
import timeit
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


def _candidates() -> dict[str, Any]:
    out: dict[str, Any] = {
        "dataclass(frozen, slots)": DcFrozen,
        "dataclass(slots)": DcMutable,
        "NamedTuple": NT,
        "msgspec.Struct(frozen)": MsFrozen,
    }
    try:
        import pydantic  # noqa: PLC0415 - optional comparison

        class Pd(pydantic.BaseModel):
            model_config = pydantic.ConfigDict(frozen=True)
            index: int | None
            id: str | None
            name: str | None
            arguments_delta: str

        out["pydantic.BaseModel(frozen)"] = Pd
        out["pydantic.model_construct"] = Pd.model_construct
    except ImportError:  # pragma: no cover - optional comparison
        pass
    return out


def main() -> None:
    base = min(timeit.repeat(lambda: (0, "call_1", None, '{"a'), number=N, repeat=5))
    print(f"construct 4-field update, {N:,} objects, ratio to tuple literal (lower is better)")
    rows = []
    for name, cls in _candidates().items():
        t = min(
            timeit.repeat(
                lambda cls=cls: cls(index=0, id="call_1", name=None, arguments_delta='{"a'),
                number=N,
                repeat=5,
            )
        )
        rows.append((t / base, name, t / N * 1e9))
    for ratio, name, ns in sorted(rows):
        print(f"  {name:30s} {ratio:6.1f}x   ({ns:5.0f} ns/object)")

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
    print("encode 1,000 updates to JSON, ratio to msgspec (lower is better)")
    print(f"  msgspec.json.encode            {1.0:6.1f}x")
    print(f"  dataclasses.asdict + json      {t_dc / t_ms:6.1f}x")


if __name__ == "__main__":
    main()
