import { z } from "zod";
import { DEFAULT_TTSR_SETTINGS, type SettingsIssue } from "./defaults.ts";

/** The `ttsr` key of pi's settings files. Each field is validated on its own so one bad value loses nothing else. */
export const TtsrSettingsSchema = z.object({
  /** Master switch (the reference loads it but never checks it; we honor it). */
  enabled: z.boolean().default(true),
  /** On an interrupt: drop the partial assistant output (`discard`) or keep it before the reminder (`keep`). */
  contextMode: z.enum(["discard", "keep"]).default("discard"),
  /** Which matches abort the stream: all, prose (text/thinking) only, tool arguments only, or none. */
  interruptMode: z.enum(["always", "prose-only", "tool-only", "never"]).default("always"),
  /** `once`: a rule fires once per session. `after-gap`: again after `repeatGap` completed turns. */
  repeatMode: z.enum(["once", "after-gap"]).default("once"),
  /** Completed turns between two firings of the same rule in `after-gap` mode. */
  repeatGap: z.number().int().min(1).default(10),
  /** Load the rules shipped with pi-ttsr. */
  builtinRules: z.boolean().default(true),
  /** Rule names never registered (trimmed; empty entries are ignored). */
  disabledRules: z
    .array(z.string())
    .transform((names) => names.map((n) => n.trim()).filter((n) => n.length > 0))
    .default([]),
});

export type TtsrSettings = z.infer<typeof TtsrSettingsSchema>;

export { DEFAULT_TTSR_SETTINGS, formatSettingsIssue, type SettingsIssue } from "./defaults.ts";

/**
 * Validates one raw `ttsr` value key by key: valid keys are kept, each bad one yields an issue naming
 * the file and the key and falls back to the default (or the lower-precedence file's value).
 */
export function parseTtsrSettings(
  raw: unknown,
  file: string,
  base: TtsrSettings = DEFAULT_TTSR_SETTINGS,
): { settings: TtsrSettings; issues: SettingsIssue[] } {
  const issues: SettingsIssue[] = [];
  if (raw === undefined) return { settings: base, issues };
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    return { settings: base, issues: [{ file, key: "ttsr", message: "expected an object; ignored" }] };
  }
  const settings: Record<string, unknown> = { ...base };
  const shape = TtsrSettingsSchema.shape as Record<string, z.ZodType>;
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    // Settings are data: `constructor`, `toString` or `__proto__` are unknown keys, never prototype members.
    const field = Object.hasOwn(shape, key) ? shape[key] : undefined;
    if (!field) {
      issues.push({ file, key: `ttsr.${key}`, message: `unknown setting (known: ${Object.keys(shape).join(", ")})` });
      continue;
    }
    let input = value;
    if (key === "disabledRules" && Array.isArray(value)) {
      // One bad entry disables only itself: the names around it still apply.
      value.forEach((entry, i) => {
        if (typeof entry !== "string")
          issues.push({
            file,
            key: `ttsr.disabledRules[${i}]`,
            message: `expected a rule name, got ${JSON.stringify(entry)}; ignored`,
          });
      });
      input = value.filter((entry) => typeof entry === "string");
    }
    const result = field.safeParse(input);
    if (result.success) settings[key] = result.data;
    else {
      const message = result.error.issues[0]?.message ?? "invalid value";
      issues.push({ file, key: `ttsr.${key}`, message: `${message} (got ${JSON.stringify(value)}); ignored` });
    }
  }
  return { settings: settings as TtsrSettings, issues };
}
