import { parseSettingsSection, type SettingsIssue } from "@pi-rails/agent-core/kit";
import { z } from "zod";

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

/**
 * Validates one raw `ttsr` value under the kit's settings rule (a bad key is said and ignored, the rest kept) over
 * `base` (the defaults, or a lower-precedence file's values).
 */
export function parseTtsrSettings(
  raw: unknown,
  file: string,
  base: TtsrSettings = TtsrSettingsSchema.parse({}),
): { settings: TtsrSettings; issues: SettingsIssue[] } {
  const { values, issues } = parseSettingsSection(raw, file, "ttsr", TtsrSettingsSchema.shape);
  return { settings: { ...base, ...values }, issues };
}
