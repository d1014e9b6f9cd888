"""What the client-library tests share: the rule for a library that is not installed.

The libraries are the clients extra, kept out of the test install: without one, its tests
skip, saying so; with ``RAF_REQUIRE_CLIENTS=1`` (``tox -e clients``, which CI runs) a
missing one fails them instead, so CI never passes by skipping.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest


def require(*modules: str) -> None:
    """Skip unless every module imports; with RAF_REQUIRE_CLIENTS=1 a missing one fails."""
    for module in modules:
        library(module)


def library(module: str, *, module_level: bool = False) -> ModuleType:
    """``module`` imported, or the skip (the failure, with RAF_REQUIRE_CLIENTS=1) that says
    it is missing; ``module_level`` for a test module that needs it to import at all."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        if os.environ.get("RAF_REQUIRE_CLIENTS") == "1":
            pytest.fail(f"{module} is required (RAF_REQUIRE_CLIENTS=1) but missing: {exc}")
        pytest.skip(
            f"{module} is not installed (tox -e clients runs this)", allow_module_level=module_level
        )
