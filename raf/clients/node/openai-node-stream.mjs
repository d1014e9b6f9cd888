// The openai npm SDK's Chat Completions stream helper, as helpers.md and examples/stream.ts
// show it: `client.chat.completions.stream({...})`, its chunks iterated with `for await`,
// then `await stream.finalChatCompletion()`. The user reads the final ChatCompletion the
// helper accumulated, not the chunks.
import { serve, baseURL, finishReason, openaiUsage } from "../../kit/node/raf-kit.mjs";
import OpenAI from "openai";

/** What the user reads from a ChatCompletion (or, after an error, the helper's snapshot). */
function read(c, seen, completion) {
  if (!completion) return;
  const choice = completion.choices?.[0];
  const message = choice?.message ?? {};
  seen.text = typeof message.content === "string" ? message.content : "";
  // Not typed by the SDK: DeepSeek's reasoning_content, OpenRouter's reasoning, as the
  // helper left them on the message.
  const reasoning = message.reasoning_content ?? message.reasoning;
  seen.reasoning = typeof reasoning === "string" ? reasoning : "";
  seen.calls = [];
  for (const call of message.tool_calls ?? []) {
    if (!call) continue;
    // function.arguments is a string the user parses (JSON.parse), as the docs show.
    seen.call(call.id, call.function?.name ?? null, call.function?.arguments ?? "");
  }
  seen.finish = finishReason(c.dialect, choice?.finish_reason);
  seen.usage = openaiUsage(completion.usage);
}

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
    const client = new OpenAI({ baseURL: baseURL(c, "openai"), apiKey: c.apiKey, maxRetries: 0 });
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
      read(c, seen, await stream.finalChatCompletion());
    } catch (error) {
      read(c, seen, stream.currentChatCompletionSnapshot);
      seen.text = printed; // what the user was shown before the helper threw
      throw error;
    }
  },
});
