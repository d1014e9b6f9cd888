"""Which representation should raf's model types use?

Construction is on the hot path (one object per streamed delta), so this script builds the
same 4-field update (like ``ToolCallDelta``) with every candidate, in one process and one run,
and prints each as a ratio to a plain function that packs the same keyword arguments into a
tuple (the cheapest possible container). It also times JSON encoding of 1,000 such values,
because snapshots, the CLI and the conformance runner serialise every update.

Timing is the harness's (bench/harness.py): thread CPU time, every candidate and the tuple
function back to back in each paired round, the median (min-max) of the per-round ratios;
each candidate's value is first checked to hold the four fields.

Run: ``python bench/model_construction.py`` (``--rounds N``; install ``pydantic`` to include
it).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
from collections.abc import Callable
from typing import Any, NamedTuple

import msgspec
from harness import Contender, Settings, compare, print_environment, table

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
    index: int | None  # type: ignore[assignment]  # shadows tuple.index, as the model's would
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


def _construct(make: Callable[..., Any]) -> Contender[Any]:
    """``N`` values built with ``make``; the last one is checked. Each is built through a
    call of a zero-argument function, as ``timeit`` called the lambda this script used to
    give it, so the ratios compare with the figures of docs/model.md."""

    def one() -> Any:
        return make(index=0, id="call_1", name=None, arguments_delta='{"a')

    def build() -> Any:
        value = None
        for _ in range(N):
            value = one()
        return value

    def check(value: Any) -> str | None:
        fields = tuple(value) if isinstance(value, tuple) else _fields(value)
        return None if fields == (0, "call_1", None, '{"a') else f"holds {fields!r}"

    return Contender(getattr(make, "__qualname__", repr(make)), build, check)


def _fields(value: Any) -> tuple[Any, ...]:
    return tuple(getattr(value, f) for f in ("index", "id", "name", "arguments_delta"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="paired rounds (5)")
    rounds = parser.parse_args().rounds
    settings = Settings()
    print_environment(("pydantic",), settings)

    candidates = {"tuple-returning function": plain_tuple, **_candidates()}
    contenders = [dataclasses.replace(_construct(m), name=n) for n, m in candidates.items()]
    comparison = compare(contenders, rounds=rounds, settings=settings)
    print(f"\nconstruct a 4-field update, {N:,} objects; time as a ratio to the tuple function")
    rows = []
    for name in list(candidates)[1:]:
        ratio = comparison.slowdown(name)
        rows.append((ratio.median if ratio else math.inf, name, ratio))
    print(
        table(
            ["candidate", "time ratio"],
            [
                [name, ratio.format(unit="x") if ratio else comparison.outcomes[name].verdict]
                for _, name, ratio in sorted(rows, key=lambda row: row[0])
            ],
        )
    )

    objs = [MsFrozen(index=i, id="call_1", name=None, arguments_delta='{"a') for i in range(1000)]
    dcs = [DcFrozen(index=i, id="call_1", name=None, arguments_delta='{"a') for i in range(1000)]

    def with_msgspec() -> bytes:
        for _ in range(199):
            msgspec.json.encode(objs)
        return msgspec.json.encode(objs)

    def with_json() -> bytes:
        for _ in range(199):
            json.dumps([{"type": "tool_call_delta", **dataclasses.asdict(d)} for d in dcs])
        return json.dumps(
            [{"type": "tool_call_delta", **dataclasses.asdict(d)} for d in dcs]
        ).encode()

    want = json.loads(msgspec.json.encode(objs))
    same = lambda got: None if json.loads(got) == want else "other JSON"  # noqa: E731
    encoding = compare(
        [
            Contender("msgspec.json.encode", with_msgspec, same),
            Contender("dataclasses.asdict + json", with_json, same),
        ],
        rounds=rounds,
        settings=settings,
    )
    print("\nencode 1,000 updates to JSON, 200 times; time as a ratio to msgspec")
    ratio = encoding.slowdown("dataclasses.asdict + json")
    print(
        table(
            ["encoder", "time ratio"],
            [
                ["msgspec.json.encode", "1.00x"],
                [
                    "dataclasses.asdict + json",
                    ratio.format(unit="x")
                    if ratio
                    else encoding.outcomes["dataclasses.asdict + json"].verdict,
                ],
            ],
        )
    )


if __name__ == "__main__":
    main()
