"""The request rules (raf/formats/request_rules.yaml and each format's rules.py): each rule's
request that breaks it makes it fire at the field it names, each request that keeps it fires
no rule at all, the catalogue is whole, the checks never raise on any JSON object, and
docs/requests.md's table is the catalogue's."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from raf import formats
from raf.formats.request_rules import (
    MESSAGE_LISTS,
    SEVERITIES,
    Broken,
    Prior,
    RequestRule,
    check_rules,
    rule,
    rules,
    rules_for,
    rules_table,
)
from raf.model.messages import MessageRole
from raf.model.request import Conversation

DOCS = Path(__file__).resolve().parents[1] / "docs" / "requests.md"
BUG = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+#[1-9][0-9]*")
FAMILIES = ("chat.", "anthropic.", "gemini.", "responses.", "bedrock.", "interactions.")
DIALECTS = (
    "openai_chat",
    "ollama_chat",
    "anthropic_messages",
    "gemini",
    "openai_responses",
    "bedrock_converse",
    "gemini_interactions",
)

EXAMPLES = [(r.id, f) for r in rules() for f in r.formats]

BROKEN_AT: dict[str, str] = {
    "chat.tool_calls_answered": "messages[1].tool_calls",
    "chat.tool_message_answers_call": "messages[2].tool_call_id",
    "chat.tool_call_answered_once": "messages[4].tool_call_id",
    "chat.arguments_json_string": "messages[1].tool_calls[0].function.arguments",
    "chat.reasoning_content_sent_back": "messages[1].reasoning_content",
    "chat.mistral_call_ids": "messages[1].tool_calls[0].id",
    "chat.ollama_arguments_object": "messages[1].tool_calls[0].function.arguments",
    "anthropic.tool_use_answered": "messages[1].content[1]",
    "anthropic.tool_result_answers_previous": "messages[2].content[1].tool_use_id",
    "anthropic.tool_use_id_form": "messages[1].content[0].id",
    "anthropic.tool_results_first": "messages[2].content[0]",
    "anthropic.tool_result_once": "messages[2].content[1]",
    "anthropic.thinking_first": "messages[1].content[0]",
    "anthropic.thinking_signed": "messages[1].content[0].signature",
    "anthropic.thinking_has_text": "messages[1].content[0].thinking",
    "anthropic.thinking_unchanged": "messages[1].content[0].thinking",
    "anthropic.thinking_kept": "messages[1].content",
    "anthropic.omitted_thinking_kept": "messages[1].content",
    "gemini.function_calls_answered": "contents[2]",
    "gemini.function_responses_in_one_content": "contents[3]",
    "gemini.function_response_per_call": "contents[2].parts[0].functionResponse",
    "gemini.call_signature_kept": "contents[1].parts[0].thoughtSignature",
    "gemini.text_signature_kept": "contents[1].parts",
    "responses.function_calls_answered": "input[2]",
    "responses.outputs_answer_calls": "input[0].call_id",
    "responses.output_once": "input[3].call_id",
    "responses.reasoning_followed": "input[2]",
    "responses.item_with_its_reasoning": "input[1]",
    "responses.no_resend_on_chain": "input[0].id",
    "responses.encrypted_reasoning_when_not_stored": "input[1].encrypted_content",
    "responses.encrypted_content_unchanged": "input[1].encrypted_content",
    "responses.arguments_string": "input[1].arguments",
    "bedrock.tool_use_answered": "messages[1].content[1]",
    "bedrock.tool_input_object": "messages[1].content[0].toolUse.input",
    "bedrock.tool_result_json_object": "messages[2].content[0].toolResult.content[0].json",
    "bedrock.text_not_blank": "messages[1].content[0].text",
    "interactions.thought_signature_kept": "input[1]",
    "interactions.function_result_per_call": "input[2]",
}
"""Where each rule's breaking request breaks it (the first place the rule names)."""


def known(rule_id: str) -> RequestRule:
    found = rule(rule_id)
    assert found is not None, rule_id
    return found


# ------------------------------------------------------------------------- the examples


@pytest.mark.parametrize(("rule_id", "dialect"), EXAMPLES)
def test_the_request_that_breaks_a_rule_makes_it_fire_where_it_breaks(
    rule_id: str, dialect: str
) -> None:
    example = known(rule_id).breaks[dialect]
    fired = [b for b in check_rules(dialect, example.body, example.prior) if b.rule == rule_id]
    assert fired, f"{rule_id} does not fire on its breaking request for {dialect}"
    assert fired[0].field == BROKEN_AT[rule_id]
    assert all(b.message for b in fired)


@pytest.mark.parametrize(("rule_id", "dialect"), EXAMPLES)
def test_the_request_that_keeps_a_rule_fires_no_rule(rule_id: str, dialect: str) -> None:
    example = known(rule_id).keeps[dialect]
    assert check_rules(dialect, example.body, example.prior) == []


def test_a_breaking_request_without_its_earlier_rounds_is_judged_on_the_request_alone() -> None:
    example = known("anthropic.thinking_unchanged").breaks["anthropic_messages"]
    assert check_rules("anthropic_messages", example.body, ()) == []


# ---------------------------------------------------------------------------- the catalogue


def test_the_catalogue_has_at_least_24_rules_in_each_family() -> None:
    assert len(rules()) >= 24
    for family in FAMILIES:
        assert any(r.id.startswith(family) for r in rules()), family


def test_rule_ids_are_unique_and_in_their_family() -> None:
    ids = [r.id for r in rules()]
    assert len(ids) == len(set(ids))
    for found in rules():
        assert found.id.startswith(FAMILIES), found.id
        assert re.fullmatch(r"[a-z]+\.[a-z0-9_]+", found.id), found.id


@pytest.mark.parametrize("found", rules(), ids=lambda r: r.id)
def test_a_rule_is_whole(found: RequestRule) -> None:
    assert found.statement
    assert found.why
    assert found.formats
    assert found.severity in SEVERITIES
    assert found.docs or found.bugs
    for bug in found.bugs:
        assert BUG.fullmatch(bug), bug
    for url in found.docs:
        assert url.startswith("https://"), url
    for dialect in found.formats:
        assert dialect in DIALECTS
        assert found.id in formats.get(dialect).request_rules, (found.id, dialect)
        assert dialect in found.breaks, (found.id, dialect)
        assert dialect in found.keeps, (found.id, dialect)
    assert set(found.breaks) == set(found.formats) == set(found.keeps)
    if found.severity == "rejected":
        assert found.error is not None, found.id
        assert 400 <= found.error.status < 500
        assert found.error.message
        assert found.error.mirrors
    else:
        assert found.error is None, found.id


def test_every_check_belongs_to_a_rule_of_its_format() -> None:
    for dialect in DIALECTS:
        checks = formats.get(dialect).request_rules
        assert checks, dialect
        assert set(checks) == {r.id for r in rules_for(dialect)}, dialect


def test_the_severities_of_altered_and_invalid_thinking_differ() -> None:
    # measured: an invalid signature is refused, an altered text under a kept one accepted
    assert known("anthropic.thinking_signed").severity == "rejected"
    assert known("anthropic.thinking_unchanged").severity == "misread"


# ------------------------------------------------------------------- never raising on JSON

KEYS = [
    "messages",
    "contents",
    "input",
    "role",
    "content",
    "parts",
    "tool_calls",
    "tool_call_id",
    "id",
    "call_id",
    "type",
    "name",
    "arguments",
    "function",
    "functionCall",
    "functionResponse",
    "thoughtSignature",
    "thinking",
    "signature",
    "data",
    "tool_use_id",
    "previous_response_id",
    "store",
    "encrypted_content",
    "reasoning_content",
    "model",
    "text",
    "thought",
    "args",
    "response",
    "output",
]
ROLES = ("user", "assistant", "tool", "model", "system")
KINDS = [
    "tool_use",
    "tool_result",
    "thinking",
    "redacted_thinking",
    "text",
    "function_call",
    "function_call_output",
    "reasoning",
    "message",
]

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=8)
    | st.sampled_from(ROLES + tuple(KINDS) + ("enabled", "adaptive", "mistral-large", "deepseek"))
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=5), inner, max_size=6)
    ),
    max_leaves=40,
)
priors = st.lists(
    st.builds(
        Prior,
        turn=st.lists(json_values, max_size=3).map(tuple),
        response_id=st.none() | st.text(max_size=4),
    ),
    max_size=3,
)


def _checked(dialect: str, body: Any, prior: Any) -> list[Broken]:
    out = check_rules(dialect, body, prior)
    for broken in out:
        assert isinstance(broken.field, str)
        assert isinstance(broken.message, str)
    return out


@settings(max_examples=300, deadline=None)
@given(
    dialect=st.sampled_from(DIALECTS),
    body=st.dictionaries(st.sampled_from(KEYS), json_values, max_size=6),
    prior=priors,
)
def test_no_check_raises_on_any_json_object(dialect: str, body: Any, prior: Any) -> None:
    _checked(dialect, body, prior)


def _mutate(value: Any, data: st.DataObject) -> Any:
    """``value`` with one subtree replaced by arbitrary JSON, or removed."""
    if isinstance(value, dict) and value and data.draw(st.booleans()):
        key = data.draw(st.sampled_from(sorted(value)))
        out = dict(value)
        if data.draw(st.booleans()):
            out[key] = _mutate(value[key], data)
        elif data.draw(st.booleans()):
            del out[key]
        else:
            out[key] = data.draw(json_values)
        return out
    if isinstance(value, list) and value and data.draw(st.booleans()):
        at = data.draw(st.integers(0, len(value) - 1))
        out_list = list(value)
        if data.draw(st.booleans()):
            out_list[at] = _mutate(value[at], data)
        elif data.draw(st.booleans()):
            del out_list[at]
        else:
            out_list.insert(at, data.draw(json_values))
        return out_list
    return data.draw(json_values)


def _mutated_prior(prior: Prior, data: st.DataObject) -> Prior:
    turn = _mutate(list(prior.turn), data)
    return Prior(
        turn=tuple(turn) if isinstance(turn, list) else (turn,), response_id=prior.response_id
    )


@settings(max_examples=300, deadline=None)
@given(example=st.sampled_from(EXAMPLES), keep=st.booleans(), data=st.data())
def test_no_check_raises_on_a_mutated_example(
    example: tuple[str, str], keep: bool, data: st.DataObject
) -> None:
    rule_id, dialect = example
    found = known(rule_id)
    chosen = (found.keeps if keep else found.breaks)[dialect]
    body = _mutate(dict(chosen.body), data)
    prior = chosen.prior
    if prior and bool(data.draw(st.booleans())):
        prior = tuple(_mutated_prior(p, data) for p in prior)
    for dialect_judged in DIALECTS:
        _checked(dialect_judged, body if isinstance(body, dict) else {"input": body}, prior)


def test_a_format_without_checks_breaks_nothing() -> None:
    example = known("chat.tool_calls_answered").breaks["openai_chat"]
    assert check_rules("openai_completions", example.body) == []
    assert check_rules("no_such_format", example.body) == []


# ---------------------------------------------------------------------------------- docs


def test_docs_requests_md_shows_the_catalogue_table() -> None:
    text = DOCS.read_text(encoding="utf-8")
    shown = text.split("<!-- request rules: begin -->\n", 1)[1].split(
        "<!-- request rules: end -->", 1
    )[0]
    assert shown == rules_table()


def test_the_table_links_each_rules_bugs_and_docs() -> None:
    table = rules_table()
    for found in rules():
        assert f"`{found.id}`" in table
        for bug in found.bugs:
            repo, number = bug.split("#")
            assert f"https://github.com/{repo}/issues/{number}" in table
        if found.error is not None:
            assert f"{found.error.status}: " in table


# ------------------------------------------------------------ raf's own builder keeps them

BUILT = (
    "openai_chat",
    "ollama_chat",
    "anthropic_messages",
    "gemini",
    "bedrock_converse",
    "gemini_interactions",
)
"""The formats whose generated conversations are tool loops a provider accepts (the
strategies of ``openai_responses`` also draw reasoning items that end a turn and repeated
item ids, which the Responses API refuses: the rules rightly fire on those)."""


@pytest.mark.parametrize("dialect", BUILT)
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_a_follow_up_raf_builds_breaks_no_rule(dialect: str, data: st.DataObject) -> None:
    fmt = formats.get(dialect)
    assert fmt.build_request is not None
    strategies = importlib.import_module(f"raf.formats.{dialect}.request_strategies")
    conversation = data.draw(strategies.requests())
    body = fmt.build_request(conversation)
    # drawn independently of the turns' reasoning: a turn without thinking under
    # thinking "enabled" is refused (anthropic.thinking_first), rightly
    body.pop("thinking", None)
    prior = [
        Prior(turn=tuple(fmt.build_request(Conversation(messages=(m,)))[MESSAGE_LISTS[dialect]]))
        for m in conversation.messages
        if m.role is MessageRole.ASSISTANT
    ]
    assert check_rules(dialect, body, prior) == []
