import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { resolveAgentDir } from "@pi-rails/agent-core/kit";
import { z } from "zod";

const count = (min: number) => z.number().int().min(min);

/** Pins: blocks matching any of these are never pruned. */
export const PinsSchema = z
  .object({
    /** Tool names whose calls and results are never pruned (e.g. `["memory"]`). */
    tools: z.array(z.string().min(1)).default([]),
    /** Globs (minimatch) matched against a tool call's `path` argument (e.g. `["docs/spec/**"]`). */
    paths: z.array(z.string().min(1)).default([]),
    /** Block ids as shown in replacement texts. */
    ids: z.array(z.string().min(1)).default([]),
  })
  .strict();

/**
 * Settings key `cacheTtl` in pi's settings files. Unknown keys are errors, so a typo never silently does nothing;
 * any error turns pruning off for the session (no pruning rather than wrong pruning).
 */
export const CacheTtlSettingsSchema = z
  .object({
    enabled: z.boolean().default(true),
    /** Provider prompt-cache TTL in seconds; unset: derived from the model's provider and pi's cache retention; <= 0: off. */
    ttlSeconds: z.number().finite().optional(),
    /** Treat the cache as expired this many seconds early (prune before the provider drops it). */
    bufferSeconds: z.number().finite().min(0).default(10),
    /** Turns older than this many (counting the current one) are replaced by short texts. */
    keepRecentTurns: count(0).default(6),
    /** The most recent turns that are never touched (at least the current one). */
    keepRecentIntactTurns: z
      .number()
      .int()
      .min(1, "must be at least 1: the current turn (the prompt and tool loop being answered) is never pruned")
      .default(1),
    /** Cap of a replacement text (and of a tool summary's `result`). */
    maxTextChars: count(16).default(400),
    /** Cap per string field of a tool call's parameters in a summary. */
    maxFieldChars: count(16).default(1000),
    /** Lists in a summary keep this many items. */
    maxListItems: count(1).default(50),
    /** Objects in a summary keep this many keys. */
    maxDictKeys: count(1).default(80),
    /** Between the windows, a tool output or file body longer than this (chars) counts as heavy and is replaced. */
    maxBase64Chars: count(0).default(4000),
    /** Images kept (newest first) outside the intact window; the newest image is always kept. */
    keepRecentImages: count(0).default(2),
    /** Total base64 chars of kept images. */
    maxImageBase64Total: count(0).default(1_000_000),
    /** Do not prune unless it saves at least this many tokens (estimate: 4 chars per token). */
    minGainTokens: count(0).default(1000),
    pins: PinsSchema.default({ tools: [], paths: [], ids: [] }),
  })
  .strict();

/** The relations between fields that no single field shows (each message names the fields involved). */
export function crossFieldProblems(s: {
  ttlSeconds?: number | undefined;
  bufferSeconds?: number | undefined;
}): string[] {
  const out: string[] = [];
  if (s.ttlSeconds !== undefined && s.ttlSeconds > 0 && s.bufferSeconds !== undefined) {
    if (s.bufferSeconds >= s.ttlSeconds) {
      out.push(
        `cacheTtl.bufferSeconds (${s.bufferSeconds}) must be less than cacheTtl.ttlSeconds (${s.ttlSeconds}): ` +
          "otherwise every request counts as expired and prunes",
      );
    }
  }
  return out;
}

export type CacheTtlSettings = z.infer<typeof CacheTtlSettingsSchema>;
export type Pins = z.infer<typeof PinsSchema>;

/** The defaults, for tests and the report bin. */
export function defaultSettings(overrides: Partial<CacheTtlSettings> = {}): CacheTtlSettings {
  return { ...CacheTtlSettingsSchema.parse({}), ...overrides };
}

export interface SettingsProblem {
  file: string;
  key: string;
  message: string;
}

export interface LoadedSettings {
  settings: CacheTtlSettings;
  problems: SettingsProblem[];
  /** False when any problem was found: the extension then reports the clock but never prunes. */
  valid: boolean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Validate one `cacheTtl` section (data from a file: every key is an own key, `constructor` is just a name). */
export function checkSection(section: unknown, file: string): SettingsProblem[] {
  if (!isRecord(section)) return [{ file, key: "cacheTtl", message: "must be an object" }];
  const parsed = CacheTtlSettingsSchema.safeParse(section);
  if (parsed.success) return [];
  const problems: SettingsProblem[] = [];
  for (const issue of parsed.error.issues) {
    const base = issue.path.map(String);
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        problems.push({ file, key: ["cacheTtl", ...base, key].join("."), message: "unknown key" });
      }
    } else {
      problems.push({ file, key: ["cacheTtl", ...base].join("."), message: issue.message });
    }
  }
  return problems;
}

/**
 * Read `cacheTtl` from the user then the project settings file (project wins per key). Problems are returned,
 * never thrown; with any problem `valid` is false and defaults are returned.
 */
export function loadCacheTtlSettings(cwd: string, agentDir = resolveAgentDir()): LoadedSettings {
  const problems: SettingsProblem[] = [];
  const merged = new Map<string, unknown>();
  const files = [join(agentDir, "settings.json"), join(cwd, ".pi", "settings.json")];
  for (const file of files) {
    if (!existsSync(file)) continue;
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, "utf8"));
    } catch (error) {
      problems.push({ file, key: "", message: `not valid JSON: ${(error as Error).message}` });
      continue;
    }
    if (!isRecord(raw) || !Object.hasOwn(raw, "cacheTtl")) continue;
    const section = raw["cacheTtl"];
    const found = checkSection(section, file);
    problems.push(...found);
    if (found.length === 0 && isRecord(section)) {
      for (const key of Object.keys(section)) merged.set(key, section[key]);
    }
  }
  if (problems.length > 0) return { settings: defaultSettings(), problems, valid: false };
  // Relations between fields are checked on the merge (with defaults): a user TTL with a project buffer above it.
  const parsed = CacheTtlSettingsSchema.parse(Object.fromEntries(merged));
  const cross = crossFieldProblems(parsed);
  if (cross.length > 0) {
    const where = files.filter((f) => existsSync(f)).join(" + ");
    for (const message of cross) problems.push({ file: where, key: "cacheTtl", message });
    return { settings: defaultSettings(), problems, valid: false };
  }
  return { settings: parsed, problems, valid: true };
}
