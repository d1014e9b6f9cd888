// What the AI SDK columns for Anthropic and Gemini share: a recorded user turn and a recorded
// function as the AI SDK's, the call of `streamText` with the settings every column passes,
// and reading its `fullStream` the way the AI SDK's documentation shows ("Generating text",
// the `fullStream` property: a `switch (part.type)` over the stream's parts).
//
// The kit (raf-kit.mjs) must be imported before this module and before `ai`: it guards stdout.
import { aiSdkFinishReason, aiSdkUsage } from "../../../kit/node/raf-kit.mjs";
import { jsonSchema, streamText, tool } from "ai";

// The AI SDK prints its warnings (an unsupported setting, a missing signature...) with
// console.warn, and an info line on stdout before the first one. Its documented switch turns
// them off ("Error handling", warnings): nothing of the user's answer is in them.
globalThis.AI_SDK_LOG_WARNINGS = false;

/** What every column passes to streamText besides model, prompt and tools: no retries. */
const CALL_SETTINGS = { maxRetries: 0 };

/**
 * A recorded user turn (its content blocks or parts) as AI SDK model messages: the tool
 * results among them (`isResult`) as one `tool` message of `result(block)` parts (the
 * provider sends them back as one user turn), then the others as one user message of
 * `text(block)` parts.
 */
export function userTurn(blocks, isResult, result, text) {
  const out = [];
  const results = blocks.filter((block) => isResult(block));
  const others = blocks.filter((block) => !isResult(block));
  if (results.length) out.push({ role: "tool", content: results.map(result) });
  if (others.length) out.push({ role: "user", content: others.map(text) });
  return out;
}

/**
 * A recorded function as the user declares it: `tool({description, inputSchema:
 * jsonSchema(schema)})` without `execute` (streamText hands the call over and stops).
 */
export function clientTool(description, schema) {
  return tool({ description, inputSchema: jsonSchema(schema) });
}

/** `streamText({...params, maxRetries: 0})`, its fullStream read into `seen`. */
export async function streamAndRead(seen, params) {
  await readFullStream(streamText({ ...params, ...CALL_SETTINGS }), seen);
}

/** An error part, or a tool error, as one of the errors the user was told of. */
function reported(code, error) {
  const message = typeof error === "string" ? error : error?.message ?? JSON.stringify(error);
  const name = error?.name ?? error?.type ?? code;
  return { error_code: String(name), message: String(message).slice(0, 2000) };
}

/**
 * Read `result.fullStream` as the AI SDK's docs show, into `seen`: text is the `text-delta`
 * parts' `text` joined, reasoning the `reasoning-delta` parts' `text` joined; each
 * `tool-call` part is a call (`toolCallId`, `toolName`, `input`, parsed by the SDK) unless
 * the SDK marks it `invalid` (its input did not parse; the SDK then sends a `tool-error`
 * part and would never run it); a `tool-error` part and an `error` part are errors the user
 * was told of; the `finish` part gives the finish reason (`finishReason`) and the usage
 * (`totalUsage`). Provider-executed calls (a server tool's `tool-call` with
 * `providerExecuted`) are the provider's, not the user's to run, and are not calls.
 */
async function readFullStream(result, seen) {
  for await (const part of result.fullStream) {
    switch (part.type) {
      case "text-delta":
        seen.text += part.text ?? "";
        break;
      case "reasoning-delta":
        seen.reasoning += part.text ?? "";
        break;
      case "tool-call":
        if (!part.invalid && !part.providerExecuted) {
          seen.call(part.toolCallId, part.toolName, part.input);
        }
        break;
      case "tool-error":
        if (!part.providerExecuted) seen.errors.push(reported("tool-error", part.error));
        break;
      case "finish":
        seen.finish = aiSdkFinishReason(part.finishReason);
        seen.usage = aiSdkUsage(part.totalUsage);
        break;
      case "error":
        seen.errors.push(reported("error", part.error));
        break;
      default:
        break;
    }
  }
}
