// A small Chat Completions stream reader with switchable bugs, speaking raf-conformance/1:
// the Node twin of chat_client.py beside it (Node.js 20, no dependencies).
//
// Without --bug it is an honest client: its own line splitter for Server-Sent Events, JSON
// chunks, tool calls routed by id and index, usage, the finish reason, [DONE], an error
// when the stream is cut, and a strict JSON parse of each call's final arguments.
// `--bug NAME` switches on exactly one bug (the same names as chat_client.py):
//
//   index-only         tool-call fragments are routed by their index alone
//   concat-names       a name repeated on a later delta is appended to the call's name
//   keep-bom           a byte-order mark at the start of the body is kept
//   cr-not-eol         only LF and CRLF end a line; a lone CR does not
//   usage-null-erases  a later "usage": null replaces the usage read before
//   partial-json       cut arguments are completed by closing the open JSON, no error
//   done-substring     any data containing [DONE] ends the stream
//   drop-finish-text   the content of the chunk that carries the finish reason is ignored
//
// raf conform --impl 'node tests/fuzz/broken/chat_client.mjs --bug done-substring'
import { createInterface } from "node:readline";

export const BUGS = [
  "index-only",
  "concat-names",
  "keep-bom",
  "cr-not-eol",
  "usage-null-erases",
  "partial-json",
  "done-substring",
  "drop-finish-text",
];

// -- bytes -> events ------------------------------------------------------------------------

class Lines {
  // CR, LF and CRLF end a line (crEnds false, the cr-not-eol bug: only LF and CRLF).
  constructor({ stripBom, crEnds }) {
    this.decoder = new TextDecoder("utf-8", { ignoreBOM: !stripBom }); // U+FFFD for bad bytes
    this.crEnds = crEnds;
    this.ends = crEnds ? /\r\n|\r|\n/g : /\n/g;
    this.pieces = []; // the unfinished line
    this.afterCr = false; // the last read ended with CR: a LF first in the next is its pair
  }

  get pending() {
    return this.pieces.some((piece) => piece.length > 0);
  }

  feed(bytes, final = false) {
    let text = this.decoder.decode(bytes, { stream: !final });
    if (!text) return [];
    if (this.afterCr && text.startsWith("\n")) text = text.slice(1);
    this.afterCr = this.crEnds && text.endsWith("\r");
    const lines = [];
    let start = 0;
    for (const end of text.matchAll(this.ends)) {
      let line = this.pieces.join("") + text.slice(start, end.index);
      if (!this.crEnds && line.endsWith("\r")) line = line.slice(0, -1); // CRLF
      lines.push(line);
      this.pieces = [];
      start = end.index + end[0].length;
    }
    if (start < text.length) this.pieces.push(text.slice(start));
    return lines;
  }
}

class Events {
  // Lines -> events [type, data]: data lines joined by LF, comments ignored.
  constructor() {
    this.data = [];
    this.type = "";
    this.open = false; // a field came since the last blank line
  }

  line(line) {
    if (line === "") {
      const event = this.data.length ? [this.type || "message", this.data.join("\n")] : null;
      this.data = [];
      this.type = "";
      this.open = false;
      return event;
    }
    if (line.startsWith(":")) return null;
    this.open = true;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.data.push(value);
    else if (field === "event") this.type = value;
    return null;
  }
}

// -- events -> response ---------------------------------------------------------------------

/** The partial-json bug: close what is open (a string, arrays, objects). */
export function closeJson(text) {
  const closers = [];
  let inString = false;
  let escaped = false;
  for (const char of text) {
    if (inString) {
      if (escaped) escaped = false;
      else if (char === "\\") escaped = true;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === "{") closers.push("}");
    else if (char === "[") closers.push("]");
    else if ((char === "}" || char === "]") && closers.length) closers.pop();
  }
  let tail = escaped ? text.slice(0, -1) : text;
  if (inString) tail += '"';
  tail = tail.trimEnd();
  if (tail.endsWith(":")) tail += "null";
  else if (tail.endsWith(",")) tail = tail.slice(0, -1);
  return tail + closers.reverse().join("");
}

const count = (value) => (Number.isInteger(value) && value >= 0 ? value : 0);
const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

class Reader {
  constructor(bug) {
    this.bug = bug;
    this.text = [];
    this.reasoning = [];
    this.calls = [];
    this.byId = new Map();
    this.byIndex = new Map(); // the key "none" for a delta without an index
    this.last = null;
    this.finishReason = null;
    this.usage = null;
    this.errors = [];
    this.done = false;
    this.failed = false; // the provider said the stream failed
    this.chunks = 0;
    this.foreign = 0; // JSON objects that are no chat completion chunk
  }

  event(kind, data) {
    if (this.done) return;
    if (kind === "error") {
      this.failed = true;
      this.errors.push(`error event: ${data.slice(0, 200)}`);
      return;
    }
    const ends = this.bug === "done-substring" ? data.includes("[DONE]") : data.trim() === "[DONE]";
    if (ends) {
      this.done = true;
      return;
    }
    if (!data.trim()) return;
    let chunk;
    try {
      chunk = JSON.parse(data);
    } catch (error) {
      this.errors.push(`not JSON (${error.message}): ${data.slice(0, 200)}`);
      return;
    }
    if (!isObject(chunk)) {
      this.errors.push(`not an object: ${data.slice(0, 200)}`);
      return;
    }
    if (!Reader.isChunk(chunk)) {
      this.foreign += 1;
      return;
    }
    this.chunks += 1;
    this.chunk(chunk);
  }

  static isChunk(chunk) {
    const kind = chunk.object;
    if (typeof kind === "string" && kind) return kind.startsWith("chat.completion");
    const choices = chunk.choices;
    if (
      Array.isArray(choices) &&
      (!choices.length || choices.some((c) => isObject(c) && !("text" in c)))
    ) {
      return true;
    }
    return ["usage", "error", "x_groq"].some((key) => chunk[key] != null);
  }

  chunk(chunk) {
    if (chunk.error != null) {
      this.failed = true;
      this.errors.push(`error chunk: ${JSON.stringify(chunk.error).slice(0, 200)}`);
    }
    if ("usage" in chunk) this.readUsage(chunk.usage);
    if (isObject(chunk.x_groq) && isObject(chunk.x_groq.usage)) this.readUsage(chunk.x_groq.usage);
    for (const choice of Array.isArray(chunk.choices) ? chunk.choices : []) {
      if (!isObject(choice) || ![0, null, undefined].includes(choice.index)) continue;
      const finish = choice.finish_reason;
      if (isObject(choice.delta)) {
        const delta = { ...choice.delta };
        if (this.bug === "drop-finish-text" && finish) delete delta.content;
        this.delta(delta);
      }
      if (typeof finish === "string" && finish) this.finishReason = finish;
    }
  }

  readUsage(raw) {
    if (!isObject(raw)) {
      if (this.bug === "usage-null-erases") this.usage = null;
      return;
    }
    const prompt = count(raw.prompt_tokens);
    const completion = count(raw.completion_tokens);
    const total = Number.isInteger(raw.total_tokens) ? count(raw.total_tokens) : prompt + completion;
    const usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: total };
    if (this.usage === null || prompt || completion || total) this.usage = usage;
  }

  delta(delta) {
    const content = delta.content;
    if (typeof content === "string") this.text.push(content);
    else if (Array.isArray(content)) {
      for (const part of content) {
        if (isObject(part) && part.type === "text") this.text.push(String(part.text ?? ""));
        else if (isObject(part) && part.type === "thinking") {
          for (const piece of Array.isArray(part.thinking) ? part.thinking : []) {
            if (isObject(piece) && typeof piece.text === "string") this.reasoning.push(piece.text);
          }
        }
      }
    }
    for (const key of ["reasoning_content", "reasoning"]) {
      if (typeof delta[key] === "string") {
        this.reasoning.push(delta[key]);
        break;
      }
    }
    for (const entry of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
      if (isObject(entry)) this.toolCall(entry);
    }
  }

  toolCall(entry) {
    const fn = isObject(entry.function) ? entry.function : {};
    const index = Number.isInteger(entry.index) ? entry.index : null;
    const callId = typeof entry.id === "string" && entry.id ? entry.id : null;
    const name = typeof fn.name === "string" && fn.name ? fn.name : null;
    let args = fn.arguments;
    if (typeof args !== "string") args = args == null ? "" : JSON.stringify(args);
    const call =
      this.bug === "index-only" ? this.routeByIndex(index) : this.route(index, callId, name);
    this.last = call;
    if (callId !== null) {
      if (!this.byId.has(callId)) this.byId.set(callId, call);
      call.id = call.id ?? callId;
    }
    if (name !== null) {
      if (this.bug === "concat-names") call.name = (call.name ?? "") + name;
      else if (call.name === null) call.name = name;
    }
    call.arguments.push(args);
  }

  routeByIndex(index) {
    // The index-only bug: the call at this index, whatever its id says.
    return this.byIndex.get(index ?? "none") ?? this.newCall(index, null);
  }

  route(index, callId, name) {
    if (callId !== null) {
      const known = this.byId.get(callId);
      if (known) {
        if (index !== null) this.byIndex.set(index, known);
        return known;
      }
      const at = index !== null ? this.byIndex.get(index) : undefined;
      if (at && at.id === null && (name === null || at.name === null || at.name === name)) {
        return at; // the id of a call so far known by its index only
      }
      return this.newCall(index, callId);
    }
    const at = index === null ? this.last : this.byIndex.get(index);
    if (!at || (name !== null && at.name !== null && at.name !== name)) {
      return this.newCall(index, null);
    }
    return at;
  }

  newCall(index, callId) {
    const call = { number: this.calls.length, id: callId, name: null, arguments: [] };
    this.calls.push(call);
    if (callId !== null) this.byId.set(callId, call);
    this.byIndex.set(index ?? "none", call);
    return call;
  }

  response(cutInsideEvent) {
    if (this.foreign && !this.chunks) {
      return { errors: [{ message: `${this.foreign} JSON objects of another format` }] };
    }
    const cut =
      !this.done && (cutInsideEvent || (this.finishReason === null && !this.failed));
    if (cut) this.errors.push("the stream was cut: no [DONE] and no finish reason");
    const toolCalls = [];
    for (const call of this.calls) {
      const text = call.arguments.join("");
      let value = null;
      let problem = null;
      try {
        value = text.trim() ? JSON.parse(text) : {};
      } catch (error) {
        problem = error;
      }
      if (problem && cut && this.bug === "partial-json") {
        try {
          value = JSON.parse(closeJson(text));
          problem = null;
        } catch {
          // still not JSON: reported below
        }
      }
      const lenient = this.bug === "partial-json" && problem === null;
      if (cut && this.finishReason === null && (problem || !text.trim()) && !lenient) {
        this.errors.push(`tool call ${call.name} was cut: ${text.slice(0, 200)}`);
      } else if (call.name === null) {
        this.errors.push(`a tool call without a name: ${text.slice(0, 200)}`);
      } else if (problem) {
        this.errors.push(`arguments of ${call.name} are not JSON: ${text.slice(0, 200)}`);
      } else {
        toolCalls.push({ id: call.id ?? `__tc_${call.number}`, name: call.name, arguments: value });
      }
    }
    return {
      text: this.text.join(""),
      reasoning_text: this.reasoning.join("") || null,
      tool_calls: toolCalls,
      finish_reason: this.finishReason,
      usage: this.usage,
      errors: this.errors.map((message) => ({ message })),
    };
  }
}

/** The response a caller gets from a body's network reads, fed one at a time. */
export function read(status, reads, bug) {
  if (status < 200 || status > 299) {
    const body = Buffer.concat(reads).toString("utf-8");
    return { errors: [{ message: `HTTP ${status}: ${body.slice(0, 200)}` }] };
  }
  const lines = new Lines({ stripBom: bug !== "keep-bom", crEnds: bug !== "cr-not-eol" });
  const events = new Events();
  const reader = new Reader(bug);
  for (const piece of [...reads, null]) {
    for (const line of lines.feed(piece ?? new Uint8Array(0), piece === null)) {
      const event = events.line(line);
      if (event) reader.event(...event);
    }
  }
  return reader.response(lines.pending || events.open);
}

// -- raf-conformance/1 ----------------------------------------------------------------------

/**
 * JSON text of a result. A JavaScript number is a double: one of 2^53 or more that is whole
 * (a float argument such as 6.793110887242913e+16) is written in exponent form, as the
 * double it is; JSON.stringify would write the digits 67931108872429130, which read as an
 * integer that is not that double.
 */
export function encode(value) {
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return "null";
    return Number.isInteger(value) && !Number.isSafeInteger(value)
      ? value.toExponential()
      : JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(encode).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const members = Object.entries(value).filter(([, v]) => v !== undefined);
    return `{${members.map(([k, v]) => `${JSON.stringify(k)}:${encode(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

function answer(message, bug) {
  try {
    if (message.transport === "http") throw new Error("this reader is fed chunks only");
    const reads = (message.chunks ?? []).map((chunk) => Buffer.from(chunk, "base64"));
    return { type: "result", id: message.id, response: read(message.status, reads, bug) };
  } catch (error) {
    process.stderr.write(`${error.stack}\n`);
    return { type: "result", id: message.id, raised: `${error.name}: ${error.message}` };
  }
}

async function main(argv) {
  let bug = null;
  if (argv.length === 2 && argv[0] === "--bug" && BUGS.includes(argv[1])) {
    bug = argv[1];
  } else if (argv.length) {
    process.stderr.write(`usage: chat_client.mjs [--bug ${BUGS.join("|")}]\n`);
    return 2;
  }
  const hello = {
    type: "hello",
    protocol: "raf-conformance/1",
    name: `broken-chat-node${bug ? `-${bug}` : ""}`,
    version: "1",
    dialects: ["openai_chat"],
    levels: ["response"],
    capabilities: ["tool_calls", "reasoning", "usage", "http_errors"],
  };
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    if (!line.trim()) continue;
    const message = JSON.parse(line);
    if (message.type === "hello") process.stdout.write(`${encode(hello)}\n`);
    else if (message.type === "case") process.stdout.write(`${encode(answer(message, bug))}\n`);
    else if (message.type === "bye") return 0;
  }
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
process.exit();
