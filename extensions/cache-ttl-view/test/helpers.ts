import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import {
  type ChatMessage,
  createTestSession,
  type ModelServer,
  type ModelServerOptions,
  type RecordedRequest,
  startProviderServer,
  type TestSession,
  type WireFormat,
} from "@pi-rails/testkit";
import { afterEach, vi } from "vitest";
import { type CacheTtlViewOptions, createCacheTtlView } from "../src/extension.ts";
import { type WireApi, wireProblems } from "../src/testing/wire.ts";

/** A file body of about `kb` KB with numbered lines (so a read of it is obviously large). */
export function bigFile(kb: number, word = "payload"): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 1; size < kb * 1024; i++) {
    const line = `line ${i}: ${word} ${"x".repeat(60)}`;
    lines.push(line);
    size += line.length + 1;
  }
  return `${lines.join("\n")}\n`;
}

/**
 * The conversation of a request as its format carries it (chat and Anthropic messages, Responses input items, Gemini
 * contents), without the system prompt and without cache markers: pi-ai moves those to the newest block with every
 * request, while the prefix they mark keeps its bytes (the cached content is the same).
 */
export function conversation(request: RecordedRequest): ChatMessage[] {
  return request.messages
    .filter((m) => m.role !== "system" && m.role !== "developer")
    .map((m) => withoutCacheMarkers(m) as ChatMessage);
}

/** `value` without Anthropic's `cache_control` markers, however deep. */
export function withoutCacheMarkers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutCacheMarkers);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== "cache_control")
      .map(([key, inner]) => [key, withoutCacheMarkers(inner)]),
  );
}

/**
 * What the request's API would reject in its body: tool calls and results paired, reasoning items with their calls,
 * signed blocks as issued, no empty content (the strict servers answer such a request 400 as well).
 */
export const requestProblems = (request: RecordedRequest): string[] =>
  wireProblems(request.format as WireApi, request.body);

type Item = Record<string, unknown>;
const items = (value: unknown): Item[] => (Array.isArray(value) ? (value as Item[]) : []);

/**
 * The tool results a request carries, in order, each as the JSON of its format's own item: a `tool` message (chat
 * completions), a `tool_result` block (Anthropic), a `function_call_output` item (OpenAI Responses), a
 * `functionResponse` part (Gemini).
 */
export function toolResults(request: RecordedRequest): string[] {
  const out: Item[] = [];
  for (const m of request.messages as unknown as Item[]) {
    if (m["role"] === "tool" || m["type"] === "function_call_output") out.push(m);
    for (const part of [...items(m["content"]), ...items(m["parts"])]) {
      if (part["type"] === "tool_result" || part["functionResponse"] !== undefined) out.push(part);
    }
  }
  return out.map((item) => JSON.stringify(item));
}

/** Whether `shorter` is a byte-identical prefix of `longer` (message by message, serialized). */
export function isPrefix(shorter: readonly ChatMessage[], longer: readonly ChatMessage[]): boolean {
  if (shorter.length > longer.length) return false;
  return shorter.every((m, i) => JSON.stringify(m) === JSON.stringify(longer[i]));
}

export const json = (value: unknown) => JSON.stringify(value);

/** What pi prints on stdout from now on (`/cache-ttl` without a UI); the spy is restored after the test. */
export function captureStdout(): string[] {
  const out: string[] = [];
  vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
    out.push(String(chunk));
    return true;
  });
  return out;
}

/** A refresh of pi 1.6's cache warming: the last request again, capped at one output token. */
export const isWarm = (r: RecordedRequest) => r.body["max_tokens"] === 1 || r.body["max_completion_tokens"] === 1;

/**
 * `start(...)`: a loopback model server (strict: it answers 400 to a request its API would refuse) and a persisted pi
 * session with cache-ttl-view on `clock`. Call once per test file: both are closed (and mocks restored) after each
 * test.
 */
export function sessionPerTest() {
  let live: { server?: ModelServer; t?: TestSession } = {};
  afterEach(async () => {
    vi.restoreAllMocks();
    await live.t?.dispose();
    await live.server?.close();
    live = {};
  });
  return async (options: {
    script: ModelServerOptions["script"];
    clock: { now: number };
    files: Record<string, string>;
    projectSettings: Record<string, unknown>;
    onRender?: CacheTtlViewOptions["onRender"];
    /** Other extensions, loaded before cache-ttl-view (their handlers of an event run first). */
    extensions?: ExtensionFactory[];
    /** Extensions loaded after cache-ttl-view (their handlers see what it returned). */
    after?: ExtensionFactory[];
    /** The wire format of the model (default chat completions): a strict loopback server of that API. */
    format?: WireFormat;
  }) => {
    live.server = await startProviderServer(options.format ?? "openai-completions", {
      strict: true,
      script: options.script,
    });
    live.t = await createTestSession({
      model: { kind: "provider", server: live.server },
      // The scripts answer without thinking (the wire-format tests script it, as each API signs it).
      thinkingLevel: "off",
      files: options.files,
      // pi 1.6 re-sends the last request to keep its cache warm (`cacheWarming`, default `idle`): such a request
      // would take a scripted answer and be recorded as one of the view's. The testkit's sandbox turns it off; the
      // TTL view's tests say so themselves (a global setting: pi reads it from the agent dir only).
      settings: { cacheWarming: "off" },
      projectSettings: options.projectSettings,
      extensions: [
        ...(options.extensions ?? []),
        createCacheTtlView({
          now: () => options.clock.now,
          ...(options.onRender ? { onRender: options.onRender } : {}),
        }),
        ...(options.after ?? []),
      ],
      persist: true,
    });
    return { server: live.server, t: live.t };
  };
}
