"""Every registered wire format is complete: each step of adding a format (docs/dialects.md,
"Adding a format") is checked here, and a missing one fails with the step's name."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from urllib.parse import urlsplit

import msgspec
import pytest

from raf import dialects, formats
from raf import framing as framings
from raf.cassettes.importers import guess_dialect
from raf.clients.base import finish_reason
from raf.clients.raf_httpx import ADAPTER as RAF_ADAPTER
from raf.formats import Format, FormatError
from raf.model.usage import FinishReason
from raf.serve.faults import error_body
from raf.serve.request_check import compared_fields
from raf.serve.routes import allowed_methods, provider_path_problem
from tests.conformance.test_golden_review import READERS

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "dialects.md"
NAMES = formats.names()


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
    cassettes = sorted((ROOT / "cassettes" / fmt.name).glob("*.yaml"))
    assert cassettes, step(3, f"cassettes in cassettes/{fmt.name}/")
    goldens = ROOT / "conformance" / "goldens" / fmt.name
    missing = [c.stem for c in cassettes if not (goldens / f"{c.stem}.json").is_file()]
    assert not missing, step(4, f"goldens in conformance/goldens/{fmt.name}/ for {missing}")


def test_step_5_the_format_has_an_independent_reader(fmt: Format) -> None:
    assert fmt.name in READERS, step(
        5,
        "an independent reader tests/conformance/reader_<name>.py, registered in "
        "READERS of tests/conformance/test_golden_review.py",
    )


def test_step_6_the_format_has_strategies(fmt: Format) -> None:
    try:
        module = importlib.import_module(f"raf.testing.strategies.{fmt.name}")
    except ImportError:
        pytest.fail(step(6, f"strategies in raf/testing/strategies/{fmt.name}.py"))
    for attribute in ("responses", "streams", "render"):
        assert callable(getattr(module, attribute, None)), step(
            6, f"raf.testing.strategies.{fmt.name}.{attribute}"
        )


def test_step_7_the_format_has_a_docs_section(fmt: Format) -> None:
    text = DOCS.read_text(encoding="utf-8")
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
