/**
 * The provider's prompt-cache TTL when `cacheTtl.ttlSeconds` is not set. pi asks for the short retention unless
 * `PI_CACHE_RETENTION=long` is set (pi-ai reads that variable), and sends no cache hints with `none`.
 */

export type CacheRetention = "short" | "long" | "none";

/** Per-provider TTL in seconds for short and long retention; see the README's table for the sources. */
export const PROVIDER_TTLS: ReadonlyMap<string, { short: number; long: number; note: string }> = new Map([
  ["anthropic", { short: 300, long: 3600, note: "5 min by default, 1 h with long retention" }],
  ["amazon-bedrock", { short: 300, long: 3600, note: "Claude on Bedrock: cache points of 5 min, or 1 h" }],
  ["google-vertex-anthropic", { short: 300, long: 3600, note: "Claude on Vertex: as Anthropic" }],
  ["openrouter", { short: 300, long: 3600, note: "Anthropic models via cache_control; others follow upstream" }],
  ["openai", { short: 300, long: 86_400, note: "automatic; kept 5-10 min idle (up to 1 h), 24 h with long" }],
  ["openai-codex", { short: 300, long: 86_400, note: "as OpenAI" }],
  ["azure-openai-responses", { short: 300, long: 86_400, note: "as OpenAI" }],
  ["google", { short: 300, long: 300, note: "Gemini implicit caching: short-lived, not guaranteed" }],
  ["google-vertex", { short: 300, long: 300, note: "as Gemini" }],
  ["deepseek", { short: 300, long: 300, note: "disk cache, hours; 5 min is the conservative floor" }],
]);

/** pi's cache retention for this process. */
export function cacheRetention(env: NodeJS.ProcessEnv = process.env): CacheRetention {
  const value = env["PI_CACHE_RETENTION"];
  return value === "long" ? "long" : value === "none" ? "none" : "short";
}

export interface ResolvedTtl {
  /** Seconds; undefined or <= 0 means pruning is off. */
  seconds: number | undefined;
  source: "settings" | "provider" | "unknown-provider" | "retention-none";
}

/** `ttlSeconds` from settings wins; else the provider's TTL for pi's retention; unknown providers: off. */
export function resolveTtl(
  settingTtl: number | undefined,
  provider: string | undefined,
  retention: CacheRetention,
): ResolvedTtl {
  if (settingTtl !== undefined) return { seconds: settingTtl, source: "settings" };
  if (retention === "none") return { seconds: undefined, source: "retention-none" };
  const row = provider ? PROVIDER_TTLS.get(provider) : undefined;
  if (!row) return { seconds: undefined, source: "unknown-provider" };
  return { seconds: retention === "long" ? row.long : row.short, source: "provider" };
}
