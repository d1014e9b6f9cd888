"""The Python example client (examples/clients/python/client.py), imported as a module, for
the deliberately wrong clients beside this file that are built on it."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType


def load_example() -> ModuleType:
    """examples/clients/python/client.py, imported as a module."""
    path = Path(__file__).resolve().parents[3] / "examples" / "clients" / "python" / "client.py"
    spec = importlib.util.spec_from_file_location("example_client", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
