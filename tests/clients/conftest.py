"""One replay server per test module of the client-library tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from raf.serve import ReplayServer


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    with ReplayServer() as running:
        yield running
