"""The vocabulary of differences: one table of kinds and severities, what each level files
under which kind, and the policy that decides what fails."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import msgspec
import pytest

from raf.conformance.bundled import bundled
from raf.conformance.goldens import load as load_golden
from raf.conformance.levels import compare_response, text_kind
from raf.conformance.severity import (
    KINDS,
    SEVERITIES,
    Policy,
    kinds_table,
    parse_severity_overrides,
)
from raf.shared.client_response import ClientResponse

DOCS = Path(__file__).resolve().parents[2] / "docs" / "conformance.md"


def golden(dialect: str, scenario: str) -> dict[str, Any]:
    loaded = load_golden(bundled().goldens / dialect / f"{scenario}.json")
    assert loaded is not None
    return loaded.interactions[-1].response


def client(response: dict[str, Any]) -> ClientResponse:
    return msgspec.convert(response, ClientResponse)


def kinds(
    expected: dict[str, Any], actual: dict[str, Any] | None, **options: Any
) -> dict[str, str]:
    got = None if actual is None else client(actual)
    return {m.where: m.kind for m in compare_response(expected, got, **options)}


def test_the_documented_table_is_the_data() -> None:
    assert kinds_table() in DOCS.read_text(encoding="utf-8")
    assert set(KINDS) == {"lost", "wrong", "unreported", "invented", "performance", "detail"}
    # Only the detail kind is a notice by default: every other difference fails a case.
    assert {k for k, info in KINDS.items() if info.severity == "notice"} == {"detail"}


@pytest.mark.parametrize(
    ("want", "got", "kind"),
    [
        ("Sure! 5 miles", "! 5 miles", "lost"),  # the first event dropped
        ("The sky is blue.", "", "lost"),
        ("The sky", "The sky is blue.", "invented"),
        ("", "hello", "invented"),
        ("read_file", "read_fileread_file", "invented"),  # a name repeated, concatenated
        ("blue", "bleu", "wrong"),
    ],
)
def test_texts_are_lost_invented_or_wrong(want: str, got: str, kind: str) -> None:
    assert text_kind(want, got) == kind


def test_the_response_level_files_each_difference_under_its_kind() -> None:
    cut = golden("openai_chat", "stream_cut_without_done_or_finish")
    assert cut["finish_reason"] is None
    assert cut["errors"]
    # A client that hides the cut and invents a clean end.
    hidden = {**cut, "finish_reason": "stop", "errors": []}
    assert kinds(cut, hidden) == {"finish_reason": "invented", "errors": "unreported"}

    calls = golden("openai_chat", "parallel_tool_calls")
    one = {**calls, "tool_calls": calls["tool_calls"][:1], "finish_reason": None}
    assert kinds(calls, one) == {"tool_calls": "lost", "finish_reason": "lost"}
    renamed = copy.deepcopy(calls)
    renamed["tool_calls"][0]["id"] = "call_other"
    renamed["tool_calls"][1]["arguments"] = {"timezone": "Europe/Paris"}
    assert kinds(calls, renamed) == {
        "tool_calls[0].id": "wrong",
        "tool_calls[1].arguments": "wrong",
    }
    noisy = {**calls, "errors": [{"error_code": "x", "message": "y"}]}
    assert kinds(calls, noisy) == {"errors": "invented"}
    assert kinds(calls, None, raised="KeyError: x")["errors"] == "invented"


def test_usage_the_provider_did_not_send() -> None:
    none = golden("openai_chat", "done_without_finish_reason")
    assert none["usage"] is None
    counted = {**none, "usage": {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}}
    assert kinds(none, counted, capabilities=["usage"]) == {"usage": "invented"}
    zeros = {**none, "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}}
    assert kinds(none, zeros, capabilities=["usage"]) == {"usage": "detail"}

    plain = golden("openai_chat", "usage_beside_finish_reason")
    assert plain["usage"]["prompt_cache_hit_tokens"] is None
    for count, kind in ((0, "detail"), (42, "invented")):
        usage = {**plain["usage"], "prompt_cache_hit_tokens": count}
        assert kinds(plain, {**plain, "usage": usage}, capabilities=["usage"]) == {
            "usage.prompt_cache_hit_tokens": kind
        }
    assert kinds(plain, {**plain, "usage": None}, capabilities=["usage"]) == {"usage": "lost"}


def test_an_id_raf_gave_a_reused_call_id_may_be_any_unique_id() -> None:
    # Two responses in one body, both calls call_0: raf names the second call_0#2, an id the
    # stream never carried, so a client's own unique id for it is a detail.
    response = golden("openai_responses", "bedrock_reused_call_ids_concatenated")
    assert [c["id"] for c in response["tool_calls"]] == ["call_0", "call_0#2"]
    mine = copy.deepcopy(response)
    mine["tool_calls"][1]["id"] = "call_0-second"
    found = compare_response(response, client(mine), provider_ids={"call_0"})
    assert [(m.where, m.kind) for m in found] == [("tool_calls[1].id", "detail")]
    # Both left as the provider sent them: two calls with one id, which no tool result can
    # answer apart.
    mine["tool_calls"][1]["id"] = "call_0"
    found = compare_response(response, client(mine), provider_ids={"call_0"})
    assert [(m.where, m.kind) for m in found] == [("tool_calls[1].id", "wrong")]


def test_the_policy_decides_what_fails() -> None:
    default = Policy()
    assert [k for k in KINDS if default.fails(k)] == [
        "lost",
        "wrong",
        "unreported",
        "invented",
        "performance",
    ]
    assert all(Policy(fail_on="notice").fails(k) for k in KINDS)
    strict_detail = Policy(overrides=parse_severity_overrides(["detail=error"]))
    assert strict_detail.fails("detail")
    lenient = Policy(overrides=parse_severity_overrides(["invented=notice"]))
    assert not lenient.fails("invented")
    assert lenient.severity("invented") == "notice"
    assert SEVERITIES == ("notice", "error")
    for bad in ("detail", "detail=", "gone=error", "detail=fatal"):
        with pytest.raises(ValueError, match="KIND=SEVERITY"):
            parse_severity_overrides([bad])
