/**
 * A provider-side prompt cache, simulated so tests can see what a real one would bill: the request is cut
 * into the segments the provider caches by (tools, system, then each message block or input item, in the
 * API's order), and a prefix is a cache hit while an identical prefix was stored within the TTL.
 * Anthropic caches only at `cache_control` breakpoints (hits read, the rest up to the last breakpoint is
 * written); OpenAI (chat and Responses) and Gemini cache any prefix automatically (reads only, in
 * 128-token steps for OpenAI). Tokens are estimated at 4 characters each; prefixes under `minTokens` are not
 * cached. Pure functions plus a small store, so the rules are unit-tested apart from the server.
 */
import { createHash } from "node:crypto";
import type { ScriptedUsage, WireFormat } from "./types.ts";

/** One cacheable unit of a request, and whether a cache breakpoint closes it. */
export interface PromptSegment {
  tokens: number;
  /** Hash of the prefix up to and including this segment. */
  prefix: string;
  breakpoint: boolean;
}

export interface PromptCacheOptions {
  /** How long a stored prefix lives after its last use. Default 5 minutes (Anthropic's default TTL). */
  ttlMs?: number;
  /** The clock (tests move it to expire the cache). Default `Date.now`. */
  now?: () => number;
  /** Smallest prefix cached, in tokens. Default 1024. */
  minTokens?: number;
}

const DEFAULT_TTL_MS = 5 * 60_000;
const DEFAULT_MIN_TOKENS = 1024;
/** Anthropic looks for a hit at a breakpoint and up to this many blocks before it. */
const ANTHROPIC_LOOKBACK_BLOCKS = 20;

const estimate = (value: unknown) => Math.ceil(JSON.stringify(value).length / 4);

/** The value without its `cache_control` marker (a breakpoint does not change what is cached). */
function unmarked(value: unknown): { value: unknown; marked: boolean } {
  if (!value || typeof value !== "object" || Array.isArray(value) || !("cache_control" in value)) {
    return { value, marked: false };
  }
  const { cache_control: _marker, ...rest } = value as Record<string, unknown>;
  return { value: rest, marked: true };
}

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]);

/** The units a provider caches by, in order, tagged with what they belong to. */
function units(format: WireFormat, body: Record<string, unknown>): Array<{ tag: string; value: unknown }> {
  const out: Array<{ tag: string; value: unknown }> = [];
  const push = (tag: string, values: unknown) => {
    for (const value of list(values)) out.push({ tag, value });
  };
  switch (format) {
    case "anthropic-messages":
      push("tool", body["tools"]);
      push("system", typeof body["system"] === "string" ? [{ type: "text", text: body["system"] }] : body["system"]);
      for (const message of list(body["messages"]) as Array<{ role?: string; content?: unknown }>) {
        const content =
          typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
        push(`message:${message.role}`, content);
      }
      break;
    case "openai-responses":
      push("tool", body["tools"]);
      push("instructions", body["instructions"]);
      push("item", body["input"]);
      break;
    case "openai-completions":
      push("tool", body["tools"]);
      push("message", body["messages"]);
      break;
    case "google-generative-ai":
      push("system", body["systemInstruction"]);
      push("tool", body["tools"]);
      push("content", body["contents"]);
      break;
  }
  return out;
}

/** The request cut into cacheable segments with prefix hashes (breakpoints only on Anthropic). */
export function promptSegments(format: WireFormat, body: Record<string, unknown>): PromptSegment[] {
  const hash = createHash("sha256");
  return units(format, body).map(({ tag, value }) => {
    const { value: plain, marked } = unmarked(value);
    hash.update(`${tag}\u0000${JSON.stringify(plain)}\u0001`);
    return { tokens: estimate(plain), prefix: hash.copy().digest("hex"), breakpoint: marked };
  });
}

/** Stored prefixes: hash → expiry time and token count. */
export type PromptCacheStore = Map<string, { expiresAt: number; tokens: number }>;

/**
 * What the provider bills for `segments` given `store` at `now`, and the prefixes it stores (returned, not
 * applied: the caller commits them). Anthropic: read = longest stored breakpoint prefix; write = the rest up
 * to the last breakpoint. Automatic caching: read = longest stored prefix (OpenAI: rounded down to 128).
 */
export function billPrompt(
  format: WireFormat,
  segments: PromptSegment[],
  store: PromptCacheStore,
  now: number,
  minTokens = DEFAULT_MIN_TOKENS,
): { usage: Required<Omit<ScriptedUsage, "completion_tokens">>; store: Array<[string, number]> } {
  const anthropic = format === "anthropic-messages";
  let running = 0;
  const prefixes = segments.map((segment) => {
    running += segment.tokens;
    return { ...segment, upTo: running };
  });
  const total = running;
  const live = (prefix: string) => (store.get(prefix)?.expiresAt ?? 0) > now;
  // Where a hit is looked for: Anthropic checks each breakpoint and the 20 blocks before it (so last turn's
  // breakpoint still hits after the marker moved on); automatic caching checks every prefix.
  const lookups = prefixes.filter(
    (p, i) =>
      p.upTo >= minTokens &&
      (!anthropic || prefixes.some((b, j) => b.breakpoint && j >= i && j - i <= ANTHROPIC_LOOKBACK_BLOCKS)),
  );
  const hit = lookups.filter((p) => live(p.prefix)).at(-1);
  const matched = hit?.upTo ?? 0;
  const read =
    format === "openai-completions" || format === "openai-responses" ? Math.floor(matched / 128) * 128 : matched;
  // What is written: Anthropic the breakpoint prefixes past the hit; automatic caching every prefix.
  const written = lookups.filter((p) => (anthropic ? p.breakpoint && p.upTo > matched : true));
  const write = anthropic ? Math.max(0, (written.at(-1)?.upTo ?? matched) - matched) : 0;
  return {
    usage: { prompt_tokens: total - read - write, cache_read_tokens: read, cache_write_tokens: write },
    store: [...written, ...(hit ? [hit] : [])].map((p) => [p.prefix, p.upTo]),
  };
}

/** A server's prompt cache: bills each request and stores (or refreshes) its prefixes. */
export function createPromptCache(format: WireFormat, options: PromptCacheOptions = {}) {
  const store: PromptCacheStore = new Map();
  const ttl = options.ttlMs ?? DEFAULT_TTL_MS;
  const now = options.now ?? Date.now;
  return {
    store,
    bill(body: Record<string, unknown>): Required<Omit<ScriptedUsage, "completion_tokens">> {
      const at = now();
      const billed = billPrompt(format, promptSegments(format, body), store, at, options.minTokens);
      for (const [prefix, tokens] of billed.store) store.set(prefix, { expiresAt: at + ttl, tokens });
      return billed.usage;
    },
  };
}
