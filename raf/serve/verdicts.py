"""What ``raf serve`` does with the request rules a request breaks. Pure: no IO, no aiohttp.

Every request is checked with :func:`raf.formats.request_rules.check_rules` against the
earlier rounds of the interaction it gets (:meth:`raf.serve.rounds.Rounds.prior`). The mode
(``raf serve --rules``) decides what follows:

=========  ==================================================================================
mode       a request that breaks a rule
=========  ==================================================================================
reject     (the default) is answered as the provider would when a rule it breaks is one the
           provider refuses (severity ``rejected`` with an ``error`` in the catalogue): the
           rule's HTTP status and the format's own error document around the provider's
           message; the header ``x-raf-rules`` and the journal say which rule, where. Other
           rules (``misread``, ``degraded``: the provider takes the request) change nothing
           but the journal
report     gets the recorded answer; the journal lists the rules broken
off        is not checked
=========  ==================================================================================

A check that raises is a bug in raf, never the client's fault: the request is answered as if
that rule were kept, and the problem is reported (:attr:`Verdict.problems`) for the log and
the journal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal, get_args

from raf import formats
from raf.formats.request_rules import Broken, Prior, check_rules, rule, rules_for

__all__ = [
    "DEFAULT_MODE",
    "HEADER",
    "MAX_HEADER_CHARS",
    "MODES",
    "Mode",
    "Refusal",
    "Verdict",
    "header_value",
    "judge",
]

Mode = Literal["reject", "report", "off"]
"""What a broken rule does (module docstring)."""

MODES: Final[tuple[Mode, ...]] = get_args(Mode)
DEFAULT_MODE: Final[Mode] = "reject"

HEADER: Final = "x-raf-rules"
"""The response header naming the rules a request broke: ``<rule> <field>`` joined with
``; ``."""

MAX_HEADER_CHARS: Final = 2048
"""The longest ``x-raf-rules`` value (the rest is cut, ending with ``...``)."""


@dataclass(frozen=True)
class Refusal:
    """The provider's answer to a request that breaks a rule it refuses."""

    rule: str
    status: int
    document: object
    """The format's error document (:attr:`raf.formats.Format.error_document`)."""


@dataclass(frozen=True)
class Verdict:
    """The rules one request broke, and what the server answers.

    Attributes:
        broken: every place a rule is broken, in the catalogue's order.
        refusal: the provider's error to answer instead of the recorded answer (``None``:
            answer as recorded).
        problems: checks that raised (a bug in raf: ``<rule>: <type>: <message>``).
    """

    broken: tuple[Broken, ...] = ()
    refusal: Refusal | None = None
    problems: tuple[str, ...] = field(default=())

    def rules(self) -> list[dict[str, str]]:
        """The journal's ``rules``: ``[{rule, field, message}]``."""
        return [b.to_builtins() for b in self.broken]


def _isolated(
    dialect: str, body: Mapping[str, Any], prior: Sequence[Prior]
) -> tuple[list[Broken], list[str]]:
    """Each rule of ``dialect`` checked alone, so that one that raises loses no other."""
    found = formats.find(dialect)
    checks = {} if found is None else found.request_rules
    out: list[Broken] = []
    problems: list[str] = []
    for known in rules_for(dialect):
        check = checks.get(known.id)
        if check is None:
            continue
        try:
            out.extend(Broken(known.id, where, message) for where, message in check(body, prior))
        except Exception as exc:  # a check's bug: the request is not blamed for it
            problems.append(f"{known.id}: {type(exc).__name__}: {exc}")
    return out, problems


def judge(dialect: str, body: Any, prior: Sequence[Prior], mode: Mode = DEFAULT_MODE) -> Verdict:
    """The verdict on a request ``body`` of ``dialect`` following the rounds ``prior``. Never
    raises; a body that is not a JSON object (an empty one) breaks nothing."""
    if mode == "off" or not isinstance(body, Mapping):
        return Verdict()
    try:
        broken = check_rules(dialect, body, prior)
        problems: list[str] = []
    except Exception:  # find which check raised, keep what the others found
        broken, problems = _isolated(dialect, body, prior)
    refusal = _refusal(dialect, broken) if mode == "reject" else None
    return Verdict(tuple(broken), refusal, tuple(problems))


def _refusal(dialect: str, broken: Sequence[Broken]) -> Refusal | None:
    """The error of the first rule broken that the provider refuses, in the format's
    document."""
    found = formats.find(dialect)
    if found is None:
        return None
    for place in broken:
        known = rule(place.rule)
        if known is None or known.severity != "rejected" or known.error is None:
            continue
        status = known.error.status
        return Refusal(place.rule, status, found.error_document(status, known.error.message))
    return None


def header_value(broken: Sequence[Broken]) -> str:
    """The ``x-raf-rules`` value for ``broken``: ``<rule> <field>`` of each, joined with
    ``; ``, in printable ASCII (anything else percent-encoded), at most
    :data:`MAX_HEADER_CHARS` characters."""
    text = "; ".join(f"{b.rule} {b.field}".strip() for b in broken)
    safe = "".join(c if " " <= c <= "~" and c != "%" else _escaped(c) for c in text)
    if len(safe) > MAX_HEADER_CHARS:
        safe = safe[: MAX_HEADER_CHARS - 3] + "..."
    return safe


def _escaped(char: str) -> str:
    return "".join(f"%{byte:02X}" for byte in char.encode("utf-8", "surrogatepass"))
