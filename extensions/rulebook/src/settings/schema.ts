import { parseSettingsSection } from "@pi-rails/agent-core/kit";
import { z } from "zod";
import { settingsWarning } from "../report/messages.ts";
import type { RuleWarning } from "../rule.ts";

/** Provider ids a user can disable. */
export const PROVIDER_IDS = ["native", "extra", "cursor", "windsurf", "claude", "cline", "copilot"] as const;

/** The `rulebook` key of pi's settings.json. Unknown keys are errors, not silently ignored. */
export const RulebookSettingsSchema = z
  .object({
    /** Rule names never loaded (every provider, every copy of the name). */
    disabledRules: z.array(z.string().min(1)).default([]),
    /** Providers not scanned at all. */
    disabledProviders: z.array(z.enum(PROVIDER_IDS)).default([]),
    /** More folders of pi-format rules (`*.md`, `*.mdc`), `~/` expanded, relative to cwd. Priority 100, after native. */
    extraDirs: z.array(z.string().min(1)).default([]),
    /** Attach a rule's content to a read/edit/write result whose file matches the rule's globs (once per session). */
    globAttach: z.boolean().default(true),
    /** Characters kept per rule; longer rules are truncated with a note. */
    maxRuleChars: z.number().int().min(100).default(20_000),
    /** Characters of rule content auto-attached to one tool result; matching rules beyond it are only named. */
    attachBudgetChars: z.number().int().min(0).default(16_384),
    /** Characters of the system prompt's rule list (`# Rules`); entries beyond it are counted, not listed. */
    maxListedChars: z.number().int().min(1000).default(30_000),
    /**
     * Folders outside the project that rule files or folders may link to (symlinks). Links resolving
     * anywhere else are skipped with a warning naming link and target. `~/` expanded, relative to cwd.
     */
    allowedLinkRoots: z.array(z.string().min(1)).default([]),
    /** pi loads only the first of AGENTS.md / CLAUDE.md per folder: load a CLAUDE.md it skips as an always-apply rule. */
    loadClaudeMdBesideAgentsMd: z.boolean().default(false),
  })
  .strict();
export type RulebookSettings = z.infer<typeof RulebookSettingsSchema>;

/**
 * Validate one raw `rulebook` value under the kit's settings rule: a bad key is reported (naming `where` and the
 * key) and left at its default, the good keys still apply. Never throws.
 */
export function parseRulebookSettings(
  raw: unknown,
  where: string,
): { settings: RulebookSettings; issues: RuleWarning[] } {
  const { values, issues } = parseSettingsSection(raw, where, "rulebook", RulebookSettingsSchema.shape);
  return {
    settings: { ...RulebookSettingsSchema.parse({}), ...values } as RulebookSettings,
    issues: issues.map(settingsWarning),
  };
}
