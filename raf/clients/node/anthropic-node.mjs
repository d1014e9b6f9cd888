// The @anthropic-ai/sdk npm SDK, the Messages stream helper as its docs show it:
// `client.messages.stream({...body}).on("text", print)`, then `await stream.finalMessage()`
// (lib/MessageStream: MessageStream, #accumulateMessage).
import { serve } from "../../kit/node/raf-kit.mjs";
import { DIALECT, clientOf, readMessage } from "./lib/anthropic.mjs";

serve({
  name: "anthropic-node",
  library: "@anthropic-ai/sdk",
  dialects: [DIALECT],
  capabilities: ["tool_calls", "reasoning", "usage", "http_errors"],
  how:
    "const stream = client.messages.stream({...request}) with maxRetries: 0, " +
    "stream.on(\"text\", (text) => ...) printing the text as it comes, then " +
    "const message = await stream.finalMessage(); the user reads the message's text blocks " +
    "joined, its thinking blocks joined as the reasoning, its tool_use blocks as the calls " +
    "(id, name, input), stop_reason and usage (prompt = input_tokens + " +
    "cache_creation_input_tokens + cache_read_input_tokens, completion = output_tokens, " +
    "cache hits = cache_read_input_tokens). When finalMessage() rejects (an in-stream error " +
    "event is an APIError), the user has the text printed so far and, when the stream still " +
    "holds one, the reasoning, stop reason and usage of stream.currentMessage (the helper " +
    "drops that snapshot when the body ends without message_stop).",
  async stream(c, seen) {
    const client = clientOf(c);
    const { stream: _stream, ...body } = c.body;
    let printed = "";
    const stream = client.messages.stream(body).on("text", (text) => {
      printed += text;
    });
    try {
      readMessage(await stream.finalMessage(), seen);
    } catch (error) {
      // what the user had: the text printed, and what the helper's snapshot still holds
      const snapshot = stream.currentMessage;
      if (snapshot) readMessage(snapshot, seen, { calls: false });
      seen.text = printed;
      throw error;
    }
  },
});
