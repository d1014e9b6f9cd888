"""Stopping a campaign from a signal handler (raf.fuzz.stop.StopRequest): a request made
while hypothesis's engine runs never raises there (where hypothesis would fail its own
assertions or swallow it, as `raf fuzz` once answered SIGTERM with an internal error); the
campaign stops at its next step with what it found. Outside a campaign, and while the check
runs, a request raises ``KeyboardInterrupt`` at once, as Ctrl-C does."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import pytest

from raf.conformance.levels import Mismatch
from raf.fuzz.campaign import Progress, fuzz
from raf.fuzz.generate import FuzzStream, streams
from raf.fuzz.stop import StopRequest
from tests.fuzz.test_campaign import EXAMPLES, check_of, drops_finish_text


def test_outside_a_campaign_a_request_interrupts_at_once() -> None:
    stop = StopRequest()
    with pytest.raises(KeyboardInterrupt):
        stop.request()
    assert stop.requested


def in_the_engine(stop: StopRequest, steps: list[str]) -> None:
    with stop.deferred():
        stop.request()  # noted, not raised
        steps.append("went on")
        with stop.immediate():  # the check would start here: it stops instead
            steps.append("checked")


def test_in_the_engine_a_request_waits_for_the_next_checkpoint() -> None:
    stop = StopRequest()
    steps: list[str] = []
    with pytest.raises(KeyboardInterrupt):
        in_the_engine(stop, steps)
    assert steps == ["went on"]


def noted_at_the_end(stop: StopRequest) -> None:
    with stop.deferred():
        stop.request()


def test_a_request_noted_at_the_end_of_the_rounds_still_stops() -> None:
    with pytest.raises(KeyboardInterrupt):
        noted_at_the_end(StopRequest())


def in_the_check(stop: StopRequest, reached: list[str]) -> None:
    with stop.deferred(), stop.immediate():
        stop.request()
        reached.append("after")


def test_in_the_check_a_request_interrupts_at_once() -> None:
    reached: list[str] = []
    with pytest.raises(KeyboardInterrupt):
        in_the_check(StopRequest(), reached)
    assert reached == []


def test_a_request_between_streams_ends_the_campaign_with_its_findings() -> None:
    # on_progress runs in the engine's time, after a stream is checked: a request there is
    # what a signal landing between two streams makes. The campaign stops at the next
    # stream, interrupted, keeping the finding seen so far.
    stop = StopRequest()
    inner = check_of(drops_finish_text)
    found: list[object] = []
    calls = itertools.count()
    checked_after: list[int] = []

    def check(stream: FuzzStream) -> Sequence[Mismatch]:
        if stop.requested:
            checked_after.append(next(calls))
        return inner(stream)

    def progress(_: Progress) -> None:
        if found:
            stop.request()

    campaign = fuzz(
        streams("openai_chat"),
        check,
        examples=EXAMPLES,
        seed=1,
        on_progress=progress,
        on_finding=found.append,
        stop=stop,
    )
    assert campaign.interrupted
    assert [f.signature.text.split(" [")[0] for f in campaign.findings] == ["text lost"]
    assert checked_after == []  # no stream was checked once the stop was asked


def test_a_request_in_the_check_ends_the_campaign_as_ctrl_c_does() -> None:
    stop = StopRequest()
    inner = check_of(drops_finish_text)

    def check(stream: FuzzStream) -> Sequence[Mismatch]:
        stop.request()
        return inner(stream)  # pragma: no cover - the request raised

    campaign = fuzz(streams("openai_chat"), check, examples=EXAMPLES, seed=1, stop=stop)
    assert campaign.interrupted
    assert campaign.findings == ()
