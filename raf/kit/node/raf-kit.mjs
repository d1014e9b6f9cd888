// raf-kit.mjs: the raf-conformance/1 protocol for a Node.js client, in one dependency-free
// ES module (Node.js 20 or later). Written by `raf kit node`; docs/protocol.md, "Node.js: the
// kit".
//
// An adapter is one module: it imports the kit FIRST, then the client library it tests, and
// calls serve() with what the library reads and a function per kind of case:
//
//   import { serve, baseURL, finishReason, openaiUsage } from "./raf-kit.mjs"; // first
//   import OpenAI from "openai";
//
//   serve({
//     name: "my-openai-client",
//     library: "openai",                   // its version (from node_modules) is the hello's
//     dialects: ["openai_chat"],
//     capabilities: ["tool_calls", "usage", "http_errors"],
//     async stream(c, seen) {              // one `http` case: make the call, read the stream
//       const options = { baseURL: baseURL(c, "openai"), apiKey: c.apiKey, maxRetries: 0 };
//       const client = new OpenAI(options);
//       const stream = await client.chat.completions.create({ ...c.body, stream: true });
//       for await (const chunk of stream) {
//         seen.text += chunk.choices[0]?.delta?.content ?? "";
//         ...
//       }
//       // return nothing: the answer is `seen`; throw: `seen` and what was thrown
//     },
//   });
//
// What serve() does for you:
// - the conversation on stdin/stdout: hello, one case at a time, until bye (or the end of
//   stdin), then exit;
// - the stdout guard: from the moment this module is imported, every console method and
//   process.stdout.write go to stderr (a library's warnings would break the protocol), and
//   only the protocol's lines go to the real stdout;
// - a case that throws (anything) or rejects is answered with what the adapter had seen
//   (`seen`) and `raised`, exactly as the protocol wants a client that raised reported;
// - the base URL each SDK wants (baseURL), the finish reasons and the usage of each SDK in
//   raf's vocabulary (finishReason, aiSdkFinishReason, openaiUsage, responsesUsage,
//   anthropicUsage, geminiUsage, aiSdkUsage), a tool loop's canned results (c.toolResult).
//
// The tables below are raf's (raf.formats' finish reasons); a test in raf checks them.

import { Console } from "node:console";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, parse } from "node:path";
import { createInterface } from "node:readline";
import { inspect } from "node:util";

export const PROTOCOL = "raf-conformance/1";

/** The API key to give an SDK: raf serve ignores it, its journal redacts it. */
export const API_KEY = "sk-raf-test-not-a-secret";

// -- the stdout guard ------------------------------------------------------------------------

const realWrite = process.stdout.write.bind(process.stdout);
// Guarded when this module is imported: before any library the adapter imports after it can
// print. (Import the kit first.) Every console method writes to stderr, formatted as usual
// (console.table's table, console.group's indentation); so does process.stdout.write, for a
// library that writes there itself. Only a write to file descriptor 1 itself
// (fs.writeSync(1, ...)) gets past it.
process.stdout.write = (chunk, encoding, callback) =>
  process.stderr.write(chunk, encoding, callback);
const stderrConsole = new Console({ stdout: process.stderr, stderr: process.stderr });
for (const method of Object.keys(console)) {
  if (method === "Console") continue; // the class, for consoles of one's own
  if (typeof console[method] === "function" && typeof stderrConsole[method] === "function") {
    console[method] = stderrConsole[method].bind(stderrConsole);
  }
}

/** Write one protocol message on the real stdout (a lone surrogate becomes U+FFFD). */
export function send(message) {
  const line = JSON.stringify(message, (key, value) =>
    typeof value === "string" ? value.toWellFormed() : value,
  );
  realWrite(line + "\n");
}

// -- base URLs ------------------------------------------------------------------------------

/**
 * Where each SDK's base URL ends: the part of the recorded provider path that the SDK appends
 * itself. The base URL is the case's `base_url` plus the recorded path up to it (`/v1` for
 * OpenAI, `/api/v1` for OpenRouter, nothing for DeepSeek...); `fallback` when the recorded
 * path has none of them.
 */
export const SDK_PATHS = {
  openai: { appends: ["/chat/completions", "/responses", "/completions"], fallback: "/v1" },
  "@anthropic-ai/sdk": { appends: ["/v1/messages"], fallback: "" },
  "@google/genai": {
    appends: ["/v1beta/models/", "/v1/models/", "/v1alpha/models/"],
    fallback: "",
  },
  "@ai-sdk/openai": {
    appends: ["/chat/completions", "/responses", "/completions"],
    fallback: "/v1",
  },
  "@ai-sdk/openai-compatible": { appends: ["/chat/completions", "/completions"], fallback: "/v1" },
  "@ai-sdk/anthropic": { appends: ["/messages"], fallback: "/v1" },
  "@ai-sdk/google": { appends: ["/models/"], fallback: "/v1beta" },
  ollama: { appends: ["/api/chat", "/api/generate"], fallback: "" },
};

/** The base URL to give `sdk` (a key of SDK_PATHS) for case `c` (an `http` case). */
export function baseURL(c, sdk) {
  const rule = SDK_PATHS[sdk];
  if (rule === undefined) {
    throw new Error(`raf-kit: no base-URL rule for ${sdk}: ${Object.keys(SDK_PATHS).join(", ")}`);
  }
  if (!c.request?.base_url) {
    throw new Error("raf-kit: not an http case: run raf conform with --transport http");
  }
  const path = (c.request.path ?? "").split("?", 1)[0];
  for (const tail of rule.appends) {
    const at = path.lastIndexOf(tail);
    if (at >= 0) return c.request.base_url + path.slice(0, at);
  }
  return c.request.base_url + rule.fallback;
}

/** The API version of a Gemini path (`v1beta` in `/v1beta/models/...`), for @google/genai. */
export function geminiApiVersion(c) {
  const found = /\/(v\d+\w*)\/models\//.exec(c.request?.path ?? "");
  return found ? found[1] : "v1beta";
}

// -- raf's vocabulary -----------------------------------------------------------------------

/** Each format's finish reasons in raf's terms (raf.formats); others are kept as they are. */
export const FINISH_REASONS = {
  anthropic_messages: {
    end_turn: "stop",
    stop_sequence: "stop",
    max_tokens: "length",
    model_context_window_exceeded: "length",
    tool_use: "tool_calls",
    refusal: "content_filter",
  },
  bedrock_converse: {
    end_turn: "stop",
    stop_sequence: "stop",
    max_tokens: "length",
    model_context_window_exceeded: "length",
    tool_use: "tool_calls",
    guardrail_intervened: "content_filter",
    content_filtered: "content_filter",
  },
  cohere_v2: {
    COMPLETE: "stop",
    STOP_SEQUENCE: "stop",
    MAX_TOKENS: "length",
    TOOL_CALL: "tool_calls",
  },
  gemini: {
    STOP: "stop",
    MAX_TOKENS: "length",
    SAFETY: "content_filter",
    RECITATION: "content_filter",
    BLOCKLIST: "content_filter",
    PROHIBITED_CONTENT: "content_filter",
    SPII: "content_filter",
    IMAGE_SAFETY: "content_filter",
    IMAGE_PROHIBITED_CONTENT: "content_filter",
    IMAGE_RECITATION: "content_filter",
  },
  gemini_interactions: {
    completed: "stop",
    requires_action: "tool_calls",
    incomplete: "length",
  },
  ollama_chat: {},
  openai_chat: {},
  openai_completions: {},
  openai_responses: { max_output_tokens: "length", content_filter: "content_filter" },
};

/** A provider's finish reason (`end_turn`, `STOP`...) in raf's terms; null stays null. */
export function finishReason(dialect, raw) {
  if (raw === undefined || raw === null || raw === "") return null;
  return (FINISH_REASONS[dialect] ?? {})[raw] ?? String(raw);
}

/** The AI SDK's finish reasons (`tool-calls`, `content-filter`...) in raf's terms. */
export const AI_SDK_FINISH_REASONS = {
  stop: "stop",
  length: "length",
  "content-filter": "content_filter",
  "tool-calls": "tool_calls",
  error: "error",
  other: "other",
  unknown: "unknown",
};

export function aiSdkFinishReason(raw) {
  if (raw === undefined || raw === null || raw === "") return null;
  const name = typeof raw === "object" ? raw.unified ?? raw.raw : raw;
  return AI_SDK_FINISH_REASONS[name] ?? String(name);
}

const count = (value) => (Number.isFinite(value) ? value : null);

/** Token usage in raf's vocabulary; `total` defaults to the sum; null details are left out. */
export function usage(prompt, completion, total = null, details = {}) {
  const p = count(prompt) ?? 0;
  const c = count(completion) ?? 0;
  const out = { prompt_tokens: p, completion_tokens: c, total_tokens: count(total) ?? p + c };
  for (const [key, value] of Object.entries(details)) {
    if (count(value) !== null) out[key] = value;
  }
  return out;
}

/** Chat Completions' `usage` (the openai SDK's CompletionUsage). */
export function openaiUsage(u) {
  if (!u) return null;
  return usage(u.prompt_tokens, u.completion_tokens, u.total_tokens, {
    prompt_cache_hit_tokens: u.prompt_tokens_details?.cached_tokens,
    reasoning_tokens: u.completion_tokens_details?.reasoning_tokens,
  });
}

/** The Responses API's `usage` (input/output tokens). */
export function responsesUsage(u) {
  if (!u) return null;
  return usage(u.input_tokens, u.output_tokens, u.total_tokens, {
    prompt_cache_hit_tokens: u.input_tokens_details?.cached_tokens,
    reasoning_tokens: u.output_tokens_details?.reasoning_tokens,
  });
}

/** Anthropic's `usage`: the prompt is input plus cache creation plus cache read tokens. */
export function anthropicUsage(u) {
  if (!u) return null;
  const parts = [u.input_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens];
  const prompt = parts.reduce((sum, n) => sum + (count(n) ?? 0), 0);
  return usage(prompt, u.output_tokens, null, {
    prompt_cache_hit_tokens: u.cache_read_input_tokens,
  });
}

/** Gemini's `usageMetadata`: the prompt with the tool-use prompt, the completion with the
 * thoughts. */
export function geminiUsage(u) {
  if (!u) return null;
  const thoughts = count(u.thoughtsTokenCount);
  return usage(
    (count(u.promptTokenCount) ?? 0) + (count(u.toolUsePromptTokenCount) ?? 0),
    (count(u.candidatesTokenCount) ?? 0) + (thoughts ?? 0),
    u.totalTokenCount,
    { prompt_cache_hit_tokens: u.cachedContentTokenCount, reasoning_tokens: thoughts },
  );
}

/** The AI SDK's LanguageModelUsage (`inputTokens`, `outputTokens`...), as its user reads it. */
export function aiSdkUsage(u) {
  if (!u) return null;
  const input = typeof u.inputTokens === "object" ? u.inputTokens?.total : u.inputTokens;
  const output = typeof u.outputTokens === "object" ? u.outputTokens?.total : u.outputTokens;
  if (count(input) === null && count(output) === null && count(u.totalTokens) === null) return null;
  return usage(input, output, u.totalTokens, {
    prompt_cache_hit_tokens: u.inputTokenDetails?.cacheReadTokens ?? u.cachedInputTokens,
    reasoning_tokens: u.outputTokenDetails?.reasoningTokens ?? u.reasoningTokens,
  });
}

/** Tool-call arguments as the user gets them: a string is parsed when it is JSON. */
export function args(value) {
  if (typeof value !== "string") return value ?? null;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

// -- what the user has seen -----------------------------------------------------------------

/** What a client has handed its user so far: fill it as the stream is read. */
export class Seen {
  constructor() {
    this.text = "";
    this.reasoning = "";
    this.calls = []; // {id, name, arguments}: arguments a string (parsed at the end) or a value
    this.finish = null; // raf's finish reason: finishReason(...), aiSdkFinishReason(...)
    this.usage = null; // usage(...) and the helpers above
    this.errors = []; // {error_code, message}: an error the library reported without raising
  }

  /** A call as the user got it. */
  call(id, name, argumentsValue) {
    const found = { id: id || null, name: name ?? null, arguments: argumentsValue ?? "" };
    this.calls.push(found);
    return found;
  }

  /** The protocol's canonical response. */
  response() {
    return {
      text: this.text,
      reasoning_text: this.reasoning || null,
      tool_calls: this.calls.map((c) => ({
        id: c.id || null,
        name: c.name,
        arguments: args(c.arguments),
      })),
      finish_reason: this.finish,
      usage: this.usage,
      errors: this.errors,
    };
  }
}

// -- cases ----------------------------------------------------------------------------------

const canonical = (value) =>
  JSON.stringify(value, (key, v) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );

/** One case, as an adapter reads it. */
export class Case {
  constructor(message) {
    this.message = message;
    this.id = message.id;
    this.dialect = message.dialect;
    this.request = message.request ?? null; // {method, url, base_url, path, headers, body}
    // {model, messages, tools, results, max_rounds, requests}: a tool_loop case's
    this.loop = message.tool_loop ?? null;
    this.apiKey = API_KEY;
    this.used = new Map(); // canned results handed out, by name and arguments
  }

  /** The recorded request body: the model, the messages, the tools and the options. */
  get body() {
    return this.request?.body ?? {};
  }

  /** "http" (the adapter makes the request) or "chunks" (the recorded body is in `chunks`). */
  get transport() {
    return this.message.transport ?? "chunks";
  }

  /** The recorded HTTP status (an `http` case: what the server will answer). */
  get status() {
    return this.message.status ?? null;
  }

  /** A `chunks` case's recorded body, as the network reads raf chose: Buffers, in order. */
  get chunks() {
    return (this.message.chunks ?? []).map((chunk) => Buffer.from(chunk, "base64"));
  }

  /** The model: the request body's, else the one in a Gemini path or a Bedrock path
   * (`/model/{modelId}/converse-stream`, the id percent-encoded). */
  get model() {
    if (typeof this.body.model === "string") return this.body.model;
    if (this.loop?.model) return this.loop.model;
    const path = this.request?.path ?? "";
    const found = /\/models\/([^/:?]+)/.exec(path) ?? /\/model\/([^/?]+)\/converse-stream/.exec(path);
    return found ? decodeURIComponent(found[1]) : "model";
  }

  /** The tools of a tool loop: [{name, description, parameters}]. */
  get tools() {
    return this.loop?.tools ?? [];
  }

  /** The conversation a tool loop starts from: [{role, content}]. */
  get messages() {
    return this.loop?.messages ?? [];
  }

  /**
   * What tool `name` returns for `argumentsValue` (parsed JSON or its text; none, or "", is
   * {}): {content, isError}, the recorded results with that name and arguments in turn (the
   * last one again after that); an error text when the recording has none.
   */
  toolResult(name, argumentsValue) {
    const blank = argumentsValue === undefined || argumentsValue === null;
    const empty = blank || (typeof argumentsValue === "string" && !argumentsValue.trim());
    const wanted = canonical(empty ? {} : args(argumentsValue));
    const key = `${name}\u0000${wanted}`;
    const matching = (this.loop?.results ?? []).filter(
      (r) => r.name === name && canonical(r.arguments) === wanted,
    );
    const turn = this.used.get(key) ?? 0;
    this.used.set(key, turn + 1);
    if (!matching.length) {
      return { content: `raf: the recording has no result for ${name}(${wanted})`, isError: true };
    }
    const found = matching[Math.min(turn, matching.length - 1)];
    return { content: found.content, isError: Boolean(found.is_error) };
  }
}

// -- the protocol loop ----------------------------------------------------------------------

/** The version of `name` as installed where the adapter runs (its package.json), or "". */
export function libraryVersion(name, from = process.argv[1]) {
  try {
    const require = createRequire(from);
    let folder = dirname(require.resolve(name));
    for (;;) {
      const file = join(folder, "package.json");
      try {
        const found = JSON.parse(readFileSync(file, "utf8"));
        if (found.name === name) return found.version ?? "";
      } catch {
        // not here: one folder up
      }
      if (folder === parse(folder).root) return "";
      folder = dirname(folder);
    }
  } catch {
    return "";
  }
}

const show = (value) => inspect(value, { depth: 3, breakLength: Infinity });

/** `raised` for what a case threw: "Type: message"; "thrown <type>: <value>" for a non-Error. */
export function raisedOf(error) {
  let text;
  try {
    if (error instanceof Error) {
      const name = error.constructor?.name || error.name || "Error";
      text = `${name}: ${typeof error.message === "string" ? error.message : show(error.message)}`;
    } else {
      const type = error === null ? "null" : typeof error;
      text = `thrown ${type}: ${typeof error === "string" ? error : show(error)}`;
    }
  } catch (failure) {
    text = `thrown value that cannot be shown (${failure?.message ?? "?"})`;
  }
  return text.slice(0, 2000);
}

/**
 * The result for one case message: the handler's return value if it returned one, else
 * `seen`; with `raised` when it threw (or its promise was rejected), whatever it threw.
 */
export async function answer(adapter, message) {
  const c = new Case(message);
  const seen = new Seen();
  const handler = c.loop ? adapter.toolLoop : adapter.stream;
  if (typeof handler !== "function") {
    const kind = c.loop ? "toolLoop" : "stream";
    return { type: "result", id: c.id, raised: `Error: this adapter has no ${kind}()` };
  }
  try {
    const response = await handler.call(adapter, c, seen);
    return { type: "result", id: c.id, response: response ?? seen.response() };
  } catch (error) {
    if (adapter.debug !== false) console.error(error);
    return { type: "result", id: c.id, response: partial(seen), raised: raisedOf(error) };
  }
}

function partial(seen) {
  try {
    return seen.response();
  } catch {
    return null; // e.g. an adapter that put a value JSON cannot hold in `seen`
  }
}

/** Send a result; one that is not JSON (a BigInt, a cycle) is answered with `raised` instead. */
function sendResult(result) {
  try {
    send(result);
  } catch (error) {
    const raised = `raf-kit: the result is not JSON: ${raisedOf(error)}`;
    send({ type: "result", id: result.id, response: null, raised });
  }
}

/**
 * Speak raf-conformance/1 on stdin/stdout until bye. `adapter`: {name, library (an npm
 * package: its installed version is the hello's version; or a list of packages, the first
 * giving the version: ["ai", "@ai-sdk/openai"]), version (else), dialects,
 * capabilities, levels, how (one paragraph: how its user reads the result), framings (for
 * Gemini: ["sse"] when the library always asks for ?alt=sse), stream(c, seen),
 * toolLoop(c, seen)}. A module with toolLoop declares the capability tool_loop; every
 * adapter declares http (it makes its requests itself).
 */
export async function serve(adapter) {
  const capabilities = new Set(adapter.capabilities ?? []);
  capabilities.add("http");
  if (typeof adapter.toolLoop === "function") capabilities.add("tool_loop");
  const levels = [...(adapter.levels ?? (adapter.stream ? ["response"] : []))];
  if (typeof adapter.toolLoop === "function" && !levels.includes("requests")) {
    levels.push("requests");
  }
  // A library of several packages (the AI SDK and its provider) is a list: the first gives
  // the column's version, the others are named with theirs ("ai + @ai-sdk/openai 3.0.141").
  const libraries = [adapter.library ?? []].flat();
  const library = libraries
    .map((name, at) => (at === 0 ? name : `${name} ${libraryVersion(name)}`.trim()))
    .join(" + ");
  const hello = {
    type: "hello",
    protocol: PROTOCOL,
    name: adapter.name,
    version: adapter.version ?? (libraries.length ? libraryVersion(libraries[0]) : ""),
    dialects: adapter.dialects,
    levels,
    capabilities: [...capabilities],
    library: library || null,
    how: adapter.how ?? "",
    framings: adapter.framings ?? [],
  };
  // A promise of the library's that is rejected with nothing to catch it (after the case that
  // started it) is said on stderr; Node would otherwise end the process, and raf would start
  // it again.
  process.on("unhandledRejection", (reason) => {
    console.error(`raf-kit: a promise was rejected and nothing handled it: ${raisedOf(reason)}`);
  });
  const input = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of input) {
    if (!line.trim()) continue;
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      message = undefined;
    }
    if (message === null || typeof message !== "object" || Array.isArray(message)) {
      // raf never sends one: said on stderr, and the conversation goes on.
      console.error(`raf-kit: not a message of the protocol, ignored: ${line.slice(0, 200)}`);
      continue;
    }
    if (message.type === "hello") {
      send(hello);
    } else if (message.type === "case") {
      sendResult(await answer(adapter, message)); // one case at a time, in order
    } else if (message.type === "bye") {
      break;
    }
  }
  // bye, or raf closed stdin: done, even if a library keeps a connection or a timer alive.
  input.close();
  process.exit(0);
}
