#!/usr/bin/env node
// A minimal, correct streaming client for OpenAI Chat Completions, as a conformance target.
//
// It stands for your own client: Node.js 20, no dependencies. It turns the bytes of a Chat
// Completions stream (Server-Sent Events) into what a caller gets, the aggregated response,
// in four parts you can copy (plain Node.js, nothing of raf), and a fifth that lets raf test
// them:
//
// 1. EventStreamParser: bytes -> events, by the WHATWG rules (docs/sse.md), fed one network
//    read at a time, exactly as a client reading a socket would be;
// 2. ChatCompletionStream: events -> text, reasoning, tool calls, finish reason, usage and
//    errors, by the openai_chat rules (docs/dialects.md, docs/converter.md);
// 3. runToolLoop: a Chat Completions tool loop (send, run the calls, send the assistant
//    message and one `tool` message per call, until the answer);
// 4. fetchCase: one HTTP request with node:http, its body handed on one network read at a
//    time;
// 5. main: the raf-conformance/1 protocol (docs/protocol.md) on stdin/stdout, so that
//    `raf conform --impl 'node examples/clients/node/client.js'` can test parts 1 to 4. It is
//    raf's Node kit (raf-kit.mjs, written by `raf kit node`; docs/protocol.md, "Node.js: the
//    kit"): its serve() speaks the protocol, and this file only says how to answer a case.
//
// A case gets the body's network reads in one of two ways, and hands them to the same
// readResponse:
//
// - a `chunks` case carries the recorded body, already cut into reads (base64), so the
//   chunking is exactly the one raf chose;
// - an `http` case (`raf conform --transport http`) carries the request instead: fetchCase
//   sends it to raf's replay server with node:http and passes each `data` event of the
//   response, as it arrives, to the parser, which is what a real client does:
//
//     const { status, headers, reads } = await fetchCase({ method, url, headers, body });
//     const answer = await readResponse(status, reads); // reads: an async iterable
//
// With fetch() the loop is the same: `const response = await fetch(url, { method: "POST",
// body, headers })`, then `await readResponse(response.status, response.body)`. This is
// the Node twin of examples/clients/python/client.py.
//
// A tool_loop case (capability tool_loop, level requests: `raf conform --impl ...
// --transport http --level requests`) asks for a whole run instead: runToolLoop sends the
// first request, answers each call with the case's canned result, sends the follow-up, and
// so on until the model answers; raf judges every request it sent.
"use strict";

const fs = require("node:fs");
const http = require("node:http");
const https = require("node:https");
const path = require("node:path");
const { pathToFileURL } = require("node:url");

// -- 1. Server-sent events ---------------------------------------------------------------

const LINE_END = /\r\n|\r|\n/g; // nothing else ends a line (not U+2028, not U+0085)

class EventStreamParser {
  // feed(chunk) returns the events, as [type, data], that the chunk completed; close() says
  // whether the stream ended inside an unfinished event, which is lost.
  constructor() {
    // One decoder for the whole stream (stream: true): a character cut between two reads is
    // decoded when its last byte arrives; invalid bytes become U+FFFD; and a byte-order mark
    // at the very start is removed (the default, ignoreBOM: false).
    this.utf8 = new TextDecoder("utf-8");
    this.afterCR = false; // the last read ended with CR: a LF first in the next is its pair
    this.line = []; // the unfinished line, in pieces
    this.data = []; // the data lines of the block being read
    this.type = ""; // the block's "event:" field
    this.inBlock = false; // a field line came after the last blank line
  }

  feed(chunk) {
    const events = [];
    let text = this.utf8.decode(chunk, { stream: true });
    if (!text) return events; // e.g. the first byte of a character cut between reads
    if (this.afterCR && text[0] === "\n") text = text.slice(1); // a CRLF cut between reads
    let start = 0;
    for (const end of text.matchAll(LINE_END)) {
      this.line.push(text.slice(start, end.index));
      this.onLine(this.line.join(""), events);
      this.line = [];
      start = end.index + end[0].length;
    }
    if (start < text.length) this.line.push(text.slice(start));
    this.afterCR = text.endsWith("\r");
    return events;
  }

  close() {
    const rest = this.utf8.decode(); // an incomplete character: U+FFFD
    return Boolean(rest || this.line.length || this.inBlock);
  }

  onLine(line, events) {
    if (!line) {
      // A blank line ends the block: it is an event if it had data.
      if (this.data.length) events.push([this.type || "message", this.data.join("\n")]);
      this.data = [];
      this.type = "";
      this.inBlock = false;
      return;
    }
    if (line[0] === ":") return; // a comment: keep-alives, ": OPENROUTER PROCESSING"
    this.inBlock = true;
    const colon = line.indexOf(":"); // no colon: the whole line names the field
    const name = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value[0] === " ") value = value.slice(1); // one optional space
    if (name === "data") this.data.push(value);
    else if (name === "event") this.type = value;
    // "id" and "retry" only matter to a client that reconnects; other fields are ignored.
  }
}

// -- 2. Chat Completions chunks ----------------------------------------------------------

function kindOf(value) {
  if (value === null) return "null"; // typeof null is "object"
  if (Array.isArray(value)) return "array";
  if (Number.isInteger(value)) return "integer";
  return typeof value; // "string", "number", "boolean", "object"
}

// obj[key] if it is of one of `kinds`; null if missing, null or (noted) of another kind.
function pick(obj, key, kinds, problems) {
  const value = obj[key];
  if (value === undefined || value === null) return null;
  if (kinds.includes(kindOf(value))) return value;
  problems.push(`${key} is ${kindOf(value)}`);
  return null;
}

// Whether a JSON object is a chat completion chunk at all (docs/dialects.md, "Chunks a
// dialect does not recognise"): its non-empty `object` starts with "chat.completion";
// without one, it has `choices` ([], of another type, or with a choice that is not a legacy
// Completions one: `text` and no `delta`) or a `usage`, `error` or `x_groq`.
function isChunk(chunk) {
  const object = chunk.object;
  if (typeof object === "string" && object !== "") return object.startsWith("chat.completion");
  const choices = chunk.choices;
  if (Array.isArray(choices)) {
    const chat = (c) =>
      kindOf(c) !== "object" || (c.delta ?? null) !== null || (c.text ?? null) === null;
    if (choices.length === 0 || choices.some(chat)) return true;
  } else if ((choices ?? null) !== null) {
    return true; // of the wrong type: reported as such
  }
  return ["usage", "error", "x_groq"].some((key) => (chunk[key] ?? null) !== null);
}

// A call's arguments: one strict JSON document; empty (or blank) means {}.
function parseArguments(text) {
  if (!text.trim()) return {};
  return JSON.parse(text, (key, value) => {
    // JSON.parse accepts what is not text (a lone surrogate escape, "\ud83d" without its
    // other half) and numbers no double holds (1e400 is Infinity): reject both.
    if (!key.isWellFormed() || (typeof value === "string" && !value.isWellFormed())) {
      throw new SyntaxError("a lone surrogate escape is not text");
    }
    if (typeof value === "number" && !Number.isFinite(value)) {
      throw new SyntaxError("number out of range");
    }
    return value;
  });
}

class ChatCompletionStream {
  // Aggregates the events of one Chat Completions stream; finish() gives the response.
  constructor() {
    this.text = [];
    this.reasoning = [];
    this.calls = []; // {number, id, name, arguments: [fragments]}, in first-seen order
    this.byId = new Map();
    this.byIndex = new Map(); // the call most recently seen at each index
    this.current = null; // the call of the last tool-call delta
    this.responseId = null;
    this.model = null;
    this.finishReason = null;
    this.usage = null;
    this.errors = [];
    this.done = false; // [DONE] came: nothing after it is read
    this.providerError = false; // the provider said why the stream ends
    this.chunks = 0; // chat completion chunks read
    this.others = []; // JSON objects of another format, skipped
  }

  onEvent(kind, data) {
    if (this.done) return;
    if (kind === "error") {
      // "event: error": the provider's own error frame
      this.providerError = true;
      this.errors.push(`provider sent an error event: ${data.slice(0, 300)}`);
      return;
    }
    if (data.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, "") === "[DONE]") {
      this.done = true;
      return;
    }
    if (!data.trim()) return; // an empty data line is a keep-alive
    let chunk;
    let lone = false;
    try {
      // A lone surrogate escape (an emoji cut between two chunks) is read as U+FFFD.
      chunk = JSON.parse(data, (key, value) => {
        if (!key.isWellFormed()) lone = true; // in a key: it names no field this client reads
        if (typeof value !== "string" || value.isWellFormed()) return value;
        lone = true;
        return value.toWellFormed();
      });
    } catch (error) {
      this.errors.push(`data is not JSON (${error.message}): ${data.slice(0, 300)}`);
      return;
    }
    if (kindOf(chunk) !== "object") {
      this.errors.push(`not a chat completion chunk: ${data.slice(0, 300)}`);
      return;
    }
    if (lone) this.errors.push(`lone surrogate escape, read as U+FFFD: ${data.slice(0, 300)}`);
    if (isChunk(chunk)) {
      this.chunks += 1;
      this.onChunk(chunk, data);
    } else {
      // a legacy Completions, Cohere or Ollama chunk: nothing of it is read
      this.others.push(data);
    }
  }

  onChunk(chunk, data) {
    const problems = []; // fields of the wrong type, skipped
    // Azure's filter chunks say "id": "" and "model": "": empty means absent.
    this.responseId = pick(chunk, "id", ["string"], problems) || this.responseId;
    this.model = pick(chunk, "model", ["string"], problems) || this.model;
    if (chunk.error !== undefined && chunk.error !== null) {
      // OpenRouter reports failures inside a 200 stream
      this.providerError = true;
      this.errors.push(`provider error in stream: ${data.slice(0, 300)}`);
    }
    let usage = pick(chunk, "usage", ["object"], problems); // "usage": null reports nothing
    const groq = pick(chunk, "x_groq", ["object"], problems);
    if (usage === null && groq !== null) usage = pick(groq, "usage", ["object"], problems);
    for (const choice of pick(chunk, "choices", ["array"], problems) || []) {
      if (kindOf(choice) !== "object") {
        problems.push(`a choice is ${kindOf(choice)}`);
      } else if (!pick(choice, "index", ["integer"], problems)) {
        // n > 1: only choice 0 (or one without an index) is the response
        this.onDelta(pick(choice, "delta", ["object"], problems) || {}, problems);
        const reason = pick(choice, "finish_reason", ["string"], problems);
        if (reason) this.finishReason = reason;
      }
    }
    if (usage !== null) this.onUsage(usage);
    if (problems.length) {
      this.errors.push(`chunk fields ignored: ${problems.join("; ")}: ${data.slice(0, 300)}`);
    }
  }

  onDelta(delta, problems) {
    // DeepSeek sends reasoning_content, OpenRouter and others reasoning; some send both,
    // with the same text.
    const reasoningContent = pick(delta, "reasoning_content", ["string"], problems);
    const reasoning = pick(delta, "reasoning", ["string"], problems);
    if (reasoningContent || reasoning) this.reasoning.push(reasoningContent || reasoning);
    const content = pick(delta, "content", ["string", "array"], problems);
    if (typeof content === "string") this.text.push(content);
    for (const part of Array.isArray(content) ? content : []) {
      // Mistral's content parts
      const kind = kindOf(part) === "object" ? part.type : null;
      if (typeof part === "string") {
        this.text.push(part);
      } else if (kind === "text" && typeof part.text === "string") {
        this.text.push(part.text);
      } else if (kind === "thinking") {
        const thinking = Array.isArray(part.thinking) ? part.thinking : [part.thinking];
        for (const piece of thinking) {
          const text = kindOf(piece) === "object" ? piece.text : piece;
          if (typeof text === "string") this.reasoning.push(text);
        }
      } else {
        problems.push(`content part ${JSON.stringify(part).slice(0, 80)} not understood`);
      }
    }
    for (const entry of pick(delta, "tool_calls", ["array"], problems) || []) {
      if (kindOf(entry) === "object") this.onToolCallDelta(entry, problems);
      else problems.push(`a tool call is ${kindOf(entry)}`);
    }
  }

  onUsage(raw) {
    // A count is a whole number; one past 2**53 is no exact count (and JSON.stringify would
    // write 1e+30, which is not an integer to a strict reader).
    const count = (key) => (Number.isSafeInteger(raw[key]) && raw[key] >= 0 ? raw[key] : null);
    const prompt = count("prompt_tokens") ?? 0;
    const completion = count("completion_tokens") ?? 0;
    const usage = {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: count("total_tokens") ?? prompt + completion,
    };
    // A later report of all zeros never replaces a real one.
    if (this.usage === null || Object.values(usage).some((n) => n)) this.usage = usage;
  }

  onToolCallDelta(entry, problems) {
    const fn = pick(entry, "function", ["object"], problems) || {};
    const index = pick(entry, "index", ["integer"], problems);
    const id = pick(entry, "id", ["string"], problems) || null; // "" or null: no id
    const name = pick(fn, "name", ["string"], problems) || null;
    let args = fn.arguments ?? "";
    if (typeof args !== "string") args = JSON.stringify(args); // an object: keep it as text
    const call = this.route(index, id, name);
    this.current = call;
    if (id !== null && !this.byId.has(id)) {
      this.byId.set(id, call);
      call.id = call.id ?? id;
    }
    // A repeated name is not appended: names are never concatenated.
    if (name !== null && call.name === null) call.name = name;
    call.arguments.push(args);
  }

  // The call a delta belongs to (docs/converter.md, "Tool calls").
  route(index, id, name) {
    if (id !== null) {
      const known = this.byId.get(id);
      if (known) {
        // 1. a known id
        if (index !== null) this.byIndex.set(index, known);
        return known;
      }
      const existing = index !== null ? this.byIndex.get(index) : undefined;
      if (existing && existing.id === null && (name === null || [null, name].includes(existing.name))) {
        return existing; // 2. the first id of a call so far known by its index only
      }
      return this.newCall(index, id); // 2. a new id: a new call, even at index 0
    }
    // 3. an index: the call last seen there; 4. no index: the call of the last delta
    const existing = index === null ? this.current : this.byIndex.get(index);
    if (!existing || (name !== null && existing.name !== null && existing.name !== name)) {
      return this.newCall(index, null); // a new index, or another tool at a used one
    }
    return existing;
  }

  newCall(index, id) {
    const call = { number: this.calls.length, id, name: null, arguments: [] };
    this.calls.push(call);
    if (id !== null) this.byId.set(id, call);
    if (index !== null) this.byIndex.set(index, call);
    return call;
  }

  // The end of the stream (truncated: inside an unfinished event): the response.
  finish(truncated) {
    let cut = false; // the stream ended abnormally
    if (this.others.length && !this.chunks) {
      // another format: an error, not an empty answer
      this.errors.push(
        `no chat completion chunk in this stream: ${this.others.length} JSON object(s) ` +
          `of another format, the first: ${this.others[0].slice(0, 300)}`,
      );
      return { errors: this.errors.map((message) => ({ message })) };
    }
    if (!this.done && truncated) {
      this.errors.push("the stream ended inside an unfinished event; it was lost");
      cut = true;
    } else if (!this.done && this.finishReason === null && !this.providerError) {
      this.errors.push("the stream ended without [DONE] and without a finish reason");
      cut = true;
    }
    const toolCalls = [];
    for (const call of this.calls) {
      const text = call.arguments.join("");
      let args = null;
      let failure = null;
      try {
        args = parseArguments(text);
      } catch (error) {
        failure = error;
      }
      if (cut && this.finishReason === null && (failure || !text.trim())) {
        // Cut while its arguments were streaming: running it would be wrong.
        this.errors.push(`tool call ${call.name} was cut off: ${text.slice(0, 300)}`);
      } else if (call.name === null) {
        this.errors.push(`a tool call never received a name: ${text.slice(0, 300)}`);
      } else if (failure) {
        this.errors.push(
          `arguments of tool call ${call.name} are not JSON (${failure.message}): ${text.slice(0, 300)}`,
        );
      } else {
        const id = call.id ?? `__tc_${call.number}`; // the provider sent none
        toolCalls.push({ id, name: call.name, arguments: args });
      }
    }
    return {
      id: this.responseId,
      model: this.model,
      text: this.text.join(""),
      reasoning_text: this.reasoning.join("") || null,
      tool_calls: toolCalls,
      finish_reason: this.finishReason,
      usage: this.usage,
      errors: this.errors.map((message) => ({ message })),
    };
  }
}

// What a caller gets from one HTTP response: `reads` are the body's network reads, any
// iterable or async iterable of Uint8Array. If it throws a ConnectionError (the connection
// broke mid-body), what was read until then is kept, and the break is one more error.
async function readResponse(status, reads) {
  if (!(status >= 200 && status < 300)) {
    // An error status: the body is an error message, not a stream.
    const received = [];
    try {
      for await (const chunk of reads) received.push(chunk);
    } catch (error) {
      if (!(error instanceof ConnectionError)) throw error;
      received.push(Buffer.from(` (${error.message})`)); // the error body itself was cut
    }
    const body = Buffer.concat(received).toString("utf8");
    return { errors: [{ message: `HTTP ${status}: ${body.slice(0, 300) || "(empty body)"}` }] };
  }
  const parser = new EventStreamParser();
  const stream = new ChatCompletionStream();
  let broken = null;
  try {
    for await (const chunk of reads) {
      for (const [kind, data] of parser.feed(chunk)) stream.onEvent(kind, data);
    }
  } catch (error) {
    if (!(error instanceof ConnectionError)) throw error;
    broken = error;
  }
  const response = stream.finish(parser.close());
  if (broken !== null) response.errors.push({ message: broken.message });
  return response;
}

// -- 3. The tool loop --------------------------------------------------------------------

// Whether two JSON values are equal (objects whatever the order of their keys).
function sameJSON(a, b) {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.hasOwn(b, key) && sameJSON(a[key], b[key]));
}

// The tools of a tool_loop case: each call gets the canned result of its name and arguments
// (several results of the same call answer such calls in turn); a call the case has no
// result for gets an error text.
class CannedTools {
  constructor(results) {
    this.results = results;
    this.used = new Set();
  }

  run(name, args) {
    const matching = [];
    this.results.forEach((r, n) => {
      if (r.name === name && sameJSON(r.arguments ?? null, args)) matching.push(n);
    });
    if (!matching.length) return `Error: no result for ${name}(${JSON.stringify(args)})`;
    const chosen = matching.find((n) => !this.used.has(n)) ?? matching[matching.length - 1];
    this.used.add(chosen);
    return this.results[chosen].content;
  }
}

// The assistant message that asked for the calls, as Chat Completions wants it back.
function assistantMessage(response) {
  const message = {
    role: "assistant",
    content: response.text,
    tool_calls: response.tool_calls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: JSON.stringify(call.arguments) },
    })),
  };
  // DeepSeek's thinking mode wants it back in the turn.
  if (response.reasoning_text) message.reasoning_content = response.reasoning_text;
  return message;
}

// One tool message per call, answering its id, in the order of the calls.
function toolMessages(response, tools) {
  return response.tool_calls.map((call) => ({
    role: "tool",
    tool_call_id: call.id,
    content: tools.run(call.name, call.arguments),
  }));
}

// Run a tool loop from the first request (its body: model, messages, tools, options); the
// response of the last request: the model's answer.
async function runToolLoop(request, loop) {
  const tools = new CannedTools(loop.results);
  const body = { ...request.body };
  let response = {};
  for (let round = 0; round < loop.max_rounds; round++) {
    const { status, reads } = await fetchCase({ ...request, body });
    response = await readResponse(status, reads);
    // The answer, or something went wrong: the caller gets it as it is.
    if (!response.tool_calls?.length || response.errors?.length) break;
    body.messages = [
      ...body.messages,
      assistantMessage(response),
      ...toolMessages(response, tools),
    ];
  }
  return response;
}

// -- 4. HTTP ------------------------------------------------------------------------------

const TIMEOUT_MS = 30000; // to connect, and of silence while the response streams

// The connection broke before the body ended (closed early, a chunk cut short, a timeout).
class ConnectionError extends Error {
  constructor(message) {
    super(message);
    this.name = "ConnectionError";
  }
}

// Send one HTTP request (the `request` of an http case: method, url, headers, and body, JSON
// or null for no body); resolves to the response's status, headers and `reads`, an async
// iterable that yields each `data` event of the body as it arrives, not the whole body at
// once. If the connection breaks before the body ends, iterating `reads` throws a
// ConnectionError.
function fetchCase(request) {
  return new Promise((resolve, reject) => {
    const url = new URL(request.url);
    const payload = request.body == null ? null : Buffer.from(JSON.stringify(request.body));
    const headers = { ...(request.headers || {}) };
    if (payload !== null) headers["content-length"] = payload.length;
    const client = url.protocol === "https:" ? https : http;
    // agent: false: a connection of its own for each case, closed after it (no keep-alive
    // socket that the server may have closed meanwhile).
    const options = { method: request.method || "POST", headers, agent: false };
    const outgoing = client.request(url, options);
    outgoing.setTimeout(TIMEOUT_MS, () => {
      outgoing.destroy(new Error(`no data for ${TIMEOUT_MS} ms`));
    });
    outgoing.on("error", reject); // before the response: connection refused, reset, timeout
    outgoing.on("response", (response) => {
      // Names lower-case, a repeated header's values joined by ", " (as a case's "headers").
      const names = {};
      for (let i = 0; i < response.rawHeaders.length; i += 2) {
        const name = response.rawHeaders[i].toLowerCase();
        const value = response.rawHeaders[i + 1];
        names[name] = name in names ? `${names[name]}, ${value}` : value;
      }
      resolve({ status: response.statusCode, headers: names, reads: bodyReads(response) });
    });
    outgoing.end(payload ?? undefined);
  });
}

// The `data` events of a response body, one by one, as an async generator. Node reports a
// cut body as an "aborted" (or error) event, or as a close without the end of the body.
async function* bodyReads(response) {
  const queue = []; // reads that arrived while the parser was busy
  let ended = false;
  let failure = null;
  let wake = null; // resolves the wait for the next event
  const notify = () => {
    if (wake !== null) wake();
    wake = null;
  };
  response.on("data", (chunk) => {
    queue.push(chunk);
    notify();
  });
  response.on("end", () => {
    ended = true;
    notify();
  });
  const broke = (why) => {
    if (!ended && failure === null) {
      failure = new ConnectionError(`connection closed mid-stream: ${why}`);
    }
    notify();
  };
  response.on("aborted", () => broke("aborted"));
  response.on("error", (error) => broke(error.message));
  response.on("close", () => broke(response.complete ? "closed" : "the body was not complete"));
  try {
    for (;;) {
      if (queue.length) {
        yield queue.shift();
      } else if (ended) {
        return;
      } else if (failure !== null) {
        throw failure;
      } else {
        await new Promise((resolve) => {
          wake = resolve;
        });
      }
    }
  } finally {
    response.destroy(); // done with this connection (a no-op once it has ended)
  }
}

// -- 5. The conformance protocol, by raf's kit ---------------------------------------------

// The kit is an ES module: this CommonJS file loads it with import(). Beside this file (where
// `raf kit node --output DIR/raf-kit.mjs` or `python -m raf.examples` puts it), else in the
// repository (raf/kit/node/), else in the installed raf package, which ships this file as
// raf/_bundled/examples/clients/node/client.js.
const KIT_PLACES = [
  "raf-kit.mjs",
  "../../../raf/kit/node/raf-kit.mjs",
  "../../../../kit/node/raf-kit.mjs",
];

function kitPath() {
  for (const place of KIT_PLACES) {
    const file = path.join(__dirname, place);
    if (fs.existsSync(file)) return file;
  }
  return null;
}

// What this client tells raf in its hello, and how it answers each kind of case. A case the
// adapter throws on is answered by the kit with `raised` (a bug here: said, not fatal).
const ADAPTER = {
  name: "example-node",
  version: "1.0",
  dialects: ["openai_chat"],
  levels: ["response", "requests"],
  capabilities: ["tool_calls", "reasoning", "usage", "http_errors", "http", "tool_loop"],
  // One case: its response, from the recorded reads (a `chunks` case) or from the network.
  async stream(c) {
    return answerCase(c.message);
  },
  // A tool_loop case: a whole run of the tool loop, from the first request.
  async toolLoop(c) {
    return runToolLoop(c.request, c.loop);
  },
};

// The response to one case message (the `case` of the protocol).
async function answerCase(message) {
  let status = message.status;
  let reads;
  if (message.transport === "http") {
    // Make the request; the network cuts the reads.
    ({ status, reads } = await fetchCase(message.request));
  } else {
    // The recorded body, cut by raf: one read at a time.
    reads = (function* () {
      for (const chunk of message.chunks) yield Buffer.from(chunk, "base64");
    })();
  }
  return readResponse(status, reads);
}

// The protocol loop: the kit's serve(), until raf says bye.
async function main() {
  const kit = kitPath();
  if (kit === null) {
    process.stderr.write(
      "client.js: raf-kit.mjs not found; write it beside this file: " +
        `raf kit node --output ${path.join(__dirname, "raf-kit.mjs")}\n`,
    );
    process.exit(2);
  }
  const { serve } = await import(pathToFileURL(kit).href);
  await serve(ADAPTER);
}

module.exports = {
  EventStreamParser,
  ChatCompletionStream,
  ConnectionError,
  readResponse,
  fetchCase,
  CannedTools,
  assistantMessage,
  toolMessages,
  runToolLoop,
  ADAPTER,
  answerCase,
  kitPath,
  main,
};

if (require.main === module) main();
