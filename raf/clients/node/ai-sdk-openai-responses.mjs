// The Vercel AI SDK (`ai`) with @ai-sdk/openai's Responses model, as its docs show:
// `createOpenAI({baseURL, apiKey})`, `openai.responses(modelId)`, `streamText({model,
// messages, tools, maxRetries: 0})` and a loop over `result.fullStream`. The recorded request
// (Responses JSON) is written as the AI SDK's messages, tools and settings; the provider
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

/**
 * A Responses `input` (a string, or items) as the AI SDK's ModelMessages: a string is one user
 * message; message items keep their role; the reasoning and function_call items of a turn
 * are one assistant message (reasoning parts with the item id and the encrypted content,
 * tool-call parts with the item id, as providerOptions.openai); a function_call_output is a
 * tool-result part.
 */
export function responsesMessages(input) {
  if (input == null) return [];
  if (typeof input === "string") return [{ role: "user", content: input }];
  const names = new Map(); // a call's id: its tool's name, which a tool-result part needs
  const out = [];
  const assistant = () => {
    const last = out[out.length - 1];
    if (last?.role === "assistant") return last.content;
    const message = { role: "assistant", content: [] };
    out.push(message);
    return message.content;
  };
  for (const item of input) {
    const type = item.type ?? (item.role ? "message" : undefined);
    if (type === "message") {
      const role = item.role === "developer" ? "system" : item.role;
      const text = textOf(item.content);
      if (role === "assistant") {
        assistant().push({ type: "text", text, providerOptions: itemId(item.id) });
      } else {
        out.push({ role, content: text });
      }
    } else if (type === "reasoning") {
      const options = {
        openai: {
          ...(item.id ? { itemId: item.id } : {}),
          ...(item.encrypted_content ? { reasoningEncryptedContent: item.encrypted_content } : {}),
        },
      };
      const summary = item.summary?.length ? item.summary : [{ text: "" }];
      for (const part of summary) {
        assistant().push({ type: "reasoning", text: part.text ?? "", providerOptions: options });
      }
    } else if (type === "function_call") {
      names.set(item.call_id, item.name);
      assistant().push({
        type: "tool-call",
        toolCallId: item.call_id,
        toolName: item.name,
        input: callInput(item.arguments),
        providerOptions: itemId(item.id),
      });
    } else if (type === "function_call_output") {
      out.push(toolResultMessage(item.call_id, names.get(item.call_id) ?? "", item.output));
    } else {
      throw new Error(`ai-sdk-openai-responses: no AI SDK message for a ${type} item`);
    }
  }
  return out;
}

function itemId(id) {
  return id ? { openai: { itemId: id } } : undefined;
}

/**
 * The recorded `tools` as the AI SDK's tools object: function tools as tool({description,
 * inputSchema: jsonSchema(parameters)}); OpenAI's hosted and custom tools as the provider's
 * own factories (openai.tools.webSearch, customTool, shell, mcp, toolSearch).
 */
export function responsesTools(openai, tools) {
  if (!Array.isArray(tools) || tools.length === 0) return undefined;
  const out = {};
  for (const spec of tools) {
    switch (spec.type) {
      case "function":
        out[spec.name] = functionTool(spec);
        break;
      case "web_search":
        out.web_search = openai.tools.webSearch({});
        break;
      case "custom":
        out[spec.name] = openai.tools.customTool({
          name: spec.name,
          ...(spec.description != null ? { description: spec.description } : {}),
          ...(spec.format != null ? { format: spec.format } : {}),
        });
        break;
      case "shell":
        out.shell = openai.tools.shell(
          spec.environment?.type === "container_auto"
            ? { environment: { type: "containerAuto" } }
            : {},
        );
        break;
      case "mcp":
        out[spec.server_label] = openai.tools.mcp({
          serverLabel: spec.server_label,
          ...(spec.server_url != null ? { serverUrl: spec.server_url } : {}),
          ...(spec.require_approval != null ? { requireApproval: spec.require_approval } : {}),
        });
        break;
      case "tool_search":
        out.tool_search = openai.tools.toolSearch(
          spec.execution != null ? { execution: spec.execution } : {},
        );
        break;
      default:
        throw new Error(`ai-sdk-openai-responses: no AI SDK tool for a ${spec.type} tool`);
    }
  }
  return out;
}

/**
 * The recorded options as streamText's settings and the documented provider options
 * (`providerOptions.openai`: reasoningEffort, reasoningSummary, store, include,
 * parallelToolCalls, textFormat, instructions...). `stream` is the provider's own.
 */
export function responsesSettings(body) {
  return settingsOf(
    body,
    { temperature: "temperature", topP: "top_p", maxOutputTokens: "max_output_tokens" },
    {
      reasoningEffort: "reasoning.effort",
      reasoningSummary: "reasoning.summary",
      store: "store",
      include: "include",
      parallelToolCalls: "parallel_tool_calls",
      textFormat: "text.format",
      instructions: "instructions",
      previousResponseId: "previous_response_id",
      promptCacheKey: "prompt_cache_key",
      user: "user",
    },
  );
}

serve({
  name: "ai-sdk-openai-responses",
  library: ["ai", "@ai-sdk/openai"],
  dialects: ["openai_responses"],
  capabilities: ["tool_calls", "reasoning", "usage", "http_errors"],
  how:
    "createOpenAI({baseURL, apiKey}) and openai.responses(model); the recorded input becomes " +
    "the AI SDK's messages (a string one user message; reasoning and function_call items an " +
    "assistant message's reasoning and tool-call parts with their item ids and encrypted " +
    "content as providerOptions.openai; function_call_output items tool-result parts), " +
    "function tools tool({description, inputSchema: jsonSchema(parameters)}) without execute " +
    "and hosted tools the provider's openai.tools factories, the options streamText's " +
    "settings and providerOptions.openai (reasoningEffort, reasoningSummary, store, include, " +
    "textFormat...); then streamText({model, messages, tools, maxRetries: 0}) and the docs' " +
    "loop over result.fullStream: text-delta parts joined are the text, reasoning-delta parts " +
    "the reasoning (parts of different ids, a summary's parts, joined with a blank line), " +
    "tool-call parts the calls (toolCallId, toolName, input; a custom tool's text input as " +
    "{input: text}, a client tool_search call's input.arguments) but provider-executed ones " +
    "and those marked invalid, which the SDK does not run and reports as tool-error parts; " +
    "tool-error and error parts are errors the library reported; the " +
    "finish part's finishReason and totalUsage are the finish reason and the usage. The AI " +
    "SDK has no call that resumes a background response (a GET with starting_after).",
  async stream(c, seen) {
    if (c.request.method !== "POST") {
      throw new Error("the AI SDK has no call that resumes a background response stream");
    }
    const openai = providerOf(c);
    const body = c.body;
    const custom = new Set(
      (body.tools ?? []).filter((t) => t.type === "custom").map((t) => t.name),
    );
    const params = {
      tools: responsesTools(openai, body.tools),
      model: openai.responses(c.model),
      messages: responsesMessages(body.input),
      rawToolChoice: body.tool_choice,
      settings: responsesSettings(body),
    };
    await streamRecorded(seen, params, {
      // raf's form of what the user reads: a custom tool's text input is {input: text}; a
      // client tool_search call's input is {arguments, call_id}, and its arguments are the call's
      callArguments: (part) =>
        custom.has(part.toolName)
          ? { input: part.input }
          : part.toolName === "tool_search"
            ? part.input?.arguments
            : part.input,
    });
  },
});
