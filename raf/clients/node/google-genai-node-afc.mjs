// @google/genai's own tool loop: automatic function calling (AFC), streamed, in a chat.
// The SDK runs AFC for a tool that implements its CallableTool interface (`tool()` returns
// the declarations, `callTool(functionCalls)` returns the functionResponse parts; mcpToTool
// makes one of an MCP client): it calls callTool for each call of a round, sends the next
// request itself and streams every round's chunks. The README points AFC users to chats, so
// that is what is driven: `ai.chats.create({model, config: {tools: [callableTool]}})`, then
// `for await (const chunk of await chat.sendMessageStream({message}))`.
import { serve } from "../../kit/node/raf-kit.mjs";
import { ChunkReader, clientOf, configOf } from "./lib/google-genai.mjs";

/** The recorded result of a call as the functionResponse.response object Gemini got. */
function responseOf(content) {
  try {
    const value = JSON.parse(content);
    if (value && typeof value === "object" && !Array.isArray(value)) return value;
    return { result: value };
  } catch {
    return { result: content };
  }
}

/** A CallableTool with the recording's functions, each answering with its canned result. */
function callableTool(c) {
  return {
    async tool() {
      return {
        functionDeclarations: c.tools.map((t) => ({
          name: t.name,
          description: t.description,
          parametersJsonSchema: t.parameters,
        })),
      };
    },
    async callTool(functionCalls) {
      return functionCalls.map((call) => ({
        functionResponse: {
          ...(call.id ? { id: call.id } : {}),
          name: call.name,
          response: responseOf(c.toolResult(call.name, call.args ?? {}).content),
        },
      }));
    },
  };
}

/** The SDK's config: the recording's generation config and system instruction, the tool. */
function chatConfig(c) {
  const config = configOf(c.body, ["systemInstruction"]);
  config.tools = [callableTool(c)];
  config.automaticFunctionCalling = { maximumRemoteCalls: c.loop.max_rounds };
  return config;
}

/** The user's question: the text of the last user message. */
function messageOf(c) {
  const users = c.messages.filter((m) => m.role === "user");
  return users.length ? users[users.length - 1].content : "";
}

serve({
  name: "google-genai-node-afc",
  library: "@google/genai",
  dialects: ["gemini"],
  capabilities: ["tool_calls", "reasoning", "usage", "http_errors"],
  framings: ["sse"],
  how:
    "automatic function calling, streamed, in a chat: new GoogleGenAI({apiKey, httpOptions: " +
    "{baseUrl, apiVersion}}), chat = ai.chats.create({model, config: {tools: [a CallableTool], " +
    "the recording's generationConfig and systemInstruction, automaticFunctionCalling: " +
    "{maximumRemoteCalls: the recording's max rounds}}}), then for await (const chunk of await " +
    "chat.sendMessageStream({message: the question})); the CallableTool's tool() declares the " +
    "recording's functions (name, description, parametersJsonSchema) and its callTool() answers " +
    "each call with a functionResponse part {name, response: the recorded response object}; " +
    "the SDK runs the calls of each round and sends the next request itself; the answer is " +
    "the last round's chunks (after the chunk with the previous round's finish reason), read " +
    "as the google-genai-node column reads a stream.",
  async toolLoop(c, seen) {
    const ai = clientOf(c);
    const reader = new ChunkReader(seen);
    let ended = false;
    try {
      const chat = ai.chats.create({ model: c.model, config: chatConfig(c) });
      for await (const chunk of await chat.sendMessageStream({ message: messageOf(c) })) {
        if (ended) {
          // The first chunk after a round's finish reason: the user reads the next round.
          Object.assign(seen, { text: "", reasoning: "", calls: [], errors: [] });
          reader.reset();
          ended = false;
        }
        if (reader.read(chunk)) ended = true;
      }
    } finally {
      seen.finish = reader.finish();
    }
  },
});
