"""The agent goldens: what the agent streams over each scenario of
``conformance/tool_loop_scenarios.yaml``, one file per scenario at
``conformance/tool_loops_goldens/<scenario>.json`` (docs/agent.md, "Recordings and replay")::

    {
      "scenario": "openai_chat/two_tools/max_rounds",
      "recording": "conformance/tool_loops/openai_chat/two_tools.yaml",
      "max_rounds": 2,
      "runs": [
        {
          "approve": null,
          "updates": [ ... the tool loop's stream, one update per line ... ],
          "results": [ ... what a fresh AgentResponseConverter makes of them, metadata left
                       out, the final result last ... ]
        }
      ]
    }

The format, its syrupy extension (``pytest tests/agent/test_agent_goldens.py
--snapshot-update`` writes the files), and the review of a golden's stream against the
independent reader (``tests/agent/reader_loop.py``). The goldens are not bundled in the wheel:
only these tests read them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from syrupy.data import Snapshot, SnapshotCollection
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode
from syrupy.location import PyTestLocation
from syrupy.types import SnapshotIndex

from raf.cassettes.format import NAME_RULE, is_file_name
from raf.converter import AgentResponseConverter
from raf.model.canonical import encode_json, from_canonical, to_canonical
from raf.model.updates import AgentResponseUpdate
from raf.testing.agent_replay import RunReport, Scenario

ROOT = Path(__file__).resolve().parents[2]
GOLDENS = ROOT / "conformance" / "tool_loops_goldens"


@dataclass(frozen=True)
class RunOutput:
    """One run of a scenario: the approvals it was run with (``"all"``, ``"none"``, call ids,
    or ``None``), the tool loop's updates and the converter's results, as canonical JSON."""

    approve: Any
    updates: list[Any]
    results: list[Any]


@dataclass(frozen=True)
class AgentGolden:
    """What the agent streams over one scenario."""

    scenario: str
    recording: str
    max_rounds: int
    runs: list[RunOutput]


def golden_path(scenario: str, folder: Path = GOLDENS) -> Path:
    """Where the golden of ``scenario`` (``<format>/<name>[/<variant>]``) lives.

    Raises:
        ValueError: a part of the name cannot name a file.
    """
    parts = scenario.split("/")
    for part in parts:
        if not is_file_name(part):
            raise ValueError(f"{scenario!r} cannot name a golden file (each part: {NAME_RULE})")
    return folder.joinpath(*parts).with_suffix(".json")


def recording_of(scenario: Scenario) -> str:
    """The recording's path in the repository."""
    where = "conformance/tool_loops" if scenario.recording == "tool_loops" else "cassettes"
    return f"{where}/{scenario.case}.yaml"


def converter_results(updates: Sequence[AgentResponseUpdate]) -> list[Any]:
    """What a fresh :class:`AgentResponseConverter` makes of ``updates``, fed one at a time as
    the agent feeds them, then its final result; canonical JSON, metadata left out."""
    converter = AgentResponseConverter()
    results = []
    for update in updates:
        results.extend(converter.results((update,)))
    results.append(converter.finalize(converter.finish_reason))
    canonical: list[Any] = to_canonical(results)
    return canonical


def converter_results_of(updates: Sequence[Any]) -> list[Any]:
    """:func:`converter_results` of updates given as canonical JSON."""
    return converter_results([from_canonical(u, AgentResponseUpdate) for u in updates])


def golden_of(scenario: Scenario, reports: Sequence[RunReport]) -> AgentGolden:
    """The golden of a replay of ``scenario``."""
    runs = []
    for run, report in zip(scenario.runs, reports, strict=True):
        approve = list(run.approve) if isinstance(run.approve, tuple) else run.approve
        runs.append(
            RunOutput(
                approve=approve,
                updates=to_canonical(report.updates),
                results=converter_results(report.updates),
            )
        )
    return AgentGolden(
        scenario=scenario.name,
        recording=recording_of(scenario),
        max_rounds=scenario.max_rounds,
        runs=runs,
    )


# -- the file --------------------------------------------------------------------------------


def _lines(items: list[Any], indent: str) -> str:
    if not items:
        return "[]"
    inner = ",\n".join(f"{indent}  {encode_json(item)}" for item in items)
    return f"[\n{inner}\n{indent}]"


def dumps(golden: AgentGolden) -> str:
    """The text of a golden file: deterministic, valid JSON, one update or result per line so
    that a diff names exactly the ones that changed."""
    runs = [
        "    {\n"
        f'      "approve": {encode_json(run.approve)},\n'
        f'      "updates": {_lines(run.updates, "      ")},\n'
        f'      "results": {_lines(run.results, "      ")}\n'
        "    }"
        for run in golden.runs
    ]
    return (
        "{\n"
        f'  "scenario": {encode_json(golden.scenario)},\n'
        f'  "recording": {encode_json(golden.recording)},\n'
        f'  "max_rounds": {encode_json(golden.max_rounds)},\n'
        '  "runs": [\n' + ",\n".join(runs) + "\n  ]\n}\n"
    )


def loads(text: str) -> AgentGolden:
    """Parse a golden file's text.

    Raises:
        ValueError: not JSON, or not the shape above.
    """
    document = json.loads(text)
    if not isinstance(document, dict) or not isinstance(document.get("runs"), list):
        raise ValueError("an agent golden is an object with a list of runs")
    runs = []
    for n, run in enumerate(document["runs"]):
        if not isinstance(run, dict) or not all(
            isinstance(run.get(k), list) for k in ("updates", "results")
        ):
            raise ValueError(f"runs[{n}] lacks its updates or results")
        runs.append(RunOutput(run.get("approve"), run["updates"], run["results"]))
    return AgentGolden(
        scenario=str(document["scenario"]),
        recording=str(document["recording"]),
        max_rounds=int(document["max_rounds"]),
        runs=runs,
    )


def load(scenario: str, folder: Path = GOLDENS) -> AgentGolden | None:
    """The golden of ``scenario``, or ``None`` when it has none yet."""
    path = golden_path(scenario, folder)
    if not path.is_file():
        return None
    return loads(path.read_text(encoding="utf-8"))


class AgentGoldenExtension(SingleFileSnapshotExtension):
    """Stores :class:`AgentGolden` values as golden files under :data:`GOLDENS`; anything else
    is refused (no silent ``repr``). Snapshots are named after their scenario."""

    _write_mode = WriteMode.TEXT
    file_extension = "json"
    goldens_dir: ClassVar[Path] = GOLDENS

    def serialize(self, data: Any, **_: Any) -> str:
        if not isinstance(data, AgentGolden):
            raise TypeError(f"AgentGoldenExtension stores AgentGolden values, not {type(data)}")
        return dumps(data)

    @classmethod
    def get_snapshot_name(cls, *, test_location: PyTestLocation, index: SnapshotIndex = 0) -> str:
        name = str(index)
        golden_path(name, cls.goldens_dir)  # validates every part
        return name

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        return str(cls.goldens_dir)

    def read_snapshot_collection(self, *, snapshot_location: str) -> SnapshotCollection:
        relative = Path(snapshot_location).relative_to(self.goldens_dir).with_suffix("")
        collection = SnapshotCollection(location=snapshot_location)
        collection.add(Snapshot(name=relative.as_posix()))
        return collection


# -- the review ------------------------------------------------------------------------------


def without_messages(updates: Sequence[Any]) -> list[Any]:
    """The updates with every error's message replaced by ``""`` (messages are for people and
    are never compared, as in the cassette goldens' review)."""
    return [
        {**update, "message": ""}
        if isinstance(update, dict) and update.get("type") == "error"
        else update
        for update in updates
    ]


def describe(entry: Any) -> str:
    """A short name of an update or result: its type and what tells it apart."""
    if not isinstance(entry, dict):
        return repr(entry)[:80]
    kind = str(entry.get("type"))
    for key in ("id", "call_id", "round", "finish_reason", "delta", "name"):
        if entry.get(key) is not None:
            return f"{kind} {key}={entry[key]!r}"[:120]
    return kind


def review(
    derived: Sequence[Sequence[Any]], golden: Sequence[Sequence[Any]], *, level: str = "update"
) -> list[str]:
    """Every entry where the golden's runs differ from the reader's, named by run and position:
    ``run 0, update 31 (tool_called id='b'): the reader has ... (tool_called id='a')``."""
    problems = []
    if len(derived) != len(golden):
        problems.append(f"the reader has {len(derived)} run(s), the golden {len(golden)}")
    for run, (theirs, ours) in enumerate(zip(derived, golden, strict=False)):
        want, got = without_messages(theirs), without_messages(ours)
        for n, (expected, actual) in enumerate(zip(want, got, strict=False)):
            if expected != actual:
                problems.append(
                    f"run {run}, {level} {n} ({describe(actual)}): the reader has "
                    f"{encode_json(expected)[:400]}, the golden {encode_json(actual)[:400]}"
                )
        if len(want) != len(got):
            extra = got[len(want) :] or want[len(got) :]
            problems.append(
                f"run {run}: the reader has {len(want)} {level}s, the golden {len(got)} "
                f"(first unmatched: {describe(extra[0])})"
            )
    return problems
