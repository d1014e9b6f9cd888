"""The request check's equivalences (docs/serve.md), shown with the real libraries that
produce them: each library is driven as its users drive it against ``raf serve``, on a
cassette of the test's own recorded in the other form, and the journal's check reads the
request the library sent as the recorded one. Each test also asserts that the library did
send the other form, so that none passes by the library sending the recorded one.

A missing library skips its test; with ``RAF_REQUIRE_CLIENTS=1`` it fails it instead.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

from raf.cassettes.format import Cassette, Interaction, Request, Response, ScenarioInfo
from raf.cassettes.persister import save
from raf.clients.base import TEST_API_KEY
from raf.serve import ReplayServer
from tests.clients.support import library

CHAT_ANSWER = (
    b'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":'
    b'[{"index":0,"delta":{"role":"assistant","content":"Hi."},"finish_reason":null}]}\n\n'
    b'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":'
    b'[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
    b"data: [DONE]\n\n"
)
GEMINI_ANSWER = (
    b'data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Hi."}]},'
    b'"finishReason":"STOP"}],"modelVersion":"gemini-2.5-flash"}\n\n'
)
GEMINI_URI = (
    "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash"
    ":streamGenerateContent?alt=sse"
)


def _cassette(folder: Path, dialect: str, uri: str, request: dict[str, Any], body: bytes) -> None:
    scenario = "recorded_request"
    save(
        Cassette(
            interactions=[
                Interaction(
                    request=Request(uri=uri, body=json.dumps(request)),
                    response=Response(headers={"content-type": ["text/event-stream"]}, body=body),
                )
            ],
            info=ScenarioInfo(scenario=scenario, dialect=dialect),
        ),
        folder / dialect / f"{scenario}.yaml",
    )


def _sent(server: ReplayServer) -> tuple[dict[str, Any], dict[str, Any]]:
    """The body of the one request the server received, and its check."""
    (entry,) = server.journal.entries()
    body: dict[str, Any] = json.loads(entry["body"])
    check: dict[str, Any] = entry["check"]
    return body, check


def test_langchain_openai_sends_developer_for_an_o_series_model_recorded_with_system(
    tmp_path: Path,
) -> None:
    langchain_openai = library("langchain_openai")
    messages = library("langchain_core.messages")
    recorded = {
        "model": "o3-mini",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Hello?"},
        ],
        "stream": True,
    }
    _cassette(
        tmp_path,
        "openai_chat",
        "https://api.openai.com/v1/chat/completions",
        recorded,
        CHAT_ANSWER,
    )
    with ReplayServer([tmp_path], speed=0) as server:
        llm = langchain_openai.ChatOpenAI(
            model="o3-mini",
            base_url=server.case_url("openai_chat", "recorded_request") + "/v1",
            api_key=TEST_API_KEY,
            max_retries=0,
            use_responses_api=False,
        )
        answer = "".join(
            str(chunk.content)
            for chunk in llm.stream(
                [messages.SystemMessage("Be brief."), messages.HumanMessage("Hello?")]
            )
        )
        body, check = _sent(server)
    assert answer == "Hi."
    assert [m["role"] for m in body["messages"]] == ["developer", "user"]
    assert check == {"ok": True, "compared": ["model", "messages", "stream"], "mismatches": []}


def test_litellm_sends_system_for_a_gpt_model_recorded_with_developer(tmp_path: Path) -> None:
    import raf.clients.litellm_completion  # noqa: F401, PLC0415 - keeps litellm offline

    litellm = library("litellm")
    recorded = {
        "model": "gpt-4o",
        "messages": [
            {"role": "developer", "content": "Be brief."},
            {"role": "user", "content": "Hello?"},
        ],
        "stream": True,
    }
    _cassette(
        tmp_path,
        "openai_chat",
        "https://api.openai.com/v1/chat/completions",
        recorded,
        CHAT_ANSWER,
    )
    with ReplayServer([tmp_path], speed=0) as server:
        stream = litellm.completion(
            model="openai/gpt-4o",
            api_base=server.case_url("openai_chat", "recorded_request") + "/v1",
            api_key=TEST_API_KEY,
            messages=recorded["messages"],
            stream=True,
            num_retries=0,
            max_retries=0,
        )
        answer = "".join(chunk.choices[0].delta.content or "" for chunk in stream)
        body, check = _sent(server)
    assert answer == "Hi."
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert check["ok"], check["mismatches"]
    assert check["compared"][:2] == ["model", "messages"]


def _genai(server: ReplayServer) -> Any:
    genai = library("google.genai")
    types = library("google.genai.types")
    return genai.Client(
        api_key=TEST_API_KEY,
        http_options=types.HttpOptions(
            base_url=server.case_url("gemini", "recorded_request"),
            api_version="v1beta",
            retry_options=types.HttpRetryOptions(attempts=1),
        ),
    )


def _gemini_text(client: Any, tools: list[Any]) -> str:
    config = {"tools": tools, "automatic_function_calling": {"disable": True}}
    return "".join(
        chunk.text or ""
        for chunk in client.models.generate_content_stream(
            model="gemini-2.5-flash", contents="Hello?", config=config
        )
    )


CONTENTS = [{"role": "user", "parts": [{"text": "Hello?"}]}]


def test_google_genai_sends_its_type_names_for_a_json_schema_recorded_lowercase(
    tmp_path: Path,
) -> None:
    schema = {
        "type": "object",
        "properties": {
            "todos": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"title": {"type": "string"}, "days": {"type": "integer"}},
                },
            }
        },
        "required": ["todos"],
    }
    tools = [{"functionDeclarations": [{"name": "add_todos", "parameters": schema}]}]
    _cassette(tmp_path, "gemini", GEMINI_URI, {"contents": CONTENTS, "tools": tools}, GEMINI_ANSWER)
    with ReplayServer([tmp_path], speed=0) as server:
        client = _genai(server)
        answer = _gemini_text(client, tools)  # the user's JSON Schema, as recorded
        body, check = _sent(server)
    assert answer == "Hi."
    sent = body["tools"][0]["functionDeclarations"][0]["parameters"]
    assert sent["type"] == "OBJECT"
    assert sent["properties"]["todos"]["items"]["properties"]["days"]["type"] == "INTEGER"
    assert check == {
        "ok": True,
        "compared": ["url.model", "url.method", "url.alt", "contents", "tools"],
        "mismatches": [],
    }


def test_google_genai_sends_no_parameters_for_a_tool_recorded_with_an_empty_schema(
    tmp_path: Path,
) -> None:
    types = library("google.genai.types")
    recorded = [
        {
            "functionDeclarations": [
                {
                    "name": "get_time",
                    "description": "The current time.",
                    "parameters": {"type": "OBJECT", "properties": {}},
                }
            ]
        }
    ]
    _cassette(
        tmp_path, "gemini", GEMINI_URI, {"contents": CONTENTS, "tools": recorded}, GEMINI_ANSWER
    )

    def get_time() -> str:
        """The current time."""
        return "12:00"

    with ReplayServer([tmp_path], speed=0) as server:
        client = _genai(server)
        declaration = types.FunctionDeclaration.from_callable(client=client, callable=get_time)
        answer = _gemini_text(client, [types.Tool(function_declarations=[declaration])])
        body, check = _sent(server)
    assert answer == "Hi."
    assert body["tools"] == [
        {"functionDeclarations": [{"description": "The current time.", "name": "get_time"}]}
    ]
    assert check["ok"], check["mismatches"]


def test_google_genai_asks_for_sse_so_a_case_recorded_without_alt_is_another_request(
    tmp_path: Path,
) -> None:
    _cassette(
        tmp_path,
        "gemini",
        GEMINI_URI.removesuffix("?alt=sse"),
        {"contents": CONTENTS},
        b'[{"candidates":[{"content":{"role":"model","parts":[{"text":"Hi."}]},'
        b'"finishReason":"STOP"}]}]',
    )
    with ReplayServer([tmp_path], speed=0) as server:
        client = _genai(server)
        # What the SDK makes of a body it never asked for is not the point here.
        with contextlib.suppress(Exception):
            _gemini_text(client, [])
        (entry,) = server.journal.entries()
    assert entry["query"] == "alt=sse"
    assert entry["check"]["mismatches"] == [
        'url.alt: expected none (a JSON-array body), got "sse" (Server-Sent Events)'
    ]
