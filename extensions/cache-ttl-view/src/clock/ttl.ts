/**
 * The provider's prompt-cache TTL when `cacheTtl.ttlSeconds` is not set: the cache lifetime the model declares
 * (`model.promptCache`, pi 1.6's catalogue or `models.json`: what pi's own cache warming reads), else keyed on the
 * wire format (`model.api`), which decides what cache hints go out, not on the provider's name: Claude behind a
 * custom provider name speaks `anthropic-messages` with the same `cache_control`. The retention is what pi-ai 1.6
 * really sends: it reads `PI_CACHE_RETENTION` and only `long` changes anything (with `none` it still sends its
 * default cache markers; pi passes no retention of its own).
 */

export type CacheRetention = "short" | "long";

/** The model fields that decide the TTL (pi-ai's `Model`, structurally). */
export interface TtlModel {
  api?: string;
  provider?: string;
  id?: string;
  /** pi-ai reads it too where the id names no model (a Bedrock application inference profile's ARN). */
  name?: string;
  baseUrl?: string;
  /** pi-ai's per-API compat object; read: `supportsLongCacheRetention`, `cacheControlFormat`, `supportsExplicitPromptCacheMode`. */
  compat?: object | undefined;
  /** The cache lifetime per retention tier in seconds, as the model declares it (pi-ai 1.6's `ModelPromptCache`). */
  promptCache?: { short?: number; long?: number } | undefined;
}

interface TtlCompat {
  supportsLongCacheRetention?: unknown;
  cacheControlFormat?: unknown;
  supportsExplicitPromptCacheMode?: unknown;
}
const compatOf = (model: TtlModel): TtlCompat => (model.compat ?? {}) as TtlCompat;

interface TtlRow {
  short: number;
  long: number;
  note: string;
}

const CLAUDE: TtlRow = { short: 300, long: 3600, note: "Anthropic cache_control: 5 min, 1 h with long retention" };
const OPENAI: TtlRow = { short: 300, long: 86_400, note: "automatic: 5-10 min idle (up to 1 h), 24 h with long" };
/** Models with OpenAI's explicit prompt-cache mode: pi-ai 1.6 asks for a 30-minute TTL with long retention. */
const OPENAI_EXPLICIT: TtlRow = { short: 300, long: 1800, note: "explicit prompt-cache mode: 30 min with long" };
const GEMINI: TtlRow = { short: 300, long: 300, note: "Gemini implicit caching: short-lived, not guaranteed" };
/** pi-ai 1.6 sends no `prompt_cache_retention` on these APIs: long retention changes nothing there. */
const OPENAI_SHORT_ONLY: TtlRow = {
  short: 300,
  long: 300,
  note: "automatic: 5-10 min idle (up to 1 h); pi-ai sends no prompt_cache_retention on this API",
};

/** TTLs per wire format (`model.api`); see the README's table. */
export const API_TTLS: ReadonlyMap<string, TtlRow> = new Map([
  ["anthropic-messages", CLAUDE],
  ["openai-responses", OPENAI],
  ["azure-openai-responses", OPENAI_SHORT_ONLY],
  ["openai-codex-responses", OPENAI_SHORT_ONLY],
  ["google-generative-ai", GEMINI],
  ["google-vertex", GEMINI],
]);

/** Chat-completions servers whose cache pi-ai addresses or that cache on their own, by provider. */
export const COMPLETIONS_PROVIDER_TTLS: ReadonlyMap<string, TtlRow> = new Map([
  ["openai", OPENAI],
  ["deepseek", { short: 300, long: 300, note: "disk cache, hours; 5 min is the conservative floor" }],
]);

/** pi-ai's cache retention for this process: `long` only when `PI_CACHE_RETENTION=long`. */
export function cacheRetention(env: NodeJS.ProcessEnv = process.env): CacheRetention {
  return env["PI_CACHE_RETENTION"] === "long" ? "long" : "short";
}

export interface ResolvedTtl {
  /** Seconds; undefined or <= 0 means pruning is off. */
  seconds: number | undefined;
  /**
   * `model`: the model's own `promptCache`; `api`: this package's table by wire format; `override`: the report's
   * `--ttl`; `disabled`: `cacheTtl.enabled` is false (the user's own choice, nothing to tell them).
   */
  source: "settings" | "model" | "api" | "override" | "off" | "disabled";
  /** Why, in one line (shown once when pruning is off, and by `/cache-ttl`). */
  reason: string;
}

/**
 * Whether pi-ai 1.6 puts cache points in a Bedrock request: for Claude 5 (Fable, Opus, Sonnet, Haiku), 4.x, 3.7
 * Sonnet and 3.5 Haiku, known by the model's id or its name (an application inference profile's ARN names no model,
 * its configured name may), and for any model when `AWS_BEDROCK_FORCE_CACHE=1`.
 */
export function bedrockCaches(model: TtlModel, env: NodeJS.ProcessEnv = process.env): boolean {
  const names = [model.id, model.name]
    .filter((v): v is string => typeof v === "string")
    .flatMap((v) => [v.toLowerCase(), v.toLowerCase().replace(/[\s_.:]+/g, "-")]);
  if (!names.some((n) => n.includes("claude"))) return env["AWS_BEDROCK_FORCE_CACHE"] === "1";
  const claude5 = ["fable-5", "opus-5", "sonnet-5", "haiku-5"];
  return names.some(
    (n) =>
      claude5.some((family) => n.includes(family)) ||
      n.includes("-4-") ||
      n.includes("claude-3-7-sonnet") ||
      n.includes("claude-3-5-haiku"),
  );
}

function rowFor(model: TtlModel, env: NodeJS.ProcessEnv): TtlRow | undefined {
  const api = model.api ?? "";
  if (api === "openai-responses" && compatOf(model).supportsExplicitPromptCacheMode === true) return OPENAI_EXPLICIT;
  const byApi = API_TTLS.get(api);
  if (byApi) return byApi;
  if (api === "bedrock-converse-stream") return bedrockCaches(model, env) ? CLAUDE : undefined;
  if (api === "openai-completions") {
    if (compatOf(model).cacheControlFormat === "anthropic") return CLAUDE;
    if (model.provider === "openrouter" && (model.id ?? "").startsWith("anthropic/")) return CLAUDE;
    if ((model.baseUrl ?? "").includes("api.openai.com")) return OPENAI;
    return COMPLETIONS_PROVIDER_TTLS.get(model.provider ?? "");
  }
  return undefined;
}

/**
 * `ttlSeconds` from settings wins; else the lifetime the model declares for pi-ai's retention (`promptCache`), else
 * the TTL of the model's wire format (long only where the model supports long retention, as pi-ai decides); an
 * unknown cache: off, with the reason.
 */
export function resolveTtl(
  settingTtl: number | undefined,
  model: TtlModel | undefined,
  retention: CacheRetention,
  env: NodeJS.ProcessEnv = process.env,
): ResolvedTtl {
  if (settingTtl !== undefined) {
    return settingTtl > 0
      ? { seconds: settingTtl, source: "settings", reason: "cacheTtl.ttlSeconds" }
      : { seconds: undefined, source: "off", reason: "cacheTtl.ttlSeconds <= 0" };
  }
  if (!model) return { seconds: undefined, source: "off", reason: "no model selected" };
  const long = retention === "long" && compatOf(model).supportsLongCacheRetention !== false;
  const declared = model.promptCache?.[long ? "long" : "short"];
  if (typeof declared === "number" && Number.isFinite(declared) && declared > 0) {
    const tier = long ? "long" : "short";
    return { seconds: declared, source: "model", reason: `the model's promptCache.${tier} (${declared}s)` };
  }
  const row = rowFor(model, env);
  const name = `${model.provider ?? "?"}/${model.id ?? "?"} (api ${model.api ?? "?"})`;
  if (!row) {
    return {
      seconds: undefined,
      source: "off",
      reason: `the prompt-cache TTL of ${name} is not known: set cacheTtl.ttlSeconds to prune`,
    };
  }
  const seconds = long ? row.long : row.short;
  return { seconds, source: "api", reason: `${model.api} ${long ? "long" : "short"} retention: ${row.note}` };
}

/** A TTL the buffer eats entirely (`bufferSeconds >= ttl`) would make every request expired: pruning is off then. */
export function applyBuffer(ttl: ResolvedTtl, bufferSeconds: number): ResolvedTtl {
  if (ttl.seconds === undefined || ttl.seconds > bufferSeconds) return ttl;
  return {
    seconds: undefined,
    source: "off",
    reason: `cacheTtl.bufferSeconds (${bufferSeconds}) is not less than the TTL of ${ttl.seconds}s (${ttl.reason})`,
  };
}

/** The settings that take part in the TTL decision (`CacheTtlSettings`, structurally). */
export interface TtlSettings {
  enabled: boolean;
  ttlSeconds?: number | undefined;
  bufferSeconds: number;
}

/** Why pruning is off while the settings conflict (each conflict is said on its own, naming the fields). */
export const CONFLICT_REASON =
  "the cacheTtl settings conflict (see above): blocks pruned before stay pruned, nothing new is";

/**
 * The one answer to "does cache-ttl-view prune for this model, and after how long?". The live extension asks it
 * before every request and `cache-ttl report` for every recorded request, with the same settings (`valid`: no
 * conflicting fields) and the model as pi knows it, so the two cannot disagree: an unknown TTL is off in both.
 */
export function decideTtl(
  settings: TtlSettings,
  valid: boolean,
  model: TtlModel | undefined,
  retention: CacheRetention,
  env: NodeJS.ProcessEnv = process.env,
): ResolvedTtl {
  if (!settings.enabled) return { seconds: undefined, source: "disabled", reason: "cacheTtl.enabled is false" };
  if (!valid) return { seconds: undefined, source: "off", reason: CONFLICT_REASON };
  return applyBuffer(resolveTtl(settings.ttlSeconds, model, retention, env), settings.bufferSeconds);
}
