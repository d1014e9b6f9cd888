"""The request check: what a client sent against the cassette's recorded request."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from raf import formats
from raf.serve import request_check
from raf.serve.request_check import (
    EQUIVALENCES,
    Equivalence,
    check_request,
    compared_fields,
    equivalences_table,
    requested_framing,
    takes_no_parameters,
    url_fields,
)

RECORDED = json.dumps(
    {
        "model": "gpt-4o",
        "messages": [
            {"role": "user", "content": "weather?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "18C"},
        ],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "description": "Weather now",
                    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
                },
            }
        ],
        "stream": True,
        "stream_options": {"include_usage": True},
        "temperature": 0.2,
    }
)


def _sent(**changes: object) -> bytes:
    body = json.loads(RECORDED)
    body.update(changes)
    return json.dumps(body).encode()


def test_the_recorded_request_itself_matches() -> None:
    check = check_request("openai_chat", RECORDED, RECORDED.encode())
    assert check.ok
    assert check.compared == ("model", "messages", "tools", "stream", "stream_options")


def test_equivalent_spellings_match() -> None:
    body = json.loads(RECORDED)
    body["messages"][0]["content"] = [{"type": "text", "text": "weather?"}]
    body["messages"][1]["content"] = ""
    body["messages"][1]["tool_calls"][0]["function"]["arguments"] = '{ "city":"Paris" }'
    body["tools"][0]["function"]["description"] = "another description"
    body["tools"][0]["function"]["strict"] = False
    del body["temperature"]
    body["n"] = 1
    assert check_request("openai_chat", RECORDED, json.dumps(body).encode()).ok


def test_a_wrong_follow_up_request_is_named_by_field() -> None:
    body = json.loads(RECORDED)
    body["messages"][2]["tool_call_id"] = "call_2"
    check = check_request("openai_chat", RECORDED, json.dumps(body).encode())
    assert check.mismatches == ['messages[2].tool_call_id: expected "call_1", got "call_2"']
    lost = json.loads(RECORDED)
    del lost["messages"][2]
    assert (
        "messages: 2 item(s), the recorded request has 3"
        in check_request("openai_chat", RECORDED, json.dumps(lost).encode()).mismatches
    )


def test_model_tools_and_stream_options_are_compared() -> None:
    assert not check_request("openai_chat", RECORDED, _sent(model="gpt-5")).ok
    assert not check_request("openai_chat", RECORDED, _sent(tools=[])).ok
    missing = json.loads(RECORDED)
    del missing["stream_options"]
    assert check_request("openai_chat", RECORDED, json.dumps(missing).encode()).mismatches == [
        'stream_options: expected {"include_usage":true}, got null'
    ]


def test_a_body_that_is_not_json_is_one_mismatch_and_nothing_recorded_compares_nothing() -> None:
    assert (
        check_request("openai_chat", RECORDED, b"{not json")
        .mismatches[0]
        .startswith("the request body is not JSON")
    )
    assert check_request("openai_chat", None, b"anything").ok
    assert check_request("openai_chat", None, b"anything").compared == ()


def test_other_dialects_compare_their_own_fields() -> None:
    anthropic = json.dumps(
        {"model": "claude", "system": "be brief", "messages": [{"role": "user", "content": "hi"}]}
    )
    blocks = json.dumps(
        {
            "model": "claude",
            "system": [{"type": "text", "text": "be brief"}],
            "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
            "max_tokens": 5,
        }
    ).encode()
    assert check_request("anthropic_messages", anthropic, blocks).ok
    responses = json.dumps({"model": "gpt-5", "input": "hi", "stream": True})
    items = json.dumps(
        {
            "model": "gpt-5",
            "stream": True,
            "input": [
                {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": "hi"}],
                }
            ],
        }
    ).encode()
    assert check_request("openai_responses", responses, items).ok
    gemini = json.dumps({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]})
    assert check_request("gemini", gemini, gemini.encode()).compared == ("contents",)
    assert not check_request(
        "gemini", gemini, b'{"contents": [{"role": "user", "parts": [{"text": "bye"}]}]}'
    ).ok


# -- Gemini's URL -------------------------------------------------------------------------

GEMINI_BODY = json.dumps({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]})
GEMINI_API = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash"
JSON_ARRAY_URI = GEMINI_API + ":streamGenerateContent"
SSE_URI = JSON_ARRAY_URI + "?alt=sse"


def _gemini(recorded_uri: str, received_url: str) -> list[str]:
    return check_request(
        "gemini",
        GEMINI_BODY,
        GEMINI_BODY.encode(),
        recorded_uri=recorded_uri,
        received_url=received_url,
    ).mismatches


def test_gemini_compares_the_model_the_method_and_alt_of_the_url() -> None:
    check = check_request(
        "gemini",
        GEMINI_BODY,
        GEMINI_BODY.encode(),
        recorded_uri=SSE_URI,
        received_url="/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse",
    )
    assert check.ok
    assert check.compared == ("url.model", "url.method", "url.alt", "contents")
    assert _gemini(SSE_URI, "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse") == [
        'url.model: expected "gemini-2.0-flash", got "gemini-2.5-pro"'
    ]
    assert _gemini(SSE_URI, "/v1beta/models/gemini-2.0-flash:generateContent?alt=sse") == [
        'url.method: expected "streamGenerateContent", got "generateContent"'
    ]


def test_gemini_alt_decides_the_framing_and_a_missing_alt_is_a_json_array() -> None:
    sent = "/v1beta/models/gemini-2.0-flash:streamGenerateContent"
    assert _gemini(JSON_ARRAY_URI, sent + "?alt=sse") == [
        'url.alt: expected none (a JSON-array body), got "sse" (Server-Sent Events)'
    ]
    assert _gemini(SSE_URI, sent) == [
        'url.alt: expected "sse" (Server-Sent Events), got none (a JSON-array body)'
    ]
    assert _gemini(JSON_ARRAY_URI, sent + "?alt=json") == []  # the default, written out
    assert _gemini(SSE_URI, sent + "?$alt=sse") == []  # Google's other name for it
    assert _gemini(JSON_ARRAY_URI, sent) == []


def test_no_other_query_parameter_is_read_or_quoted() -> None:
    key = "AIza" + "Sy" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"
    sent = f"/v1beta/models/gemini-2.0-flash:generateContent?key={key}&alt=sse"
    mismatches = _gemini(JSON_ARRAY_URI, sent)
    assert len(mismatches) == 2  # the method and alt
    assert not any(key in line or "key" in line for line in mismatches)
    assert (
        _gemini(SSE_URI, f"/v1beta/models/gemini-2.0-flash:streamGenerateContent?key={key}&alt=sse")
        == []
    )


def test_a_vertex_path_and_the_gemini_api_path_name_the_same_model() -> None:
    vertex = (
        "https://aiplatform.googleapis.com/v1beta1/projects/p/locations/global/publishers/"
        "google/models/gemini-2.0-flash:streamGenerateContent?alt=sse"
    )
    express = "/v1beta1/publishers/google/models/gemini-2.0-flash:streamGenerateContent?alt=sse"
    assert _gemini(vertex, express) == []
    assert _gemini(vertex, "/v1beta/models/gemini-2.0-flash%3AstreamGenerateContent?alt=sse") == []


def test_a_placeholder_uri_or_no_received_url_compares_no_url() -> None:
    placeholder = "https://recorded.invalid/v1beta/models/recorded:streamGenerateContent?alt=sse"
    check = check_request(
        "gemini", GEMINI_BODY, GEMINI_BODY.encode(), recorded_uri=placeholder, received_url="/x"
    )
    assert (check.ok, check.compared) == (True, ("contents",))
    assert check_request("gemini", GEMINI_BODY, GEMINI_BODY.encode(), recorded_uri=SSE_URI).ok
    # The other dialects put the model in the body: their URL is the route's business.
    chat = check_request(
        "openai_chat",
        RECORDED,
        RECORDED.encode(),
        recorded_uri="https://x/v1/chat/completions",
        received_url="/v2/chat/completions",
    )
    assert (chat.ok, chat.compared[0]) == (True, "model")


def test_the_framing_a_recorded_request_asked_for() -> None:
    assert requested_framing("gemini", SSE_URI) == "sse"
    assert requested_framing("gemini", JSON_ARRAY_URI) == "json_array"
    assert requested_framing("gemini", GEMINI_API + ":generateContent") == "json"
    assert requested_framing("gemini", "https://recorded.invalid/v1beta/models/r:x") is None
    assert requested_framing("gemini", None) is None
    assert requested_framing("openai_chat", "https://api.openai.com/v1/chat/completions") is None


# -- The equivalences ---------------------------------------------------------------------

DOCS = Path(__file__).resolve().parents[2] / "docs" / "serve.md"


@pytest.mark.parametrize("rule", EQUIVALENCES, ids=lambda rule: rule.name)
def test_every_equivalence_reads_its_example_as_the_same_request(rule: Equivalence) -> None:
    recorded, received = json.loads(rule.recorded), json.loads(rule.received)
    assert recorded != received  # the example shows a difference
    every = rule.formats()
    dialects = [d for d in every if rule.field in compared_fields(d)]
    assert dialects
    for dialect in dialects:
        one = json.dumps({rule.field: recorded})
        other = json.dumps({rule.field: received})
        check = check_request(dialect, one, other.encode())
        assert (check.ok, check.compared) == (True, (rule.field,)), (dialect, check.mismatches)
        if rule.name != "unrecorded_members":  # a recorded member is never free
            assert check_request(dialect, other, one.encode()).ok, dialect


def test_every_format_specific_equivalence_is_named_by_a_format() -> None:
    specific = [rule for rule in EQUIVALENCES if rule.specific]
    assert specific
    for rule in specific:
        assert rule.formats(), f"{rule.name}: no Format.equivalences names it"
    assert not EQUIVALENCES[0].specific
    assert EQUIVALENCES[0].formats() == tuple(formats.names())


def test_the_docs_list_exactly_the_equivalences_of_the_code() -> None:
    assert equivalences_table() in DOCS.read_text(encoding="utf-8")
    docstring = request_check.__doc__ or ""
    listed = re.findall(r"^- ``(\w+)``:", docstring, flags=re.MULTILINE)
    assert listed == [rule.name for rule in EQUIVALENCES]


def test_the_docs_list_the_fields_each_dialect_compares() -> None:
    text = DOCS.read_text(encoding="utf-8").split("| dialect | fields compared |", 1)[1]
    for dialect in formats.names():
        fields = compared_fields(dialect)
        row = re.search(rf"^\| `{dialect}` \| (.*) \|$", text, flags=re.MULTILINE)
        assert row is not None, dialect
        assert re.findall(r"`([\w.]+)`", row.group(1)) == [*url_fields(dialect), *fields]


def test_developer_and_system_are_one_role_for_openai_only() -> None:
    system = json.dumps({"model": "o3", "messages": [{"role": "system", "content": "Be brief."}]})
    developer = system.replace('"system"', '"developer"').encode()
    assert check_request("openai_chat", system, developer).ok
    assert check_request("openai_chat", developer.decode(), system.encode()).ok
    user = system.replace('"system"', '"user"').encode()
    assert check_request("openai_chat", system, user).mismatches == [
        'messages[0].role: expected "system", got "user"'
    ]
    responses = json.dumps({"model": "o3", "input": [{"role": "system", "content": "Be brief."}]})
    assert check_request(
        "openai_responses", responses, responses.replace("system", "developer").encode()
    ).ok


def test_arguments_text_is_its_json_only_where_the_format_sends_text() -> None:
    # Chat Completions sends a call's arguments as JSON text: respacing it is the same call.
    def chat(arguments: str) -> dict[str, object]:
        call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}}
        return {"model": "m", "messages": [{"role": "assistant", "tool_calls": [call]}]}

    assert check_request(
        "openai_chat", json.dumps(chat('{"a": 1}')), json.dumps(chat('{"a":1}')).encode()
    ).ok

    # Ollama takes an object (and answers a JSON string with a 400): a client that sends the
    # text is wrong, however equal the JSON it holds.
    def ollama(arguments: object) -> dict[str, object]:
        call = {"function": {"name": "f", "arguments": arguments}}
        return {"model": "m", "messages": [{"role": "assistant", "tool_calls": [call]}]}

    sent = json.dumps(ollama('{"a": 1}')).encode()
    (mismatch,) = check_request("ollama_chat", json.dumps(ollama({"a": 1})), sent).mismatches
    assert mismatch.startswith("messages[0].tool_calls[0].function.arguments: expected")


def _declaration(parameters: object) -> dict[str, object]:
    declaration: dict[str, object] = {"name": "f"}
    if parameters is not None:
        declaration["parameters"] = parameters
    return {"tools": [{"functionDeclarations": [declaration]}]}


def _tools_check(dialect: str, recorded: object, received: object) -> list[str]:
    wrap = _declaration if dialect == "gemini" else _function
    return check_request(
        dialect, json.dumps(wrap(recorded)), json.dumps(wrap(received)).encode()
    ).mismatches


def _function(parameters: object) -> dict[str, object]:
    function: dict[str, object] = {"name": "f"}
    if parameters is not None:
        function["parameters"] = parameters
    return {"tools": [{"type": "function", "function": function}]}


def test_gemini_type_names_are_json_schema_names_at_every_depth_and_nowhere_else() -> None:
    deep = {
        "type": "object",
        "properties": {
            "type": {"type": "string", "enum": ["OBJECT", "x"], "description": "STRING"},
            "rows": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"n": {"type": "integer"}, "ok": {"type": ["boolean", "null"]}},
                },
            },
            "either": {"anyOf": [{"type": "number"}, {"type": "null"}]},
        },
        "required": ["type"],
    }
    text = json.dumps(deep)
    upper = text
    for name in ("object", "string", "array", "integer", "boolean", "number", "null"):
        upper = upper.replace(f'"{name}"', f'"{name.upper()}"')
    assert upper.count('"OBJECT"') == 3  # the enum value was upper already, and stays
    assert _tools_check("gemini", deep, json.loads(upper)) == []
    assert _tools_check("gemini", json.loads(upper), deep) == []
    # Only the type members of schemas: an enum value or a description is a value.
    enum = json.loads(text.replace('["OBJECT", "x"]', '["object", "x"]'))
    assert _tools_check("gemini", deep, enum) == [
        'tools[0].functions[0].parameters.properties.type.enum[0]: expected "OBJECT", got "object"'
    ]
    described = json.loads(text.replace('"description": "STRING"', '"description": "string"'))
    assert _tools_check("gemini", deep, described) != []
    # Outside Gemini, OBJECT is not a JSON Schema type name.
    assert _tools_check("openai_chat", deep, json.loads(upper)) != []


NO_PARAMETERS = [
    None,
    {},
    {"type": "object"},
    {"type": "object", "properties": {}},
    {"type": "object", "properties": {}, "required": []},
    {"type": "object", "properties": {}, "additionalProperties": False},
    {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": False,
        "title": "Empty",
    },
]

SOME_PARAMETERS = [
    {"type": "object", "properties": {"city": {"type": "string"}}},
    {"type": "object", "additionalProperties": True},
    {"type": "object", "additionalProperties": {"type": "string"}},
    {"type": "object", "properties": {}, "required": ["city"]},
    {"type": "string"},
]


@pytest.mark.parametrize("recorded", NO_PARAMETERS)
def test_every_form_of_no_parameters_is_one(recorded: object) -> None:
    for received in NO_PARAMETERS:
        assert _tools_check("openai_chat", recorded, received) == [], received
    assert takes_no_parameters(recorded)
    assert _tools_check("gemini", {"type": "OBJECT", "properties": {}}, None) == []


@pytest.mark.parametrize("received", SOME_PARAMETERS)
def test_a_tool_with_parameters_is_not_one_without(received: object) -> None:
    assert not takes_no_parameters(received)
    (line,) = _tools_check("openai_chat", None, received)
    assert line.startswith("tools[0].parameters: expected none (no parameters), got {")
    assert _tools_check("openai_chat", received, {"type": "object", "properties": {}}) != []
