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

The conformance suite as pytest items: ``pytest --raf-impl 'node my_client.js'`` adds one
item per case (``openai_chat/plain_text#0@bytes``), so ``-k``, ``-x``, ``--junitxml`` and
pytest-xdist's ``-n auto`` work as usual (each xdist worker starts its own copy of the
implementation). Options: ``--raf-level``, ``--raf-cassettes``/``--raf-goldens`` (default:
the bundled suite), ``--raf-chunking`` (repeatable), ``--raf-timeout``, ``--raf-transport
http`` (each worker starts its own ``raf serve`` and the implementation makes the requests),
and ``--raf-only`` to run the cases alone. A case that is not declared by the implementation
is skipped with the reason; a failing case shows the field that differs, the diff and the
implementation's stderr.

Heavy imports happen when a fixture or the option is used, so installing raf never slows
down or breaks an unrelated test session.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from raf.model.response import AgentResponse

__all__ = [
    "RafCase",
    "pytest_addoption",
    "pytest_collection_modifyitems",
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


# -- the conformance suite as pytest items ----------------------------------------------------

if TYPE_CHECKING:  # pragma: no cover
    from raf.conformance.cases import Case
    from raf.conformance.implementation import Implementation
    from raf.conformance.runner import CaseResult

_IMPLEMENTATION: pytest.StashKey[Implementation] = pytest.StashKey()


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


class RafCaseFailed(Exception):
    """A conformance case did not pass; carries the verdict."""

    def __init__(self, verdict: CaseResult) -> None:
        super().__init__(verdict.reason)
        self.verdict = verdict


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
        skip = skip_reason(self.case, level, hello, self.config.getoption("raf_transport"))
        if skip is not None:
            pytest.skip(skip)
        verdict = judge(
            self.case, implementation.run(self.case, level), level, set(hello.capabilities)
        )
        if verdict.status != "pass":
            raise RafCaseFailed(verdict)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, RafCaseFailed):
            verdict = excinfo.value.verdict
            parts = [verdict.reason]
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
    from raf.conformance.bundled import bundled  # noqa: PLC0415
    from raf.conformance.cases import load_suite  # noqa: PLC0415
    from raf.conformance.stdio import StdioImplementation  # noqa: PLC0415

    default = None
    cassettes = config.getoption("raf_cassettes")
    golden_folder = config.getoption("raf_goldens")
    if cassettes is None or golden_folder is None:
        default = bundled()
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
    new: list[pytest.Item] = [
        RafCase.from_parent(session, name=problem.id, case=None, problem=problem.message)
        for problem in suite.problems
    ]
    new += [RafCase.from_parent(session, name=case.id, case=case) for case in suite.cases]
    if config.getoption("raf_only"):
        items[:] = new
    else:
        items.extend(new)


def pytest_configure(config: pytest.Config) -> None:
    """Register the marker the conformance items carry."""
    config.addinivalue_line(
        "markers", "raf_conformance: a case of raf's conformance suite (--raf-impl)"
    )
