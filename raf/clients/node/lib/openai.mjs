// What the openai npm SDK's columns share (openai-node.mjs, openai-node-stream.mjs,
// openai-node-run-tools.mjs, openai-node-responses.mjs): the client as the README makes it,
// and what the user reads of the ChatCompletion a helper accumulated.
// (A folder below raf/clients/node is not a column.)
//
// The kit (raf-kit.mjs) must be imported before this module: it guards stdout.
import { baseURL, finishReason, openaiUsage } from "../../../kit/node/raf-kit.mjs";
import OpenAI from "openai";

/** `new OpenAI({baseURL, apiKey, maxRetries: 0})`: the README's client, retrying nothing. */
export function clientOf(c) {
  return new OpenAI({ baseURL: baseURL(c, "openai"), apiKey: c.apiKey, maxRetries: 0 });
}

/**
 * What the user reads from a ChatCompletion (or, after an error, a helper's snapshot):
 * choices[0].message.content as the text; reasoning, which the SDK does not type, is
 * DeepSeek's reasoning_content else OpenRouter's reasoning, as the helper left them on the
 * message; the tool_calls (function.arguments is a string the user parses with JSON.parse, as
 * the docs show); choices[0].finish_reason and usage.
 */
export function readCompletion(c, seen, completion) {
  if (!completion) return;
  const choice = completion.choices?.[0];
  const message = choice?.message ?? {};
  seen.text = typeof message.content === "string" ? message.content : "";
  const reasoning = message.reasoning_content ?? message.reasoning;
  seen.reasoning = typeof reasoning === "string" ? reasoning : "";
  seen.calls = [];
  for (const call of message.tool_calls ?? []) {
    if (call) seen.call(call.id, call.function?.name ?? null, call.function?.arguments ?? "");
  }
  seen.finish = finishReason(c.dialect, choice?.finish_reason);
  seen.usage = openaiUsage(completion.usage);
}
