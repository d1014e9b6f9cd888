// What the two @ai-sdk/openai columns share (ai-sdk-openai.mjs, Chat Completions, and
// ai-sdk-openai-responses.mjs, Responses): the function tools of a recorded request as AI SDK
// tools, its tool choice, its options as streamText's settings, its messages' text and tool
// results, and the call of `streamText` with the loop over `result.fullStream` that the AI
// SDK's docs show. (A folder below raf/clients/node is not a column.)
import { aiSdkFinishReason, aiSdkUsage, baseURL } from "../../../kit/node/raf-kit.mjs";
import { createOpenAI } from "@ai-sdk/openai";
import { jsonSchema, streamText, tool } from "ai";

// The AI SDK prints its warnings (an option a model does not support...) with console.warn
// unless this documented global is false (ai/src/logger/log-warnings.ts); the kit already
// sends console output to stderr, and the warnings are not what a user reads in the stream.
globalThis.AI_SDK_LOG_WARNINGS = false;

/** The provider as its docs make it: `createOpenAI({baseURL, apiKey})`. */
export function providerOf(c) {
  return createOpenAI({ baseURL: baseURL(c, "@ai-sdk/openai"), apiKey: c.apiKey });
}

/** A recorded `content` (a string, or text parts) as its text. */
export function textOf(content) {
  if (content == null) return "";
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((part) => (typeof part === "string" ? part : part?.text ?? "")).join("");
  }
  return String(content);
}

/** A recorded tool result (its call's id, its tool's name, its content) as a tool message. */
export function toolResultMessage(toolCallId, toolName, content) {
  return {
    role: "tool",
    content: [
      {
        type: "tool-result",
        toolCallId,
        toolName,
        output: { type: "text", value: textOf(content) },
      },
    ],
  };
}

/** The value at a dotted `path` of a recorded body ("reasoning.effort"), or a function's. */
function valueAt(body, path) {
  if (typeof path === "function") return path(body);
  return path.split(".").reduce((value, key) => value?.[key], body);
}

/**
 * The recorded options as streamText's settings and the documented provider options
 * (`providerOptions.openai`): `settings` and `openai` name, for each setting, the recorded
 * field it takes (a dotted path, or a function of the body). A field not recorded (or null)
 * is not set.
 */
export function settingsOf(body, settings, openai) {
  const out = {};
  const options = {};
  for (const [name, path] of Object.entries(settings)) {
    const value = valueAt(body, path);
    if (value != null) out[name] = value;
  }
  for (const [name, path] of Object.entries(openai)) {
    const value = valueAt(body, path);
    if (value != null) options[name] = value;
  }
  if (Object.keys(options).length) out.providerOptions = { openai: options };
  return out;
}

/**
 * `streamText({model, messages, tools, toolChoice, ...settings, maxRetries: 0})` (the tool
 * choice only with tools: `rawToolChoice` is the recorded one), read by readFullStream.
 */
export async function streamRecorded(seen, { tools, rawToolChoice, settings, ...params }, read) {
  const result = streamText({
    ...params,
    ...(tools ? { tools, toolChoice: toolChoice(rawToolChoice) } : {}),
    ...settings,
    maxRetries: 0,
  });
  await readFullStream(result, seen, read);
}

/** The JSON Schema of a function that declares no parameters. */
const NO_PARAMETERS = { type: "object", properties: {} };

/**
 * A function tool as the user declares it for the AI SDK: `tool({description, inputSchema:
 * jsonSchema(parameters)})`, without `execute` (the user runs the calls), keeping a
 * recorded `strict`. `spec` is {name, description, parameters, strict}.
 */
export function functionTool(spec) {
  return tool({
    ...(spec.description != null ? { description: spec.description } : {}),
    inputSchema: jsonSchema(spec.parameters ?? NO_PARAMETERS),
    ...(typeof spec.strict === "boolean" ? { strict: spec.strict } : {}),
  });
}

/** A recorded `tool_choice` ("auto", "required", {function: {name}}...) as streamText's. */
export function toolChoice(raw) {
  if (raw == null) return undefined;
  if (typeof raw === "string") return raw; // auto, none, required
  const name = raw.function?.name ?? raw.name;
  return name ? { type: "tool", toolName: name } : undefined;
}

/** A recorded tool call's `arguments` string as the `input` value of a tool-call part. */
export function callInput(text) {
  if (typeof text !== "string") return text ?? {};
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function errorOf(error, kind) {
  const name = typeof error === "object" ? error?.name ?? error?.constructor?.name : kind;
  const message = error?.message ?? (typeof error === "string" ? error : JSON.stringify(error));
  return { error_code: String(name ?? kind), message: String(message).slice(0, 2000) };
}

/**
 * The docs' loop over `result.fullStream`, as its user reads it: text-delta and
 * reasoning-delta parts joined; each tool-call part a call (toolCallId, toolName, input),
 * except one the provider ran (`providerExecuted`: OpenAI's hosted tools) and one marked
 * `invalid` (input that is not JSON, or a tool not given), which the SDK
 * does not run and reports as a tool-error part; tool-error and error parts are errors the
 * library reported; the finish part's finishReason and totalUsage. Reasoning parts with
 * different ids (a Responses reasoning summary's parts) are joined with a blank line.
 * `callArguments(part)`, when given, is a call's arguments in raf's form (else its input).
 */
export async function readFullStream(result, seen, { callArguments } = {}) {
  let reasoningId = null;
  for await (const part of result.fullStream) {
    switch (part.type) {
      case "text-delta":
        seen.text += part.text;
        break;
      case "reasoning-delta":
        if (!part.text) break;
        if (seen.reasoning && part.id !== reasoningId) seen.reasoning += "\n\n";
        reasoningId = part.id;
        seen.reasoning += part.text;
        break;
      case "tool-call":
        if (part.invalid || part.providerExecuted) break;
        seen.call(part.toolCallId, part.toolName, callArguments ? callArguments(part) : part.input);
        break;
      case "tool-error":
        seen.errors.push(errorOf(part.error, "tool-error"));
        break;
      case "error":
        seen.errors.push(errorOf(part.error, "error"));
        break;
      case "finish":
        seen.finish = aiSdkFinishReason(part.finishReason);
        seen.usage = aiSdkUsage(part.totalUsage);
        break;
      default:
        break;
    }
  }
}
