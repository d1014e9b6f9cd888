"""Short streams in the formats raf recognises but does not read (raf.dialects.unread), one
per format, shaped like real recordings of each and written for these tests."""

from __future__ import annotations

LEGACY_COMPLETIONS = b"""data: {"id":"cmpl-7a1","object":"text_completion","created":1760000000,"choices":[{"text":"Two","index":0,"logprobs":null,"finish_reason":null}],"model":"gpt-3.5-turbo-instruct"}

data: {"id":"cmpl-7a1","object":"text_completion","created":1760000000,"choices":[{"text":" plus two","index":0,"logprobs":null,"finish_reason":"stop"}],"model":"gpt-3.5-turbo-instruct"}

data: [DONE]

"""

ASSISTANTS_RUNS = b"""event: thread.run.created
data: {"id":"run_k2","object":"thread.run","created_at":1760000000,"assistant_id":"asst_9","thread_id":"thread_4","status":"queued"}

event: thread.message.delta
data: {"id":"msg_3","object":"thread.message.delta","delta":{"content":[{"index":0,"type":"text","text":{"value":"Hello","annotations":[]}}]}}

event: thread.run.completed
data: {"id":"run_k2","object":"thread.run","created_at":1760000000,"assistant_id":"asst_9","thread_id":"thread_4","status":"completed"}

event: done
data: [DONE]

"""

WRITER = b"""data: {"value":"Palmyra"}

data: {"value":" says hi"}

data: [DONE]

"""

# ConverseStream decoded to JSON text (as an SDK or a proxy prints it): bedrock_converse reads
# only the binary event stream; InvokeModelWithResponseStream's {"chunk": {"bytes": ...}} are
# in tests/dialects/test_notices.py.
BEDROCK_EVENTS = b"""{"messageStart":{"role":"assistant"}}
{"contentBlockDelta":{"delta":{"text":"Hola"},"contentBlockIndex":0}}
{"contentBlockStop":{"contentBlockIndex":0}}
{"messageStop":{"stopReason":"end_turn"}}
{"metadata":{"usage":{"inputTokens":9,"outputTokens":2,"totalTokens":11},"metrics":{"latencyMs":310}}}
"""

OLLAMA_GENERATE = b"""{"model":"llama3.2","created_at":"2025-10-01T10:00:00.000Z","response":"Hi","done":false}
{"model":"llama3.2","created_at":"2025-10-01T10:00:00.100Z","response":" there","done":false}
{"model":"llama3.2","created_at":"2025-10-01T10:00:00.200Z","response":"","done":true,"done_reason":"stop","context":[128006,9125,128007],"total_duration":210000000,"prompt_eval_count":26,"eval_count":3}
"""

JSON_RPC = b"""event: message
data: {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-03-26","capabilities":{"tools":{}},"serverInfo":{"name":"docs","version":"1.0"}}}

"""

INTERACTIONS_OUTPUTS = b"""event: interaction.start
data: {"interaction":{"id":"","status":"in_progress","object":"interaction","model":"gemini-2.5-flash"},"event_type":"interaction.start"}

event: interaction.status_update
data: {"interaction_id":"","status":"in_progress","event_type":"interaction.status_update"}

event: content.start
data: {"index":0,"content":{"type":"text"},"event_type":"content.start"}

event: content.delta
data: {"index":0,"delta":{"text":"The three largest cities in Spain are","type":"text"},"event_type":"content.delta"}

event: content.stop
data: {"index":0,"event_type":"content.stop"}

event: interaction.complete
data: {"interaction":{"id":"","status":"completed","usage":{"total_tokens":39,"total_input_tokens":10,"total_output_tokens":29},"object":"interaction","model":"gemini-2.5-flash"},"event_type":"interaction.complete"}

"""

BODIES: dict[str, bytes] = {
    "assistants_runs": ASSISTANTS_RUNS,
    "writer": WRITER,
    "bedrock_events": BEDROCK_EVENTS,
    "ollama_generate": OLLAMA_GENERATE,
    "interactions_outputs": INTERACTIONS_OUTPUTS,
    "json_rpc": JSON_RPC,
}
"""Each format of raf.dialects.unread.UNREAD_FORMATS, by name -> a stream in it."""
