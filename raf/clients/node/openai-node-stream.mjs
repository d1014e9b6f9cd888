// The openai npm SDK's Chat Completions stream helper, as helpers.md and examples/stream.ts
// show it: `client.chat.completions.stream({...})`, its chunks iterated with `for await`,
// then `await stream.finalChatCompletion()`. The user reads the final ChatCompletion the
// helper accumulated, not the chunks.
import { serve } from "../../kit/node/raf-kit.mjs";
import { clientOf, readCompletion } from "./lib/openai.mjs";

serve({
  name: "openai-node-stream",
  library: "openai",
  dialects: ["openai_chat"],
  capabilities: ["tool_calls", "reasoning", "usage", "http_errors"],
  how:
    "const stream = client.chat.completions.stream({...request}) with maxRetries: 0, as " +
    "helpers.md and examples/stream.ts show, the text printed as it comes with " +
    ".on('content', (delta) => ...); for await (const chunk of stream) drains it, " +
    "then const completion = await stream.finalChatCompletion(). The user reads " +
    "completion.choices[0].message.content as the text, message.tool_calls (id, " +
    "function.name, function.arguments parsed with JSON.parse) as the calls, " +
    "choices[0].finish_reason and completion.usage (prompt/completion/total tokens, " +
    "cached and reasoning token details); reasoning, which the SDK does not type, is the " +
    "message's reasoning_content (DeepSeek) else reasoning (OpenRouter), as the helper " +
    "left it. When the iteration or finalChatCompletion() rejects, the user has the text " +
    "printed so far and the rest of stream.currentChatCompletionSnapshot, read the same way.",
  async stream(c, seen) {
    const client = clientOf(c);
    // examples/stream.ts prints the text as it comes: .on("content", (delta) => ...).
    let printed = "";
    const stream = client.chat.completions
      .stream({ ...c.body })
      .on("content", (delta) => {
        printed += delta;
      });
    try {
      for await (const chunk of stream) {
        void chunk; // the chunks are the helper's to accumulate
      }
      readCompletion(c, seen, await stream.finalChatCompletion());
    } catch (error) {
      readCompletion(c, seen, stream.currentChatCompletionSnapshot);
      seen.text = printed; // what the user was shown before the helper threw
      throw error;
    }
  },
});
