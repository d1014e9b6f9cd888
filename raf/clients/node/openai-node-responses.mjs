// The openai npm SDK, Responses API, through its stream helper as examples/responses/stream.ts
// shows it: `const stream = client.responses.stream({...})`, the typed events read with
// `for await (const event of stream)`, then `await stream.finalResponse()`.
//
// Text, reasoning and calls are read from the events (what a streaming user shows as it
// comes); status and usage from the final response. The final response's `output` is not
// read: the helper replaces its snapshot with the terminal event's response, and many servers
// send that event with an empty `output`.
import { serve, finishReason, responsesUsage } from "../../kit/node/raf-kit.mjs";
import { clientOf } from "./lib/openai.mjs";

const SEPARATOR = "\n\n"; // between reasoning parts (summary parts, reasoning items)

/** What the user's loop has read of the events. */
class Reader {
  constructor(seen) {
    this.seen = seen;
    this.reasoningKey = null;
    this.calls = []; // {response, index, call}: ordered by response, then output_index
    this.responses = 0; // response.created events seen
    this.terminal = null; // the response of response.completed / .incomplete / .failed
  }

  read(event) {
    const seen = this.seen;
    switch (event.type) {
      case "response.output_text.delta":
      case "response.refusal.delta":
        seen.text += event.delta ?? "";
        break;
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta": {
        const key = [event.type, event.item_id, event.summary_index, event.content_index].join();
        if (seen.reasoning && key !== this.reasoningKey) seen.reasoning += SEPARATOR;
        this.reasoningKey = key;
        seen.reasoning += event.delta ?? "";
        break;
      }
      case "response.created":
        this.responses += 1;
        break;
      case "response.output_item.done": {
        const call = callOf(event.item);
        const index = event.output_index ?? -1;
        if (call) this.calls.push({ response: this.responses, index, call });
        break;
      }
      case "response.completed":
      case "response.incomplete":
      case "response.failed":
        this.terminal = event.response;
        if (event.type === "response.failed") {
          const message = event.response?.error?.message || "response.failed";
          seen.errors.push({ error_code: null, message: String(message) });
        }
        break;
      case "error":
        seen.errors.push({ error_code: event.code ?? null, message: String(event.message ?? "") });
        break;
      default:
        break;
    }
  }

  /** Fill `seen` with the calls in output order, and the status and usage of `response`. */
  finish(c, response = this.terminal) {
    const seen = this.seen;
    seen.calls = [];
    const ordered = [...this.calls].sort((a, b) => a.response - b.response || a.index - b.index);
    for (const { call } of ordered) seen.call(call.id, call.name, call.arguments);
    if (!response) return;
    if (response.status === "incomplete") {
      seen.finish = finishReason(c.dialect, response.incomplete_details?.reason || "incomplete");
    } else if (response.status === "completed") {
      seen.finish = this.calls.length ? "tool_calls" : "stop";
    }
    seen.usage = responsesUsage(response.usage);
  }
}

/** A client call among the output items, as the user runs it; null for the others. */
function callOf(item) {
  if (item?.type === "function_call") {
    return { id: item.call_id, name: item.name ?? "", arguments: item.arguments ?? "" };
  }
  if (item?.type === "custom_tool_call") {
    return { id: item.call_id, name: item.name ?? "", arguments: { input: item.input } };
  }
  if (item?.type === "tool_search_call" && item.execution === "client") {
    return { id: item.call_id, name: "tool_search", arguments: item.arguments ?? "" };
  }
  return null;
}

serve({
  name: "openai-node-responses",
  library: "openai",
  dialects: ["openai_responses"],
  capabilities: ["tool_calls", "reasoning", "usage", "http_errors"],
  how:
    "const stream = client.responses.stream({...request}) with maxRetries: 0, as " +
    "examples/responses/stream.ts shows: for await (const event of stream), then " +
    "await stream.finalResponse() after response.completed, whose status other than " +
    "completed is reported as an error, as the example checks. Text is the " +
    "response.output_text.delta (and refusal.delta) deltas; reasoning the " +
    "reasoning_summary_text / reasoning_text deltas, parts joined with a blank line; calls " +
    "the function_call items of response.output_item.done in output order (call_id, name, " +
    "arguments parsed " +
    "as JSON; custom_tool_call input as {input}; client tool_search_call arguments); the " +
    "finish reason the final response's status / incomplete_details.reason (completed: " +
    "stop, or tool_calls when a call was streamed) and usage its usage. On " +
    "response.incomplete the user takes that event's response, on response.failed or an " +
    "error event the error it carries. A recorded GET resume is " +
    "client.responses.retrieve(id, {stream: true, starting_after}), read by the same loop. " +
    "A rejection is the library raising, with what the loop had read.",
  async stream(c, seen) {
    const client = clientOf(c);
    const reader = new Reader(seen);
    const [path, query = ""] = c.request.path.split("?", 2);
    try {
      if (c.request.method === "GET" && path.includes("/responses/")) {
        // Resuming a background response: the SDK's raw retrieve call.
        const id = decodeURIComponent(path.replace(/\/+$/, "").split("/").pop());
        const after = new URLSearchParams(query).get("starting_after");
        const params = { stream: true };
        if (after !== null) params.starting_after = Number(after);
        for await (const event of await client.responses.retrieve(id, params)) reader.read(event);
        reader.finish(c);
        return;
      }
      const stream = client.responses.stream({ ...c.body });
      for await (const event of stream) reader.read(event);
      const terminal = reader.terminal;
      if ((terminal && terminal.status !== "completed") || (!terminal && seen.errors.length)) {
        reader.finish(c); // response.incomplete / .failed / an error event: no final response
        return;
      }
      const final = await stream.finalResponse();
      reader.finish(c, final);
      if (final.status !== "completed") {
        // The example's check: `if (result.status !== 'completed')` the response failed.
        const message = `Response ended with status ${final.status}`;
        seen.errors.push({ error_code: null, message });
      }
    } catch (error) {
      reader.finish(c);
      throw error;
    }
  },
});
