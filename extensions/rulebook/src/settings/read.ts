import { loadSettings, piSettingsFiles, type SettingsSpec } from "@pi-rails/agent-core/kit";
import { settingsWarning } from "../report/messages.ts";
import type { RuleWarning } from "../rule.ts";
import { DEFAULT_SETTINGS } from "./defaults.ts";
import type { RulebookSettings } from "./schema.ts";

/** The `rulebook` key of pi's settings files; zod is loaded only when a file has the key. */
export const RULEBOOK_SETTINGS: SettingsSpec<RulebookSettings> = {
  section: "rulebook",
  defaults: DEFAULT_SETTINGS,
  fields: async () => (await import("./schema.ts")).RulebookSettingsSchema.shape,
};

/**
 * Read the `rulebook` key from pi's user and project settings; project keys override user keys (the kit's rule
 * for bad keys). Missing files are fine; unreadable JSON and bad values become errors naming the file and key.
 */
export async function readRulebookSettings(
  cwd: string,
  agentDir: string,
): Promise<{ settings: RulebookSettings; errors: RuleWarning[]; ttsrDisabledRules: string[] }> {
  const loaded = await loadSettings(RULEBOOK_SETTINGS, piSettingsFiles(cwd, agentDir));
  let ttsrDisabledRules: string[] = [];
  for (const { json } of loaded.documents) ttsrDisabledRules = readTtsrDisabledRules(json) ?? ttsrDisabledRules;
  return { settings: loaded.settings, errors: loaded.issues.map(settingsWarning), ttsrDisabledRules };
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
