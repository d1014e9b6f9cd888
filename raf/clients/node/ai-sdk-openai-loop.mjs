// The Vercel AI SDK's tool loop over Chat Completions: streamText with tools that execute and
// stopWhen: stepCountIs(max_rounds), the model @ai-sdk/openai's openai.chat(model).
import { serve } from "../../kit/node/raf-kit.mjs";
import { createOpenAI } from "@ai-sdk/openai";
import { providerOf, runToolLoop } from "./lib/ai-sdk-loop.mjs";

serve({
  name: "ai-sdk-openai-loop",
  library: ["ai", "@ai-sdk/openai"],
  dialects: ["openai_chat"],
  capabilities: ["tool_calls", "reasoning", "usage"],
  how:
    "The AI SDK's multi-step tool calling, streamed: streamText({model: createOpenAI({baseURL, " +
    "apiKey}).chat(model), system, messages, tools, stopWhen: stepCountIs(max_rounds), " +
    "maxRetries: 0}), each tool tool({description, inputSchema: jsonSchema(the recorded " +
    "schema), execute}) whose execute returns the recorded result or throws the recorded " +
    "error (the SDK sends a thrown error back as the tool's result text); the SDK sends each " +
    "follow-up itself. result.fullStream is read part by part; the answer is the last step's " +
    "text-delta and reasoning-delta parts joined, its tool-call parts (toolCallId, toolName, " +
    "input), and its finish-step's finishReason and usage (that step's, not the run's " +
    "totalUsage); an error part is reported as an error.",
  async toolLoop(c, seen) {
    const openai = providerOf(c, createOpenAI, "@ai-sdk/openai");
    await runToolLoop(c, seen, openai.chat(c.model));
  },
});
