"""The campaign engine: generate streams, check each, and shrink every distinct failure to a
minimal stream. No process, no file and no clock of its own: the check, the clock and the
example database are handed in.

    from raf.fuzz.campaign import fuzz
    from raf.fuzz.generate import streams

    campaign = fuzz(streams("openai_chat"), check, examples=2000)
    for finding in campaign.findings:
        print(finding.signature.text, len(finding.stream.body))

``check(stream)`` returns the differences that fail (:class:`raf.conformance.levels.Mismatch`,
empty when the stream passes). A failure's :class:`~raf.fuzz.cassette.Signature` is its first
failing difference's place and kind with the stream's quirks: failures with the same
signature are the same bug, found once. So are failures with the same first difference whose
quirks include a known failure's (:func:`explains`): while a failure is shrunk, a stream that
fails the same way with fewer quirks takes its place, so that a finding keeps only the quirks
involved.

The search is hypothesis's own, through its public API: the campaign runs *rounds* of a
``@given(st.data())`` test. A round fails only for a signature not known yet, and once it
has seen one, only for that one, so hypothesis shrinks the same bug all along; the last
failing call of a round is hypothesis's final replay of the minimal example. The signature is
then known, and the next round looks for another, until the budget (``examples`` generated,
or ``seconds`` on the clock) is spent. Past the time a round stops before drawing, except
that shrinking a failure already found goes on for at most ``shrink_seconds`` more.

``seed`` makes a campaign replay exactly (no database is used then). Otherwise a ``database``
(a folder, or a hypothesis ``ExampleDatabase``) keeps every failure found, and a later
campaign replays them first: the database never forgets the failures of earlier rounds,
which a round's test, passing on known signatures, would otherwise delete.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as seeded
from hypothesis import strategies as st
from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase
from hypothesis.errors import Flaky

from raf.conformance.levels import Mismatch
from raf.fuzz.cassette import Signature, signature
from raf.fuzz.generate import FuzzStream
from raf.fuzz.stop import StopRequest

__all__ = [
    "DEFAULT_EXAMPLES",
    "Campaign",
    "Finding",
    "KeepingDatabase",
    "Progress",
    "StopCampaign",
    "StopRequest",
    "explains",
    "fuzz",
]

DEFAULT_EXAMPLES = 1000
"""The examples of a campaign given neither ``examples`` nor ``seconds``."""

Check = Callable[[FuzzStream], Sequence[Mismatch]]


@dataclass(frozen=True)
class Finding:
    """One distinct failure.

    Attributes:
        signature: what makes it this bug (:func:`raf.fuzz.cassette.signature`).
        stream: the stream that fails: the minimal one once ``shrunk``.
        mismatches: the failing differences on it.
        shrunk: hypothesis has shrunk it to a minimal stream (``False``: as first seen, or
            shrinking was cut short by the end of the campaign).
        seed: the campaign's seed.
    """

    signature: Signature
    stream: FuzzStream
    mismatches: tuple[Mismatch, ...]
    shrunk: bool
    seed: int | None


@dataclass(frozen=True)
class Progress:
    """Where a campaign is: the streams checked, the seconds spent, the distinct failures."""

    examples: int
    seconds: float
    failures: int

    @property
    def rate(self) -> float:
        """Examples per second."""
        return self.examples / self.seconds if self.seconds > 0 else 0.0


@dataclass(frozen=True)
class Campaign:
    """What a campaign found.

    Attributes:
        findings: one per distinct failure, in the order they were first seen.
        examples: the streams checked (shrinking included).
        seconds: how long it took, by the campaign's clock.
        interrupted: Ctrl-C stopped it; the findings are those so far.
        seed: the seed it ran with.
        stopped: why the check stopped it early (:class:`StopCampaign`), or ``""``.
        generated: the streams generated (``examples`` less the shrinking's).
    """

    findings: tuple[Finding, ...]
    examples: int
    seconds: float
    interrupted: bool
    seed: int | None = None
    stopped: str = ""
    generated: int = 0

    @property
    def rate(self) -> float:
        """Examples per second."""
        return self.examples / self.seconds if self.seconds > 0 else 0.0


class StopCampaign(Exception):
    """Raised by a check that cannot go on (an implementation that gave up): the campaign
    ends with the findings so far, and ``str(exc)`` as its :attr:`Campaign.stopped`."""


class _Failed(AssertionError):
    """A round's failure: a new signature (hypothesis shrinks it)."""


class _StopRound(BaseException):
    """Ends a round at once (the budget is spent, or the check stopped): a ``BaseException``,
    so hypothesis neither catches nor shrinks it."""


class _CheckRaised(BaseException):
    """The check itself raised: a bug in the check, raised again by :func:`fuzz`."""

    def __init__(self, error: Exception) -> None:
        super().__init__(error)
        self.error = error


class KeepingDatabase(ExampleDatabase):
    """An example database that keeps the failures of earlier rounds (see the module
    docstring), under a namespace of its own.

    A delete is done only in a campaign's first round (nothing is known yet, so an example
    that no longer fails was fixed) or for an example saved in the current round (the steps
    of its shrinking); at the end of each round the last example saved under each key (the
    minimal one) is kept for good.
    """

    def __init__(self, inner: ExampleDatabase, namespace: str = "") -> None:
        super().__init__()
        self.inner = inner
        self.prefix = namespace.encode("utf-8") + b"\0" if namespace else b""
        self.first_round = True
        self._kept: set[tuple[bytes, bytes]] = set()
        self._saved: dict[bytes, list[bytes]] = {}

    def _key(self, key: bytes) -> bytes:
        return self.prefix + key

    def save(self, key: bytes, value: bytes) -> None:
        self._saved.setdefault(key, []).append(value)
        self.inner.save(self._key(key), value)

    def fetch(self, key: bytes) -> Iterable[bytes]:
        return self.inner.fetch(self._key(key))

    def delete(self, key: bytes, value: bytes) -> None:
        if (key, value) in self._kept:
            return
        if self.first_round or value in self._saved.get(key, ()):
            self.inner.delete(self._key(key), value)

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        if src == dest:
            self.save(src, value)
            return
        self.save(dest, value)
        self.delete(src, value)

    def end_round(self) -> None:
        """Keep the last example saved under each key in this round; later rounds are not
        the first."""
        for key, values in self._saved.items():
            self._kept.add((key, values[-1]))
        self._saved.clear()
        self.first_round = False


def same_place(one: Signature, other: Signature) -> bool:
    """Whether two failures have the same first difference (place, kind, check), whatever
    their quirks: a first sighting is told once per place, the shrinking then finds which
    quirks the failure needs."""
    return (one.key, one.kind, one.level) == (other.key, other.kind, other.level)


def explains(known: Signature, other: Signature) -> bool:
    """Whether the failure ``known`` stands for ``other`` too: the same first difference (place,
    kind, check), and the quirks of ``known`` among those of ``other`` (the quirks involved
    are the fewest a failure needs; a stream that shows more shows the same bug)."""
    return (known.key, known.kind, known.level) == (other.key, other.kind, other.level) and set(
        known.quirks
    ) <= set(other.quirks)


def _database(database: ExampleDatabase | str | Path | None, namespace: str) -> KeepingDatabase:
    assert database is not None
    inner = (
        database
        if isinstance(database, ExampleDatabase)
        else DirectoryBasedExampleDatabase(str(database))
    )
    return KeepingDatabase(inner, namespace)


class _State:
    def __init__(self, seed: int, started: float) -> None:
        self.seed = seed
        self.started = started
        self.calls = 0
        self.generated = 0
        self.known: set[Signature] = set()
        self.sighted: dict[Signature, None] = {}  # in the order first seen
        self.distinct = 0  # sightings no earlier one explains
        self.findings: dict[Signature, Finding] = {}
        self.pending: dict[Signature, tuple[FuzzStream, tuple[Mismatch, ...]]] = {}
        self.target: Signature | None = None
        self.last: tuple[FuzzStream, tuple[Mismatch, ...]] | None = None
        self.stopped = ""
        self.cut = False


def fuzz(
    strategy: st.SearchStrategy[FuzzStream],
    check: Check,
    *,
    examples: int | None = None,
    seconds: float | None = None,
    seed: int | None = None,
    database: ExampleDatabase | str | Path | None = None,
    clock: Callable[[], float] = time.monotonic,
    on_progress: Callable[[Progress], None] | None = None,
    on_finding: Callable[[Finding], None] | None = None,
    shrink_seconds: float = 30.0,
    name: str | None = None,
    stop: StopRequest | None = None,
) -> Campaign:
    """Search ``strategy`` for streams that ``check`` fails, and shrink each distinct failure.

    Args:
        strategy: the streams (:func:`raf.fuzz.generate.streams`).
        check: the failing differences of a stream (empty: it passes).
        examples: the most streams to generate (shrinking not counted).
        seconds: the most seconds to search, by ``clock``; with ``examples`` too, whichever
            ends first. Neither: :data:`DEFAULT_EXAMPLES`.
        seed: replay: the same seed gives the same campaign (no database is used).
        database: where the failures are kept between campaigns (a folder, or a hypothesis
            ``ExampleDatabase``); ``None``: nowhere.
        clock: the clock (seconds).
        on_progress: called after each stream checked.
        on_finding: called when a failure is first seen (``shrunk`` false) and again when
            it is shrunk.
        shrink_seconds: past the time, the longest a failure's shrinking goes on.
        name: what the database keys the examples by (default: the strategy's repr): the
            format and the quirks.
        stop: how a signal handler stops the campaign (:class:`StopRequest`).

    Ctrl-C (``KeyboardInterrupt``) stops the campaign: the findings so far are returned with
    ``interrupted`` set. A shell that handles signals passes ``stop`` and calls its
    :meth:`StopRequest.request` from its handler instead of raising (see
    :class:`StopRequest`). A check that raises :class:`StopCampaign` stops it too
    (``stopped``); any other exception it raises is raised again.
    """
    if examples is None and seconds is None:
        examples = DEFAULT_EXAMPLES
    if examples is not None and examples < 1:
        raise ValueError(f"examples must be at least 1, not {examples}")
    if seconds is not None and not seconds > 0:
        raise ValueError(f"seconds must be more than 0, not {seconds}")
    replay = seed is not None
    if seed is None:
        seed = random.SystemRandom().getrandbits(32)
    keeping = (
        None
        if replay or database is None
        else _database(database, name if name is not None else repr(strategy))
    )
    state = _State(seed, clock())
    deadline = None if seconds is None else state.started + seconds

    def progress() -> Progress:
        return Progress(state.calls, clock() - state.started, state.distinct)

    def spent(now: float) -> bool:
        if examples is not None and state.generated >= examples:
            return True
        return deadline is not None and now >= deadline

    def notify(finding: Finding) -> None:
        if on_finding is not None:
            on_finding(finding)

    stopping = stop if stop is not None else StopRequest()

    def test(data: st.DataObject) -> None:
        stopping.checkpoint()
        now = clock()
        if state.target is None:
            if spent(now):
                raise _StopRound
            state.generated += 1
        elif deadline is not None and now >= deadline + shrink_seconds:
            state.cut = True
            raise _StopRound
        stream = data.draw(strategy)
        state.calls += 1
        try:
            with stopping.immediate():
                found = tuple(check(stream))
        except StopCampaign as exc:
            state.stopped = str(exc) or type(exc).__name__
            raise _StopRound from None
        except Exception as exc:
            raise _CheckRaised(exc) from None
        stopping.checkpoint()
        if on_progress is not None:
            on_progress(progress())
        if not found:
            return
        sig = signature(stream, found)
        if any(explains(known, sig) for known in state.known):
            return
        if not any(same_place(seen, sig) for seen in state.sighted):
            state.distinct += 1
            notify(Finding(sig, stream, found, shrunk=False, seed=state.seed))
        state.sighted.setdefault(sig, None)
        if state.target is None or explains(sig, state.target):
            state.target = sig  # the same bug, with the same quirks or fewer of them
        else:
            state.pending.setdefault(sig, (stream, found))
            return
        state.last = (stream, found)
        raise _Failed(sig.text)

    def record(shrunk: bool) -> None:
        target, last = state.target, state.last
        state.target, state.last = None, None
        if target is None or last is None:
            return
        state.known.add(target)
        state.pending.pop(target, None)
        finding = Finding(target, last[0], last[1], shrunk=shrunk, seed=state.seed)
        for older in [f for f in state.findings if explains(target, f)]:
            del state.findings[older]  # the same bug, found again with fewer quirks
        state.findings[target] = finding
        if shrunk:
            notify(finding)

    interrupted = False
    round_number = 0
    try:
        with stopping.deferred():
            while not spent(clock()):
                remaining = 10**9 if examples is None else max(examples - state.generated, 1)
                round_test = settings(
                    database=keeping,
                    max_examples=remaining,
                    deadline=None,
                    phases=(Phase.reuse, Phase.generate, Phase.shrink),
                    suppress_health_check=list(HealthCheck),
                    report_multiple_bugs=False,
                    verbosity=Verbosity.quiet,
                    print_blob=False,
                    derandomize=False,
                )(seeded((state.seed << 16) + round_number)(given(st.data())(test)))
                round_number += 1
                try:
                    round_test()
                except _Failed:
                    record(shrunk=True)
                except Flaky:  # the minimal example passed when replayed: keep the last failure
                    record(shrunk=True)
                except _StopRound:
                    record(shrunk=False)
                    break
                else:  # nothing new in a whole round: the budget is spent, or nothing is left
                    break
                finally:
                    if keeping is not None:
                        keeping.end_round()
    except KeyboardInterrupt:
        interrupted = True
        record(shrunk=False)
    except _CheckRaised as exc:
        raise exc.error from None
    for sig, (stream, found) in state.pending.items():
        if not any(explains(known, sig) for known in state.findings):
            state.findings[sig] = Finding(sig, stream, found, shrunk=False, seed=state.seed)
    return Campaign(
        findings=tuple(state.findings.values()),
        examples=state.calls,
        seconds=clock() - state.started,
        interrupted=interrupted,
        seed=state.seed,
        stopped=state.stopped,
        generated=min(state.generated, state.calls),
    )
