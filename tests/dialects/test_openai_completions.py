"""The ``openai_completions`` format (legacy Completions): its strategies aggregate to their
ground truth, its request half round-trips, and its HTTP face never claims Chat Completions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from raf import formats
from raf.cassettes import load
from raf.cassettes.importers import guess_dialect
from raf.dialects.sniff import sniff
from raf.formats.openai_completions import FORMAT, strategies
from raf.formats.openai_completions.dialect import OpenAICompletionsDialect
from raf.formats.openai_completions.request import build_request, read_request
from raf.model import AgentResponse, ChatMessage, blocks
from raf.model.messages import MessageRole
from raf.model.request import Conversation, RequestOptions
from raf.pipeline import respond
from raf.serve.routes import provider_path_problem
from tests.helpers import read_with_and_without_usual

ROOT = Path(__file__).resolve().parents[2]
CASSETTES = sorted((ROOT / "cassettes" / "openai_completions").glob("*.yaml"))
NAME = "openai_completions"


def summary(response: AgentResponse) -> dict[str, object]:
    return {
        "id": response.id,
        "model": response.model,
        "text": response.text,
        "finish": response.finish_reason,
        "usage": response.usage,
        "errors": [e.error_code for e in response.errors],
        "notices": [n.error_code for n in response.notices],
    }


@pytest.mark.parametrize("profile", sorted(strategies.PROFILES))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_drawn_streams_of_each_profile_aggregate_to_the_ground_truth(
    profile: str, data: st.DataObject
) -> None:
    stream = data.draw(strategies.streams(profile))
    assert summary(respond(list(stream.chunks), NAME)) == summary(stream.response)
    assert summary(respond(list(stream.chunks), "auto")) == summary(stream.response)


# -- the request half -------------------------------------------------------------------------

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
_KNOWN = {"model", "prompt", "stream", "max_tokens"}


@st.composite
def conversations(draw: st.DrawFn) -> Conversation:
    """What the format can carry: one user prompt (or none, with a prompt kept in extra) and
    the options."""
    extra = draw(
        st.dictionaries(st.text(min_size=1, max_size=10).filter(lambda k: k not in _KNOWN), _JSON)
    )
    prompt = draw(st.none() | st.text(max_size=40))
    messages: tuple[ChatMessage, ...] = ()
    if prompt is None:
        extra["prompt"] = draw(st.lists(st.integers(0, 50_000), max_size=5))  # token ids
    else:
        messages = (
            ChatMessage(role=MessageRole.USER, content=prompt, blocks=(blocks.Text(text=prompt),)),
        )
    options = RequestOptions(
        model=draw(st.none() | st.text(max_size=20)),
        stream=draw(st.booleans()),
        max_tokens=draw(st.none() | st.integers(0, 10**6)),
        extra=extra,
    )
    return Conversation(messages=messages, options=options)


@settings(max_examples=200, deadline=None)
@given(conversations())
def test_reading_a_built_request_gives_the_conversation_back(conversation: Conversation) -> None:
    body = build_request(conversation)
    assert json.loads(json.dumps(body)) == body  # plain JSON
    assert read_request(body) == conversation


@pytest.mark.parametrize("path", CASSETTES, ids=lambda p: p.stem)
def test_building_a_read_recorded_request_gives_the_recorded_body(path: Path) -> None:
    for interaction in load(path).interactions:
        recorded: Any = json.loads(interaction.request.body or "{}")
        assert build_request(read_request(recorded)) == recorded
        assert read_request(recorded).messages[0].content == recorded["prompt"]


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=10), _JSON))
def test_reading_any_json_object_never_raises_and_keeps_every_field(body: dict[str, Any]) -> None:
    conversation = read_request(body)
    rebuilt = build_request(conversation)
    for key, value in body.items():
        assert rebuilt[key] == value, key
    assert read_request(rebuilt) == conversation


def test_a_conversation_of_several_messages_is_one_prompt_without_tools() -> None:
    conversation = Conversation(
        messages=(ChatMessage.system("Be brief."), ChatMessage.user("Name a colour.")),
        options=RequestOptions(model="gpt-3.5-turbo-instruct", max_tokens=5),
    )
    assert build_request(conversation) == {
        "model": "gpt-3.5-turbo-instruct",
        "prompt": "Be brief.\n\nName a colour.",
        "max_tokens": 5,
        "stream": True,
    }
    assert FORMAT.build_request is build_request
    assert FORMAT.read_request is read_request


# -- the HTTP face ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("uri", "dialect"),
    [
        ("https://api.openai.com/v1/completions", NAME),
        ("http://localhost:8000/v1/completions?x=1", NAME),
        ("https://r.openai.azure.com/openai/deployments/instruct/completions", NAME),
        ("https://api.openai.com/v1/chat/completions", "openai_chat"),
        ("https://r.openai.azure.com/openai/deployments/gpt/chat/completions", "openai_chat"),
    ],
)
def test_a_recorded_uri_names_completions_only_outside_chat(uri: str, dialect: str) -> None:
    assert guess_dialect(uri) == dialect


def test_serve_answers_completions_at_completions_and_refuses_the_chat_path() -> None:
    assert provider_path_problem(NAME, "POST", "/v1/completions") is None
    assert provider_path_problem(NAME, "POST", "/openai/deployments/x/completions") is None
    problem = provider_path_problem(NAME, "POST", "/v1/chat/completions")
    assert problem is not None
    assert "POST .../completions" in problem
    assert provider_path_problem("openai_chat", "POST", "/v1/completions") is not None


def test_auto_reads_a_legacy_completions_body_with_this_dialect() -> None:
    body = load(CASSETTES[0].with_stem("short_answer_with_usage")).interactions[0].response.body
    assert isinstance(body, bytes)
    assert sniff(body) == NAME
    assert formats.get(NAME).sniff[0] == rb'"object"\s*:\s*"text_completion"'
    # A server that writes "object" after "choices" is read as legacy Completions too; a
    # chat completion chunk that opens with its choices is not.
    objects_last = (
        b'data: {"choices":[{"text":"Hi","index":0,"logprobs":null,"finish_reason":null}],'
        b'"created":1,"model":"m","object":"text_completion","id":"cmpl-1"}\n\n'
    )
    assert sniff(objects_last) == NAME
    assert sniff(b'data: {"choices":[{"index":0,"delta":{"content":"x"}}]}\n\n') == "openai_chat"


# -- the usual chunk's typed path ---------------------------------------------------------------

_MUTATIONS = [
    # Each a chunk the typed path must leave to the shared path, or read exactly as it does.
    '{"id":"c","object":"text_completion","model":"m","choices":[{"text":"a","index":0}]}',
    '{"id":"c","object":"text_completion","model":"m","choices":[{"text":"a","index":1}]}',
    '{"id":"c","object":"text_completion","model":"m","choices":[{"text":7,"index":0}]}',
    '{"id":"c","object":"text_completion","model":"m","choices":[{"text":"a","index":"0"}]}',
    '{"id":9,"object":"text_completion","model":"m","choices":[{"text":"a"}]}',
    '{"id":"c","object":"chat.completion.chunk","choices":[{"delta":{"content":"a"}}]}',
    '{"id":"c","choices":[{"text":"no object","index":0}]}',
    '{"id":"c","object":"text_completion","choices":[{"text":"a"},{"text":"b","index":1}]}',
    '{"id":"c","object":"text_completion","choices":[{"text":"a","finish_reason":"stop"}]}',
    '{"id":"c","object":"text_completion","choices":[{"text":"a","finish_reason":""}]}',
    '{"id":"c","object":"text_completion","choices":[],"usage":{"prompt_tokens":1}}',
    '{"id":"c","object":"text_completion","choices":[{"text":"a"}],"error":{"message":"x"}}',
    '{"id":"d","object":"text_completion","model":"n","choices":[{"text":""}]}',
    '{"id":"c","object":"text_completion","choices":[{"text":"\\ud800 lone"}]}',
    '{"id":"c","object":"text_completion","choices":[{"text":"big","index":1e999}]}',
    "[1, 2]",
    "not json",
]


def _spaced(line: str) -> str:
    """A ``data:`` line of JSON written again as Python's json writes it by default."""
    if line.startswith("data: {"):
        try:
            return "data: " + json.dumps(json.loads(line[6:]))
        except ValueError:
            return line
    return line


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_typed_path_reads_what_the_shared_path_reads(data: st.DataObject) -> None:
    """Generated streams with odd chunks put in, compact or spaced: the updates with the
    usual fast path are exactly those of every event through the shared path."""
    stream = data.draw(strategies.streams())
    body = b"".join(stream.chunks)
    inserts = data.draw(st.lists(st.sampled_from(_MUTATIONS), max_size=4))
    if data.draw(st.booleans()):  # spaced, as Python's json writes it
        body = "\n".join(_spaced(line) for line in body.decode().split("\n")).encode()
    at = body.find(b"data: ")
    extra = "".join(f"data: {chunk}\n\n" for chunk in inserts).encode()
    body = body[:at] + extra + body[at:] if at >= 0 else extra + body
    fast, shared = read_with_and_without_usual(NAME, body)
    assert fast == shared


def test_the_usual_chunks_take_the_typed_path() -> None:
    chunks = "".join(
        f'data: {{"id":"c","object":"text_completion","model":"m","choices":[{{"text":"w{n} ","index":0,"logprobs":null,"finish_reason":null}}]}}\n\n'
        for n in range(50)
    )
    body = (
        chunks
        + 'data: {"id":"c","object":"text_completion","model":"m","choices":[{"text":"","index":0,"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
    ).encode()
    dialect = OpenAICompletionsDialect()
    response = respond([body], dialect)
    assert response.text == "".join(f"w{n} " for n in range(50))
    assert dialect.fast_path_counts() == {"typed": 50, "full": 1}
