// The Vercel AI SDK (`ai`) with @ai-sdk/openai's Chat Completions model, as its docs show:
// `createOpenAI({baseURL, apiKey})`, `openai.chat(modelId)`, `streamText({model, messages,
// tools, maxRetries: 0})` and a loop over `result.fullStream`. The recorded request (Chat
// Completions JSON) is written as the AI SDK's messages, tools and settings; the provider
// writes the request body itself.
import { serve } from "../../kit/node/raf-kit.mjs";
import {
  callInput,
  functionTool,
  providerOf,
  settingsOf,
  streamRecorded,
  textOf,
  toolResultMessage,
} from "./lib/ai-sdk-openai.mjs";

/** A user message's content: a string, or the AI SDK's text parts. */
function userContent(content) {
  if (!Array.isArray(content)) return textOf(content);
  return content.map((part) => ({
    type: "text",
    text: typeof part === "string" ? part : part.text,
  }));
}

/**
 * Chat Completions messages as the AI SDK's ModelMessages: system and developer messages are
 * system messages; an assistant message is its reasoning (DeepSeek's `reasoning_content`),
 * text and tool-call parts; a tool message is a tool-result part with the text it carries.
 */
export function chatMessages(messages) {
  const names = new Map(); // a call's id: its tool's name, which a tool-result part needs
  const out = [];
  for (const message of messages ?? []) {
    switch (message.role) {
      case "system":
      case "developer":
        out.push({ role: "system", content: textOf(message.content) });
        break;
      case "user":
        out.push({ role: "user", content: userContent(message.content) });
        break;
      case "assistant": {
        const parts = [];
        const reasoning = message.reasoning_content ?? message.reasoning;
        if (typeof reasoning === "string" && reasoning) {
          parts.push({ type: "reasoning", text: reasoning });
        }
        const text = textOf(message.content);
        if (text) parts.push({ type: "text", text });
        for (const call of message.tool_calls ?? []) {
          names.set(call.id, call.function?.name);
          parts.push({
            type: "tool-call",
            toolCallId: call.id,
            toolName: call.function?.name,
            input: callInput(call.function?.arguments),
          });
        }
        out.push({ role: "assistant", content: parts });
        break;
      }
      case "tool": {
        const name = names.get(message.tool_call_id) ?? message.name ?? "";
        out.push(toolResultMessage(message.tool_call_id, name, message.content));
        break;
      }
      default:
        throw new Error(`ai-sdk-openai: no AI SDK message for role ${message.role}`);
    }
  }
  return out;
}

/** The recorded `tools` (Chat Completions function tools) as the AI SDK's tools object. */
export function chatTools(tools) {
  if (!Array.isArray(tools) || tools.length === 0) return undefined;
  const out = {};
  for (const spec of tools) {
    if (spec.type !== "function" || !spec.function) {
      throw new Error(`ai-sdk-openai: no AI SDK tool for a ${spec.type} tool`);
    }
    out[spec.function.name] = functionTool(spec.function);
  }
  return out;
}

/**
 * The recorded options as streamText's settings and the documented provider options
 * (`providerOptions.openai`). `stream` and `stream_options` are the provider's own: it always
 * asks for a stream with usage. Options the AI SDK has no setting for (`n`, OpenRouter's
 * `provider` and `reasoning`, vLLM's `chat_template_kwargs`, `moderation`) are not sent.
 */
export function chatSettings(body) {
  return settingsOf(
    body,
    {
      temperature: "temperature",
      topP: "top_p",
      maxOutputTokens: "max_tokens",
      seed: "seed",
      stopSequences: (recorded) => (recorded.stop != null ? [recorded.stop].flat() : null),
      frequencyPenalty: "frequency_penalty",
      presencePenalty: "presence_penalty",
    },
    {
      maxCompletionTokens: "max_completion_tokens",
      parallelToolCalls: "parallel_tool_calls",
      reasoningEffort: "reasoning_effort",
      promptCacheKey: "prompt_cache_key",
      user: "user",
      store: "store",
      serviceTier: "service_tier",
    },
  );
}

serve({
  name: "ai-sdk-openai",
  library: ["ai", "@ai-sdk/openai"],
  dialects: ["openai_chat"],
  capabilities: ["tool_calls", "usage", "http_errors"],
  how:
    "createOpenAI({baseURL, apiKey}) and openai.chat(model); the recorded messages become the " +
    "AI SDK's messages (system, user, assistant text and tool-call parts, tool-result parts), " +
    "the tools tool({description, inputSchema: jsonSchema(parameters)}) without execute, the " +
    "options streamText's settings (temperature, maxOutputTokens, toolChoice...) and " +
    "providerOptions.openai; then streamText({model, messages, tools, maxRetries: 0}) and the " +
    "docs' loop over result.fullStream: text-delta parts joined are the text, reasoning-delta " +
    "parts the reasoning (the Chat Completions model reads none), tool-call parts the calls " +
    "(toolCallId, toolName, input) but those marked invalid, which the SDK does not run and " +
    "reports as tool-error parts; tool-error and error parts are errors the library reported; " +
    "the finish part's finishReason and totalUsage (inputTokens, outputTokens, totalTokens, " +
    "cacheReadTokens, reasoningTokens) are the finish reason and the usage.",
  async stream(c, seen) {
    const openai = providerOf(c);
    const body = c.body;
    await streamRecorded(seen, {
      tools: chatTools(body.tools),
      model: openai.chat(c.model),
      messages: chatMessages(body.messages),
      rawToolChoice: body.tool_choice,
      settings: chatSettings(body),
    });
  },
});
