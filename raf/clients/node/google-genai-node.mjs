// Google's Gen AI SDK for JavaScript (@google/genai), the streaming loop its README shows:
// `for await (const chunk of await ai.models.generateContentStream({model, contents, config}))`,
// text from `chunk.text`, calls from `chunk.functionCalls`, thoughts from the parts as the
// thinking guide reads them.
import { serve } from "../../kit/node/raf-kit.mjs";
import { ChunkReader, clientOf, configOf } from "./lib/google-genai.mjs";

// Request fields that the SDK takes in `config` under the same names (the REST names are the
// SDK's own); `generationConfig`'s fields go into `config` directly.
const CONFIG_FIELDS = [
  "systemInstruction",
  "tools",
  "toolConfig",
  "cachedContent",
  "safetySettings",
];

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
    const ai = clientOf(c);
    const reader = new ChunkReader(seen);
    let blocked = null;
    try {
      const stream = await ai.models.generateContentStream({
        model: c.model,
        contents: c.body.contents ?? [],
        config: configOf(c.body, CONFIG_FIELDS),
      });
      for await (const chunk of stream) {
        if (chunk.promptFeedback?.blockReason && blocked === null) {
          blocked = chunk.promptFeedback.blockReason;
          seen.errors.push({ error_code: null, message: `prompt blocked: ${blocked}` });
        }
        reader.read(chunk);
      }
    } finally {
      const reason = reader.finish();
      seen.finish = reason === null && blocked !== null ? "content_filter" : reason;
    }
  },
});
