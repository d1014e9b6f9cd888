"""The suite as data: every case (one interaction of one cassette, cut by one chunking) with
what it expects. Reads the cassette and golden files; runs nothing.

:func:`load_suite` turns a cassette folder and a golden folder into a :class:`Suite`: the
:class:`Case` values, each with its id (``openai_chat/plain_text#0@bytes``), the recorded
status, headers and body, the golden output of its interaction and the capabilities it needs;
and the problems that keep a cassette from being a case at all (it cannot be read, it has no
golden, its golden is not valid or contradicts the reviewed ``expect`` block, a body of it
does not decode from its ``content-encoding``), each named by the cassette's scenario. Nothing
here raises for what the files hold.

Before a golden is used, it is reviewed at every level it can be (docs/conformance.md): its
last response against the cassette's ``expect`` block, which a person wrote, and its results
against the lifecycle rules, which hold for any correct client. (Its updates are checked
against an independent reader in raf's own tests.)
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from raf.cassettes.coding import BodyNotDecoded
from raf.cassettes.format import Cassette, Interaction, Request
from raf.cassettes.lint import cassette_files
from raf.cassettes.persister import load as load_cassette
from raf.cassettes.tool_loops import ToolLoopSpec
from raf.chunking import EVENTSTREAM, STANDARD_CHUNKINGS, chunk
from raf.conformance import goldens
from raf.conformance.goldens import Golden, InteractionOutput
from raf.conformance.levels import check_lifecycle
from raf.conformance.review import (
    OtherReading,
    expectation_problems,
    other_readings,
    reading_problems,
)
from raf.errors import CassetteError, GoldenFormatError

__all__ = [
    "NOT_BLESSED",
    "RECORDED",
    "Case",
    "Problem",
    "Suite",
    "blessing_problem",
    "case_id",
    "load_suite",
    "matches",
    "requirements",
    "response_headers",
    "review",
]


def case_id(dialect: str, scenario: str, interaction: int, chunking: str) -> str:
    """``<dialect>/<scenario>#<interaction>@<chunking>``."""
    return f"{dialect}/{scenario}#{interaction}@{chunking}"


@dataclass(frozen=True)
class Case:
    """One interaction of one cassette under one chunking, and what it expects; or, with
    ``loop``, one run of a client's tool loop over a tool-loop recording
    (:mod:`raf.conformance.tool_loop`): ``interaction`` is then ``None``, ``body`` the last
    recorded body and ``expected`` its reading (the final response)."""

    id: str
    scenario: str
    dialect: str
    cassette: Path
    interaction: int | None
    chunking: str
    status: int
    reason: str
    headers: dict[str, str]
    body: bytes = field(repr=False)
    """The recorded body as a client reads it: decoded from its ``content-encoding`` (which
    ``headers`` then leave out, with the ``content-length`` of the coded body)."""
    expected: InteractionOutput = field(repr=False)
    requires: frozenset[str] = frozenset()
    request: Request | None = field(default=None, repr=False)
    """The recorded request (what an ``http`` case asks the client to send)."""
    readings: tuple[OtherReading, ...] = field(default=(), repr=False)
    """The other correct responses, where reasonable readings of the stream differ (the
    cassette's ``expect.also``); the golden's ``expected.response`` is the first."""
    loop: ToolLoopSpec | None = field(default=None, repr=False)
    """The tool loop of a ``tool_loop`` case (``None`` for a case of one interaction)."""
    reads: tuple[bytes, ...] | None = field(default=None, repr=False)
    """The exact network reads of the body, when the case has them (the ``recorded``
    chunking of an interaction with a ``timing``, a stream ``raf fuzz`` generated):
    :meth:`chunks` returns them instead of cutting the body."""

    def carried_ids(self) -> frozenset[str]:
        """The call ids of the expected response that the recorded body carries (as a JSON
        string): the others are raf's own (``__tc_0``, ``call_0#2``), and any unique id is as
        good as those."""
        out = set()
        for call in self.expected.response.get("tool_calls") or []:
            call_id = call.get("id") if isinstance(call, dict) else None
            if isinstance(call_id, str) and call_id:
                quoted = json.dumps(call_id).encode("utf-8")
                raw = json.dumps(call_id, ensure_ascii=False).encode("utf-8")
                if quoted in self.body or raw in self.body:
                    out.add(call_id)
        return frozenset(out)

    def chunks(self) -> list[bytes]:
        """The body as the network reads of this case's chunking (its :attr:`reads` when it
        has them)."""
        if self.reads is not None:
            return list(self.reads)
        return chunk(self.body, self.chunking)

    def to_interaction(self) -> Interaction:
        """The recorded exchange, for implementations that take one."""
        from raf.cassettes.format import Request, Response  # noqa: PLC0415 - small and rare

        return Interaction(
            request=Request(uri="https://recorded.invalid/"),
            response=Response(
                status=self.status,
                reason=self.reason,
                headers={k: [v] for k, v in self.headers.items()},
                body=self.body,
            ),
        )


@dataclass(frozen=True)
class Problem:
    """A cassette that gives no case: why, named by its scenario (or file name).
    ``unblessed`` when the reason is that no person reviewed what it must give (no ``expect``
    block, or a draft): ``raf conform`` names those together."""

    scenario: str
    dialect: str
    cassette: Path
    message: str
    unblessed: bool = False

    @property
    def id(self) -> str:
        return f"{self.dialect}/{self.scenario}"


@dataclass
class Suite:
    """The cases to run and the cassettes that gave none."""

    cases: list[Case] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def scenarios(self) -> list[str]:
        """Every scenario of the suite, cases and problems, in order, once each."""
        seen = dict.fromkeys([c.scenario for c in self.cases] + [p.scenario for p in self.problems])
        return list(seen)


def matches(patterns: Sequence[str], *names: str) -> bool:
    """Whether any of ``patterns`` selects one of ``names``: a pattern with ``*``, ``?`` or
    ``[`` is a shell glob matched against the whole name; any other pattern is a substring.
    No patterns select everything."""
    if not patterns:
        return True
    for pattern in patterns:
        glob = any(c in pattern for c in "*?[")
        for name in names:
            if fnmatch.fnmatchcase(name, pattern) if glob else pattern in name:
                return True
    return False


_CODING_HEADERS = frozenset({"content-encoding", "content-length"})
"""Headers that describe a coded body, not the decoded one a case holds."""


def response_headers(interaction: Interaction) -> dict[str, str]:
    """The recorded response headers as a case gives them (names lower-case, a repeated
    header's values joined by ``", "``, no coding headers for a coded body)."""
    out: dict[str, str] = {}
    coded = interaction.response.coded
    for name, values in interaction.response.headers.items():
        key = name.lower()
        if coded and key in _CODING_HEADERS:
            continue
        out[key] = ", ".join([*filter(None, [out.get(key)]), *values])
    return out


def _bodies(cassette: Cassette) -> list[bytes] | str:
    """The body of every interaction as a client reads it (decoded from its
    ``content-encoding``), or why one cannot be read."""
    bodies = []
    for n, interaction in enumerate(cassette.interactions):
        try:
            bodies.append(interaction.response.content())
        except BodyNotDecoded as exc:
            return f"interactions[{n}].response: {exc}"
    return bodies


def requirements(output: InteractionOutput, status: int) -> frozenset[str]:
    """The capabilities a case whose expected output is ``output`` needs."""
    response = output.response
    needs = set()
    errors = response.get("errors") or []
    if response.get("tool_calls") or any(e.get("call_id") for e in errors):
        needs.add("tool_calls")
    if response.get("reasoning_text"):
        needs.add("reasoning")
    if not 200 <= status < 300:
        needs.add("http_errors")
    return frozenset(needs)


NOT_BLESSED = "not blessed"
"""How the reason of a cassette no person has reviewed begins."""


def blessing_problem(cassette: Cassette) -> str | None:
    """Why no golden of ``cassette`` can be trusted yet, or ``None``: it has no ``expect``
    block, or only a draft nobody reviewed (``reviewed: false``)."""
    info = cassette.info
    if info is None or info.expect is None:
        return (
            f"{NOT_BLESSED}: no reviewed expect block (draft one with `raf cassette expect "
            "FILE`, read it, then `raf conform --update`)"
        )
    if not info.expect.reviewed:
        return (
            f"{NOT_BLESSED}: its expect block is an unreviewed draft (read every field, fix "
            "what is wrong, then delete the line `reviewed: false`)"
        )
    return None


def review(golden: Golden, cassette: Cassette) -> list[str]:
    """Why ``golden`` cannot be trusted for ``cassette``, or nothing: the cassette must be
    blessed (:func:`blessing_problem`), its last response must satisfy the reviewed
    ``expect`` block, whose other readings must each say why and change something, and every
    interaction's results must follow the lifecycle rules and add up to its response."""
    problems = []
    unblessed = blessing_problem(cassette)
    if unblessed is not None:
        return [unblessed]
    if len(golden.interactions) != len(cassette.interactions):
        problems.append(
            f"the golden has {len(golden.interactions)} interaction(s), "
            f"the cassette {len(cassette.interactions)}"
        )
    info = cassette.info
    if info is not None and info.expect is not None and golden.interactions:
        problems += [
            f"golden contradicts expect: {p}"
            for p in expectation_problems(info.expect, golden.interactions[-1].response)
        ]
        problems += [f"expect.{p}" for p in reading_problems(info.expect)]
    for n, output in enumerate(golden.interactions):
        problems += [
            f"golden interaction {n} breaks the lifecycle rules: {m.summary()}"
            for m in check_lifecycle(output.results, output.response)
        ]
    return problems


RECORDED = "recorded"
EVENTSTREAM_TYPE = "application/vnd.amazon.eventstream"
"""The chunking of a case that replays an interaction's recorded reads (its ``timing``)."""


def _chunkings_of(interaction: Interaction, chunkings: Sequence[str]) -> list[str]:
    """The chunkings an interaction is cut by: ``chunkings``; then ``eventstream`` when its
    body is an AWS event stream (cut at every message's structure, :mod:`raf.chunking`);
    then :data:`RECORDED` when it has a recorded timing."""
    out = list(chunkings)
    content_type = interaction.response.header("content-type") or ""
    if EVENTSTREAM_TYPE in content_type.lower() and EVENTSTREAM not in out:
        out.append(EVENTSTREAM)
    if interaction.timing is not None and RECORDED not in out:
        out.append(RECORDED)
    return out


def _recorded_reads(interaction: Interaction) -> tuple[bytes, ...] | None:
    """The recorded reads of the body as a client reads it (``None`` when it does not
    decode: the case fails on its body anyway)."""
    try:
        timed = interaction.timed_chunks()
    except BodyNotDecoded:
        return None
    return None if timed is None else tuple(timed[0])


def load_suite(
    cassettes_dir: Path | Iterable[Path],
    goldens_dir: Path,
    *,
    chunkings: Sequence[str] = STANDARD_CHUNKINGS,
    select: Sequence[str] = (),
    dialects: Sequence[str] = (),
) -> Suite:
    """Every case of the cassettes under ``cassettes_dir`` (a folder, or cassette files).
    A tool-loop recording (a cassette with ``raf.run``) gives none here: it is one
    ``tool_loop`` case per chunking (:func:`raf.conformance.tool_loop.load_tool_loop_cases`).

    Args:
        cassettes_dir: where the cassettes are.
        goldens_dir: where their goldens are (``<dialect>/<scenario>.json``).
        chunkings: the chunkings each interaction is cut by (:mod:`raf.chunking`).
        select: patterns (:func:`matches`) on the scenario name and the case id; a cassette
            none of them selects is left out, and so is a case.
        dialects: only these dialects (all when empty).
    """
    folders = [cassettes_dir] if isinstance(cassettes_dir, Path) else list(cassettes_dir)
    suite = Suite()
    for path in cassette_files(folders):
        _add(
            suite,
            path,
            goldens_dir=goldens_dir,
            chunkings=chunkings,
            select=select,
            dialects=dialects,
        )
    return suite


def _add(
    suite: Suite,
    path: Path,
    *,
    goldens_dir: Path,
    chunkings: Sequence[str],
    select: Sequence[str],
    dialects: Sequence[str],
) -> None:
    scenario, dialect = path.stem, path.parent.name
    try:
        cassette = load_cassette(path)
    except CassetteError as exc:
        if matches(select, scenario) and (not dialects or dialect in dialects):
            suite.problems.append(Problem(scenario, dialect, path, str(exc)))
        return
    if cassette.info is not None:
        scenario, dialect = cassette.info.scenario, cassette.info.dialect
        if cassette.info.run is not None:  # a tool-loop recording: raf.conformance.tool_loop
            return
    if dialects and dialect not in dialects:
        return
    ids = [
        case_id(dialect, scenario, n, c)
        for n, interaction in enumerate(cassette.interactions)
        for c in _chunkings_of(interaction, chunkings)
    ]
    if not matches(select, scenario, *ids):
        return
    problem = None
    golden = None
    try:
        golden_file = goldens.golden_path(goldens_dir, dialect, scenario)
    except ValueError as exc:  # a name that cannot name a golden file
        problem = f"no golden can be named: {exc}"
    else:
        try:
            golden = goldens.load(golden_file)
        except GoldenFormatError as exc:
            problem = f"golden is not valid: {exc}"
    unblessed = blessing_problem(cassette) if problem is None else None
    if unblessed is not None:  # a golden nobody can trust, or none: a person must review
        suite.problems.append(Problem(scenario, dialect, path, unblessed, unblessed=True))
        return
    if problem is None and golden is None:
        problem = "no golden file: write it with `raf conform --update` and review it"
    if problem is None and golden is not None:
        problems = review(golden, cassette)
        problem = "; ".join(problems) if problems else None
    bodies = _bodies(cassette)
    if isinstance(bodies, str):  # what the golden says, nothing can be compared with it
        problem = bodies
    if problem is not None or golden is None or isinstance(bodies, str):
        suite.problems.append(Problem(scenario, dialect, path, problem or "no golden"))
        return
    last = len(cassette.interactions) - 1
    expect = cassette.info.expect if cassette.info is not None else None
    for n, (interaction, output, body) in enumerate(
        zip(cassette.interactions, golden.interactions, bodies, strict=True)
    ):
        # The expectation (and its other readings) is of the last interaction's response.
        readings = tuple(other_readings(expect, output.response)) if n == last else ()
        headers = response_headers(interaction)
        needs = requirements(output, interaction.response.status)
        for chunking in _chunkings_of(interaction, chunkings):
            identifier = case_id(dialect, scenario, n, chunking)
            if not matches(select, scenario, identifier):
                continue
            suite.cases.append(
                Case(
                    id=identifier,
                    scenario=scenario,
                    dialect=dialect,
                    cassette=path,
                    interaction=n,
                    chunking=chunking,
                    status=interaction.response.status,
                    reason=interaction.response.reason,
                    headers=headers,
                    body=body,
                    expected=output,
                    requires=needs,
                    request=interaction.request,
                    readings=readings,
                    reads=_recorded_reads(interaction) if chunking == RECORDED else None,
                )
            )
