// The openai npm SDK's automated function calls over Chat Completions, streaming, as
// helpers.md ("Automated function calls") and examples/tool-call-helpers.ts show them:
// `client.chat.completions.runTools({..., stream: true, tools})`, each tool a
// `{type: "function", function: {name, description, parameters, function, parse: JSON.parse}}`,
// then `await runner.finalChatCompletion()`. The SDK runs the loop: it calls the functions,
// sends their results back as tool messages and asks again until a round has no calls.
import { serve, baseURL, finishReason, openaiUsage } from "../../kit/node/raf-kit.mjs";
import OpenAI from "openai";

const CONVERSATION = new Set(["model", "messages", "tools", "stream"]);

/** What the user reads from a ChatCompletion (or, after an error, the runner's snapshot). */
function read(c, seen, completion) {
  if (!completion) return;
  const choice = completion.choices?.[0];
  const message = choice?.message ?? {};
  seen.text = typeof message.content === "string" ? message.content : "";
  const reasoning = message.reasoning_content ?? message.reasoning;
  seen.reasoning = typeof reasoning === "string" ? reasoning : "";
  seen.calls = [];
  for (const call of message.tool_calls ?? []) {
    if (call) seen.call(call.id, call.function?.name ?? null, call.function?.arguments ?? "");
  }
  seen.finish = finishReason(c.dialect, choice?.finish_reason);
  seen.usage = openaiUsage(completion.usage);
}

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
    const client = new OpenAI({ baseURL: baseURL(c, "openai"), apiKey: c.apiKey, maxRetries: 0 });
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
      read(c, seen, await runner.finalChatCompletion());
    } catch (error) {
      read(c, seen, runner.currentChatCompletionSnapshot);
      throw error;
    }
  },
});
