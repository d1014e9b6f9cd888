"""Hypothesis profile for the whole suite: ``ci`` unless RAF_HYPOTHESIS_PROFILE or
``--hypothesis-profile`` says otherwise (see raf/testing/profiles.py); and the session check
that no process a test started outlives the session (tests/processes.py)."""

from raf.testing.profiles import load_profile
from tests.processes import no_process_outlives_the_session

__all__ = ["no_process_outlives_the_session"]

load_profile()
