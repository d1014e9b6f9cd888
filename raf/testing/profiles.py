"""Hypothesis settings profiles for raf's property tests (and yours).

* ``ci``: fast and deterministic (derandomized, no example database): what CI runs;
* ``dev``: more examples, random seeds, the local example database;
* ``fuzz``: long runs that hunt for rare cases (minutes per property).

Select one with ``pytest --hypothesis-profile=fuzz`` or ``RAF_HYPOTHESIS_PROFILE=fuzz``;
:func:`load_profile` (called by raf's own ``conftest.py``) reads the variable and defaults to
``ci``. ``RAF_HYPOTHESIS_EXAMPLES=N`` sets the number of examples of the loaded profile (a long
campaign on a few properties: ``RAF_HYPOTHESIS_PROFILE=fuzz RAF_HYPOTHESIS_EXAMPLES=200000
pytest tests/properties/test_hostile.py``). Call :func:`register_profiles` from your
``conftest.py`` to use them in your tests.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

__all__ = ["EXAMPLES_VARIABLE", "PROFILE_VARIABLE", "load_profile", "register_profiles"]

PROFILE_VARIABLE = "RAF_HYPOTHESIS_PROFILE"
"""The environment variable that selects a profile."""

EXAMPLES_VARIABLE = "RAF_HYPOTHESIS_EXAMPLES"
"""The environment variable that overrides the loaded profile's number of examples."""

_SLOW_IS_FINE = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example]


def register_profiles() -> None:
    """Register the ``ci``, ``dev`` and ``fuzz`` profiles with hypothesis."""
    settings.register_profile(
        "ci",
        max_examples=60,
        deadline=None,
        derandomize=True,
        database=None,
        print_blob=True,
        suppress_health_check=_SLOW_IS_FINE,
    )
    settings.register_profile(
        "dev", max_examples=250, deadline=None, suppress_health_check=_SLOW_IS_FINE
    )
    settings.register_profile(
        "fuzz",
        max_examples=20_000,
        deadline=None,
        suppress_health_check=_SLOW_IS_FINE,
    )


def load_profile(default: str = "ci") -> str:
    """Register the profiles and load the one ``RAF_HYPOTHESIS_PROFILE`` names (``default``
    when unset). ``--hypothesis-profile`` on the pytest command line still wins."""
    register_profiles()
    name = os.environ.get(PROFILE_VARIABLE, default)
    examples = os.environ.get(EXAMPLES_VARIABLE)
    if examples:
        if not examples.isdigit() or int(examples) < 1:
            raise ValueError(f"{EXAMPLES_VARIABLE} must be a positive integer, got {examples!r}")
        settings.register_profile(
            f"{name}-{examples}", settings.get_profile(name), max_examples=int(examples)
        )
        name = f"{name}-{examples}"
    settings.load_profile(name)
    return name
