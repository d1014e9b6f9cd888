"""Hypothesis profile for the whole suite: ``ci`` unless RAF_HYPOTHESIS_PROFILE or
``--hypothesis-profile`` says otherwise (see raf/testing/profiles.py); the session check
that no process a test started outlives the session (tests/processes.py); and the
placeholder of an absent shared corpus, which skips, or fails with RAF_REQUIRE_CORPUS=1
(tests/corpus.py)."""

import pytest

from raf.testing.profiles import load_profile
from tests import corpus
from tests.processes import no_process_outlives_the_session

__all__ = ["no_process_outlives_the_session"]

load_profile()


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker(corpus.MARK) is not None:
        corpus.require()
