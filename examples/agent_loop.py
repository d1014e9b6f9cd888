"""The agent loop end to end, offline: raf's agent with two ``@tool`` functions, its leaf chat
client pointed at ``raf serve`` replaying a four-round recording, every request it sends
checked against the recorded one.

    python examples/agent_loop.py [FORMAT]     # FORMAT: anthropic_messages (default),
                                               # openai_chat, openai_responses, gemini, ollama_chat

The recording (conformance/tool_loops/FORMAT/two_tools.yaml, bundled with raf): the model
calls get_weather (which raises) and get_air_quality (which does not exist) at once, then
book_table with people "two" (which fails the schema), then corrects it, then answers. The
loop answers each call by its id, sends the reasoning back as the provider requires, and the
replay server's request check says whether each request was the recorded one. Exits 1 when
one was not.
"""

from __future__ import annotations

import sys

from raf.agent import ChatClientAgent, ChatOptions, HttpChatClient, ToolResult, tool
from raf.collect import collect_agent_response
from raf.model import contents
from raf.model.messages import ChatMessage
from raf.serve import ReplayServer
from raf.shared.bundled import bundled

MODELS = {
    "anthropic_messages": ("claude-sonnet-4-5-20250929", {"max_tokens": 8192}),
    "openai_chat": ("deepseek-reasoner", {}),
    "openai_responses": ("gpt-5", {"store": False}),
    "gemini": ("gemini-3-pro-preview", {}),
    "ollama_chat": ("qwen3:8b", {"think": True}),
}


@tool
def get_weather(city: str) -> str:
    """Current weather in a city."""
    raise RuntimeError("weather service unavailable")


@tool
def book_table(restaurant: str, people: int, time: str) -> ToolResult:
    """Book a table at a restaurant.

    Args:
        time: HH:MM, 24-hour clock
    """
    return ToolResult.success({"confirmation": "CJ-1930-2"})


def main(fmt: str = "anthropic_messages") -> int:
    model, extra = MODELS[fmt]
    question = ChatMessage.user(
        "Book a table for two at Chez Janou tonight at 19:30, and tell me what the weather "
        "in Paris will be."
    )
    with ReplayServer([bundled().tool_loops], port=0) as server:
        with HttpChatClient(fmt, server.case_url(fmt, "two_tools"), model=model) as client:
            agent = ChatClientAgent(client, tools=[get_weather, book_table])
            results = []
            for result in agent.run([question], options=ChatOptions(extra_body=extra)):
                results.append(result)
                for content in result.contents:
                    if isinstance(content, contents.ToolCalling):
                        print(f"call   {content.name}({content.arguments})")
                    elif isinstance(content, contents.ToolCalled):
                        print(f"  ->   {content.error or content.result}")
                    elif isinstance(content, contents.RoundFinished):
                        print(f"round {content.round + 1}: {content.finish_reason}")
        response = collect_agent_response(results)
        checks = [entry["check"]["ok"] for entry in server.journal.entries()]
    print(f"answer: {response.text}")
    total = response.usage.total_tokens if response.usage else 0
    print(f"rounds: {len(response.rounds)}, usage: {total} tokens (all rounds)")
    print(f"requests matching the recording: {sum(checks)} of {len(checks)}")
    return 0 if all(checks) else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:2]))
