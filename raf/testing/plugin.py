"""raf's pytest plugin (registered through the ``pytest11`` entry point).

Fixtures:

* ``raf_replay``: :func:`raf.testing.replay.replay` - replay a cassette through httpx +
  respx (or vcrpy, or plain bytes) under a chunking, and get its canonical updates, results
  and aggregated response;
* ``raf_reference``: :func:`reference_response` - the ``AgentResponse`` raf's reference
  pipeline makes of a stream, to compare your own client's result with;
* ``raf_server``: a running :class:`raf.serve.ReplayServer` (``raf serve`` on the bundled
  cassettes, on a free port of 127.0.0.1, in a thread; one per test module): point your
  client at ``raf_server.case_url("openai_chat", "parallel_tool_calls", chunking="bytes",
  faults=["cut-500"])`` and read what it sent in ``raf_server.journal.entries()``. Its order
  of interactions and its journal start empty for every test.

Recording (:mod:`raf.testing.recording`): ``raf_recording`` is a recording proxy for the
test, configured by its ``@pytest.mark.raf_record(upstream=..., scenario=..., dialect=...,
max_age=..., on_expiry=...)`` marker: point the client under test at
``raf_recording.base_url``. ``--raf-record-mode none|once|new_episodes|all`` (default
``none``: replay only, never the network) and ``--raf-cassette-dir DIR`` (default: a
``cassettes`` folder beside the test module) say what it does; the cassettes a run recorded
are listed at the end of the run.

The conformance suite as pytest items: ``pytest --raf-impl 'node my_client.js'`` adds one
item per case (``openai_chat/plain_text#0@bytes``), so ``-k``, ``-x``, ``--junitxml`` and
pytest-xdist's ``-n auto`` work as usual (each xdist worker starts its own copy of the
implementation). Options: ``--raf-level``, ``--raf-cassettes``/``--raf-goldens`` (default:
the bundled suite; cassettes of one's own have their goldens beside them), ``--raf-chunking``
(repeatable), ``--raf-timeout``, ``--raf-transport http`` (each worker starts its own ``raf
serve`` and the implementation makes the requests), ``--raf-fail-on``/``--raf-severity``
(which kinds of difference fail, as for ``raf conform``), ``--raf-baseline FILE`` (the cases
its entries cover are strict xfails) and ``--raf-only`` to run the cases alone. A case that is
not declared by the implementation is skipped with the reason; a failing case shows each
difference with its kind, the diff and the implementation's stderr; a notice is a
:class:`RafNotice` warning.

Heavy imports happen when a fixture or the option is used, so installing raf never slows
down or breaks an unrelated test session.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pytest

from raf.model.response import AgentResponse
from raf.testing.recording import MARKER_HELP, MODES

__all__ = [
    "RafCase",
    "RafCaseFailed",
    "RafKnownFailure",
    "RafNotice",
    "pytest_addoption",
    "pytest_collection_modifyitems",
    "pytest_terminal_summary",
    "raf_recording",
    "raf_reference",
    "raf_replay",
    "raf_server",
    "reference_response",
]


def reference_response(
    body: bytes | Iterable[bytes], dialect: str = "openai_chat", **options: Any
) -> AgentResponse:
    """The aggregated response raf's reference pipeline makes of a stream (bytes or chunks)."""
    from raf.pipeline import respond  # noqa: PLC0415 - keep plugin import light

    chunks = [body] if isinstance(body, bytes) else body
    return respond(chunks, dialect, **options)


@pytest.fixture
def raf_replay() -> Callable[..., Any]:
    """Replay a cassette: ``raf_replay(path, chunking="random", via="respx")``."""
    from raf.testing.replay import replay  # noqa: PLC0415 - needs the testing extra

    return replay


@pytest.fixture
def raf_reference() -> Callable[..., AgentResponse]:
    """The reference response of a stream: ``raf_reference(body_bytes)``."""
    return reference_response


@pytest.fixture(scope="module")
def _raf_server_running() -> Any:
    from raf.serve.server import ReplayServer  # noqa: PLC0415 - aiohttp only when used

    with ReplayServer() as server:
        yield server


@pytest.fixture
def raf_server(_raf_server_running: Any) -> Any:
    """``raf serve`` on the bundled cassettes (module docstring), reset for this test."""
    server = _raf_server_running
    server.config.order.reset()
    server.journal.clear()
    return server


# -- recording -----------------------------------------------------------------------------

RECORDED = "raf_recorded"
"""The name of the user property (one per cassette) a test that recorded carries: pytest's
JUnit XML lists them, and the end of the run (also under pytest-xdist)."""


@pytest.fixture
def raf_recording(request: pytest.FixtureRequest) -> Any:
    """A recording proxy for this test (:class:`raf.testing.recording.Recording`): replays
    its cassette or records it, by ``--raf-record-mode`` and the ``raf_record`` marker."""
    from raf.testing.recording import recording  # noqa: PLC0415 - aiohttp only when used

    node = cast(pytest.Item, request.node)
    with recording(node) as proxy:
        yield proxy
    node.user_properties.extend((RECORDED, str(path)) for path in proxy.saved)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """List the cassettes ``raf_recording`` wrote during the run."""
    saved = [
        value
        for reports in terminalreporter.stats.values()
        for report in reports
        if getattr(report, "when", None) == "teardown"
        for name, value in getattr(report, "user_properties", ())
        if name == RECORDED
    ]
    if not saved:
        return
    terminalreporter.section("raf recordings")
    started = Path(config.invocation_params.dir)
    for value in saved:
        path = Path(value)
        shown = path.relative_to(started) if path.is_relative_to(started) else path
        terminalreporter.write_line(f"recorded {shown}")
    terminalreporter.write_line(
        "review them (raf cassette show, raf cassette lint) before committing them"
    )


# -- the conformance suite as pytest items ----------------------------------------------------

if TYPE_CHECKING:  # pragma: no cover
    from raf.conformance.baseline import Baseline
    from raf.conformance.cases import Case
    from raf.conformance.implementation import Implementation
    from raf.conformance.runner import CaseResult
    from raf.conformance.severity import Policy

_IMPLEMENTATION: pytest.StashKey[Implementation] = pytest.StashKey()
_POLICY: pytest.StashKey[Policy] = pytest.StashKey()
_BASELINE: pytest.StashKey[Baseline | None] = pytest.StashKey()


def pytest_addoption(parser: pytest.Parser) -> None:
    """The ``--raf-*`` options."""
    group = parser.getgroup("raf", "raf conformance suite")
    group.addoption(
        "--raf-impl",
        metavar="COMMAND",
        help="run raf's conformance suite against this implementation (a program speaking "
        "raf-conformance/1), one pytest item per case",
    )
    group.addoption(
        "--raf-level",
        default="response",
        choices=("response", "lifecycle", "updates"),
        help="the level the cases are judged at (default: response)",
    )
    group.addoption("--raf-cassettes", type=Path, metavar="DIR", help="cassette folder")
    group.addoption("--raf-goldens", type=Path, metavar="DIR", help="golden folder")
    group.addoption(
        "--raf-chunking", action="append", metavar="NAME", help="a chunking (repeatable)"
    )
    group.addoption("--raf-timeout", type=float, default=30.0, metavar="SECONDS", help="per case")
    group.addoption(
        "--raf-transport",
        default="chunks",
        choices=("chunks", "http"),
        help="chunks: the body in the case message (default); http: raf serve replays the "
        "case and the implementation makes the request itself (docs/protocol.md)",
    )
    group.addoption("--raf-only", action="store_true", help="collect only the conformance cases")
    group.addoption(
        "--raf-fail-on",
        default="error",
        choices=("error", "notice"),
        help="the least severity of a difference that fails a case (default error; notices "
        "are reported as RafNotice warnings)",
    )
    group.addoption(
        "--raf-severity",
        action="append",
        default=[],
        metavar="KIND=SEVERITY",
        help="change the severity of one kind of difference, e.g. detail=error (repeatable)",
    )
    group.addoption(
        "--raf-baseline",
        type=Path,
        metavar="FILE",
        help="known failures (raf conform --write-baseline): the cases they cover are strict "
        "xfails, failing only with a baseline difference; one that passes is an XPASS(strict)",
    )
    recording = parser.getgroup("raf-record", "raf recording (the raf_recording fixture)")
    recording.addoption(
        "--raf-record-mode",
        default="none",
        choices=MODES,
        help="what raf_recording does: none replays cassettes and never touches the network "
        "(default); once records the scenarios that have no cassette; new_episodes records the "
        "requests a cassette lacks; all records everything again",
    )
    recording.addoption(
        "--raf-cassette-dir",
        type=Path,
        metavar="DIR",
        help="where raf_recording reads and writes cassettes, as DIR/<dialect>/<scenario>.yaml "
        "(default: a cassettes folder beside each test module)",
    )


class RafCaseFailed(Exception):
    """A conformance case did not pass; carries the verdict."""

    def __init__(self, verdict: CaseResult) -> None:
        super().__init__(verdict.reason)
        self.verdict = verdict


class RafKnownFailure(RafCaseFailed):
    """A conformance case failed with differences the baseline knows, and only those: the
    exception its strict xfail marker expects."""


class RafNotice(UserWarning):
    """A difference whose severity is ``notice``: the case passes, the warning says what
    differs (``-W error::raf.testing.plugin.RafNotice`` makes notices fail)."""


class RafCase(pytest.Item):
    """One conformance case, run through the session's implementation."""

    def __init__(self, *, case: Case | None, problem: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.problem = problem
        if case is not None:
            self.add_marker(pytest.mark.raf_conformance)

    def runtest(self) -> None:
        from raf.conformance.runner import CaseResult, judge, skip_reason  # noqa: PLC0415

        if self.case is None:
            raise RafCaseFailed(
                CaseResult(
                    id=self.name,
                    scenario=self.name,
                    dialect="",
                    level="",
                    status="error",
                    reason=self.problem,
                )
            )
        implementation = self.config.stash[_IMPLEMENTATION]
        level = self.config.getoption("raf_level")
        try:
            hello = implementation.hello()
        except Exception as exc:  # cannot be started, or speaks another protocol
            raise RafCaseFailed(CaseResult.of(self.case, level, "error", str(exc))) from None
        transport = self.config.getoption("raf_transport")
        skip = skip_reason(self.case, level, hello, transport)
        if skip is not None:
            pytest.skip(skip)
        verdict = judge(
            self.case,
            implementation.run(self.case, level),
            level,
            set(hello.capabilities),
            policy=self.config.stash[_POLICY],
            baseline=self.config.stash[_BASELINE],
            transport=transport,
        )
        for notice in verdict.notices:
            warnings.warn(
                RafNotice(f"{self.name}: {notice.mismatch.kind}: {notice.mismatch.summary()}"),
                stacklevel=1,
            )
        if verdict.status == "known" and not verdict.stale:
            raise RafKnownFailure(verdict)
        if verdict.status != "pass" or verdict.stale:
            raise RafCaseFailed(verdict)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, RafCaseFailed):
            verdict = excinfo.value.verdict
            parts = [verdict.reason]
            if verdict.differences:
                parts.append(
                    "\n".join(
                        f"{d.mismatch.kind} ({d.severity}"
                        f"{', known' if d.known else ''}): {d.mismatch.summary()}"
                        for d in verdict.differences
                    )
                )
            if verdict.stale:
                parts.append(
                    "baseline entries that no longer fail here (remove them): "
                    + "; ".join(e.label() for e in verdict.stale)
                )
            if verdict.diff:
                parts.append(verdict.diff)
            if verdict.stderr.strip():
                parts.append("--- the implementation's stderr ---\n" + verdict.stderr.strip())
            return "\n\n".join(parts)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        where = self.case.cassette if self.case is not None else self.path
        return where, None, f"raf conformance: {self.name}"


@pytest.hookimpl(tryfirst=True)  # before -k and -m deselect
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """With ``--raf-impl``, add one item per conformance case."""
    command = config.getoption("raf_impl", None)
    if command is None:
        return
    if not command.strip():
        raise pytest.UsageError("--raf-impl: an empty command")
    from raf.chunking import STANDARD_CHUNKINGS  # noqa: PLC0415
    from raf.conformance.cases import load_suite  # noqa: PLC0415
    from raf.conformance.stdio import StdioImplementation  # noqa: PLC0415
    from raf.shared.bundled import bundled  # noqa: PLC0415

    default = None
    cassettes = config.getoption("raf_cassettes")
    golden_folder = config.getoption("raf_goldens")
    if cassettes is None or golden_folder is None:
        default = bundled()
    if golden_folder is None and cassettes is not None:
        from raf.conformance.goldens import beside  # noqa: PLC0415

        # Cassettes of one's own have their goldens beside them, never raf's own.
        if cassettes.resolve() != default.cassettes.resolve():  # type: ignore[union-attr]
            golden_folder = beside(cassettes)
    from raf.chunking import check_chunking  # noqa: PLC0415
    from raf.errors import CassetteError  # noqa: PLC0415

    try:
        for name in config.getoption("raf_chunking") or ():
            check_chunking(name)
        suite = load_suite(
            cassettes or default.cassettes,  # type: ignore[union-attr]
            golden_folder or default.goldens,  # type: ignore[union-attr]
            chunkings=config.getoption("raf_chunking") or STANDARD_CHUNKINGS,
        )
    except (CassetteError, ValueError) as exc:  # no such folder, an unknown chunking
        raise pytest.UsageError(f"raf conformance suite: {exc}") from None
    server = None
    if config.getoption("raf_transport") == "http":
        from raf.serve.server import ReplayServer  # noqa: PLC0415 - aiohttp only when asked

        server = ReplayServer([cassettes or default.cassettes])  # type: ignore[union-attr]
        server.start()
        config.add_cleanup(server.stop)  # cleanups run last first: after the implementation's
    implementation = StdioImplementation(
        command, timeout=config.getoption("raf_timeout"), server=server
    )
    config.stash[_IMPLEMENTATION] = implementation
    config.add_cleanup(implementation.close)
    config.stash[_POLICY], config.stash[_BASELINE] = _judging(config)
    new: list[pytest.Item] = [
        RafCase.from_parent(session, name=problem.id, case=None, problem=problem.message)
        for problem in suite.problems
    ]
    new += [RafCase.from_parent(session, name=case.id, case=case) for case in suite.cases]
    known = config.stash[_BASELINE]
    if known is not None:
        from raf.conformance.runner import checked_levels  # noqa: PLC0415

        levels = checked_levels(config.getoption("raf_level"), config.getoption("raf_transport"))
        for item in new:
            case = item.case  # type: ignore[attr-defined]
            entries = (
                known.covering(case.dialect, case.scenario, case.interaction, case.chunking, levels)
                if case is not None
                else []
            )
            if entries:
                item.add_marker(
                    pytest.mark.xfail(
                        strict=True,
                        raises=RafKnownFailure,
                        reason="known (baseline): " + "; ".join(e.label() for e in entries),
                    )
                )
    if config.getoption("raf_only"):
        items[:] = new
    else:
        items.extend(new)


def _judging(config: pytest.Config) -> tuple[Policy, Baseline | None]:
    """The policy and the baseline of ``--raf-fail-on``, ``--raf-severity`` and
    ``--raf-baseline``."""
    from raf.conformance import baseline as baselines  # noqa: PLC0415
    from raf.conformance.severity import Policy, parse_severity_overrides  # noqa: PLC0415

    try:
        overrides = parse_severity_overrides(config.getoption("raf_severity"))
    except ValueError as exc:
        raise pytest.UsageError(f"--raf-severity: {exc}") from None
    policy = Policy(fail_on=config.getoption("raf_fail_on"), overrides=overrides)
    path = config.getoption("raf_baseline")
    if path is None:
        return policy, None
    try:
        return policy, baselines.load(path)
    except baselines.BaselineError as exc:
        raise pytest.UsageError(f"--raf-baseline: {exc}") from None


def pytest_configure(config: pytest.Config) -> None:
    """Register the marker the conformance items carry, and the recording marker."""
    config.addinivalue_line(
        "markers", "raf_conformance: a case of raf's conformance suite (--raf-impl)"
    )
    config.addinivalue_line("markers", MARKER_HELP)
