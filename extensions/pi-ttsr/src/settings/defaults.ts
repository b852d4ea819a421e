import type { TtsrSettings } from "./schema.ts";

/**
 * The defaults and the issue shape without zod: a session whose settings files have no `ttsr` key never loads
 * the schema (zod costs about 60 ms of start-up), see `readTtsrSettings`. A test holds this object equal to
 * `TtsrSettingsSchema.parse({})`.
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

/** A bad settings value: the file and the key (`ttsr.repeatGap`) it was found at. */
export interface SettingsIssue {
  file: string;
  key: string;
  message: string;
}

export function formatSettingsIssue(issue: SettingsIssue): string {
  return `${issue.file}: ${issue.key}: ${issue.message}`;
}
