"""raf.testing.strategies as a public API: exports, eager argument checks, and profiles that
put on the wire what they say."""

from __future__ import annotations

import inspect
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis.errors import InvalidArgument

from raf.formats._strategies import common
from raf.pipeline import respond
from raf.testing import strategies
from raf.testing.strategies import PROFILES, GeneratedStream, Profile, openai_chat, streams
from tests.properties.support import summary


@pytest.mark.parametrize("module", [openai_chat, common])
def test_all_is_exactly_the_public_api(module: Any) -> None:
    public = {
        name
        for name, value in vars(module).items()
        if not name.startswith("_") and getattr(value, "__module__", None) == module.__name__
    }
    constants = {name for name in module.__all__ if name.isupper()}
    assert set(module.__all__) == public | constants


def test_the_package_re_exports_the_chat_completions_strategies() -> None:
    assert set(strategies.__all__) <= set(openai_chat.__all__) | set(common.__all__) | {
        "sse_framing"
    }
    assert all(getattr(strategies, name) is not None for name in strategies.__all__)


@pytest.mark.parametrize(
    "build",
    [
        lambda: streams(profile="nope"),
        lambda: streams(max_tool_calls=-1),
        lambda: strategies.responses(max_text_deltas=-1),
        lambda: strategies.json_arguments(max_keys=-1),
        lambda: strategies.sse_framing(["{}"], comments=["no colon"]),
        lambda: strategies.network_chunkings("text"),  # type: ignore[arg-type]
        lambda: Profile("ambiguous", ids="none", index="zero"),
    ],
    ids=[
        "profile",
        "max_tool_calls",
        "max_text_deltas",
        "max_keys",
        "comment",
        "body",
        "ambiguous_profile",
    ],
)
def test_bad_arguments_are_refused_when_the_strategy_is_built(build: Any) -> None:
    with pytest.raises(InvalidArgument):
        build()


def tool_entries(stream: GeneratedStream) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    for payload in stream.payloads:
        if payload.startswith("{"):
            for choice in json.loads(payload).get("choices") or []:
                entries += (choice.get("delta") or {}).get("tool_calls") or []
    return entries


@given(streams("ollama"))
def test_ollama_profile_numbers_every_call_zero(stream: GeneratedStream) -> None:
    assert all(entry["index"] == 0 for entry in tool_entries(stream))


@given(streams("gemini_openai"))
def test_gemini_profile_sends_no_index_and_whole_calls(stream: GeneratedStream) -> None:
    entries = tool_entries(stream)
    assert all("index" not in e and "id" in e for e in entries)
    incomplete = [e for e in stream.response.errors if e.error_code == "tool_call_incomplete"]
    assert len(entries) == len(stream.response.tool_calls) + len(incomplete)


@given(streams("nim"))
def test_nim_profile_sends_no_ids_and_expects_synthetic_ones(stream: GeneratedStream) -> None:
    assert all("id" not in e for e in tool_entries(stream))
    # Every call, complete or reported incomplete, has raf's id for its position.
    incomplete = [e.call_id for e in stream.response.errors if e.call_id is not None]
    ids = sorted([c.id for c in stream.response.tool_calls] + incomplete)
    assert ids == sorted(f"__tc_{n}" for n in range(len(ids)))


@given(streams("gpt5"))
def test_gpt5_profile_repeats_id_and_name_on_every_delta(stream: GeneratedStream) -> None:
    assert all("id" in e and "name" in e["function"] for e in tool_entries(stream))


@given(streams("openrouter"))
def test_openrouter_profile_uses_reasoning_and_processing_comments(stream: GeneratedStream) -> None:
    deltas = [
        json.loads(p)["choices"][0].get("delta", {})
        for p in stream.payloads
        if p.startswith("{") and json.loads(p).get("choices")
    ]
    assert not any("reasoning_content" in d for d in deltas)
    if stream.response.reasoning_text:
        assert any("reasoning" in d for d in deltas)


@given(streams("azure"))
def test_azure_profile_starts_with_a_filter_chunk(stream: GeneratedStream) -> None:
    first = json.loads(stream.payloads[0])
    assert first["choices"] == []
    assert first["id"] == ""
    assert "prompt_filter_results" in first


CUSTOM = Profile(
    "relay",
    ids="every",
    index="one_based",
    names="every",
    reasoning_field="reasoning",
    comments=(": ping",),
)


@given(streams(CUSTOM))
def test_a_custom_profile_works_like_the_built_in_ones(stream: GeneratedStream) -> None:
    assert stream.profile is CUSTOM
    assert all(e["index"] >= 1 for e in tool_entries(stream))
    assert summary(respond(stream.chunks)) == summary(stream.response)


def test_every_built_in_profile_is_documented_in_the_module() -> None:
    doc = inspect.getdoc(openai_chat) or ""
    assert all(f"``{name}``" in doc for name in PROFILES)
