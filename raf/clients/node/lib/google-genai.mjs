// What the two @google/genai columns share (google-genai-node.mjs, the README's streaming loop,
// and google-genai-node-afc.mjs, automatic function calling in a chat): the client as the
// README makes it, a recorded Gemini REST body as the SDK's `config`, and the reading of a
// streamed chunk as the README and the thinking guide show it.
// (A folder below raf/clients/node is not a column.)
//
// The kit (raf-kit.mjs) must be imported before this module: it guards stdout.
import {
  baseURL,
  finishReason,
  geminiApiVersion,
  geminiUsage,
} from "../../../kit/node/raf-kit.mjs";
import { GoogleGenAI } from "@google/genai";

/** A recorded Vertex AI path (`.../publishers/google/models/...`) and its API version. */
function vertexOf(c) {
  const path = c.request.path.split("?", 1)[0];
  if (!path.includes("/publishers/")) return null;
  return path.split("/").filter(Boolean)[0] ?? "v1beta1";
}

/**
 * `new GoogleGenAI({apiKey, httpOptions: {baseUrl, apiVersion}})` with the recorded API
 * version; `vertexai: true` (Vertex AI express mode) for a recorded Vertex path. The SDK
 * retries nothing unless httpOptions.retryOptions is set.
 */
export function clientOf(c) {
  const vertex = vertexOf(c);
  return new GoogleGenAI({
    apiKey: c.apiKey,
    ...(vertex ? { vertexai: true } : {}),
    httpOptions: {
      baseUrl: baseURL(c, "@google/genai"),
      apiVersion: vertex ?? geminiApiVersion(c),
    },
  });
}

/**
 * The SDK's `config` for a recorded Gemini REST body: `generationConfig`'s fields directly,
 * and the request fields of `fields` that the SDK takes in `config` under the same names (the
 * REST names are the SDK's own).
 */
export function configOf(body, fields) {
  const config = { ...(body.generationConfig ?? {}) };
  for (const name of fields) {
    if (body[name] !== undefined && body[name] !== null) config[name] = body[name];
  }
  return config;
}

/**
 * A user's loop over the streamed chunks, into `seen`: text is chunk.text joined (the SDK
 * leaves thought parts out of it); reasoning the text of the parts whose thought is true, as
 * the thinking guide reads candidates[0].content.parts; the calls chunk.functionCalls (id,
 * name, args); the finish reason the last candidates[0].finishReason (STOP with a call is
 * tool_calls, as raf reads it); usage the last usageMetadata.
 */
export class ChunkReader {
  constructor(seen) {
    this.seen = seen;
    this.reset();
  }

  /** Forget the finish reason and usage read so far. */
  reset() {
    this.raw = null;
    this.usageMetadata = null;
  }

  /** Read one chunk; its first candidate's finish reason, if it has one. */
  read(chunk) {
    const seen = this.seen;
    if (chunk.usageMetadata) this.usageMetadata = chunk.usageMetadata;
    const candidate = chunk.candidates?.[0];
    if (!candidate) return null;
    if (chunk.text) seen.text += chunk.text;
    for (const part of candidate.content?.parts ?? []) {
      if (part.thought && typeof part.text === "string") seen.reasoning += part.text;
    }
    for (const call of chunk.functionCalls ?? []) {
      // args is undefined for a call streamed without arguments: the user has none.
      seen.call(call.id, call.name ?? "").arguments = call.args ?? null;
    }
    if (candidate.finishReason) this.raw = candidate.finishReason;
    return candidate.finishReason ?? null;
  }

  /** Set seen.usage from the last usageMetadata; return the finish reason read. */
  finish() {
    const raw = this.raw;
    this.seen.usage = geminiUsage(this.usageMetadata);
    return finishReason("gemini", raw === "STOP" && this.seen.calls.length ? "tool_calls" : raw);
  }
}
