import type { RulebookSettings } from "./schema.ts";

/**
 * The defaults and provider ids without zod: a session whose settings files have no `rulebook` key never loads
 * the schema (zod costs about 60 ms of start-up), see `readRulebookSettings`.
 */

/** Provider ids a user can disable. */
export const PROVIDER_IDS = ["native", "extra", "cursor", "windsurf", "claude", "cline", "copilot"] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

export const DEFAULT_SETTINGS: RulebookSettings = {
  disabledRules: [],
  disabledProviders: [],
  extraDirs: [],
  globAttach: true,
  maxRuleChars: 20_000,
  attachBudgetChars: 16_384,
  maxListedChars: 30_000,
  allowedLinkRoots: [],
  loadClaudeMdBesideAgentsMd: false,
};
