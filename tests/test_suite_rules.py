"""The suite's own rules against tests that lose their teeth without a word: a test
parametrised over a folder that came out empty fails the collection (pyproject.toml's
``empty_parameter_set_mark``), and a test of the shared corpus says that the corpus is
absent, skipping, or failing with ``RAF_REQUIRE_CORPUS=1`` (tests/corpus.py).

Each rule is checked by a pytest run in a subprocess, with this project's configuration."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# pytest in a subprocess, none of it compiled code: the pure-Python run only (.ci/run).
pytestmark = pytest.mark.processes


def run_pytest(*args: str, cwd: Path, env: dict[str, str] | None = None) -> tuple[int, str]:
    """Run pytest with this project's configuration; its exit status and output."""
    environment = {
        k: v for k, v in os.environ.items() if k not in {"RAF_CORPUS", "RAF_REQUIRE_CORPUS"}
    }
    environment.update(env or {})
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rs", *args]
    done = subprocess.run(
        command, check=False, cwd=cwd, env=environment, capture_output=True, text=True, timeout=300
    )
    return done.returncode, done.stdout + done.stderr


def test_the_project_fails_an_empty_parameter_set_at_collection(
    pytestconfig: pytest.Config,
) -> None:
    assert pytestconfig.getini("empty_parameter_set_mark") == "fail_at_collect"
    ini = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert ini["tool"]["pytest"]["ini_options"]["empty_parameter_set_mark"] == "fail_at_collect"


def test_a_test_over_an_empty_folder_fails_the_run_naming_the_test(tmp_path: Path) -> None:
    (tmp_path / "fixtures").mkdir()
    (tmp_path / "test_over_a_folder.py").write_text(
        "from pathlib import Path\n"
        "import pytest\n"
        "FILES = sorted((Path(__file__).parent / 'fixtures').glob('*.yaml'))\n"
        "@pytest.mark.parametrize('path', FILES)\n"
        "def test_every_fixture(path):\n"
        "    assert path.exists()\n"
        "def test_other():\n"
        "    pass\n",
        encoding="utf-8",
    )
    status, out = run_pytest(
        "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(tmp_path), str(tmp_path), cwd=tmp_path
    )
    assert status != 0, out
    assert "Empty parameter set in 'test_every_fixture'" in out, out
    assert "got empty parameter set" not in out, out
    # With a fixture in the folder the same file passes: the failure is the empty folder's.
    (tmp_path / "fixtures" / "one.yaml").write_text("{}\n", encoding="utf-8")
    status, out = run_pytest(
        "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(tmp_path), str(tmp_path), cwd=tmp_path
    )
    assert status == 0, out
    assert "2 passed" in out, out


CORPUS_TESTS = (
    "tests/test_corpus.py::test_recorded_stream_runs_through_the_pipeline",
    "tests/test_corpus.py::test_corpus_has_openai_chat_streams",
)


def test_an_absent_corpus_skips_its_tests_naming_the_folder_and_the_switch(
    tmp_path: Path,
) -> None:
    status, out = run_pytest(*CORPUS_TESTS, cwd=ROOT, env={"RAF_CORPUS": str(tmp_path)})
    assert status == 0, out
    assert "2 skipped" in out, out
    assert "got empty parameter set" not in out, out
    assert f"the shared corpus of real recordings is not at {tmp_path}" in out, out
    assert "RAF_REQUIRE_CORPUS=1" in out, out


def test_an_absent_corpus_fails_its_tests_with_the_switch(tmp_path: Path) -> None:
    # An empty folder is no corpus either.
    env = {"RAF_CORPUS": str(tmp_path), "RAF_REQUIRE_CORPUS": "1"}
    status, out = run_pytest(*CORPUS_TESTS, cwd=ROOT, env=env)
    assert status == 1, out
    assert "1 failed" in out, out
    assert "1 error" in out, out  # the placeholder fails in its setup
    assert (
        f"RAF_REQUIRE_CORPUS=1 but the shared corpus of real recordings is not at {tmp_path}" in out
    ), out
    assert "skipped" not in out, out
