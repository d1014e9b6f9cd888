// The openai npm SDK's automated function calls over Chat Completions, streaming, as
// helpers.md ("Automated function calls") and examples/tool-call-helpers.ts show them:
// `client.chat.completions.runTools({..., stream: true, tools})`, each tool a
// `{type: "function", function: {name, description, parameters, function, parse: JSON.parse}}`,
// then `await runner.finalChatCompletion()`. The SDK runs the loop: it calls the functions,
// sends their results back as tool messages and asks again until a round has no calls.
import { serve } from "../../kit/node/raf-kit.mjs";
import { clientOf, readCompletion } from "./lib/openai.mjs";

const CONVERSATION = new Set(["model", "messages", "tools", "stream"]);

serve({
  name: "openai-node-run-tools",
  library: "openai",
  dialects: ["openai_chat"],
  capabilities: ["tool_calls", "reasoning", "usage", "http_errors"],
  how:
    "client.chat.completions.runTools({...recorded options, model, messages, stream: true, " +
    "tools}, {maxChatCompletions: the run's max rounds}) with maxRetries: 0, each tool " +
    "{type: 'function', function: {name, description, parameters, function, parse: " +
    "JSON.parse}} whose function returns the recorded result's text (Chat Completions has " +
    "no error flag: a failed tool's text is its result; a thrown error would end the run); " +
    "the SDK sends each result back as a tool message. The answer is await " +
    "runner.finalChatCompletion(): the last round's choices[0].message.content, " +
    "reasoning_content (else reasoning) as the helper left it, finish_reason and usage; " +
    "when it rejects, runner.currentChatCompletionSnapshot.",
  async toolLoop(c, seen) {
    const client = clientOf(c);
    // The recorded first request's options (stream_options...): the conversation and the
    // tools are the run's.
    const options = Object.fromEntries(
      Object.entries(c.body).filter(([key]) => !CONVERSATION.has(key)),
    );
    const tools = c.tools.map((tool) => ({
      type: "function",
      function: {
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
        function: async (parsed) => c.toolResult(tool.name, parsed).content,
        parse: JSON.parse,
      },
    }));
    const runner = client.chat.completions.runTools(
      { ...options, model: c.model, messages: c.messages, stream: true, tools },
      { maxChatCompletions: c.loop.max_rounds },
    );
    try {
      readCompletion(c, seen, await runner.finalChatCompletion());
    } catch (error) {
      readCompletion(c, seen, runner.currentChatCompletionSnapshot);
      throw error;
    }
  },
});
