import { z } from "zod";
import type { RuleWarning } from "../rule.ts";

import { DEFAULT_SETTINGS, PROVIDER_IDS } from "./defaults.ts";

export { DEFAULT_SETTINGS, PROVIDER_IDS, type ProviderId } from "./defaults.ts";

const fields = {
  /** Rule names never loaded (every provider, every copy of the name). */
  disabledRules: z.array(z.string().min(1)),
  /** Providers not scanned at all. */
  disabledProviders: z.array(z.enum(PROVIDER_IDS)),
  /** More folders of pi-format rules (`*.md`, `*.mdc`), `~/` expanded, relative to cwd. Priority 100, after native. */
  extraDirs: z.array(z.string().min(1)),
  /** Attach a rule's content to a read/edit/write result whose file matches the rule's globs (once per session). */
  globAttach: z.boolean(),
  /** Characters kept per rule; longer rules are truncated with a note. */
  maxRuleChars: z.number().int().min(100),
  /** Characters of rule content auto-attached to one tool result; matching rules beyond it are only named. */
  attachBudgetChars: z.number().int().min(0),
  /** Characters of the system prompt's rule list (`# Rules`); entries beyond it are counted, not listed. */
  maxListedChars: z.number().int().min(1000),
  /**
   * Folders outside the project that rule files or folders may link to (symlinks). Links resolving
   * anywhere else are skipped with a warning naming link and target. `~/` expanded, relative to cwd.
   */
  allowedLinkRoots: z.array(z.string().min(1)),
  /** pi loads only the first of AGENTS.md / CLAUDE.md per folder: load a CLAUDE.md it skips as an always-apply rule. */
  loadClaudeMdBesideAgentsMd: z.boolean(),
};

/** The `rulebook` key of pi's settings.json. Unknown keys are errors, not silently ignored. */
export const RulebookSettingsSchema = z.object(fields).strict();
export type RulebookSettings = z.infer<typeof RulebookSettingsSchema>;

export type PartialRulebookSettings = Partial<RulebookSettings>;

/**
 * Validate raw settings key by key: a bad key is reported (naming `where` and the key) and left at
 * its default, the good keys still apply. Never throws.
 */
export function parsePartialRulebookSettings(
  raw: unknown,
  where: string,
): { settings: PartialRulebookSettings; errors: RuleWarning[] } {
  const errors: RuleWarning[] = [];
  const settings: Record<string, unknown> = {};
  if (raw === undefined || raw === null) return { settings, errors };
  if (typeof raw !== "object" || Array.isArray(raw)) {
    errors.push({
      path: where,
      key: "rulebook",
      kind: "settings",
      message: `${where}: "rulebook" must be an object, got ${typeName(raw)}`,
    });
    return { settings, errors };
  }
  const known = Object.keys(fields);
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    // Settings are data: `constructor`, `toString`, `__proto__` are keys like any other, never prototype members.
    const schema = Object.hasOwn(fields, key) ? (fields as Record<string, z.ZodType>)[key] : undefined;
    if (!schema) {
      errors.push({
        path: where,
        key: `rulebook.${key}`,
        kind: "settings",
        message: `${where}: unknown key "rulebook.${key}" (known keys: ${known.join(", ")})`,
      });
      continue;
    }
    const result = schema.safeParse(value);
    if (result.success) {
      settings[key] = result.data;
    } else {
      const issue = result.error.issues[0];
      const at = issue?.path.length ? `[${issue.path.join("][")}]` : "";
      errors.push({
        path: where,
        key: `rulebook.${key}`,
        kind: "settings",
        message: `${where}: "rulebook.${key}${at}": ${issue?.message ?? "invalid value"}; using the default`,
      });
    }
  }
  return { settings: settings as PartialRulebookSettings, errors };
}

/** Parse the `rulebook` settings value; defaults fill what is missing or invalid. */
export function parseRulebookSettings(
  raw: unknown,
  where: string,
): { settings: RulebookSettings; errors: RuleWarning[] } {
  const { settings, errors } = parsePartialRulebookSettings(raw, where);
  return { settings: { ...DEFAULT_SETTINGS, ...settings }, errors };
}

function typeName(value: unknown): string {
  return Array.isArray(value) ? "a list" : typeof value;
}
