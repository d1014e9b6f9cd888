// What the @anthropic-ai/sdk columns share (anthropic-node.mjs, the Messages stream helper,
// and anthropic-node-tool-runner.mjs, the SDK's tool runner): the client as the README makes
// it, and what the user reads of a Message. (A folder below raf/clients/node is not a column.)
//
// The kit (raf-kit.mjs) must be imported before this module: it guards stdout.
import { baseURL, finishReason, anthropicUsage } from "../../../kit/node/raf-kit.mjs";
import Anthropic from "@anthropic-ai/sdk";

export const DIALECT = "anthropic_messages";

/** `new Anthropic({baseURL, apiKey, maxRetries: 0})`: the README's client, retrying nothing. */
export function clientOf(c) {
  return new Anthropic({
    baseURL: baseURL(c, "@anthropic-ai/sdk"),
    apiKey: c.apiKey,
    maxRetries: 0,
  });
}

/**
 * What the user reads of a Message: its text blocks joined, its thinking blocks joined as the
 * reasoning, its tool_use blocks as the calls (id, name, input; unless `calls` is false),
 * stop_reason and usage.
 */
export function readMessage(message, seen, { calls = true } = {}) {
  const text = [];
  const thinking = [];
  for (const block of message.content ?? []) {
    if (block.type === "text") text.push(block.text ?? "");
    else if (block.type === "thinking") thinking.push(block.thinking ?? "");
    // tool_use only: server_tool_use blocks were run by the server, not the user's to run
    else if (block.type === "tool_use" && calls) seen.call(block.id, block.name ?? "", block.input);
  }
  seen.text = text.join("");
  seen.reasoning = thinking.join("");
  seen.finish = finishReason(DIALECT, message.stop_reason);
  seen.usage = anthropicUsage(message.usage);
}
