"""The round a request asks for (raf.serve.rounds) and the verdict of the request rules
(raf.serve.verdicts), without a socket: the bundled tool-loop recordings, read as the server
reads them."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from raf import formats
from raf.cassettes.format import Cassette, Interaction, Request, Response
from raf.cassettes.persister import load
from raf.formats import request_rules
from raf.formats._strategies.common import json_values
from raf.formats.request_rules import Broken, Prior, ProviderError, RequestRule
from raf.serve import rounds as rounds_module
from raf.serve import verdicts
from raf.serve.rounds import (
    Answer,
    Match,
    Matched,
    Rounds,
    RoundsCache,
    answer_of,
    match,
    rounds_of,
)
from raf.serve.verdicts import HEADER, MAX_HEADER_CHARS, header_value, judge
from raf.shared.bundled import bundled

FORMATS = (
    "openai_chat",
    "anthropic_messages",
    "gemini",
    "ollama_chat",
    "openai_responses",
    "cohere_v2",
    "gemini_interactions",
    "bedrock_converse",
)
"""The formats of the bundled tool loops (``two_tools``: four rounds each)."""


def _loop(dialect: str) -> Cassette:
    return load(bundled().tool_loops / dialect / "two_tools.yaml")


def _request(cassette: Cassette, n: int) -> dict[str, Any]:
    body = cassette.interactions[n].request.body
    assert isinstance(body, str)
    value = msgspec.json.decode(body)
    assert isinstance(value, dict)
    return value


@pytest.mark.parametrize("dialect", FORMATS)
def test_each_recorded_follow_up_asks_for_its_own_round_whatever_came_before(
    dialect: str,
) -> None:
    cassette = _loop(dialect)
    rounds = rounds_of(dialect, cassette)
    assert len(rounds) == 4
    assert [len(r.call_names) for r in rounds.rounds] == [2, 1, 1, 0]
    assert rounds.openings() == (0,)
    by: Matched = "call_names" if dialect in {"gemini", "ollama_chat"} else "call_ids"
    for turn, n in enumerate((3, 1, 2, 0, 2)):  # out of order, any turn of the session
        answer = answer_of(dialect, _request(cassette, n))
        expected = Match(n, by) if n else Match(0, "order")
        assert match(rounds, answer, turn=turn) == expected


def test_gemini_rounds_with_the_same_names_are_told_apart_by_the_request_s_own_rounds() -> None:
    cassette = _loop("gemini")
    rounds = rounds_of("gemini", cassette)
    assert rounds.rounds[1].call_names == rounds.rounds[2].call_names == ("book_table",)
    assert rounds.rounds[1].call_ids == ()  # Gemini streams no ids
    for n in (2, 3):
        answer = answer_of("gemini", _request(cassette, n))
        assert answer.names == ("book_table",)
        assert answer.call_turns == n
        assert match(rounds, answer, turn=0) == Match(n, "call_names")
    # Two candidates and a request whose own count fits neither: its turn in the session.
    ambiguous = Answer(names=("book_table",), results=1, call_turns=7)
    assert match(rounds, ambiguous, turn=5) == Match(5 % 4, "order")


def test_what_answers_no_recorded_call_is_answered_in_the_session_s_order() -> None:
    cassette = _loop("openai_chat")
    rounds = rounds_of("openai_chat", cassette)
    nothing = answer_of("openai_chat", {"messages": [{"role": "user", "content": "hi"}]})
    assert nothing == Answer()
    # A request that answers nothing starts a run: the interactions that follow no call.
    assert [match(rounds, nothing, turn=t).interaction for t in range(5)] == [0] * 5
    unknown = answer_of(
        "openai_chat",
        {"messages": [{"role": "tool", "tool_call_id": "call_other", "content": "x"}]},
    )
    assert unknown.call_ids == ("call_other",)
    assert [match(rounds, unknown, turn=t) for t in (1, 6)] == [
        Match(1, "order"),
        Match(2, "order"),
    ]
    # The last round's calls (none here) have no interaction after them to serve.
    assert match(rounds, answer_of("openai_chat", _request(cassette, 3)), turn=0).interaction == 3
    assert match(rounds, unknown, turn=2, pinned=0) == Match(0, "pinned")


def test_results_of_an_earlier_turn_do_not_count_once_a_user_has_spoken() -> None:
    body = _request(_loop("openai_chat"), 1)
    body["messages"].append({"role": "user", "content": "and tomorrow?"})
    assert answer_of("openai_chat", body) == Answer(call_turns=1)


def _plain_cassette(turns: int) -> Cassette:
    body = b'data: {"choices":[{"index":0,"delta":{"content":"x"}}]}\n\ndata: [DONE]\n\n'
    return Cassette(
        interactions=[
            Interaction(
                request=Request(method="POST", uri="https://api.openai.com/v1/chat/completions"),
                response=Response(headers={"content-type": ["text/event-stream"]}, body=body),
            )
            for _ in range(turns)
        ]
    )


def test_a_cassette_without_calls_is_answered_in_order_as_before() -> None:
    rounds = rounds_of("openai_chat", _plain_cassette(3))
    assert not rounds.calls
    assert rounds.openings() == (0, 1, 2)
    assert [match(rounds, Answer(), turn=t).interaction for t in range(5)] == [0, 1, 2, 0, 1]


def test_the_last_answer_is_never_read_and_rounds_are_kept_per_cassette(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    read: list[bytes] = []
    real = rounds_module._round

    def counted(dialect: str, body: bytes) -> Any:
        read.append(body)
        return real(dialect, body)

    monkeypatch.setattr(rounds_module, "_round", counted)
    cache = RoundsCache(size=2)
    one, three, other = _plain_cassette(1), _plain_cassette(3), _plain_cassette(2)
    assert len(cache.get("openai_chat", one)) == 1
    assert read == []  # a cassette of one interaction costs nothing
    first = cache.get("openai_chat", three)
    assert cache.get("openai_chat", three) is first
    assert len(read) == 2
    cache.get("openai_chat", other)
    assert len(cache) == 2
    assert not cache.has(one)  # the least recently used is forgotten
    assert cache.has(three)


def test_the_prior_of_a_round_is_every_answer_before_it() -> None:
    rounds = rounds_of("anthropic_messages", _loop("anthropic_messages"))
    assert rounds.prior(0) == ()
    prior = rounds.prior(2)
    assert len(prior) == 2
    assert prior[0].response_id is not None
    assert prior[0].turn  # the assistant turn as a client sends it back


# The verdict of the rules


def _fake_rule(
    monkeypatch: pytest.MonkeyPatch,
    *,
    severity: Any = "rejected",
    error: ProviderError | None = None,
) -> None:
    """One rule ``fake.rule`` that every request breaks, of ``severity`` (refused with
    ``error``, by default a 400)."""
    if error is None and severity == "rejected":
        error = ProviderError(400, "the provider's own words")
    fake = RequestRule(
        id="fake.rule",
        formats=FORMATS,
        statement="",
        docs=(),
        bugs=(),
        severity=severity,
        error=error,
    )

    def broken(dialect: str, body: Mapping[str, Any], prior: Sequence[Prior] = ()) -> list[Broken]:
        return [Broken("fake.rule", "messages[1]", "call_1 is not answered")]

    monkeypatch.setattr(verdicts, "check_rules", broken)
    monkeypatch.setattr(verdicts, "rule", lambda rule_id: fake if rule_id == "fake.rule" else None)


DOCUMENTS = {
    "openai_chat": {
        "error": {
            "message": "the provider's own words",
            "type": "invalid_request_error",
            "param": None,
            "code": "invalid_request_error",
        }
    },
    "openai_responses": {
        "error": {
            "message": "the provider's own words",
            "type": "invalid_request_error",
            "param": None,
            "code": "invalid_request_error",
        }
    },
    "anthropic_messages": {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": "the provider's own words"},
    },
    "gemini": {
        "error": {"code": 400, "message": "the provider's own words", "status": "INVALID_ARGUMENT"}
    },
    "ollama_chat": {"error": "the provider's own words"},
    "cohere_v2": {"message": "the provider's own words"},
    "gemini_interactions": {
        "error": {"code": 400, "message": "the provider's own words", "status": "INVALID_ARGUMENT"}
    },
    "bedrock_converse": {"message": "the provider's own words"},
}


@pytest.mark.parametrize("dialect", FORMATS)
def test_a_refused_rule_is_answered_with_the_format_s_own_error_document(
    monkeypatch: pytest.MonkeyPatch, dialect: str
) -> None:
    _fake_rule(monkeypatch)
    verdict = judge(dialect, {"messages": []}, (), "reject")
    assert verdict.refusal is not None
    assert (verdict.refusal.rule, verdict.refusal.status) == ("fake.rule", 400)
    assert verdict.refusal.document == DOCUMENTS[dialect]
    assert verdict.rules() == [
        {"rule": "fake.rule", "field": "messages[1]", "message": "call_1 is not answered"}
    ]
    reported = judge(dialect, {"messages": []}, (), "report")
    assert reported.refusal is None
    assert reported.broken == verdict.broken
    assert judge(dialect, {"messages": []}, (), "off").broken == ()


@pytest.mark.parametrize(("severity", "error"), [("misread", None), ("degraded", None)])
def test_a_rule_the_provider_accepts_changes_only_the_journal(
    monkeypatch: pytest.MonkeyPatch, severity: str, error: ProviderError | None
) -> None:
    _fake_rule(monkeypatch, severity=severity, error=error)
    verdict = judge("anthropic_messages", {"messages": []}, (), "reject")
    assert verdict.refusal is None
    assert [b.rule for b in verdict.broken] == ["fake.rule"]


def test_the_one_rule_today_rejects_an_unanswered_call_with_openai_s_message() -> None:
    cassette = _loop("openai_chat")
    body = _request(cassette, 1)
    body["messages"] = body["messages"][:-1]  # one of the two calls left unanswered
    prior = rounds_of("openai_chat", cassette).prior(1)
    verdict = judge("openai_chat", body, prior, "reject")
    assert "chat.tool_calls_answered" in [b.rule for b in verdict.broken]
    assert verdict.refusal is not None
    assert verdict.refusal.status == 400
    document = verdict.refusal.document
    assert isinstance(document, dict)
    assert "tool_call_id" in document["error"]["message"]
    assert document["error"]["type"] == "invalid_request_error"
    assert judge("openai_chat", _request(cassette, 1), prior, "reject").broken == ()


def test_a_check_that_raises_loses_no_other_rule_and_blames_no_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    chat = formats.get("openai_chat")
    real = request_rules.rule("chat.tool_calls_answered")
    assert real is not None
    raising = dataclasses.replace(real, id="fake.raises")

    def fails(body: Mapping[str, Any], prior: Sequence[Any]) -> Iterator[tuple[str, str]]:
        raise KeyError("bug")

    def both(dialect: str) -> tuple[RequestRule, ...]:
        return (raising, real) if dialect == "openai_chat" else ()

    monkeypatch.setitem(chat.request_rules, "fake.raises", fails)
    monkeypatch.setattr(request_rules, "rules_for", both)
    monkeypatch.setattr(verdicts, "rules_for", both)
    with pytest.raises(KeyError):  # what the engine does with the bug
        request_rules.check_rules("openai_chat", {"messages": []}, ())
    body = _request(_loop("openai_chat"), 1)
    body["messages"] = body["messages"][:-1]
    verdict = judge("openai_chat", body, (), "reject")
    assert [b.rule for b in verdict.broken] == ["chat.tool_calls_answered"]
    assert verdict.refusal is not None
    assert verdict.problems == ("fake.raises: KeyError: 'bug'",)


def test_the_header_names_rule_and_field_in_printable_ascii_and_is_bounded() -> None:
    broken = [Broken("a.rule", "messages[0]", "m"), Broken("b.rule", "tools.ünï\r\n%", "m")]
    assert header_value(broken) == "a.rule messages[0]; b.rule tools.%C3%BCn%C3%AF%0D%0A%25"
    long = header_value([Broken("a.rule", "x" * 5000, "m")])
    assert len(long) == MAX_HEADER_CHARS
    assert long.endswith("...")
    assert HEADER == "x-raf-rules"


# Any body


SHAPED = st.fixed_dictionaries(
    {},
    optional={
        "messages": st.lists(
            st.fixed_dictionaries(
                {},
                optional={
                    "role": st.sampled_from(["user", "assistant", "tool", "model", 5]),
                    "content": json_values(),
                    "tool_calls": json_values(),
                    "tool_call_id": json_values(),
                    "tool_name": json_values(),
                },
            ),
            max_size=5,
        ),
        "contents": st.lists(json_values(), max_size=4),
        "input": json_values(),
        "previous_response_id": json_values(),
    },
)
BODIES = st.one_of(json_values(), st.dictionaries(st.text(max_size=8), json_values()), SHAPED)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(FORMATS), BODIES, st.integers(0, 10), st.sampled_from(verdicts.MODES))
def test_no_request_body_makes_the_matcher_or_the_rules_raise(
    dialect: str, body: Any, turn: int, mode: verdicts.Mode
) -> None:
    rounds = _ROUNDS[dialect]
    chosen = match(rounds, answer_of(dialect, body), turn=turn)
    assert 0 <= chosen.interaction < len(rounds)
    verdict = judge(dialect, body, rounds.prior(chosen.interaction), mode)
    assert verdict.problems == ()
    if verdict.refusal is not None:
        assert 400 <= verdict.refusal.status < 600


_ROUNDS: dict[str, Rounds] = {d: rounds_of(d, _loop(d)) for d in FORMATS}


# The docs

DOCS = Path(__file__).resolve().parents[2] / "docs" / "serve.md"


def test_the_docs_show_each_format_s_error_document_and_every_mode_and_match() -> None:
    text = DOCS.read_text(encoding="utf-8")
    for name in formats.names():
        document = json.dumps(formats.get(name).error_document(400, "MESSAGE"))
        assert f"| `{name}` | `{document}` |" in text, name
    modes = text.split("| mode | a request that breaks a rule |", 1)[1].split("\n\n", 1)[0]
    assert re.findall(r"^\| `(\w+)`", modes, flags=re.MULTILINE) == list(verdicts.MODES)
    matches = text.split("| the request | gets | `matched` |", 1)[1].split("\n\n", 1)[0]
    listed = re.findall(r"\| `(\w+)` \|$", matches, flags=re.MULTILINE)
    assert sorted(set(listed)) == sorted(rounds_module.MATCHED)
