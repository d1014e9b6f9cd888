// The @anthropic-ai/sdk npm SDK's own tool loop: `client.beta.messages.toolRunner({...,
// stream: true})` with tools made by `betaTool` (lib/tools/BetaToolRunner: BetaToolRunner).
// `for await (const stream of runner)` gives each round's BetaMessageStream; the runner runs
// the tools the round called and sends their results itself, until a round ends without calls.
import { serve } from "../../kit/node/raf-kit.mjs";
import { DIALECT, clientOf, readMessage } from "./lib/anthropic.mjs";
import { betaTool } from "@anthropic-ai/sdk/helpers/beta/json-schema";
import { ToolError } from "@anthropic-ai/sdk/resources/beta/messages";

// What the runner takes from the loop itself; the rest of the recorded body is its options.
const CONVERSATION = new Set(["model", "messages", "tools", "stream"]);

/** The recording's tools, each answering with its canned result (an error result thrown). */
function tools(c) {
  return c.tools.map((tool) =>
    betaTool({
      name: tool.name,
      description: tool.description ?? "",
      inputSchema: tool.parameters,
      run: async (input) => {
        const result = c.toolResult(tool.name, input);
        // the runner sends a ToolError's content as it is, with is_error: true
        if (result.isError) throw new ToolError(result.content);
        return result.content;
      },
    }),
  );
}

serve({
  name: "anthropic-node-tool-runner",
  library: "@anthropic-ai/sdk",
  dialects: [DIALECT],
  capabilities: ["tool_calls", "reasoning", "usage", "http_errors"],
  how:
    "const runner = client.beta.messages.toolRunner({model, messages, tools, stream: true, " +
    "thread: false (not the message threads the runner uses by default, whose follow-ups " +
    "carry only the new results), max_iterations, the recording's options}) with " +
    "maxRetries: 0; for await (const stream of runner), each round's " +
    "message = await stream.finalMessage(). The tools are betaTool({name, description, " +
    "inputSchema: the recording's schema, run}), run returning the canned result, or " +
    "throwing ToolError(content) for a result that is an error. The answer is the last " +
    "round's message (text, thinking, tool_use blocks, stop_reason, usage, as the " +
    "anthropic-node column reads it); when the runner throws, the last message read.",
  async toolLoop(c, seen) {
    const client = clientOf(c);
    const options = Object.fromEntries(
      Object.entries(c.body).filter(([key]) => !CONVERSATION.has(key)),
    );
    const runner = client.beta.messages.toolRunner({
      ...options,
      model: c.model,
      messages: c.body.messages,
      tools: tools(c),
      stream: true,
      thread: false,
      max_iterations: c.loop.max_rounds,
    });
    let last = null;
    try {
      for await (const stream of runner) {
        last = await stream.finalMessage();
      }
    } finally {
      if (last) readMessage(last, seen);
    }
  },
});
