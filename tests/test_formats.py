"""Every registered wire format is complete: each step of adding a format (docs/dialects.md,
"Adding a format") is checked here, and a missing one fails with the step's name."""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path
from types import ModuleType
from urllib.parse import urlsplit

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from raf import dialects, formats
from raf import framing as framings
from raf.cassettes.importers import guess_dialect
from raf.cassettes.persister import load as load_cassette
from raf.chunking import STANDARD_CHUNKINGS
from raf.clients.base import finish_reason
from raf.clients.raf_httpx import ADAPTER as RAF_ADAPTER
from raf.formats import Format, FormatError
from raf.model.usage import FinishReason
from raf.pipeline import respond
from raf.serve.faults import error_body
from raf.serve.request_check import EQUIVALENCES, compared_fields
from raf.serve.routes import allowed_methods, provider_path_problem
from raf.testing import strategies
from tests import processes
from tests.conformance.test_golden_review import READERS
from tests.properties.support import summary

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "dialects.md"
CASSETTES_DOC = ROOT / "docs" / "cassettes.md"
README = ROOT / "README.md"
NAMES = formats.names()
WORDS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
]


# The counts of the README and docs/conformance.md are written from the bundled suite; these
# tests check them again from the cassette files.
REWRITE = "stale counts: run python -m tests.readme_counts README.md docs/*.md"


def step(number: int, what: str) -> str:
    return f"adding a format, step {number} ({what}) is missing"


@pytest.fixture(params=NAMES)
def fmt(request: pytest.FixtureRequest) -> Format:
    name: str = request.param
    return formats.get(name)


def test_the_built_in_formats_are_registered() -> None:
    assert {"openai_chat", "anthropic_messages", "openai_responses", "gemini"} <= set(NAMES)
    assert set(NAMES) <= set(dialects.names()), step(1, "a dialect of the same name")


def test_step_1_the_descriptor_names_its_dialect_and_framings(fmt: Format) -> None:
    dialect = fmt.dialect()
    assert dialect.name == fmt.name, step(1, "Format.dialect makes the format's dialect")
    assert dialect.framing == fmt.framing, step(1, "Format.framing is the dialect's framing")
    assert fmt.framing in fmt.framings, step(1, "Format.framings holds the default framing")
    assert set(fmt.framings) <= set(framings.names()), step(1, "framings raf.framing knows")
    for name in fmt.framings:
        if name != "auto":
            assert name in fmt.content_types, step(1, f"Format.content_types[{name!r}]")
    assert fmt.sniff == getattr(dialect, "sniff", ()), step(1, "Format.sniff: the dialect's")
    assert fmt.sniff, step(1, "Format.sniff: byte patterns that mark the format")
    for wire, ours in fmt.finish_reasons.items():
        assert ours in set(FinishReason), step(1, f"finish reason {wire!r} maps to raf's")
        assert finish_reason(fmt.name, wire) == ours, step(1, "clients read finish_reasons")


def test_step_2_the_http_face_reaches_every_shell(fmt: Format) -> None:
    path = urlsplit(fmt.placeholder_uri).path
    assert guess_dialect(fmt.placeholder_uri) == fmt.name, step(
        2, "Format.recorded_uri recognises Format.placeholder_uri"
    )
    assert fmt.endpoints, step(2, "Format.endpoints: the paths its clients send to")
    assert provider_path_problem(fmt.name, "POST", path) is None, step(
        2, "Format.placeholder_uri is one of Format.endpoints"
    )
    assert "POST" in allowed_methods(fmt.name, path), step(2, "a POST endpoint")
    assert fmt.request_fields, step(2, "Format.request_fields: what the request check reads")
    assert compared_fields(fmt.name) == fmt.request_fields
    assert bool(fmt.url_fields) == (fmt.request_url is not None), step(
        2, "Format.request_url says how to read the Format.url_fields the check compares"
    )
    if fmt.request_url is not None:
        assert fmt.request_url.parts(fmt.placeholder_uri).method, step(
            2, "Format.request_url reads the method of Format.placeholder_uri"
        )
    specific = {rule.name for rule in EQUIVALENCES if rule.specific}
    assert set(fmt.equivalences) <= specific, step(
        2, "Format.equivalences: names of format-specific EQUIVALENCES of the request check"
    )
    assert fmt.name in RAF_ADAPTER.dialects, step(
        2, "the format in the dialects of the matrix's control column, raf/clients/raf_httpx.py"
    )
    for status in (400, 429, 500, 503):
        document = msgspec.json.decode(error_body(fmt.name, status))
        assert document == fmt.error_document(status, f"raf serve: injected fault http-{status}")
        assert "injected fault" in msgspec.json.encode(document).decode(), step(
            2, "Format.error_document carries the message"
        )


def test_step_3_the_format_has_cassettes_and_goldens(fmt: Format) -> None:
    cassettes = cassettes_of(fmt.name)
    assert cassettes, step(3, f"cassettes in cassettes/{fmt.name}/")
    goldens = ROOT / "conformance" / "goldens" / fmt.name
    missing = [c.stem for c in cassettes if not (goldens / f"{c.stem}.json").is_file()]
    assert not missing, step(4, f"goldens in conformance/goldens/{fmt.name}/ for {missing}")


def cassettes_of(name: str) -> list[Path]:
    return sorted((ROOT / "cassettes" / name).glob("*.yaml"))


def scenario_library() -> dict[str, tuple[str, str]]:
    """The sections of docs/cassettes.md's scenario library: format -> (title, text)."""
    text = CASSETTES_DOC.read_text(encoding="utf-8")
    library = text.split("\n## The scenario library\n", 1)[1].split("\n## ", 1)[0]
    sections = re.split(r"^### `(\w+)`: (.*)$", library, flags=re.MULTILINE)[1:]
    return {
        name: (title, body)
        for name, title, body in zip(sections[::3], sections[1::3], sections[2::3], strict=True)
    }


def test_step_3_the_scenario_library_documents_every_cassette(fmt: Format) -> None:
    section = scenario_library().get(fmt.name)
    where = "docs/cassettes.md, The scenario library"
    assert section is not None, step(3, f"a section '### `{fmt.name}`: <title>' in {where}")
    _, text = section
    stems = [c.stem for c in cassettes_of(fmt.name)]
    assert f"`cassettes/{fmt.name}/` holds {len(stems)} scenarios" in text, step(
        3, f"'`cassettes/{fmt.name}/` holds {len(stems)} scenarios' in {where}"
    )
    rows = re.findall(r"^\| `(\w+)` \|", text, flags=re.MULTILINE)
    assert sorted(rows) == stems, step(3, f"one row per cassette of {fmt.name} in {where}")


def test_the_scenario_library_has_a_section_per_format_and_no_other() -> None:
    assert sorted(scenario_library()) == NAMES


def test_the_readme_counts_the_formats_and_their_scenarios() -> None:
    text = README.read_text(encoding="utf-8")
    diagram = text.split("```\n bytes ─▶ framing", 1)[1].split("```", 1)[0]
    assert "raf/formats/<name>/dialect.py" in diagram
    missing = set(NAMES) - set(re.findall(r"\w+", diagram))
    assert not missing, f"the README's pipeline diagram lists every format: {missing}"
    readme = " ".join(text.split())
    counts = {name: len(cassettes_of(name)) for name in NAMES}
    total, word = sum(counts.values()), WORDS[len(NAMES)]
    assert f"replays {total} recorded scenarios of the {word} formats" in readme, REWRITE
    assert f"the other {WORDS[len(NAMES) - 1]} formats are skipped" in readme, REWRITE
    assert f"each of the {word} dialects" in readme, REWRITE
    found = re.search(rf"holds {total} recorded scenarios \(([^)]*)\)", readme)
    assert found is not None, f"README: 'holds {total} recorded scenarios (...)': {REWRITE}"
    titles = {name: title for name, (title, _) in scenario_library().items()}
    listed: dict[str, int] = {}
    for number, label in re.findall(r"(\d+) ([^,]+)", found.group(1)):
        named = [name for name, title in titles.items() if label in title]
        assert len(named) == 1, f"README: {label!r} names no format's title, or several"
        listed[named[0]] = int(number)
    assert listed == counts, REWRITE


def test_the_readme_and_docs_count_the_cassettes_interactions_and_cases() -> None:
    # The numbers a user checks their own run against: raf serve's banner in the tour, and
    # docs/conformance.md's arithmetic of cases (cassettes per format, interactions, x 6).
    counts = {name: len(cassettes_of(name)) for name in NAMES}
    total = sum(counts.values())
    interactions = sum(
        len(load_cassette(path).interactions) for name in NAMES for path in cassettes_of(name)
    )
    readme = " ".join(README.read_text(encoding="utf-8").split())
    assert f"({total} cassettes; Ctrl-C stops)" in readme, REWRITE
    docs = " ".join((ROOT / "docs" / "conformance.md").read_text(encoding="utf-8").split())
    per_format = ", ".join(f"{counts[name]} `{name}`" for name in NAMES)
    found = re.search(r"(\d+) cassettes \(([^)]*)\) of (\d+) interactions .*? = (\d+) cases", docs)
    assert found is not None, "docs/conformance.md: 'N cassettes (...) of N interactions ...'"
    listed = {name: int(n) for n, name in re.findall(r"(\d+) `(\w+)`", found.group(2))}
    assert (int(found.group(1)), listed, int(found.group(3)), int(found.group(4))) == (
        total,
        counts,
        interactions,
        interactions * len(STANDARD_CHUNKINGS),
    ), f"{per_format}: {REWRITE}"


def test_step_5_the_format_has_an_independent_reader(fmt: Format) -> None:
    assert fmt.name in READERS, step(
        5,
        f"an independent reader tests/conformance/reader_{fmt.name}.py with read_updates",
    )


def test_step_1_the_format_is_one_package_holding_its_dialect(fmt: Format) -> None:
    package = f"raf.formats.{fmt.name}"
    assert importlib.import_module(package).FORMAT is fmt, step(1, f"{package}.FORMAT")
    assert fmt.dialect.__module__ == f"{package}.dialect", step(
        1, f"the dialect in raf/formats/{fmt.name}/dialect.py"
    )
    assert dialects.factory(fmt.name) is fmt.dialect, step(1, "raf.dialects reads the format")


def strategies_of(fmt: Format) -> ModuleType:
    assert fmt.strategies == f"raf.formats.{fmt.name}.strategies", step(
        6, f"strategies in raf/formats/{fmt.name}/strategies.py, named by Format.strategies"
    )
    module = importlib.import_module(fmt.strategies)
    for attribute in ("responses", "streams", "render", "PROFILES"):
        assert getattr(module, attribute, None), step(6, f"{fmt.strategies}.{attribute}")
    return module


def test_step_6_the_strategies_are_public_and_not_imported_by_the_format(fmt: Format) -> None:
    module = strategies_of(fmt)
    assert importlib.import_module(f"raf.testing.strategies.{fmt.name}") is module
    assert getattr(strategies, fmt.name) is module
    code = (
        f"import sys, raf.formats, raf.dialects\n"
        f"raf.formats.get({fmt.name!r}).dialect()\n"
        f"print(sorted(m for m in ('hypothesis', {fmt.strategies!r}) if m in sys.modules))"
    )
    result = processes.run([sys.executable, "-c", code], text=True, check=True)
    assert result.stdout.strip() == "[]", "a format's package never imports its strategies"


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_step_6_the_strategies_round_trip_through_the_dialect(
    name: str, data: st.DataObject
) -> None:
    fmt = formats.get(name)
    module = strategies_of(fmt)
    profile = data.draw(st.sampled_from([None, *sorted(module.PROFILES)]), label="profile")
    stream = data.draw(module.streams() if profile is None else module.streams(profile))
    assert summary(respond(list(stream.chunks), fmt.name)) == summary(stream.response), step(
        6, "strategies whose streams the dialect reads back to what they drew"
    )


def test_step_7_the_format_has_a_docs_section(fmt: Format) -> None:
    text = DOCS.read_text(encoding="utf-8")
    row = re.search(rf"^\| `{fmt.name}` \| .* \| `([^`]+)` \|$", text, flags=re.MULTILINE)
    assert row is not None, step(7, f"a row for `{fmt.name}` in the table of docs/dialects.md")
    assert row.group(1) == f"raf/formats/{fmt.name}/dialect.py", step(
        7, "the table of docs/dialects.md names the format's dialect module"
    )
    assert re.search(rf"^## `{fmt.name}`", text, flags=re.MULTILINE), step(
        7, f"a section '## `{fmt.name}`: ...' in docs/dialects.md"
    )


def test_step_8_the_format_has_a_request_half(fmt: Format) -> None:
    assert fmt.build_request is not None, step(8, "Format.build_request")
    assert fmt.read_request is not None, step(8, "Format.read_request")
    try:
        module = importlib.import_module(f"raf.formats.{fmt.name}.request_strategies")
    except ImportError:
        pytest.fail(step(8, f"raf/formats/{fmt.name}/request_strategies.py"))
    assert callable(getattr(module, "requests", None)), step(8, "request_strategies.requests")
    assert isinstance(getattr(module, "FEATURES", None), frozenset), step(
        8, "request_strategies.FEATURES"
    )
    text = (ROOT / "docs" / "requests.md").read_text(encoding="utf-8")
    assert re.search(rf"^## `{fmt.name}`", text, flags=re.MULTILINE), step(
        8, f"a section '## `{fmt.name}`' in docs/requests.md"
    )


def test_unknown_and_broken_formats_are_a_typed_error(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(FormatError, match="known formats: anthropic_messages"):
        formats.get("nope")
    assert formats.find("nope") is None
    monkeypatch.setitem(formats._TARGETS, "broken", "raf.no_such_module:FORMAT")
    monkeypatch.setitem(formats._TARGETS, "wrong", "raf.formats.gemini:FORMAT")
    assert "broken" in formats.names()
    with pytest.raises(FormatError, match="could not be loaded"):
        formats.get("broken")
    with pytest.raises(FormatError, match="is not a Format named 'wrong'"):
        formats.get("wrong")
    assert formats.find("broken") is None
    assert provider_path_problem("broken", "GET", "/anything") is None  # no table: any path
    assert formats.get("gemini").name == "gemini"  # the others still load
