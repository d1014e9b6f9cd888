// The Vercel AI SDK's tool loop over the Messages API: streamText with tools that execute and
// stopWhen: stepCountIs(max_rounds), the model @ai-sdk/anthropic's anthropic(model).
import { serve } from "../../kit/node/raf-kit.mjs";
import { createAnthropic } from "@ai-sdk/anthropic";
import { providerOf, runToolLoop } from "./lib/ai-sdk-loop.mjs";

/**
 * The recorded `thinking` and `max_tokens` as AI SDK settings. The provider adds the thinking
 * budget to maxOutputTokens (its max_tokens is the answer's tokens plus the budget), so the
 * recorded max_tokens is passed less the budget: the request then asks for what was recorded.
 */
function settings(body) {
  const thinking = body.thinking;
  const out = {};
  let budget = 0;
  if (thinking?.type === "enabled") {
    budget = thinking.budget_tokens ?? 0;
    out.providerOptions = { anthropic: { thinking: { type: "enabled", budgetTokens: budget } } };
  } else if (thinking?.type) {
    const { type, display } = thinking;
    out.providerOptions = {
      anthropic: { thinking: { type, ...(display ? { display } : {}) } },
    };
  }
  if (Number.isInteger(body.max_tokens)) out.maxOutputTokens = body.max_tokens - budget;
  return out;
}

serve({
  name: "ai-sdk-anthropic-loop",
  library: ["ai", "@ai-sdk/anthropic"],
  dialects: ["anthropic_messages"],
  capabilities: ["tool_calls", "reasoning", "usage"],
  how:
    "The AI SDK's multi-step tool calling, streamed: streamText({model: createAnthropic({" +
    "baseURL, apiKey})(model), system, messages, tools, stopWhen: stepCountIs(max_rounds), " +
    "maxRetries: 0, maxOutputTokens (the recorded max_tokens less the thinking budget, which " +
    "the provider adds back), providerOptions: {anthropic: {thinking: the recorded thinking " +
    "(budgetTokens, display)}}}), each tool tool({description, inputSchema: jsonSchema(the " +
    "recorded schema), execute}) whose execute returns the recorded result or throws the " +
    "recorded error (the SDK sends a thrown error back as a tool_result with is_error); the " +
    "SDK sends each follow-up itself. result.fullStream is read part by part; the answer is " +
    "the last step's text-delta and reasoning-delta parts joined, its tool-call parts " +
    "(toolCallId, toolName, input), and its finish-step's finishReason and usage (that " +
    "step's, not the run's totalUsage); an error part is reported as an error.",
  async toolLoop(c, seen) {
    const anthropic = providerOf(c, createAnthropic, "@ai-sdk/anthropic");
    await runToolLoop(c, seen, anthropic(c.model), settings(c.body));
  },
});
