// The Vercel AI SDK's tool loop over the Responses API: streamText with tools that execute and
// stopWhen: stepCountIs(max_rounds), the model @ai-sdk/openai's openai.responses(model).
import { serve } from "../../kit/node/raf-kit.mjs";
import { createOpenAI } from "@ai-sdk/openai";
import { providerOf, runToolLoop } from "./lib/ai-sdk-loop.mjs";

/** The recorded store, include and reasoning as the provider's options. */
function settings(body) {
  const openai = {};
  if (typeof body.store === "boolean") openai.store = body.store;
  if (Array.isArray(body.include)) openai.include = body.include;
  if (body.reasoning?.effort) openai.reasoningEffort = body.reasoning.effort;
  if (body.reasoning?.summary) openai.reasoningSummary = body.reasoning.summary;
  return Object.keys(openai).length ? { providerOptions: { openai } } : {};
}

serve({
  name: "ai-sdk-openai-responses-loop",
  library: ["ai", "@ai-sdk/openai"],
  dialects: ["openai_responses"],
  capabilities: ["tool_calls", "reasoning", "usage"],
  how:
    "The AI SDK's multi-step tool calling, streamed: streamText({model: createOpenAI({baseURL, " +
    "apiKey}).responses(model), system, messages, tools, stopWhen: stepCountIs(max_rounds), " +
    "maxRetries: 0, providerOptions: {openai: {store, include, reasoningEffort, " +
    "reasoningSummary} as recorded}), each tool tool({description, inputSchema: " +
    "jsonSchema(the recorded schema), execute}) whose execute returns the recorded result or " +
    "throws the recorded error (the SDK sends a thrown error back as the tool's output " +
    "text); the SDK sends each follow-up itself. result.fullStream is read part by part; the " +
    "answer is the last step's text-delta and reasoning-delta parts joined, its tool-call " +
    "parts (toolCallId, toolName, input), and its finish-step's finishReason and usage (that " +
    "step's, not the run's totalUsage); an error part is reported as an error.",
  async toolLoop(c, seen) {
    const openai = providerOf(c, createOpenAI, "@ai-sdk/openai");
    await runToolLoop(c, seen, openai.responses(c.model), settings(c.body));
  },
});
