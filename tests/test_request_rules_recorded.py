"""No request rule fires on a recorded follow-up request: every interaction after the first
of every cassette with more than one (the bundled cassettes, the tool-loop recordings and the
shared corpus of real recordings), judged against the earlier rounds of the same cassette
(each as raf reads it: a stream through raf's pipeline and ``prior_of``; a response that is
one JSON document taken as its assistant turn: ``choices[0].message``, ``content``,
``candidates[0].content``, ``output``). Interactions of formats without rules (other
endpoints of a provider, MCP servers) are left out; the counts are printed.

The shared corpus is read-only and may be absent: its test skips, saying so, unless
``RAF_REQUIRE_CORPUS=1``, which makes its absence a failure."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from raf.cassettes.importers import guess_dialect, import_file, is_event_stream
from raf.formats.request_rules import MESSAGE_LISTS, Prior, check_rules, prior_of, rules_for
from raf.pipeline import respond
from tests import corpus
from tests.corpus import ROOT as CORPUS

REPO = Path(__file__).resolve().parents[1]
BUNDLED = (REPO / "cassettes", REPO / "conformance" / "tool_loops")
PYDANTIC_AI = CORPUS / "pydantic-ai"


def _json_prior(dialect: str, body: bytes | str | None) -> Prior | None:
    """The assistant turn of a response that is one JSON document (not streamed)."""
    try:
        doc = json.loads(body or b"")
    except ValueError:
        return None
    if not isinstance(doc, dict):
        return None
    rid = doc.get("id", doc.get("responseId"))
    rid = rid if isinstance(rid, str) else None
    turn: Any = None
    if dialect in ("openai_chat", "ollama_chat"):
        choices = doc.get("choices")
        first = choices[0] if isinstance(choices, list) and choices else None
        turn = [first.get("message")] if isinstance(first, dict) else doc.get("message")
    elif dialect == "anthropic_messages":
        turn = [{"role": "assistant", "content": doc.get("content") or []}]
    elif dialect == "gemini":
        candidates = doc.get("candidates")
        first = candidates[0] if isinstance(candidates, list) and candidates else None
        turn = [first.get("content")] if isinstance(first, dict) else None
    elif dialect == "openai_responses":
        turn = doc.get("output")
    if isinstance(turn, dict):
        turn = [turn]
    items = tuple(t for t in turn if isinstance(t, dict)) if isinstance(turn, list) else ()
    return Prior(turn=items, response_id=rid)


def judge(folders: tuple[Path, ...]) -> tuple[Counter[str], list[str]]:
    """The follow-ups judged per format, and every rule fired (``path#n: rule at field``)."""
    judged: Counter[str] = Counter()
    fired: list[str] = []
    for folder in folders:
        for path in sorted(folder.rglob("*.yaml")):
            cassette = import_file(path)
            if len(cassette.interactions) < 2:
                continue
            rounds: dict[str, list[Prior]] = {}
            for n, interaction in enumerate(cassette.interactions):
                dialect = guess_dialect(interaction.request.uri)
                if dialect not in MESSAGE_LISTS or not rules_for(dialect):
                    continue
                try:
                    body = json.loads(interaction.request.body or b"")
                except ValueError:
                    continue
                prior = rounds.setdefault(dialect, [])
                if n > 0 and isinstance(body, dict):
                    judged[dialect] += 1
                    fired.extend(
                        f"{path}#{n}: {broken.rule} at {broken.field}: {broken.message}"
                        for broken in check_rules(dialect, body, prior)
                    )
                if is_event_stream(interaction):
                    prior.append(prior_of(dialect, respond([interaction.response.body], dialect)))
                else:
                    found = _json_prior(dialect, interaction.response.body)
                    if found is not None:
                        prior.append(found)
    return judged, fired


def test_no_rule_fires_on_a_recorded_follow_up_of_the_bundled_recordings() -> None:
    judged, fired = judge(BUNDLED)
    print(f"bundled follow-ups judged: {dict(judged)}; rules fired: {len(fired)}")
    assert {"openai_chat", "anthropic_messages", "gemini", "openai_responses"} <= set(judged)
    assert fired == []


def test_no_rule_fires_on_a_recorded_follow_up_of_the_shared_corpus() -> None:
    corpus.require()
    assert PYDANTIC_AI.is_dir(), f"the shared corpus has no {PYDANTIC_AI.name} folder"
    judged, fired = judge((PYDANTIC_AI,))
    print(f"corpus follow-ups judged: {dict(judged)}; rules fired: {len(fired)}")
    assert sum(judged.values()) > 0
    assert fired == []


# ------------------------------------------------- the recorded follow-ups, broken on purpose


def _follow_up(dialect: str, name: str) -> tuple[dict[str, Any], list[Prior]]:
    """The recorded follow-up of ``cassettes/<dialect>/<name>.yaml`` and its earlier round,
    read from the recorded stream as ``raf serve`` reads it."""
    cassette = import_file(REPO / "cassettes" / dialect / f"{name}.yaml")
    first, second = cassette.interactions[0], cassette.interactions[1]
    body = json.loads(second.request.body or b"")
    return body, [prior_of(dialect, respond([first.response.body], dialect))]


def _blocks(body: dict[str, Any]) -> list[Any]:
    content: list[Any] = body["messages"][1]["content"]
    return content


def _no_redacted(body: dict[str, Any]) -> None:
    body["messages"][1]["content"] = [b for b in _blocks(body) if b["type"] != "redacted_thinking"]


def _blank_signature(body: dict[str, Any]) -> None:
    _blocks(body)[0]["signature"] = ""


def _altered_thinking(body: dict[str, Any]) -> None:
    _blocks(body)[0]["thinking"] += " (edited)"


def _signature_moved(body: dict[str, Any]) -> None:
    parts = body["contents"][1]["parts"]
    parts[2]["thoughtSignature"] = parts[1].pop("thoughtSignature")


def _reasoning_dropped(body: dict[str, Any]) -> None:
    body["input"] = [i for i in body["input"] if i.get("type") != "reasoning"]


def _encrypted_dropped(body: dict[str, Any]) -> None:
    for item in body["input"]:
        item.pop("encrypted_content", None)


def _encrypted_cut(body: dict[str, Any]) -> None:
    for item in body["input"]:
        if "encrypted_content" in item:
            item["encrypted_content"] = item["encrypted_content"][:-8]


def _reasoning_content_dropped(body: dict[str, Any]) -> None:
    del body["messages"][1]["reasoning_content"]


BROKEN_ON_PURPOSE = [
    ("anthropic_messages", "thinking_tool_use_follow_up", _no_redacted, "anthropic.thinking_kept"),
    (
        "anthropic_messages",
        "thinking_tool_use_follow_up",
        _blank_signature,
        "anthropic.thinking_signed",
    ),
    (
        "anthropic_messages",
        "thinking_tool_use_follow_up",
        _altered_thinking,
        "anthropic.thinking_unchanged",
    ),
    (
        "gemini",
        "parallel_calls_thought_signature_follow_up",
        _signature_moved,
        "gemini.call_signature_kept",
    ),
    (
        "openai_responses",
        "reasoning_function_call_follow_up",
        _reasoning_dropped,
        "responses.item_with_its_reasoning",
    ),
    (
        "openai_responses",
        "reasoning_function_call_follow_up",
        _encrypted_dropped,
        "responses.encrypted_reasoning_when_not_stored",
    ),
    (
        "openai_responses",
        "reasoning_function_call_follow_up",
        _encrypted_cut,
        "responses.encrypted_content_unchanged",
    ),
    (
        "openai_chat",
        "deepseek_reasoning_tool_call_follow_up",
        _reasoning_content_dropped,
        "chat.reasoning_content_sent_back",
    ),
]


@pytest.mark.parametrize(
    ("dialect", "name", "breaking", "rule_id"),
    BROKEN_ON_PURPOSE,
    ids=[f"{case[1]}:{case[3]}" for case in BROKEN_ON_PURPOSE],
)
def test_a_recorded_follow_up_broken_as_a_reported_bug_breaks_the_rule(
    dialect: str, name: str, breaking: Any, rule_id: str
) -> None:
    body, prior = _follow_up(dialect, name)
    assert check_rules(dialect, body, prior) == []
    breaking(body)
    assert rule_id in {b.rule for b in check_rules(dialect, body, prior)}
