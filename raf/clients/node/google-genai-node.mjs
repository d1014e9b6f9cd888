// Google's Gen AI SDK for JavaScript (@google/genai), the streaming loop its README shows:
// `for await (const chunk of await ai.models.generateContentStream({model, contents, config}))`,
// text from `chunk.text`, calls from `chunk.functionCalls`, thoughts from the parts as the
// thinking guide reads them.
import {
  serve,
  baseURL,
  finishReason,
  geminiApiVersion,
  geminiUsage,
} from "../../kit/node/raf-kit.mjs";
import { GoogleGenAI } from "@google/genai";

// Request fields that the SDK takes in `config` under the same names (the REST names are the
// SDK's own); `generationConfig`'s fields go into `config` directly.
const CONFIG_FIELDS = [
  "systemInstruction",
  "tools",
  "toolConfig",
  "cachedContent",
  "safetySettings",
];

/** The SDK's `config` for a recorded Gemini REST body. */
export function configOf(body) {
  const config = { ...(body.generationConfig ?? {}) };
  for (const name of CONFIG_FIELDS) {
    if (body[name] !== undefined && body[name] !== null) config[name] = body[name];
  }
  return config;
}

/** A recorded Vertex AI path (`.../publishers/google/models/...`) and its API version. */
function vertexOf(c) {
  const path = c.request.path.split("?", 1)[0];
  if (!path.includes("/publishers/")) return null;
  return path.split("/").filter(Boolean)[0] ?? "v1beta1";
}

serve({
  name: "google-genai-node",
  library: "@google/genai",
  dialects: ["gemini"],
  capabilities: ["tool_calls", "reasoning", "usage", "http_errors"],
  // Models.generateContentStream always asks for `{model}:streamGenerateContent?alt=sse`:
  // a JSON-array body is never asked for.
  framings: ["sse"],
  how:
    "new GoogleGenAI({apiKey, httpOptions: {baseUrl, apiVersion: the recorded one}}) " +
    "(vertexai: true, Vertex AI express mode, for a recorded Vertex path; the SDK retries " +
    "nothing unless httpOptions.retryOptions is set), then the README's loop: for await " +
    "(const chunk of await ai.models.generateContentStream({model, contents, config})) with " +
    "the recorded contents, and generationConfig's fields, systemInstruction, tools, " +
    "toolConfig and cachedContent as config. Text is chunk.text joined (the SDK leaves " +
    "thought parts out of it); reasoning is the text of the parts whose thought is true, as " +
    "the thinking guide reads candidates[0].content.parts; the calls are chunk.functionCalls " +
    "(id, name, args); the finish reason is the last candidates[0].finishReason (STOP with a " +
    "call is tool_calls, as raf reads it); promptFeedback.blockReason is reported as an " +
    "error (finish content_filter); usage is the last usageMetadata (prompt + tool-use " +
    "prompt tokens, candidates + thoughts tokens, total, cached content and thoughts token " +
    "counts). A rejection of generateContentStream() or of the iteration is the library " +
    "raising, with what the loop had read.",
  async stream(c, seen) {
    const vertex = vertexOf(c);
    const ai = new GoogleGenAI({
      apiKey: c.apiKey,
      ...(vertex ? { vertexai: true } : {}),
      httpOptions: {
        baseUrl: baseURL(c, "@google/genai"),
        apiVersion: vertex ?? geminiApiVersion(c),
      },
    });
    let raw = null;
    let blocked = null;
    let usageMetadata = null;
    const finish = () => {
      let reason = raw === "STOP" && seen.calls.length ? "tool_calls" : raw;
      reason = finishReason("gemini", reason);
      if (reason === null && blocked !== null) reason = "content_filter";
      seen.finish = reason;
      seen.usage = geminiUsage(usageMetadata);
    };
    try {
      const stream = await ai.models.generateContentStream({
        model: c.model,
        contents: c.body.contents ?? [],
        config: configOf(c.body),
      });
      for await (const chunk of stream) {
        if (chunk.usageMetadata) usageMetadata = chunk.usageMetadata;
        if (chunk.promptFeedback?.blockReason && blocked === null) {
          blocked = chunk.promptFeedback.blockReason;
          seen.errors.push({ error_code: null, message: `prompt blocked: ${blocked}` });
        }
        const candidate = chunk.candidates?.[0];
        if (!candidate) continue;
        if (chunk.text) seen.text += chunk.text;
        for (const part of candidate.content?.parts ?? []) {
          if (part.thought && typeof part.text === "string") seen.reasoning += part.text;
        }
        for (const call of chunk.functionCalls ?? []) {
          // args is undefined for a call streamed without arguments: the user has none.
          seen.call(call.id, call.name ?? "").arguments = call.args ?? null;
        }
        if (candidate.finishReason) raw = candidate.finishReason;
      }
    } finally {
      finish();
    }
  },
});
