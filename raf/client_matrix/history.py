"""Request-side bugs of earlier client releases, reproduced: ``raf clients --history DIR``
(docs/clients.md, "Request-side bugs of earlier releases").

``conformance/client_history.yaml`` lists reported bugs, each with the tool-loop adapter of
the library (:data:`raf.clients.TOOL_LOOP_ADAPTERS`), the release that had the bug and the
first one with the fix (exact pip requirements), a tool-loop recording and the request rule
the broken release breaks. :func:`run_history` installs each release into a virtual
environment of its own under ``DIR`` (kept, and reused while its requirements are the same),
with raf from this source tree, runs the adapter on the recording there (a child process:
``python -m raf.client_matrix.history ADAPTER RECORDING``, which prints the run's verdicts as
JSON), and shows the bug when the broken release's requests break the rule and the fixed
release's do not.

Needs a source checkout of raf (its ``pyproject.toml``) and pip access to the package index.
"""

from __future__ import annotations

import os
import site
import subprocess
import sys
import sysconfig
import venv
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import yaml

from raf.shared.bundled import bundled

__all__ = [
    "Bug",
    "BugResult",
    "HistoryError",
    "ReleaseRun",
    "history_file",
    "history_markdown",
    "load_history",
    "run_history",
    "run_release",
]

INSTALL_TIMEOUT = 600.0
"""Seconds one environment's ``pip install`` may take."""

_LAYOUT = "# raf clients --history: the running packages after its own, the pins, raf -e"


class HistoryError(ValueError):
    """The history file cannot be read, or an entry is not what it must be (which, why)."""


@dataclass(frozen=True)
class Bug:
    """One reported request-side bug of an earlier release (the file's entry)."""

    id: str
    library: str
    report: str
    fix: str
    broken: tuple[str, ...]
    fixed: tuple[str, ...]
    recording: str
    rule: str
    what: str


@dataclass
class ReleaseRun:
    """One release's run of the bug's recording: the requirements installed, the rules its
    requests broke, the cell it made (``response / requests``) or why it could not run."""

    requirements: tuple[str, ...]
    rules: list[str] = field(default_factory=list)
    mark: str = ""
    error: str = ""

    def to_builtins(self) -> dict[str, Any]:
        return {
            "requirements": list(self.requirements),
            "rules": self.rules,
            "mark": self.mark,
            "error": self.error,
        }


@dataclass
class BugResult:
    """A bug, and what its two releases did."""

    bug: Bug
    broken: ReleaseRun
    fixed: ReleaseRun

    @property
    def reproduced(self) -> bool:
        """The broken release's requests broke the rule."""
        return not self.broken.error and self.bug.rule in self.broken.rules

    @property
    def fixed_ok(self) -> bool:
        """The fixed release's requests did not break it."""
        return not self.fixed.error and self.bug.rule not in self.fixed.rules

    @property
    def shown(self) -> bool:
        return self.reproduced and self.fixed_ok

    @property
    def summary(self) -> str:
        if self.shown:
            broken, fixed = _pins(self.bug.broken), _pins(self.bug.fixed)
            return f"{self.bug.rule} breaks on {broken}, not on {fixed}"
        parts = []
        if not self.reproduced:
            why = self.broken.error or f"rules broken: {', '.join(self.broken.rules) or 'none'}"
            parts.append(f"not reproduced on {_pins(self.bug.broken)} ({why})")
        if not self.fixed_ok:
            why = self.fixed.error or f"{self.bug.rule} still breaks"
            parts.append(f"not fixed on {_pins(self.bug.fixed)} ({why})")
        return "; ".join(parts)

    def to_builtins(self) -> dict[str, Any]:
        return {
            "id": self.bug.id,
            "library": self.bug.library,
            "report": self.bug.report,
            "fix": self.bug.fix,
            "recording": self.bug.recording,
            "rule": self.bug.rule,
            "shown": self.shown,
            "broken": self.broken.to_builtins(),
            "fixed": self.fixed.to_builtins(),
        }


def _pins(requirements: Sequence[str]) -> str:
    return " ".join(requirements[:1])


def history_file() -> Path:
    """``conformance/client_history.yaml`` beside the tool-loop recordings."""
    return bundled().tool_loops.parent / "client_history.yaml"


_FIELDS = ("id", "library", "report", "fix", "broken", "fixed", "recording", "rule", "what")


def load_history(path: Path | None = None) -> list[Bug]:
    """The bugs of the history file (``path``, default :func:`history_file`).

    Raises:
        HistoryError: it cannot be read, or an entry lacks a field, pins a release loosely
            (not ``==``), names an unknown adapter, recording or rule, or repeats an id.
    """
    from raf.clients import TOOL_LOOP_ADAPTERS  # noqa: PLC0415
    from raf.formats.request_rules import rule as find_rule  # noqa: PLC0415

    path = path or history_file()
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise HistoryError(f"{path}: {exc}") from None
    entries = document.get("bugs") if isinstance(document, dict) else None
    if not isinstance(entries, list):
        raise HistoryError(f"{path}: no bugs list")
    bugs: list[Bug] = []
    for n, entry in enumerate(entries):
        where = f"{path}: bugs[{n}]"
        if not isinstance(entry, dict) or any(f not in entry for f in _FIELDS):
            missing = [f for f in _FIELDS if not isinstance(entry, dict) or f not in entry]
            raise HistoryError(f"{where}: lacks {', '.join(missing)}")
        bug = Bug(
            id=str(entry["id"]),
            library=str(entry["library"]),
            report=str(entry["report"]),
            fix=str(entry["fix"]),
            broken=tuple(str(r) for r in entry["broken"]),
            fixed=tuple(str(r) for r in entry["fixed"]),
            recording=str(entry["recording"]),
            rule=str(entry["rule"]),
            what=" ".join(str(entry["what"]).split()),
        )
        for requirement in bug.broken + bug.fixed:
            if "==" not in requirement:
                raise HistoryError(f"{where}: {requirement!r} is not pinned exactly (==)")
        if bug.library not in TOOL_LOOP_ADAPTERS:
            raise HistoryError(f"{where}: no tool-loop adapter {bug.library!r}")
        if not (bundled().tool_loops / f"{bug.recording}.yaml").is_file():
            raise HistoryError(f"{where}: no recording {bug.recording}")
        if find_rule(bug.rule) is None:
            raise HistoryError(f"{where}: no request rule {bug.rule}")
        if any(b.id == bug.id for b in bugs):
            raise HistoryError(f"{where}: id {bug.id} is used twice")
        bugs.append(bug)
    return bugs


def _source_tree() -> Path:
    tree = Path(__file__).resolve().parents[2]
    if not (tree / "pyproject.toml").is_file():
        raise HistoryError(f"raf is not run from a source tree ({tree} has no pyproject.toml)")
    return tree


def _see_running_packages(python: Path) -> None:
    """Put the running environment's site-packages at the end of ``python``'s path."""
    done = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    own = Path(done.stdout.strip())
    running = dict.fromkeys([*site.getsitepackages(), sysconfig.get_paths()["purelib"]])
    (own / "raf-running-environment.pth").write_text(
        "".join(f"{path}\n" for path in running if Path(path) != own), encoding="utf-8"
    )


def _environment(folder: Path, requirements: Sequence[str]) -> Path:
    """The Python of a virtual environment under ``folder`` with ``requirements`` and raf
    (from the source tree, editable) installed; made once, reused while its requirements
    are the same. It sees the running environment's packages after its own (a ``.pth``
    file), so pip installs only the pinned releases and what they need at other versions
    than the running environment has: minutes become seconds, and the pins still win."""
    stamp = folder / "raf-requirements.txt"
    wanted = f"{_LAYOUT}\n" + "\n".join(requirements) + "\n"
    python = folder / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    if python.is_file() and stamp.is_file() and stamp.read_text(encoding="utf-8") == wanted:
        return python
    venv.EnvBuilder(with_pip=True, clear=True).create(folder)
    _see_running_packages(python)
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    for command in ([*pip, *requirements], [*pip, "--no-deps", "-e", str(_source_tree())]):
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=INSTALL_TIMEOUT, check=False
        )
        if done.returncode != 0:
            lines = (done.stderr or done.stdout).strip().splitlines()
            raise HistoryError(f"{' '.join(command[3:])} failed: {lines[-1:] or ''}")
    stamp.write_text(wanted, encoding="utf-8")
    return python


def run_release(
    bug: Bug, requirements: Sequence[str], folder: Path, *, timeout: float = 60.0
) -> ReleaseRun:
    """The bug's recording run by its adapter with ``requirements`` installed in the
    environment ``folder``."""
    run = ReleaseRun(tuple(requirements))
    try:
        python = _environment(folder, requirements)
    except (HistoryError, OSError, subprocess.SubprocessError) as exc:
        run.error = str(exc)
        return run
    command = [str(python), "-m", "raf.client_matrix.history", bug.library, bug.recording]
    command.append(str(timeout))
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=timeout + 60, check=False
        )
    except subprocess.TimeoutExpired:
        run.error = f"no verdict within {timeout + 60:g} s"
        return run
    lines = done.stdout.strip().splitlines()
    try:
        verdict = msgspec.json.decode(lines[-1]) if lines else None
    except msgspec.DecodeError:
        verdict = None
    if not isinstance(verdict, dict):
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        run.error = f"the run printed no verdict (exit {done.returncode}: {tail})"
        return run
    run.rules = [str(r) for r in verdict.get("rules", [])]
    run.mark = str(verdict.get("mark", ""))
    return run


def run_history(bug: Bug, folder: Path, *, timeout: float = 60.0) -> BugResult:
    """Both releases of ``bug``, each in its environment under ``folder``."""
    return BugResult(
        bug,
        run_release(bug, bug.broken, folder / f"{bug.id}-broken", timeout=timeout),
        run_release(bug, bug.fixed, folder / f"{bug.id}-fixed", timeout=timeout),
    )


def history_markdown(results: Sequence[BugResult]) -> str:
    """The table of docs/clients.md's "Request-side bugs of earlier releases"."""
    lines = [
        "| bug | library | recording | rule | broken release | fixed release | what the broken "
        "release sends |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in results:
        bug = r.bug
        broken = "✗ " + bug.rule if r.reproduced else "not reproduced: " + (r.broken.error or "-")
        fixed = "✓" if r.fixed_ok else "still ✗: " + (r.fixed.error or bug.rule)
        what = bug.what.replace("|", "\\|")
        lines.append(
            f"| {bug.report} (fix: {bug.fix}) | {bug.library} | {bug.recording} | "
            f"`{bug.rule}` | {' '.join(bug.broken)}: {broken} | {' '.join(bug.fixed)}: {fixed} | "
            f"{what} |"
        )
    shown = sum(r.shown for r in results)
    lines += [
        "",
        f"Shown: {shown}/{len(results)} (the rule breaks on the release before the fix, "
        "not on the release with it).",
        "",
    ]
    return "\n".join(lines)


def _child(argv: Sequence[str]) -> int:
    """In a release's environment: run the adapter ``argv[0]`` on the recording ``argv[1]``
    (``<format>/<scenario>``) under the ``whole`` chunking, print its verdicts as JSON."""
    import warnings  # noqa: PLC0415

    from raf.cassettes.tool_loops import load_tool_loop  # noqa: PLC0415
    from raf.client_matrix.tool_loops import run_tool_loop  # noqa: PLC0415
    from raf.clients import tool_loop_adapter  # noqa: PLC0415
    from raf.serve.server import ReplayServer  # noqa: PLC0415

    name, recording = argv[0], argv[1]
    timeout = float(argv[2]) if len(argv) > 2 else 60.0
    folder = bundled().tool_loops
    spec = load_tool_loop(folder / f"{recording}.yaml")
    adapter = tool_loop_adapter(name)
    with ReplayServer([folder]) as server, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cell = run_tool_loop(
            adapter,
            spec,
            version=adapter.version() or "?",
            server=server,
            chunking="whole",
            run="history",
            timeout=timeout,
        )
    verdict = {
        "version": cell.version,
        "rules": cell.rules,
        "mark": cell.mark,
        "raised": cell.raised,
    }
    sys.stdout.write(msgspec.json.encode(verdict).decode() + "\n")
    return 0


if __name__ == "__main__":  # pragma: no cover - the child process of run_release
    raise SystemExit(_child(sys.argv[1:]))
