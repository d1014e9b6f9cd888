// The Vercel AI SDK's tool loop over the Gemini API: streamText with tools that execute and
// stopWhen: stepCountIs(max_rounds), the model @ai-sdk/google's google(model).
import { serve } from "../../kit/node/raf-kit.mjs";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { providerOf, runToolLoop } from "./lib/ai-sdk-loop.mjs";

/** The recorded generationConfig's thinkingConfig as the provider's option. */
function settings(body) {
  const thinking = body.generationConfig?.thinkingConfig;
  if (!thinking) return {};
  return { providerOptions: { google: { thinkingConfig: thinking } } };
}

/** A Gemini tool's recorded result is the JSON of its response object: return the object. */
function parsed(content) {
  try {
    return JSON.parse(content);
  } catch {
    return content;
  }
}

serve({
  name: "ai-sdk-google-loop",
  library: ["ai", "@ai-sdk/google"],
  dialects: ["gemini"],
  capabilities: ["tool_calls", "reasoning", "usage"],
  framings: ["sse"],
  how:
    "The AI SDK's multi-step tool calling, streamed: streamText({model: " +
    "createGoogleGenerativeAI({baseURL, apiKey})(model), system, messages, tools, stopWhen: " +
    "stepCountIs(max_rounds), maxRetries: 0, providerOptions: {google: {thinkingConfig: the " +
    "recorded thinkingConfig}}}), each tool tool({description, inputSchema: jsonSchema(the " +
    "recorded schema), execute}) whose execute returns the recorded response object or " +
    "throws the recorded error (the SDK sends a thrown error back as the tool's result " +
    "text); the SDK sends each follow-up itself. result.fullStream is read part by part; the " +
    "answer is the last step's text-delta and reasoning-delta parts joined, its tool-call " +
    "parts (toolCallId, toolName, input), and its finish-step's finishReason and usage (that " +
    "step's, not the run's totalUsage); an error part is reported as an error.",
  async toolLoop(c, seen) {
    const google = providerOf(c, createGoogleGenerativeAI, "@ai-sdk/google");
    await runToolLoop(c, seen, google(c.model), settings(c.body), parsed);
  },
});
