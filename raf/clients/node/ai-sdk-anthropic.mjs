// The Vercel AI SDK (`ai`) with its Anthropic provider (@ai-sdk/anthropic): `streamText` and
// its `fullStream`, as the AI SDK's documentation shows. The recorded Messages API request is
// written as the AI SDK's own parameters (system, messages, tools, maxOutputTokens, the
// provider options for thinking), so the provider sends that request again.
import { serve, baseURL } from "../../kit/node/raf-kit.mjs";
import { clientTool, streamAndRead, userTurn } from "./lib/ai-sdk-anthropic-google.mjs";
import { createAnthropic } from "@ai-sdk/anthropic";

/** A recorded `system` (a string, or text blocks with their cache control). */
function system(recorded) {
  if (recorded === undefined || recorded === null) return undefined;
  if (typeof recorded === "string") return recorded;
  return recorded.map((block) => ({
    role: "system",
    content: block.text ?? "",
    ...(block.cache_control && {
      providerOptions: { anthropic: { cacheControl: block.cache_control } },
    }),
  }));
}

/** One recorded content block of an assistant turn, as an AI SDK assistant content part. */
function assistantPart(block) {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "thinking":
      return {
        type: "reasoning",
        text: block.thinking,
        providerOptions: { anthropic: { signature: block.signature } },
      };
    case "redacted_thinking":
      return {
        type: "reasoning",
        text: "",
        providerOptions: { anthropic: { redactedData: block.data } },
      };
    case "tool_use":
      return { type: "tool-call", toolCallId: block.id, toolName: block.name, input: block.input };
    default:
      throw new Error(`ai-sdk-anthropic: no AI SDK part for an assistant ${block.type} block`);
  }
}

/** A tool_result's content: its text, however it was recorded. */
function resultText(content) {
  if (typeof content === "string") return content;
  return (content ?? []).map((part) => part.text ?? "").join("");
}

/**
 * The recorded messages as AI SDK model messages: a user turn's tool_result blocks become a
 * `tool` message (the provider sends them back as one user turn), its other blocks a user
 * message.
 */
function messages(recorded) {
  const names = new Map(); // tool_use id -> tool name, for the tool results
  const out = [];
  for (const message of recorded ?? []) {
    if (typeof message.content === "string") {
      out.push({ role: message.role, content: message.content });
      continue;
    }
    if (message.role === "assistant") {
      for (const block of message.content) {
        if (block.type === "tool_use") names.set(block.id, block.name);
      }
      out.push({ role: "assistant", content: message.content.map(assistantPart) });
      continue;
    }
    const turn = userTurn(
      message.content,
      (block) => block.type === "tool_result",
      (block) => ({
        type: "tool-result",
        toolCallId: block.tool_use_id,
        toolName: names.get(block.tool_use_id) ?? "",
        output: {
          type: block.is_error ? "error-text" : "text",
          value: resultText(block.content),
        },
      }),
      (block) => {
        if (block.type !== "text") {
          throw new Error(`ai-sdk-anthropic: no AI SDK part for a user ${block.type} block`);
        }
        return { type: "text", text: block.text };
      },
    );
    out.push(...turn);
  }
  return out;
}

/**
 * The recorded tools as the AI SDK's: a client tool is `tool({description, inputSchema})`
 * without `execute` (streamText hands the call over and stops); a server tool is the
 * provider's own (`anthropic.tools.webSearch_20250305(...)`, `codeExecution_20250825()`).
 */
function tools(anthropic, recorded) {
  if (!recorded?.length) return undefined;
  const out = {};
  for (const spec of recorded) {
    if (spec.type === "web_search_20250305") {
      out[spec.name] = anthropic.tools.webSearch_20250305({
        ...(spec.max_uses !== undefined && { maxUses: spec.max_uses }),
      });
    } else if (spec.type === "code_execution_20250825") {
      out[spec.name] = anthropic.tools.codeExecution_20250825();
    } else if (spec.type === undefined || spec.type === "custom") {
      out[spec.name] = clientTool(spec.description, spec.input_schema);
    } else {
      throw new Error(`ai-sdk-anthropic: no AI SDK tool for ${spec.type}`);
    }
  }
  return out;
}

/** The recorded `thinking` as the provider option. */
function thinking(recorded) {
  if (!recorded) return undefined;
  if (recorded.type === "enabled") return { type: "enabled", budgetTokens: recorded.budget_tokens };
  return { type: recorded.type };
}

/**
 * The recorded `max_tokens` as maxOutputTokens. With budget thinking the provider sends
 * maxOutputTokens + budgetTokens as `max_tokens` (its documentation, "Reasoning"), so the
 * budget is taken off to send the recorded figure.
 */
function maxOutputTokens(body) {
  const budget = body.thinking?.type === "enabled" ? body.thinking.budget_tokens ?? 0 : 0;
  if (body.max_tokens === undefined) return undefined;
  return body.max_tokens > budget ? body.max_tokens - budget : body.max_tokens;
}

serve({
  name: "ai-sdk-anthropic",
  library: ["ai", "@ai-sdk/anthropic"],
  dialects: ["anthropic_messages"],
  capabilities: ["tool_calls", "reasoning", "usage", "http_errors"],
  how:
    "const anthropic = createAnthropic({baseURL, apiKey}); const result = streamText({model: " +
    "anthropic(model), system, messages, tools, maxOutputTokens, maxRetries: 0, " +
    "providerOptions: {anthropic: {thinking}}}) with the recorded request written as the AI " +
    "SDK's parameters (maxOutputTokens the recorded max_tokens less a thinking budget, which " +
    "the provider adds back; tools as tool({description, inputSchema: jsonSchema(...)}) without " +
    "execute, server tools as anthropic.tools.*), then the docs' loop: for await (const part " +
    "of result.fullStream) switch (part.type). Text is the text-delta parts joined, reasoning " +
    "the reasoning-delta parts joined; the calls are the tool-call parts (toolCallId, " +
    "toolName, input) that are neither provider-executed (a server tool's) nor marked invalid " +
    "(input that did not parse, which the SDK follows with a tool-error part); the finish " +
    "reason and usage are the finish part's finishReason and totalUsage (inputTokens, " +
    "outputTokens, totalTokens, cache reads, reasoning tokens); every error part and " +
    "tool-error part is an error the user was told of. streamText does not throw: a failed " +
    "request or a broken stream arrives as an error part.",
  async stream(c, seen) {
    const body = c.body;
    const anthropic = createAnthropic({
      baseURL: baseURL(c, "@ai-sdk/anthropic"),
      apiKey: c.apiKey,
    });
    const providerThinking = thinking(body.thinking);
    await streamAndRead(seen, {
      model: anthropic(c.model),
      system: system(body.system),
      messages: messages(body.messages),
      tools: tools(anthropic, body.tools),
      maxOutputTokens: maxOutputTokens(body),
      ...(providerThinking && { providerOptions: { anthropic: { thinking: providerThinking } } }),
    });
  },
});
