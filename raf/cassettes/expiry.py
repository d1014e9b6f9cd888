"""When a recorded cassette is too old: the ``max_age`` and ``on_expiry`` of its
``recorded`` header (:class:`raf.cassettes.format.Recorded`). Pure functions; the caller
gives the current time.

``max_age`` is a whole number and a unit: ``90m`` (minutes), ``12h`` (hours), ``30d`` (days)
or ``2w`` (weeks). A recording older than that is *expired*: :func:`verdict` says by how much,
and whether it is a warning (``on_expiry: warn``, the default) or an error (``on_expiry:
fail``). :func:`problems` is what ``raf cassette lint`` reports of a header: an expired
recording, a ``max_age`` or ``date`` that does not parse, a ``date`` later than now.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal

from raf.cassettes.format import Recorded

__all__ = [
    "MAX_AGE_FORMS",
    "UNITS",
    "Expiry",
    "age_text",
    "parse_date",
    "parse_max_age",
    "problems",
    "verdict",
]

UNITS: dict[str, timedelta] = {
    "m": timedelta(minutes=1),
    "h": timedelta(hours=1),
    "d": timedelta(days=1),
    "w": timedelta(weeks=1),
}
"""The units of a ``max_age``, by their letter."""

MAX_AGE_FORMS = "a whole number and a unit m, h, d or w: 90m, 12h, 30d, 2w"
"""The forms a ``max_age`` may take, as the error messages say them."""

_MAX_AGE = re.compile(r"([1-9][0-9]{0,5})([mhdw])")

RERECORD = "raf record ... --mode all, or pytest ... --raf-record-mode all"
"""How to re-record an expired recording, as the messages say it."""


def parse_max_age(text: str) -> timedelta:
    """The duration a ``max_age`` says.

    Raises:
        ValueError: ``text`` is not one of :data:`MAX_AGE_FORMS`; the message says which
            forms are.
    """
    match = _MAX_AGE.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        raise ValueError(f"max_age {text!r} is not {MAX_AGE_FORMS}")
    return int(match.group(1)) * UNITS[match.group(2)]


def parse_date(text: str) -> datetime:
    """The instant a recorded ``date`` says (ISO 8601 with a time zone, ``...Z`` for UTC).

    Raises:
        ValueError: ``text`` is not an ISO 8601 date and time with a time zone.
    """
    try:
        when = datetime.fromisoformat(text)
    except (TypeError, ValueError):
        raise ValueError(
            f"date {text!r} is not an ISO 8601 date and time in UTC (2026-12-03T14:00:00Z)"
        ) from None
    if when.tzinfo is None:
        raise ValueError(f"date {text!r} has no time zone: write it in UTC, ending in Z")
    try:
        return when.astimezone(UTC)
    except OverflowError:  # 0001-01-01T00:00:00+01:00 is before the first instant there is
        raise ValueError(f"date {text!r} is out of range once in UTC") from None


def age_text(age: timedelta) -> str:
    """An age as a person says it: minutes under two hours, hours under two days, else days."""
    minutes = int(age.total_seconds() // 60)
    if minutes < 120:
        return f"{minutes} minute{'' if minutes == 1 else 's'}"
    if minutes < 2 * 24 * 60:
        return f"{minutes // 60} hours"
    return f"{age.days} days"


@dataclass(frozen=True)
class Expiry:
    """A recording older than its ``max_age``: when it was recorded, how old it is, its
    limit, and what lint makes of it (``warn``: a warning, ``fail``: an error)."""

    recorded: datetime
    age: timedelta
    limit: timedelta
    max_age: str
    action: Literal["warn", "fail"]

    @property
    def severity(self) -> Literal["warning", "error"]:
        """The severity of a lint finding for it."""
        return "error" if self.action == "fail" else "warning"

    def message(self) -> str:
        """``recorded 2026-10-01, 63 days ago; max_age 30d: re-record it (...)``."""
        return (
            f"recorded {self.recorded.date().isoformat()}, {age_text(self.age)} ago; "
            f"max_age {self.max_age}: re-record it ({RERECORD})"
        )


def verdict(recorded: Recorded, now: datetime) -> Expiry | None:
    """Whether a recording made ``recorded`` is expired at ``now`` (an aware datetime).

    Returns ``None`` when it has no ``max_age``, is not older than it, or its ``date`` or
    ``max_age`` does not parse (:func:`problems` reports those).
    """
    if recorded.max_age is None:
        return None
    try:
        limit = parse_max_age(recorded.max_age)
        when = parse_date(recorded.date)
    except ValueError:
        return None
    age = now - when
    if age <= limit:
        return None
    return Expiry(when, age, limit, recorded.max_age, recorded.on_expiry)


Problem = tuple[str, str, str]
"""A lint finding of the header: its place in the document, its severity, its message."""


def problems(recorded: Recorded, now: datetime) -> list[Problem]:
    """What ``raf cassette lint`` reports of a ``recorded`` header at ``now``: a ``date``
    that does not parse (error) or is later than ``now`` (warning: the recording machine's
    clock was wrong, and the age cannot be told), a ``max_age`` that does not parse
    (error, naming the forms), an expired recording (:func:`verdict`)."""
    found: list[Problem] = []
    try:
        when: datetime | None = parse_date(recorded.date)
    except ValueError as exc:
        found.append(("raf.recorded.date", "error", str(exc)))
        when = None
    if when is not None and when > now:
        found.append(
            (
                "raf.recorded.date",
                "warning",
                f"recorded {recorded.date}, later than now ({now.isoformat()}): the recording "
                "machine's clock was wrong, so the recording's age cannot be told",
            )
        )
    if recorded.max_age is not None:
        try:
            parse_max_age(recorded.max_age)
        except ValueError as exc:
            found.append(("raf.recorded.max_age", "error", str(exc)))
    expired = verdict(recorded, now)
    if expired is not None:
        found.append(("raf.recorded.date", expired.severity, expired.message()))
    return found
