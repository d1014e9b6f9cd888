// The Vercel AI SDK (`ai`) with @ai-sdk/openai's Chat Completions model, as its docs show:
// `createOpenAI({baseURL, apiKey})`, `openai.chat(modelId)`, `streamText({model, messages,
// tools, maxRetries: 0})` and a loop over `result.fullStream`. The recorded request (Chat
// Completions JSON) is written as the AI SDK's messages, tools and settings; the provider
// writes the request body itself.
import { serve, baseURL } from "../../kit/node/raf-kit.mjs";
import { createOpenAI } from "@ai-sdk/openai";
import { streamText } from "ai";
import { callInput, functionTool, readFullStream, toolChoice } from "./lib/ai-sdk-openai.mjs";

/** A Chat Completions `content` (a string, or parts) as its text. */
function textOf(content) {
  if (content == null) return "";
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((part) => (typeof part === "string" ? part : part?.text ?? "")).join("");
  }
  return String(content);
}

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
      case "tool":
        out.push({
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: message.tool_call_id,
              toolName: names.get(message.tool_call_id) ?? message.name ?? "",
              output: { type: "text", value: textOf(message.content) },
            },
          ],
        });
        break;
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
  const settings = {};
  const openai = {};
  if (body.temperature != null) settings.temperature = body.temperature;
  if (body.top_p != null) settings.topP = body.top_p;
  if (body.max_tokens != null) settings.maxOutputTokens = body.max_tokens;
  if (body.seed != null) settings.seed = body.seed;
  if (body.stop != null) settings.stopSequences = [body.stop].flat();
  if (body.frequency_penalty != null) settings.frequencyPenalty = body.frequency_penalty;
  if (body.presence_penalty != null) settings.presencePenalty = body.presence_penalty;
  if (body.max_completion_tokens != null) openai.maxCompletionTokens = body.max_completion_tokens;
  if (body.parallel_tool_calls != null) openai.parallelToolCalls = body.parallel_tool_calls;
  if (body.reasoning_effort != null) openai.reasoningEffort = body.reasoning_effort;
  if (body.prompt_cache_key != null) openai.promptCacheKey = body.prompt_cache_key;
  if (body.user != null) openai.user = body.user;
  if (body.store != null) openai.store = body.store;
  if (body.service_tier != null) openai.serviceTier = body.service_tier;
  if (Object.keys(openai).length) settings.providerOptions = { openai };
  return settings;
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
    const openai = createOpenAI({ baseURL: baseURL(c, "@ai-sdk/openai"), apiKey: c.apiKey });
    const body = c.body;
    const tools = chatTools(body.tools);
    const result = streamText({
      model: openai.chat(c.model),
      messages: chatMessages(body.messages),
      ...(tools ? { tools, toolChoice: toolChoice(body.tool_choice) } : {}),
      ...chatSettings(body),
      maxRetries: 0,
    });
    await readFullStream(result, seen);
  },
});
