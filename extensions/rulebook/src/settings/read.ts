import { loadPiSettings, type PiSettingsOptions, type SettingsSpec } from "@pi-rails/agent-core/kit";
import { settingsWarning } from "../report/messages.ts";
import type { RuleWarning } from "../rule.ts";
import { DEFAULT_SETTINGS } from "./defaults.ts";
import { piReportsSettingsIssue } from "./pi-reported.ts";
import type { RulebookSettings } from "./schema.ts";

/** The `rulebook` key of pi's settings files; zod is loaded only when a file has the key. */
export const RULEBOOK_SETTINGS: SettingsSpec<RulebookSettings> = {
  section: "rulebook",
  defaults: DEFAULT_SETTINGS,
  fields: async () => (await import("./schema.ts")).RulebookSettingsSchema.shape,
};

/**
 * Read the `rulebook` key from pi's user and project settings; project keys override user keys (the kit's rule
 * for bad keys). Missing files are fine; unreadable JSON and bad values become issues naming the file and key.
 * In a project pi does not trust (`projectTrusted: false`: `extraDirs` and `allowedLinkRoots` would let a folder
 * widen what reaches the prompt), the project file is not read; if it has a `rulebook` or `ttsr.disabledRules` key,
 * one warning says it was ignored.
 */
export async function readRulebookSettings(
  cwd: string,
  agentDir: string,
  options: Pick<PiSettingsOptions, "projectTrusted"> = {},
): Promise<{ settings: RulebookSettings; issues: RuleWarning[]; ttsrDisabledRules: string[] }> {
  const alsoReads = (json: object) => (readTtsrDisabledRules(json) === undefined ? [] : ["ttsr.disabledRules"]);
  const loaded = await loadPiSettings(RULEBOOK_SETTINGS, cwd, agentDir, { ...options, alsoReads });
  let ttsrDisabledRules: string[] = [];
  for (const { json } of loaded.documents) ttsrDisabledRules = readTtsrDisabledRules(json) ?? ttsrDisabledRules;
  // a file pi cannot load is pi's to report in a session (`kind: "settings-file"`); doctor still lists it
  const issues = loaded.issues.map((issue) => {
    const warning = settingsWarning(issue);
    return piReportsSettingsIssue(issue) ? { ...warning, kind: "settings-file" } : warning;
  });
  return { settings: loaded.settings, issues, ttsrDisabledRules };
}

/**
 * `ttsr.disabledRules` of one settings file (the reference's key, oh-my-pi's `settings.ttsr.disabledRules`): those
 * names leave every bucket, not only TTSR registration. Read as data, string entries only; pi-ttsr validates the
 * key and names a bad entry. `undefined` when the file does not set it (a project file overrides the user's).
 */
function readTtsrDisabledRules(json: object): string[] | undefined {
  const ttsr = Object.hasOwn(json, "ttsr") ? (json as { ttsr?: unknown }).ttsr : undefined;
  if (ttsr === null || typeof ttsr !== "object" || !Object.hasOwn(ttsr, "disabledRules")) return undefined;
  const list = (ttsr as { disabledRules?: unknown }).disabledRules;
  if (!Array.isArray(list)) return undefined;
  return list.flatMap((name) => (typeof name === "string" && name.trim() ? [name.trim()] : []));
}
