import type { TtsrSettings } from "./schema.ts";

/**
 * The defaults without zod: a session whose settings files have no `ttsr` key never loads the schema (zod costs
 * about 60 ms of start-up), see `readTtsrSettings`. A test holds this object equal to `TtsrSettingsSchema.parse({})`.
 */
export const DEFAULT_TTSR_SETTINGS: TtsrSettings = {
  enabled: true,
  contextMode: "discard",
  interruptMode: "always",
  repeatMode: "once",
  repeatGap: 10,
  builtinRules: true,
  disabledRules: [],
};
