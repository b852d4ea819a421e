import type { RulebookSettings } from "./schema.ts";

/**
 * The defaults without zod: a session whose settings files have no `rulebook` key never loads the schema (zod
 * costs about 60 ms of start-up), see `readRulebookSettings`. A test holds this object equal to
 * `RulebookSettingsSchema.parse({})`.
 */
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
