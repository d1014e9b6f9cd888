"""What each format's builder does with a conversation it did not read itself (docs/requests.md):
RAF messages without blocks, results spread over several tool messages, reasoning of another
provider, call ids raf made up. The properties of tests/test_requests.py cover what a format
reads; these cover what a client hands the builder."""

from __future__ import annotations

from typing import Any

from raf import formats
from raf.model import blocks
from raf.model.messages import ChatMessage, MessageRole, ToolCall
from raf.model.request import Conversation, RequestOptions, ToolSpec

CALLS = (
    ToolCall(id="call_1", name="get_weather", arguments={"city": "Paris"}),
    ToolCall(id="call_2", name="get_weather", arguments={"city": "Tokyo"}),
)
RAF_LOOP = Conversation(
    messages=(
        ChatMessage.system("Be brief."),
        ChatMessage.user("Weather in Paris and Tokyo?"),
        ChatMessage.assistant_with_tools("", CALLS),
        ChatMessage.tool("18°C", "call_1"),
        ChatMessage.tool("24°C", "call_2"),
    ),
    tools=(ToolSpec(name="get_weather", parameters={"type": "object"}),),
    options=RequestOptions(model="m", max_tokens=100),
)


def build(name: str, conversation: Conversation) -> dict[str, Any]:
    builder = formats.get(name).build_request
    assert builder is not None
    return builder(conversation)


def test_chat_sends_each_result_of_raf_messages_as_a_tool_message() -> None:
    body = build("openai_chat", RAF_LOOP)
    assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant", "tool", "tool"]
    assistant = body["messages"][2]
    assert assistant["content"] is None
    assert [c["function"]["arguments"] for c in assistant["tool_calls"]] == [
        '{"city":"Paris"}',
        '{"city":"Tokyo"}',
    ]
    assert [m["tool_call_id"] for m in body["messages"][3:]] == ["call_1", "call_2"]
    assert body["max_completion_tokens"] == 100
    assert "stream" in body


def test_anthropic_joins_the_results_of_a_turn_into_one_user_message() -> None:
    body = build("anthropic_messages", RAF_LOOP)
    assert body["system"] == "Be brief."
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    results = body["messages"][2]["content"]
    assert [(r["type"], r["tool_use_id"]) for r in results] == [
        ("tool_result", "call_1"),
        ("tool_result", "call_2"),
    ]
    assert body["max_tokens"] == 100


def test_gemini_answers_by_name_in_one_turn_and_sends_no_id_raf_made_up() -> None:
    made_up = Conversation(
        messages=(
            ChatMessage.user("Weather?"),
            ChatMessage(
                role=MessageRole.ASSISTANT,
                content="",
                blocks=(
                    blocks.ToolCall(id="__tc_0", name="get_weather", arguments={}, signature="s1"),
                    blocks.ToolCall(id="__tc_1", name="get_weather", arguments={}),
                ),
            ),
            ChatMessage.tool("18°C", "__tc_0"),
            ChatMessage.tool("24°C", "__tc_1"),
        ),
    )
    body = build("gemini", made_up)
    model, answers = body["contents"][1], body["contents"][2]
    assert model["parts"][0] == {
        "functionCall": {"name": "get_weather", "args": {}},
        "thoughtSignature": "s1",
    }
    assert "thoughtSignature" not in model["parts"][1]
    assert answers == {
        "role": "user",
        "parts": [
            {"functionResponse": {"name": "get_weather", "response": {"result": "18°C"}}},
            {"functionResponse": {"name": "get_weather", "response": {"result": "24°C"}}},
        ],
    }
    assert "model" not in body
    assert "stream" not in body


def test_responses_puts_the_reasoning_item_right_before_its_call() -> None:
    turn = ChatMessage(
        role=MessageRole.ASSISTANT,
        content="",
        blocks=(
            blocks.Reasoning(text="Think.", item_id="rs_1", encrypted_content="enc"),
            blocks.ToolCall(id="call_1", name="f", arguments={"a": 1}, item_id="fc_1"),
        ),
    )
    body = build(
        "openai_responses",
        Conversation(messages=(ChatMessage.user("hi"), turn, ChatMessage.tool("ok", "call_1"))),
    )
    assert body["input"] == [
        {"role": "user", "content": "hi"},
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [{"type": "summary_text", "text": "Think."}],
            "encrypted_content": "enc",
        },
        {
            "type": "function_call",
            "call_id": "call_1",
            "name": "f",
            "arguments": '{"a":1}',
            "id": "fc_1",
        },
        {"type": "function_call_output", "call_id": "call_1", "output": "ok"},
    ]


def test_reasoning_a_provider_cannot_take_is_left_out() -> None:
    unsigned = ChatMessage(
        role=MessageRole.ASSISTANT,
        content="Hi.",
        blocks=(blocks.Reasoning(text="chat reasoning"), blocks.Text(text="Hi.")),
    )
    signed = ChatMessage(
        role=MessageRole.ASSISTANT,
        content="Hi.",
        blocks=(blocks.Reasoning(text="thinking", signature="sig"), blocks.Text(text="Hi.")),
    )
    for message in (unsigned, signed):
        conversation = Conversation(messages=(ChatMessage.user("hi"), message))
        anthropic = build("anthropic_messages", conversation)["messages"][1]["content"]
        responses = build("openai_responses", conversation)["input"][1:]
        if message is unsigned:
            # an unsigned thinking block is refused by the API
            assert anthropic == [{"type": "text", "text": "Hi."}]
        else:
            assert anthropic[0] == {"type": "thinking", "thinking": "thinking", "signature": "sig"}
            # an Anthropic signature is no Responses reasoning item
            assert responses == [{"role": "assistant", "content": "Hi."}]
