"""The fuzzer's check as a pytest property, for long campaigns on HypoFuzz or on pytest-xdist
workers (docs/fuzzing.md). ``raf fuzz`` is one process for a bounded time; a property is a
plain ``@given`` test that those runners schedule, on as many cores and for as long as asked.

    # tests/test_fuzz_my_client.py
    from raf.fuzz.properties import conformance_property

    test_my_client_chat = conformance_property("python my_client.py", "openai_chat")
    test_my_client_bom = conformance_property(
        "python my_client.py", "openai_chat", quirks=["leading_bom"]
    )

``pytest tests/test_fuzz_my_client.py`` runs each for hypothesis's ``max_examples``;
``hypothesis fuzz -- tests/test_fuzz_my_client.py`` (HypoFuzz) runs them until stopped, one
implementation process per worker. A failure is an ``AssertionError`` naming the signature
(the first failing difference and the quirks) and every difference; the example database is
hypothesis's own (``.hypothesis/`` or the profile's). Save a failure as a cassette with
``raf fuzz --impl CMD -o DIR``, which the database does not share.
"""

from __future__ import annotations

import atexit
import hashlib
from collections.abc import Callable, Sequence

from hypothesis import HealthCheck, given, settings

from raf.conformance.implementation import Implementation, ReferenceImplementation
from raf.conformance.levels import render
from raf.conformance.severity import Policy
from raf.conformance.stdio import StdioImplementation
from raf.fuzz.cassette import signature
from raf.fuzz.check import ImplementationCheck
from raf.fuzz.generate import FuzzStream, streams

__all__ = ["conformance_property"]


def conformance_property(
    command: str | Sequence[str] | None = None,
    format: str = "openai_chat",
    quirks: Sequence[str] | None = None,
    *,
    level: str = "response",
    policy: Policy | None = None,
    max_tool_calls: int = 3,
    options: settings | None = None,
) -> Callable[[], None]:
    """A ``@given`` test: every generated stream of ``format`` (showing ``quirks``) run
    through the implementation ``command`` (raf's reference when ``None``) must pass at
    ``level``. The implementation is started on first use, once per process, and stopped when
    the process exits. Its name (hence its key in the example database) says the command, the
    format and the quirks; its ``close()`` stops the implementation. ``options``: its
    hypothesis settings (default: the current profile's, with no deadline, since a program's
    answer takes what it takes)."""
    checks: list[ImplementationCheck] = []

    def check() -> ImplementationCheck:
        if not checks:
            implementation: Implementation = (
                ReferenceImplementation() if command is None else StdioImplementation(command)
            )
            atexit.register(close)
            checks.append(ImplementationCheck(implementation, level=level, policy=policy))
        return checks[0]

    def close() -> None:
        """Stop the implementation (at once; it starts again if the property runs again)."""
        while checks:
            checks.pop().implementation.close(abort=True)

    def test_conformance(stream: FuzzStream) -> None:
        mismatches = check()(stream)
        if mismatches:
            raise AssertionError(
                f"{signature(stream, mismatches).text}\n{render(list(mismatches))}"
            )

    material = repr((command, format, tuple(quirks or ()), level))
    digest = hashlib.sha256(material.encode("utf-8")).hexdigest()[:10]
    test_conformance.__name__ = f"test_conformance_{format}_{digest}"
    test_conformance.__qualname__ = test_conformance.__name__
    strategy = streams(format, quirks, max_tool_calls=max_tool_calls)
    chosen = options or settings(
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    decorated: Callable[[], None] = chosen(given(strategy)(test_conformance))
    setattr(decorated, "close", close)  # noqa: B010 - an attribute of a function
    return decorated
