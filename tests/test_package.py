"""Package hygiene: the sans-IO core imports no IO library; public names are exported."""

from __future__ import annotations

import importlib
import sys
from importlib import resources

import pytest

import raf
import raf.model
from tests import processes

CORE = [
    "raf",
    "raf.converter",
    "raf.args_parser",
    "raf.collect",
    "raf.chunking",
    "raf.model",
    "raf.sse",
    "raf.dialects",
    "raf.formats",
    "raf.pipeline",
    "raf.errors",
    "raf.model.canonical",
]
FORBIDDEN = ["httpx", "vcr", "syrupy", "hypothesis", "asyncio", "yaml", "socket"]


def test_core_imports_no_io_library() -> None:
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in CORE)
        + f"print(sorted(m for m in {FORBIDDEN!r} if m in sys.modules))"
    )
    result = processes.run([sys.executable, "-c", code], text=True, check=True)
    assert result.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "module",
    [
        "raf",
        "raf.model",
        "raf.dialects",
        "raf.formats",
        "raf.sse",
        "raf.errors",
        "raf.pipeline",
        "raf.model.canonical",
        "raf.converter",
        "raf.args_parser",
        "raf.collect",
        "raf.chunking",
        "raf.transport",
        "raf.cassettes",
        "raf.conformance",
        "raf.testing.strategies",
    ],
)
def test_all_lists_only_existing_public_names(module: str) -> None:
    mod = importlib.import_module(module)
    assert sorted(mod.__all__) == sorted(set(mod.__all__))
    for name in mod.__all__:
        assert hasattr(mod, name), name


def test_top_level_exports_every_public_class_of_the_model() -> None:
    assert set(raf.model.__all__) <= set(raf.__all__)


def test_py_typed_is_shipped() -> None:
    assert resources.files(raf).joinpath("py.typed").is_file()
