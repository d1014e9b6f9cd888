// What the AI SDK columns for Anthropic and Gemini share: reading `streamText`'s `fullStream`
// the way the AI SDK's documentation shows ("Generating text", the `fullStream` property: a
// `switch (part.type)` over the stream's parts), and the call settings every column passes.
//
// The kit (raf-kit.mjs) must be imported before this module and before `ai`: it guards stdout.
import { aiSdkFinishReason, aiSdkUsage } from "../../../kit/node/raf-kit.mjs";

// The AI SDK prints its warnings (an unsupported setting, a missing signature...) with
// console.warn, and an info line on stdout before the first one. Its documented switch turns
// them off ("Error handling", warnings): nothing of the user's answer is in them.
globalThis.AI_SDK_LOG_WARNINGS = false;

/** What every column passes to streamText besides model, prompt and tools: no retries. */
export const CALL_SETTINGS = { maxRetries: 0 };

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
export async function readFullStream(result, seen) {
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
