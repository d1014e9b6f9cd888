"""A catalogue that breaks a rule does not load, and the error names the entry and field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from raf.quirks import QuirkCatalogueError, load, parse

GOOD: dict[str, Any] = {
    "id": "leading_bom",
    "title": "The body starts with a byte-order mark",
    "formats": ["openai_chat", "gemini"],
    "providers": [".NET servers"],
    "reports": ["a2aproject/a2a-js#714"],
    "kind": "lost",
    "generators": ["openai_chat"],
    "cassettes": ["openai_chat/leading_bom"],
    "wrong": "the first event is lost",
}


def catalogue_text(**changes: Any) -> str:
    entry = {**GOOD, **changes}
    entry = {k: v for k, v in entry.items() if v is not ...}
    second = {**GOOD, "id": "second_one"}
    return yaml.safe_dump({"quirks": [second, entry]}, sort_keys=False)


def test_a_good_catalogue_loads() -> None:
    quirks = parse(catalogue_text())
    assert list(quirks) == ["second_one", "leading_bom"]
    assert quirks["leading_bom"].formats == ("openai_chat", "gemini")


@pytest.mark.parametrize(
    ("changes", "says"),
    [
        ({"severity": "error"}, "unknown field severity"),
        ({"wrong": ...}, "missing field wrong"),
        ({"id": "LeadingBom"}, "id 'LeadingBom' is not snake_case"),
        ({"id": "leading__bom"}, "is not snake_case"),
        ({"id": 3}, "id must be a non-empty string"),
        ({"formats": ["openai_chat", "cohere"]}, "formats: unknown format cohere"),
        ({"formats": []}, "formats must name at least one format"),
        ({"kind": "broken"}, "kind: 'broken' is not one of lost, wrong"),
        ({"generators": ["anthropic_messages"]}, "generators: anthropic_messages is not one"),
        ({"cassettes": ["leading_bom"]}, "'leading_bom' is not <format>/<scenario>"),
        ({"cassettes": ["ollama_chat/x"]}, "ollama_chat/x is of format ollama_chat"),
        ({"reports": "a2aproject/a2a-js#714"}, "reports must be a list of non-empty strings"),
        ({"providers": ["A", "A"]}, "providers lists A twice"),
        ({"title": "two\nlines"}, "title must be one line"),
        ({"id": "second_one"}, "id 'second_one' is used twice"),
    ],
)
def test_a_broken_entry_is_named(changes: dict[str, Any], says: str) -> None:
    with pytest.raises(QuirkCatalogueError) as caught:
        parse(catalogue_text(**changes), "q.yaml")
    message = str(caught.value)
    assert message.startswith("q.yaml: quirks[1]")
    assert says in message
    if isinstance(changes.get("id", "leading_bom"), str):
        assert f"({changes.get('id', 'leading_bom')})" in message


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("quirks: [\n", "q.yaml: not YAML"),
        ("- id: x\n", "q.yaml: a mapping with a list 'quirks' was expected"),
        ("quirks: []\nextra: 1\n", "q.yaml: unknown key extra"),
        ("quirks:\n- just a string\n", "q.yaml: quirks[0]: a mapping was expected"),
    ],
)
def test_a_broken_file_is_named(text: str, says: str) -> None:
    with pytest.raises(QuirkCatalogueError, match="^" + says.replace("[", r"\[")):
        parse(text, "q.yaml")


def test_a_missing_file_is_a_catalogue_error(tmp_path: Path) -> None:
    with pytest.raises(QuirkCatalogueError, match="cannot read"):
        load(tmp_path / "nothing.yaml")
