"""The Python examples of docs/interop.md run as written, from the repository's root."""

from __future__ import annotations

import os
import re
import sys

import pytest

from tests import processes
from tests.interop.support import ROOT

DOC = ROOT / "docs" / "interop.md"
EXAMPLES = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
LIBRARIES = ("langchain_core", "agent_framework", "ag_ui")
"""The model libraries an example may need (tox -e clients has them)."""


def test_the_document_has_its_examples() -> None:
    assert len(EXAMPLES) >= 8


@pytest.mark.parametrize(
    "example", EXAMPLES, ids=[f"example {n + 1}" for n in range(len(EXAMPLES))]
)
def test_each_example_runs_as_written(example: str) -> None:
    done = processes.run([sys.executable, "-c", example], cwd=ROOT, text=True)
    missing = re.search(r"No module named '([\w.]+)'", done.stderr)
    if done.returncode and missing and missing[1].split(".")[0] in LIBRARIES:
        if os.environ.get("RAF_REQUIRE_CLIENTS") == "1":
            pytest.fail(f"{missing[1]} is required (RAF_REQUIRE_CLIENTS=1) but missing")
        pytest.skip(f"{missing[1]} is not installed (tox -e clients installs it)")
    assert done.returncode == 0, done.stderr[-3000:]
