"""The request check: what a client sent against the cassette's recorded request."""

from __future__ import annotations

import json

from raf.serve.request_check import check_request

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
