"""What kind of difference a level found, and how much it matters: the one vocabulary every
level, report, pytest item, baseline and matrix cell uses. Data and two small functions; no
IO.

Every :class:`~raf.conformance.levels.Mismatch` has a *kind* (:data:`KINDS`), and every kind a
default *severity*: ``error`` (the case fails) or ``notice`` (shown and counted, the case still
passes). ``raf conform --fail-on notice`` makes notices fail too; ``--severity KIND=SEVERITY``
changes one kind's severity for a run. docs/conformance.md's table of kinds is checked against
:data:`KINDS` by a test, so the two cannot drift.

    from raf.conformance.severity import KINDS, Policy

    KINDS["detail"].severity   # 'notice'
    Policy(fail_on="notice").fails("detail")   # True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Final, Literal, get_args

__all__ = [
    "KINDS",
    "MARKS",
    "SEVERITIES",
    "Kind",
    "KindInfo",
    "Policy",
    "Severity",
    "kinds_table",
    "parse_severity_overrides",
]

Kind = Literal["lost", "wrong", "unreported", "invented", "performance", "detail"]
"""What a difference is (:data:`KINDS` says what each means)."""

Severity = Literal["notice", "error"]
"""How much a difference matters, from the least."""

SEVERITIES: Final[tuple[Severity, ...]] = get_args(Severity)
"""The severities, from the least to the most."""


@dataclass(frozen=True)
class KindInfo:
    """One kind of difference.

    Attributes:
        name: the kind.
        severity: its default severity.
        meaning: what a difference of this kind is.
        examples: differences of this kind the levels report.
        why: why its default severity is what it is.
    """

    name: Kind
    severity: Severity
    meaning: str
    examples: str
    why: str


KINDS: Final[Mapping[Kind, KindInfo]] = {
    info.name: info
    for info in (
        KindInfo(
            "lost",
            "error",
            "something the stream carried is missing from what the client hands its user",
            "text or reasoning cut short or empty; fewer tool calls; a call's id or name "
            "missing; usage or a finish reason the provider sent, not reported; no result "
            "at all (a crash, a timeout)",
            "the user acts on an answer that is not the one the provider gave",
        ),
        KindInfo(
            "wrong",
            "error",
            "a value differs from the one the stream carried",
            "another text; a call's name or arguments; a provider id changed; a finish "
            "reason or token count that differs; two calls with one id; an error code; "
            "streamed results out of order; a request unlike the recorded one",
            "the user acts on a value the provider never sent",
        ),
        KindInfo(
            "unreported",
            "error",
            "the stream had a problem (an in-band error, a cut, a broken call) and the "
            "client hid it",
            "no error for a truncated stream, a provider error after HTTP 200, arguments "
            "cut by the length limit",
            "a partial answer passes for a whole one: nothing tells the user to retry",
        ),
        KindInfo(
            "invented",
            "error",
            "the client reports what the stream never carried",
            "a finish reason on a cut stream; a call or text the stream did not hold; usage "
            "or a token count the provider did not send; an error on a clean stream",
            "the user is told something the provider never said (a bill, an end, a call)",
        ),
        KindInfo(
            "performance",
            "error",
            "the client's time grows with how the stream is cut, or faster than the stream's "
            "size: the answer comes back whole, but late",
            "one long event (a long text, a call's long arguments) in 1-7 byte reads takes "
            "more than 3× the same bytes in short events, or its time grows super-linearly "
            "with its size (raf cost: a buffer scanned again on every read)",
            "an 8 MiB answer that takes minutes is an answer the user never gets (a timeout, "
            "a hung agent); the factor is a ratio measured in one run, well above noise",
        ),
        KindInfo(
            "detail",
            "notice",
            "a form in which correct clients legitimately differ",
            "an optional count the provider did not send reported as 0; an id the client "
            "made up for a call the stream gave none, unique but not raf's; a notice (a "
            "harmless deviation of the stream, such as rotating item ids) told or not; "
            "arguments equal only as IEEE-754 doubles (an integer past 2**53 read by "
            "JavaScript's JSON.parse)",
            "nothing the user relies on differs; shown so that a team can still choose to "
            "be strict (--fail-on notice)",
        ),
    )
}
"""Every kind, with its default severity and the reason for it."""


MARKS: Final[Mapping[str, str]] = {"pass": "✓", "notice": "◐", "fail": "✗"}
"""How a case, a scenario or a matrix cell is marked: passed, passed with notices only,
failed."""


@dataclass(frozen=True)
class Policy:
    """Which differences fail a case: every kind's severity (the defaults of :data:`KINDS`,
    with ``overrides``), and the least severity that fails (``fail_on``)."""

    fail_on: Severity = "error"
    overrides: Mapping[Kind, Severity] = field(default_factory=dict)

    def severity(self, kind: Kind) -> Severity:
        """The severity of a difference of ``kind`` under this policy."""
        return self.overrides.get(kind, KINDS[kind].severity)

    def fails(self, kind: Kind) -> bool:
        """Whether a difference of ``kind`` fails its case."""
        return SEVERITIES.index(self.severity(kind)) >= SEVERITIES.index(self.fail_on)


def parse_severity_overrides(items: Iterable[str]) -> dict[Kind, Severity]:
    """``KIND=SEVERITY`` items (``detail=error``) as overrides for :class:`Policy`.

    Raises:
        ValueError: an item is not ``KIND=SEVERITY`` of a known kind and severity; the
            message says which.
    """
    out: dict[Kind, Severity] = {}
    for item in items:
        kind, sep, severity = item.partition("=")
        if not sep or kind not in KINDS or severity not in SEVERITIES:
            raise ValueError(
                f"{item!r} is not KIND=SEVERITY (kinds: {', '.join(KINDS)}; "
                f"severities: {', '.join(SEVERITIES)})"
            )
        out[kind] = severity  # type: ignore[index]  # checked just above
    return out


def kinds_table() -> str:
    """The Markdown table of :data:`KINDS` that docs/conformance.md holds (a test checks that
    the document has exactly this table)."""
    lines = [
        "| kind | default severity | what it is | examples | why that severity |",
        "|---|---|---|---|---|",
    ]
    lines += [
        f"| `{k.name}` | {k.severity} | {k.meaning} | {k.examples} | {k.why} |"
        for k in KINDS.values()
    ]
    return "\n".join(lines) + "\n"
