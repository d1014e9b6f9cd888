"""The decisions on arguable expectations (docs/cassettes.md, "Decisions on arguable
expectations") and the cassettes' ``also`` readings say the same thing, and every reading does
in a run what it says: a response that matches it passes ``judge``, one that matches no
reading fails, and the reference still matches the golden."""

from __future__ import annotations

import copy
import dataclasses
import re
from pathlib import Path
from typing import Any

import msgspec
import pytest
from msgspec import UNSET

from raf.cassettes import load
from raf.cassettes.format import Reading
from raf.cassettes.lint import cassette_files
from raf.conformance import goldens
from raf.conformance.cases import Case, load_suite, review
from raf.conformance.implementation import Outcome, ReferenceImplementation
from raf.conformance.protocol import CAPABILITIES, Result
from raf.conformance.runner import CaseResult, judge, run_suite
from raf.shared.client_response import ClientResponse

ROOT = Path(__file__).resolve().parents[1]
GOLDENS = ROOT / "conformance" / "goldens"
CASSETTES = cassette_files([ROOT / "cassettes"])
SECTION = "## Decisions on arguable expectations"
ANSWER = re.compile(r"^\*\*Another reading accepted:\*\* (yes|no)\b", re.MULTILINE)
EVERYTHING = set(CAPABILITIES) - {"http"}  # every field compared, codes included


def ident(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def readings(path: Path) -> tuple[Reading, ...]:
    """The other readings the cassette's ``expect`` block accepts."""
    info = load(path).info
    assert info is not None
    assert info.expect is not None
    return info.expect.also


READINGS = [(path, n) for path in CASSETTES for n in range(len(readings(path)))]


def words(text: str) -> str:
    return " ".join(text.split())


def decisions() -> dict[str, str]:
    """Each ``### <dialect>/<scenario>: <question>`` subsection of the section, by its
    ``<dialect>/<scenario>``."""
    document = (ROOT / "docs" / "cassettes.md").read_text(encoding="utf-8")
    assert document.count(f"\n{SECTION}\n") == 1, f"docs/cassettes.md has no '{SECTION}'"
    section = document.split(f"\n{SECTION}\n", 1)[1].split("\n## ", 1)[0]
    out: dict[str, str] = {}
    for part in re.split(r"^### ", section, flags=re.MULTILINE)[1:]:
        heading, _, body = part.partition("\n")
        name, _, question = heading.partition(": ")
        assert question.strip(), f"'### {heading}' is not '### <format>/<scenario>: <question>'"
        assert name not in out, f"two decisions on {name}"
        out[name] = body
    return out


def quotes(body: str) -> list[str]:
    """The ``>`` paragraphs of a subsection, each as one line of words."""
    out: list[list[str]] = []
    previous = False
    for line in body.splitlines():
        quoted = line.startswith(">")
        if quoted:
            if not previous:
                out.append([])
            out[-1].append(line[1:])
        previous = quoted
    return [words(" ".join(lines)) for lines in out]


def test_every_reading_is_quoted_under_its_scenario_and_every_quote_is_a_reading() -> None:
    in_docs = {name: sorted(quotes(body)) for name, body in decisions().items() if quotes(body)}
    in_cassettes = {
        ident(path): sorted(words(r.why) for r in readings(path))
        for path in CASSETTES
        if readings(path)
    }
    assert in_docs == in_cassettes


def test_every_decision_names_a_cassette_and_says_whether_another_reading_is_accepted() -> None:
    names = {ident(path) for path in CASSETTES}
    dialects = {path.parent.name for path in CASSETTES}
    accepted = {ident(path) for path in CASSETTES if readings(path)}
    for name, body in decisions().items():
        dialect, _, scenario = name.partition("/")
        assert name in names or (scenario == "*" and dialect in dialects), (
            f"the decision '{name}' names no cassette"
        )
        answers = ANSWER.findall(body)
        assert len(answers) == 1, (
            f"the decision on {name} must say once whether another reading is accepted"
        )
        assert (answers[0] == "yes") == (name in accepted), (
            f"the decision on {name} says {answers[0]!r} but its cassette "
            f"{'has' if name in accepted else 'has no'} `also` reading"
        )


@pytest.mark.parametrize("path", CASSETTES, ids=ident)
def test_the_golden_and_the_readings_pass_review(path: Path) -> None:
    loaded = load(path)
    assert loaded.info is not None
    golden = goldens.load(goldens.golden_path(GOLDENS, loaded.info.dialect, loaded.info.scenario))
    assert golden is not None
    assert review(golden, loaded) == []  # the golden satisfies expect; each reading is sound


def the_case(path: Path) -> Case:
    """The case of the cassette's last interaction (the one ``expect`` is about), whole."""
    suite = load_suite([path], GOLDENS, chunkings=("whole",))
    assert suite.problems == []
    return suite.cases[-1]


def with_reading(response: dict[str, Any], reading: Reading) -> dict[str, Any]:
    """The golden's response with what ``reading`` changes, written out here (not by
    raf.conformance.review), as a client that reads the stream that way would report it."""
    out = copy.deepcopy(response)
    for name, key in (("text", "text"), ("reasoning", "reasoning_text")):
        if getattr(reading, name) is not UNSET:
            out[key] = getattr(reading, name)
    if reading.finish_reason is not UNSET:
        out["finish_reason"] = reading.finish_reason
    if reading.usage is not UNSET:
        out["usage"] = None if reading.usage is None else msgspec.to_builtins(reading.usage)
    if reading.errors is not UNSET:
        out["errors"] = [
            {"error_code": code, "message": "as this client says it"} for code in reading.errors
        ]
    if reading.tool_calls is not UNSET:
        out["tool_calls"] = [
            {"id": call.id or f"mine_{n}", "name": call.name, "arguments": call.arguments}
            for n, call in enumerate(reading.tool_calls)
        ]
    return out


def with_neither(response: dict[str, Any], reading: Reading) -> dict[str, Any]:
    """The golden's response with every field ``reading`` changes set to a value neither the
    golden nor the reading has."""
    out = copy.deepcopy(response)
    if reading.text is not UNSET:
        out["text"] = "neither reading"
    if reading.reasoning is not UNSET:
        out["reasoning_text"] = "neither reading"
    if reading.finish_reason is not UNSET:
        out["finish_reason"] = "neither_reading"
    if reading.usage is not UNSET:
        out["usage"] = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    if reading.errors is not UNSET:
        out["errors"] = [{"error_code": "neither_reading", "message": ""}]
    if reading.tool_calls is not UNSET:
        out["tool_calls"] = [{"id": "neither", "name": "neither_reading", "arguments": {}}]
    return out


def verdict(case: Case, response: dict[str, Any]) -> CaseResult:
    result = Result(id=case.id, response=msgspec.convert(response, ClientResponse))
    return judge(case, Outcome(result=result), "response", EVERYTHING)


@pytest.mark.parametrize(("path", "n"), READINGS, ids=[f"{ident(p)}[{n}]" for p, n in READINGS])
def test_a_response_that_matches_another_reading_passes_and_says_which(path: Path, n: int) -> None:
    case = the_case(path)
    reading = readings(path)[n]
    response = with_reading(case.expected.response, reading)
    result = verdict(case, response)
    assert (result.status, result.reason, result.differences) == ("pass", "", [])
    assert result.reading == reading.why
    # it is the reading that makes it pass: judged against the golden alone, it fails
    assert verdict(dataclasses.replace(case, readings=()), response).status == "fail"


@pytest.mark.parametrize(("path", "n"), READINGS, ids=[f"{ident(p)}[{n}]" for p, n in READINGS])
def test_a_response_that_matches_no_reading_fails(path: Path, n: int) -> None:
    case = the_case(path)
    result = verdict(case, with_neither(case.expected.response, readings(path)[n]))
    assert result.status == "fail", result.reason
    assert any(d.failing for d in result.differences)


def test_the_reference_still_gives_raf_reading_under_every_chunking_at_every_level() -> None:
    suite = load_suite(sorted({path for path, _ in READINGS}), GOLDENS)
    report = run_suite(suite, ReferenceImplementation(), level="updates")
    assert report.ok, [r.reason for r in report.results if not r.ok]
    assert len(report.results) == 6 * len({path for path, _ in READINGS})
    assert {(r.status, r.reading) for r in report.results} == {("pass", "")}


def test_some_cassettes_accept_another_reading() -> None:
    assert len(READINGS) >= 8  # the decisions of docs/cassettes.md that accept one
