// The Vercel AI SDK (`ai`) with its Google Generative AI provider (@ai-sdk/google):
// `streamText` and its `fullStream`, as the AI SDK's documentation shows. The recorded Gemini
// request is written as the AI SDK's own parameters (messages, tools, maxOutputTokens, the
// provider options for thinking and cached content), so the provider sends that request again.
import { serve, baseURL } from "../../kit/node/raf-kit.mjs";
import { clientTool, streamAndRead, userTurn } from "./lib/ai-sdk-anthropic-google.mjs";
import { createGoogleGenerativeAI } from "@ai-sdk/google";

/** A Gemini schema (types named OBJECT, STRING...) as the JSON Schema a user writes. */
function schema(value) {
  if (Array.isArray(value)) return value.map(schema);
  if (!value || typeof value !== "object") return value;
  const out = {};
  for (const [key, member] of Object.entries(value)) {
    if (key === "type" && typeof member === "string") out.type = member.toLowerCase();
    else if (key === "properties") {
      out.properties = Object.fromEntries(
        Object.entries(member ?? {}).map(([name, sub]) => [name, schema(sub)]),
      );
    } else if (key === "items") out.items = schema(member);
    else out[key] = member;
  }
  return out;
}

/** The recorded `systemInstruction` as the system prompt. */
function system(recorded) {
  if (!recorded?.parts) return undefined;
  return recorded.parts.map((part) => part.text ?? "").join("");
}

/** The recorded contents as AI SDK model messages (call ids made up: Gemini sends none). */
function messages(contents) {
  const out = [];
  const open = []; // calls of the last model turn not yet answered: {id, name}
  let counter = 0;
  for (const content of contents ?? []) {
    const parts = content.parts ?? [];
    if (content.role === "model") {
      open.length = 0;
      out.push({
        role: "assistant",
        content: parts.map((part) => {
          const signed = part.thoughtSignature
            ? { providerOptions: { google: { thoughtSignature: part.thoughtSignature } } }
            : {};
          if (part.functionCall) {
            const id = part.functionCall.id ?? `call_${counter++}`;
            open.push({ id, name: part.functionCall.name });
            return {
              type: "tool-call",
              toolCallId: id,
              toolName: part.functionCall.name,
              input: part.functionCall.args ?? {},
              ...signed,
            };
          }
          if (part.text !== undefined) {
            return { type: part.thought ? "reasoning" : "text", text: part.text, ...signed };
          }
          throw new Error(`ai-sdk-google: no AI SDK part for ${JSON.stringify(part)}`);
        }),
      });
      continue;
    }
    const turn = userTurn(
      parts,
      (part) => part.functionResponse,
      ({ functionResponse: response }) => {
        const at = open.findIndex((call) =>
          response.id ? call.id === response.id : call.name === response.name,
        );
        const call = at >= 0 ? open.splice(at, 1)[0] : { id: response.id ?? `call_${counter++}` };
        return {
          type: "tool-result",
          toolCallId: call.id,
          toolName: response.name,
          output: { type: "json", value: response.response ?? {} },
        };
      },
      (part) => {
        if (part.text === undefined) {
          throw new Error(`ai-sdk-google: no AI SDK part for ${JSON.stringify(part)}`);
        }
        return { type: "text", text: part.text };
      },
    );
    out.push(...turn);
  }
  return out;
}

/**
 * The recorded tools as the AI SDK's: a function is `tool({description, inputSchema})` without
 * `execute` (streamText hands the call over and stops); Google Search and code execution are
 * the provider's own (`google.tools.googleSearch({})`, `google.tools.codeExecution({})`).
 */
function tools(google, recorded) {
  if (!recorded?.length) return undefined;
  const out = {};
  for (const spec of recorded) {
    if (spec.googleSearch) out.google_search = google.tools.googleSearch({});
    else if (spec.codeExecution) out.code_execution = google.tools.codeExecution({});
    for (const declaration of spec.functionDeclarations ?? []) {
      const parameters = declaration.parametersJsonSchema ?? declaration.parameters;
      const recorded = parameters ?? { type: "object", properties: {} };
      out[declaration.name] = clientTool(declaration.description, schema(recorded));
    }
    const known = ["googleSearch", "codeExecution", "functionDeclarations"];
    const other = Object.keys(spec).find((key) => !known.includes(key));
    if (other) throw new Error(`ai-sdk-google: no AI SDK tool for ${other}`);
  }
  return out;
}

/** The recorded function-calling mode as streamText's toolChoice. */
function toolChoice(config) {
  const mode = config?.functionCallingConfig?.mode;
  if (mode === "AUTO") return "auto";
  if (mode === "NONE") return "none";
  if (mode === "ANY") return "required";
  return undefined;
}

/** The recorded options that have no portable setting, as the provider's options. */
function googleOptions(body) {
  const options = {};
  const config = body.generationConfig ?? {};
  if (config.thinkingConfig) options.thinkingConfig = config.thinkingConfig;
  if (body.cachedContent) options.cachedContent = body.cachedContent;
  if (body.toolConfig?.functionCallingConfig?.streamFunctionCallArguments) {
    options.streamFunctionCallArguments = true;
  }
  return Object.keys(options).length ? { google: options } : undefined;
}

serve({
  name: "ai-sdk-google",
  library: ["ai", "@ai-sdk/google"],
  dialects: ["gemini"],
  capabilities: ["tool_calls", "reasoning", "usage", "http_errors"],
  // streamText always asks for `:streamGenerateContent?alt=sse` (the provider's doStream):
  // a recording answered with a JSON array is one this library never receives.
  framings: ["sse"],
  how:
    "const google = createGoogleGenerativeAI({baseURL, apiKey}); const result = streamText({" +
    "model: google(model), system, messages, tools, toolChoice, maxOutputTokens, " +
    "maxRetries: 0, providerOptions: {google: {thinkingConfig, cachedContent}}}) with the " +
    "recorded request written as the AI SDK's parameters (functions as tool({description, " +
    "inputSchema: jsonSchema(...)}) without execute, Google Search and code execution as " +
    "google.tools.*; a replayed call's thoughtSignature as its providerOptions), then the " +
    "docs' loop: for await (const part of result.fullStream) switch (part.type). Text is the " +
    "text-delta parts joined, reasoning the reasoning-delta parts joined; the calls are the " +
    "tool-call parts (toolCallId, toolName, input) that are neither provider-executed nor " +
    "marked invalid (input that did not parse, which the SDK follows with a tool-error part); " +
    "the finish reason and usage are the finish part's finishReason and totalUsage " +
    "(inputTokens, outputTokens, totalTokens, cache reads, reasoning tokens); every error " +
    "part and tool-error part is an error the user was told of. streamText does not throw: a " +
    "failed request or a broken stream arrives as an error part.",
  async stream(c, seen) {
    const body = c.body;
    const google = createGoogleGenerativeAI({
      baseURL: baseURL(c, "@ai-sdk/google"),
      apiKey: c.apiKey,
    });
    const config = body.generationConfig ?? {};
    const providerOptions = googleOptions(body);
    const choice = toolChoice(body.toolConfig);
    await streamAndRead(seen, {
      model: google(c.model),
      system: system(body.systemInstruction),
      messages: messages(body.contents),
      tools: tools(google, body.tools),
      ...(choice && { toolChoice: choice }),
      ...(config.maxOutputTokens !== undefined && { maxOutputTokens: config.maxOutputTokens }),
      ...(providerOptions && { providerOptions }),
    });
  },
});
