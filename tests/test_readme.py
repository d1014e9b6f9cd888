"""The README's two quick-start commands are the ones CI runs, and the tour's claims hold."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from raf.cli import main
from tests import readme_counts, readme_tour

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
CI = (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def quick_start_commands() -> list[str]:
    section = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return [c.strip() for c in re.findall(r"```\n(.*?)\n\s*```", section, re.S)]


def test_quick_start_has_exactly_two_commands() -> None:
    commands = quick_start_commands()
    assert len(commands) == 2
    assert all("\n" not in c for c in commands)


def test_ci_runs_both_readme_commands_verbatim() -> None:
    main_job, tests = quick_start_commands()
    ci_lines = [line.strip() for line in CI.splitlines()]
    assert tests in ci_lines
    assert any(line.startswith(main_job) for line in ci_lines)


def test_ci_runs_the_readme_test_command_with_the_corpus_required() -> None:
    # The README says the corpus tests fail instead of skipping with the switch, as CI runs
    # them; CI sets it before that command (the corpus is beside the clone there).
    _, tests = quick_start_commands()
    ci_lines = [line.strip() for line in CI.splitlines()]
    assert ci_lines.index("export RAF_REQUIRE_CORPUS=1") < ci_lines.index(tests)
    assert "`RAF_REQUIRE_CORPUS=1`" in README.split("## Quick start", 1)[1].split("\n## ", 1)[0]


def test_files_named_in_the_readme_exist() -> None:
    for name in re.findall(r"\((docs/[\w./-]+)\)", README) + re.findall(
        r"`(examples/[\w./-]+)`", README
    ):
        assert (ROOT / name).exists(), name


def test_the_python_tour_example_runs(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    first = readme_tour.python_snippets()[0]
    monkeypatch.chdir(ROOT)
    exec(compile(first, "README.md", "exec"), {})
    out = capsys.readouterr().out
    for printed in readme_tour.PYTHON_PRINTS[0]:
        assert printed in out
    for never in readme_tour.PYTHON_NEVER_PRINTS[0]:
        assert never not in out  # 'unit' completes within one push


def test_every_python_snippet_of_the_tour_runs_as_written(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    snippets = readme_tour.python_snippets()
    assert len(snippets) == len(readme_tour.PYTHON_PRINTS)
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr("sys.path", list(__import__("sys").path))  # the tour adds examples/
    for n, snippet in enumerate(snippets):
        exec(compile(snippet, f"README.md python snippet {n}", "exec"), {})
        out = capsys.readouterr().out
        for printed in readme_tour.PYTHON_PRINTS[n]:
            assert printed in out, (n, printed)


COUNTS = "python -m tests.readme_counts README.md docs/*.md"


@pytest.mark.parametrize("document", readme_counts.DOCUMENTS)
def test_the_counts_in_the_prose_are_those_of_the_bundled_suite(document: str) -> None:
    # Scenarios per format, cases (the tour's run of the Node.js client, which reads Chat
    # Completions only: the other formats' cases are skipped), tool loops, request rules.
    assert "raf conform --impl 'node examples/clients/node/client.js'" in README
    text = (ROOT / document).read_text(encoding="utf-8")
    assert readme_counts.render(text, document) == text, f"{document} is stale: run {COUNTS}"


def test_the_counts_are_rewritten_where_they_stand() -> None:
    now = readme_counts.facts()
    scenarios = {**now.scenarios, "openai_chat": now.scenarios["openai_chat"] + 1}
    more = dataclasses.replace(
        now, scenarios=scenarios, cases=now.cases + 6, chat_cases=now.chat_cases + 6, rules=40
    )
    total = now.total + 1
    written = readme_counts.render(README, "README.md", more)
    flat = " ".join(written.split())
    for phrase in (
        f"replays {total} recorded scenarios of the nine formats",
        f"holds {total} recorded scenarios ({scenarios['openai_chat']} Chat Completions, ",
        f"{now.cases + 6} cases: {now.chat_cases + 6} passed, 0 failed, ",
        f"({total} cassettes; Ctrl-C stops)",
        "against 40 request rules",
        "40 request rules over seven formats",
    ):
        assert phrase in flat, phrase
    assert readme_counts.render(written, "README.md", now) == README
    assert len(written.splitlines()) == len(README.splitlines())  # the wrapping is kept


def test_the_counts_command_checks_and_rewrites_a_document(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stale = tmp_path / "README.md"
    stale.write_text(README.replace("(45 Chat Completions,", "(44 Chat Completions,"), "utf-8")
    assert readme_counts.main(["--check", str(stale)]) == 1
    assert f"run: python -m tests.readme_counts {stale}" in capsys.readouterr().out
    assert readme_counts.main([str(stale)]) == 0
    assert stale.read_text(encoding="utf-8") == README
    reworded = tmp_path / "docs" / "conformance.md"
    reworded.parent.mkdir()
    reworded.write_text("no counts here\n", encoding="utf-8")
    assert readme_counts.main([str(reworded)]) == 2
    assert "is there 0 times, not once" in capsys.readouterr().err


def test_the_tour_anthropic_example_gives_what_the_readme_shows(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = "examples/anthropic_parallel_tools.sse"
    assert f"$ raf pipeline {path} --dialect auto --response" in README
    assert main(["pipeline", str(ROOT / path), "--dialect", "auto", "--response"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["text"] == "Checking both cities."
    assert [c["arguments"]["city"] for c in shown["tool_calls"]] == ["Paris", "London"]
    assert (shown["finish_reason"], shown["usage"]["total_tokens"]) == ("tool_calls", 643)
    for line in ('"id": "toolu_01A9JvG4kZpS3cV7bN2mQ1xE"', '"completion_tokens": 131'):
        assert line in README


def test_the_tour_client_scores_are_the_published_matrix() -> None:
    doc = (ROOT / "docs" / "clients.md").read_text(encoding="utf-8")
    how = doc.split("### How each client is read", 1)[1]
    versions = dict(re.findall(r"^\| ([a-z-]+) ([0-9][0-9.]*) \|", how, re.M))
    scores = [
        (name, score)
        for line in re.findall(r"^Passed: (.*)\.$", doc, re.M)
        for name, score in re.findall(r"([a-z-]+): (\d+/\d+)", line)
    ]
    passed = dict(scores)
    languages = dict(re.findall(r"^\| ([a-z-]+) [0-9][0-9.]* \| ([A-Za-z.]+) \|", how, re.M))
    rows = re.findall(
        r"^\| ([a-z-]+) ([0-9][0-9.]*) \| ([A-Za-z.]+) \| (\d+/\d+) \|$", README, re.M
    )
    assert len(rows) == len(passed) - 1  # every client but the control column
    for name, version, language, score in rows:
        assert (versions[name], languages[name], passed[name]) == (version, language, score), name
    total = sum(int(s.split("/")[1]) for n, s in scores if n == "raf")
    control = f"| raf, the control column (httpx and raf's pipeline) | Python | {total}/{total} |"
    assert control in README
