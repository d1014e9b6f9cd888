// The Vercel AI SDK's own tool loop, as its documentation shows it ("Tool Calling",
// "Multi-Step Calls"): streamText({model, system, messages, tools, stopWhen:
// stepCountIs(n)}), each tool a tool({description, inputSchema: jsonSchema(...), execute}),
// and result.fullStream read part by part. The columns ai-sdk-*-loop.mjs differ only in the
// provider's model and the provider options they take from the recorded request.
//
// This module is not a column (raf finds the columns in the folder above, not in lib/): import
// the kit first in the column's module, then this one.
import { aiSdkFinishReason, aiSdkUsage, baseURL } from "../../../kit/node/raf-kit.mjs";
import { jsonSchema, stepCountIs, streamText, tool } from "ai";

// The AI SDK logs its warnings (an unsupported setting, a signature it had to make up...)
// through console.info/console.warn unless this documented global says not to. The kit
// sends console output to stderr anyway; this keeps the case reports quiet.
globalThis.AI_SDK_LOG_WARNINGS = false;

/**
 * The provider as its docs make it, `create({baseURL, apiKey})` (createOpenAI,
 * createAnthropic, createGoogleGenerativeAI), `sdk` its package (the base URL's form).
 */
export function providerOf(c, create, sdk) {
  return create({ baseURL: baseURL(c, sdk), apiKey: c.apiKey });
}

/** What one step (one request and its streamed answer) handed the user. */
function newStep() {
  return { text: "", reasoning: "", calls: [], finish: null, usage: null };
}

/**
 * The recording's tools, as an AI SDK user writes them: the recorded JSON Schema through
 * jsonSchema() (no validator: the SDK checks no arguments against it), and an execute that
 * returns the recorded result. A recorded error is thrown, which is how an AI SDK user
 * reports a tool's failure: the SDK sends it back as a tool-error result (its output
 * `{type: "error-text", value: error.message}`). `result` turns the recorded content into
 * what the function returns (Gemini's is the JSON of the response object).
 */
export function recordedTools(c, result = (content) => content) {
  const tools = {};
  for (const spec of c.tools) {
    tools[spec.name] = tool({
      description: spec.description,
      inputSchema: jsonSchema(spec.parameters ?? { type: "object", properties: {} }),
      execute: async (input) => {
        const found = c.toolResult(spec.name, input);
        if (found.isError) throw new Error(found.content);
        return result(found.content);
      },
    });
  }
  return tools;
}

/** The conversation: system messages as `system`, the others as `messages`. */
export function conversation(c) {
  const system = c.messages.filter((m) => m.role === "system").map((m) => m.content);
  const messages = c.messages
    .filter((m) => m.role !== "system")
    .map((m) => ({ role: m.role, content: m.content }));
  return { ...(system.length ? { system: system.join("\n\n") } : {}), messages };
}

/**
 * Run the loop for case `c` with `model` (a provider's language model) and `options` (the
 * recorded settings: providerOptions, maxOutputTokens...), filling `seen` with the final
 * step: its text, reasoning, tool calls, finish reason and usage. An `error` part of the
 * stream (an HTTP error, a stream the provider could not read) is reported in seen.errors,
 * as a user reading fullStream gets it; the step it ended is the final one.
 */
export async function runToolLoop(c, seen, model, options = {}, result = undefined) {
  const run = streamText({
    model,
    ...conversation(c),
    tools: recordedTools(c, result),
    stopWhen: stepCountIs(c.loop.max_rounds),
    maxRetries: 0,
    ...options,
  });
  let step = newStep();
  let last = step;
  for await (const part of run.fullStream) {
    switch (part.type) {
      case "start-step":
        step = newStep();
        last = step;
        break;
      case "text-delta":
        step.text += part.text;
        break;
      case "reasoning-delta":
        step.reasoning += part.text;
        break;
      case "tool-call":
        step.calls.push({ id: part.toolCallId, name: part.toolName, arguments: part.input });
        break;
      case "finish-step":
        step.finish = aiSdkFinishReason(part.finishReason);
        step.usage = aiSdkUsage(part.usage);
        // The next request's step starts here, even if it never streams (an HTTP error).
        step = newStep();
        break;
      case "error":
        last = step;
        seen.errors.push({ error_code: errorCode(part.error), message: errorText(part.error) });
        break;
      default:
        break;
    }
  }
  seen.text = last.text;
  seen.reasoning = last.reasoning;
  for (const call of last.calls) seen.call(call.id, call.name, call.arguments);
  seen.finish = last.finish;
  seen.usage = last.usage;
}

function errorCode(error) {
  return error?.name ?? "error"; // AI_APICallError, AI_TypeValidationError...
}

function errorText(error) {
  const text = error?.message ?? String(error);
  const body = typeof error?.responseBody === "string" ? `: ${error.responseBody}` : "";
  return `${text}${body}`.slice(0, 2000);
}
