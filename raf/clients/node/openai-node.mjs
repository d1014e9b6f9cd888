// The openai npm SDK, Chat Completions, the loop its README shows:
// `await client.chat.completions.create({ ...body, stream: true })` and `for await (const chunk
// of stream)`, tool calls accumulated by `index` as the function-calling guide shows.
import { serve, finishReason, openaiUsage } from "../../kit/node/raf-kit.mjs";
import { clientOf } from "./lib/openai.mjs";

serve({
  name: "openai-node",
  library: "openai",
  dialects: ["openai_chat"],
  capabilities: ["tool_calls", "reasoning", "usage", "http_errors"],
  how:
    "await client.chat.completions.create({...request, stream: true}) with maxRetries: 0, then " +
    "the README's loop: for await (const chunk of stream), text is choices[0].delta.content " +
    "joined; tool calls are accumulated by tool_calls[].index as the function-calling guide " +
    "shows (the first delta of an index gives id and name, every delta's function.arguments " +
    "is appended, then parsed as JSON); the finish reason is the last non-empty " +
    "choices[0].finish_reason; usage is the chunk.usage of the chunk that carries one; " +
    "reasoning, which the SDK does not type, is the delta's reasoning_content (DeepSeek) else " +
    "reasoning (OpenRouter). A rejection of create() or of the iteration is the library " +
    "raising, with what the loop had accumulated.",
  async stream(c, seen) {
    const client = clientOf(c);
    const byIndex = new Map();
    const stream = await client.chat.completions.create({ ...c.body, stream: true });
    for await (const chunk of stream) {
      if (chunk.usage) seen.usage = openaiUsage(chunk.usage);
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      const delta = choice.delta ?? {};
      if (delta.content) seen.text += delta.content;
      const reasoning = delta.reasoning_content || delta.reasoning;
      if (reasoning) seen.reasoning += reasoning;
      for (const call of delta.tool_calls ?? []) {
        if (!byIndex.has(call.index)) {
          byIndex.set(call.index, seen.call(call.id, call.function?.name ?? "", ""));
        }
        if (call.function?.arguments) byIndex.get(call.index).arguments += call.function.arguments;
      }
      if (choice.finish_reason) seen.finish = finishReason(c.dialect, choice.finish_reason);
    }
  },
});
