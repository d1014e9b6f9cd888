"""Hypothesis profile for the whole suite: ``ci`` unless RAF_HYPOTHESIS_PROFILE or
``--hypothesis-profile`` says otherwise (see raf/testing/profiles.py)."""

from raf.testing.profiles import load_profile

load_profile()
