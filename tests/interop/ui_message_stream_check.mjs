// Checks UI message streams with the AI SDK's own code (the `ai` package).
//
//   node ui_message_stream_check.mjs NODE_MODULES < request.json > answer.json
//
// NODE_MODULES is the folder holding `ai` (raf/clients/node/node_modules). The request is
//   {"streams": [{"name": ..., "sse": "data: {...}\n\n...", "prior": [tool part, ...]}],
//    "chunks": [chunk, ...], "chat": true}
// Each stream's bytes go through what `useChat`'s transport does with a response body:
// `parseJsonEventStream` with `uiMessageChunkSchema` (every chunk validated), then
// `readUIMessageStream`, which builds the UIMessage. `prior` holds the tool parts of the
// message the stream continues (the calls a resumed approval answers), if any. Each of
// `chunks` is only validated. With `chat`, each stream (but those that continue a message) is
// also the answer to a message sent by a chat (`AbstractChat`, what `useChat` runs) with the
// AI SDK's `DefaultChatTransport`. The answer is
//   {"streams": [{"name", "invalid": [{"index", "error"}], "errors": [...], "message",
//                 "chat": {"status", "error", "message"}}],
//    "chunks": [true|false, ...]}

import { createRequire } from "node:module";
import { join, resolve } from "node:path";

const modules = process.argv[2];
if (!modules) {
  process.stderr.write("usage: node ui_message_stream_check.mjs NODE_MODULES < request.json\n");
  process.exit(2);
}
const require = createRequire(join(resolve(modules), "noop.js"));
const { AbstractChat, DefaultChatTransport, parseJsonEventStream, readUIMessageStream, uiMessageChunkSchema } =
  require("ai");

async function readStdin() {
  const parts = [];
  for await (const part of process.stdin) parts.push(part);
  return Buffer.concat(parts).toString("utf8");
}

function bodyOf(text) {
  const bytes = new TextEncoder().encode(text);
  return new ReadableStream({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
}

async function check(stream) {
  const invalid = [];
  const errors = [];
  let index = 0;
  const chunks = parseJsonEventStream({ stream: bodyOf(stream.sse), schema: uiMessageChunkSchema }).pipeThrough(
    new TransformStream({
      transform(result, controller) {
        if (result.success) {
          controller.enqueue(result.value);
        } else {
          invalid.push({ index, error: String(result.error && result.error.message) });
        }
        index += 1;
      },
    }),
  );
  const prior = stream.prior && stream.prior.length
    ? { id: "prior", role: "assistant", metadata: undefined, parts: [{ type: "step-start" }, ...stream.prior] }
    : undefined;
  let message = null;
  for await (const snapshot of readUIMessageStream({
    stream: chunks,
    message: prior,
    onError: (error) => errors.push(String(error && error.message)),
  })) {
    message = snapshot;
  }
  return { name: stream.name, invalid, errors, message };
}

// What useChat holds after the stream: a chat whose transport's fetch answers with the
// stream's bytes, sent one user message. Its last message, status and error.
async function chat(stream) {
  const state = {
    status: "ready",
    error: undefined,
    messages: [],
    pushMessage(message) {
      this.messages = [...this.messages, message];
    },
    popMessage() {
      this.messages = this.messages.slice(0, -1);
    },
    replaceMessage(index, message) {
      this.messages = [...this.messages.slice(0, index), message, ...this.messages.slice(index + 1)];
    },
    snapshot: (thing) => structuredClone(thing),
  };
  const transport = new DefaultChatTransport({
    api: "http://ui-message-stream.invalid/chat",
    fetch: async () =>
      new Response(stream.sse, { headers: { "content-type": "text/event-stream" } }),
  });
  const session = new AbstractChat({ state, transport });
  await session.sendMessage({ text: "hello" });
  const last = state.messages[state.messages.length - 1];
  return {
    status: state.status,
    error: state.error ? String(state.error.message) : null,
    message: last && last.role === "assistant" ? last : null,
  };
}

const request = JSON.parse(await readStdin());
const answer = { streams: [], chunks: [] };
for (const stream of request.streams || []) {
  const got = await check(stream);
  if (request.chat && !(stream.prior && stream.prior.length)) {
    got.chat = await chat(stream);
  }
  answer.streams.push(got);
}
const schema = uiMessageChunkSchema();
for (const chunk of request.chunks || []) {
  const result = await schema.validate(chunk);
  answer.chunks.push(result.success === true);
}
process.stdout.write(JSON.stringify(answer));
