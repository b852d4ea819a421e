import { readFileSync } from "node:fs";
import { parseSettingsSection, piSettingsFiles, resolveAgentDir, type SettingsIssue } from "@pi-rails/agent-core/kit";
import { z } from "zod";

// `.safe()`: zod 3's `.int()` takes 2^53 and beyond, which are no counts.
const count = (min: number) => z.number().int().safe().min(min);

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
      .safe()
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

/**
 * Relations between fields that are possible but do not do what each field says alone: said once, and pruning goes
 * on (each message names the fields and what applies).
 */
export function crossFieldNotes(s: { keepRecentTurns?: number; keepRecentIntactTurns?: number }): string[] {
  const { keepRecentTurns: keep, keepRecentIntactTurns: intact } = s;
  // The current turn is never pruned, whatever the settings (documented): an intact window of 1 says nothing new.
  if (keep === undefined || intact === undefined || intact <= Math.max(keep, 1)) return [];
  return [
    `cacheTtl.keepRecentIntactTurns (${intact}) is above cacheTtl.keepRecentTurns (${keep}): the last ${intact} ` +
      `turns stay untouched, so turns are replaced from the ${ordinal(intact + 1)} last on, not the ` +
      ordinal(Math.max(keep, 1) + 1),
  ];
}

const ordinal = (n: number) =>
  `${n}${n % 100 >= 11 && n % 100 <= 13 ? "th" : (["th", "st", "nd", "rd"][n % 10] ?? "th")}`;

export type CacheTtlSettings = z.infer<typeof CacheTtlSettingsSchema>;
export type Pins = z.infer<typeof PinsSchema>;

/** The defaults, for tests and the report bin. */
export function defaultSettings(overrides: Partial<CacheTtlSettings> = {}): CacheTtlSettings {
  return { ...CacheTtlSettingsSchema.parse({}), ...overrides };
}

/** A settings mistake (the kit's one issue type: file, key, message). */
export type { SettingsIssue };
/** @deprecated the kit's `SettingsIssue`, under its former name. */
export type SettingsProblem = SettingsIssue;

export interface LoadedSettings {
  settings: CacheTtlSettings;
  issues: SettingsIssue[];
  /**
   * False when fields conflict (see `loadCacheTtlSettings`): the extension then prunes nothing new, and keeps what
   * it pruned before as it was.
   */
  valid: boolean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A settings file as pi 1.6 reads it (`SettingsManager`: a leading BOM stripped, then `JSON.parse`): its JSON, or
 * `undefined` when it is missing or pi cannot load it. pi itself reports a file it cannot load (a trailing comma,
 * garbage, no permission) and uses none of its settings: the view then says nothing more about it (one mistake, one
 * message) and ignores it as pi does.
 */
function readAsPi(file: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8").replace(/^\uFEFF/, ""));
  } catch {
    return undefined;
  }
  return isRecord(value) ? value : undefined;
}

/**
 * Read `cacheTtl` from the user then the project settings file (project wins per key) under the kit's rule: a bad
 * key is said once and ignored, the other keys are kept; a file pi cannot load is pi's to report (skipped, silently).
 * Problems are returned, never thrown. Fields that conflict (a buffer not below the TTL) are no single bad key: then
 * `valid` is false and the session does not prune.
 * `projectTrusted: false` (pi 1.6 reads a project's `.pi/settings.json` only in a trusted project): the project
 * file is left out, and a `cacheTtl` key in it is said to be ignored.
 */
export function loadCacheTtlSettings(
  cwd: string,
  agentDir = resolveAgentDir(),
  options: { projectTrusted?: boolean } = {},
): LoadedSettings {
  const [user, project] = piSettingsFiles(cwd, agentDir) as [string, string];
  const trusted = options.projectTrusted !== false;
  const files = trusted ? [user, project] : [user];
  const untrusted: SettingsIssue[] =
    !trusted && readAsPi(project)?.["cacheTtl"] !== undefined
      ? [
          {
            file: project,
            key: "cacheTtl",
            message: "ignored: the project is not trusted (pi reads its settings only then)",
          },
        ]
      : [];
  const issues: SettingsIssue[] = [...untrusted];
  const merged: Record<string, unknown> = defaultSettings();
  for (const file of files) {
    const json = readAsPi(file);
    if (json === undefined || !Object.hasOwn(json, "cacheTtl")) continue;
    const parsed = parseSettingsSection(json["cacheTtl"], file, "cacheTtl", CacheTtlSettingsSchema.shape);
    issues.push(...parsed.issues);
    Object.assign(merged, parsed.values);
  }
  const settings = merged as CacheTtlSettings;
  // Relations between fields are checked on the merge (with defaults): a user TTL with a project buffer above it.
  const cross = crossFieldProblems(settings);
  const notes = crossFieldNotes(settings);
  const where = () => files.filter((f) => readAsPi(f) !== undefined).join(" + ");
  // Conflicts first, and notes under their own key: each is said once per file and key.
  for (const message of cross) issues.push({ file: where(), key: "cacheTtl", message: `${message}; pruning is off` });
  for (const message of notes) issues.push({ file: where(), key: "cacheTtl.keepRecentIntactTurns", message });
  return { settings, issues, valid: cross.length === 0 };
}
