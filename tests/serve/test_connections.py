"""Which connections raf serve serves past --max-connections (raf.serve.connections), without
a socket."""

from __future__ import annotations

import pytest

from raf.serve.connections import Connections


def test_an_idle_connection_gives_its_place_and_a_busy_one_never_does() -> None:
    idle = {"a": True, "b": True, "c": False}
    closed: list[str] = []
    clock = iter(range(100))
    gate: Connections[str] = Connections(
        2,
        waiting=1,
        idle=lambda c: idle.get(c, False),
        close=closed.append,
        clock=lambda: float(next(clock)),
    )
    assert gate.opened("a")
    assert gate.opened("b")
    assert gate.request("b")  # b is busy now
    assert gate.opened("c")  # a (idle the longest) is closed for it
    assert closed == ["a"]
    assert gate.request("c")  # c was admitted in a's place
    assert gate.opened("d")  # every place busy: d waits, over the limit
    assert not gate.opened("e")  # and one more than the waiting room is closed unanswered
    assert not gate.request("d")  # d's request is refused: nobody busy is ever closed
    gate.done("b")
    idle["b"] = True
    assert gate.request("d")  # b went idle: it gives its place to d
    assert closed == ["a", "b"]
    assert (gate.admitted, gate.evicted, gate.refused) == (2, 2, 2)


def test_a_limit_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        Connections(0, idle=lambda c: True, close=lambda c: None)
