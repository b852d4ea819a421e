import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { RuleWarning } from "../rule.ts";
import { DEFAULT_SETTINGS } from "./defaults.ts";
import type { RulebookSettings } from "./schema.ts";

export interface SettingsFiles {
  user: string;
  project: string;
}

/** pi's two settings files: `<agentDir>/settings.json` and `<cwd>/.pi/settings.json`. */
export function settingsFiles(cwd: string, agentDir: string): SettingsFiles {
  return { user: join(agentDir, "settings.json"), project: join(cwd, ".pi", "settings.json") };
}

/**
 * Read the `rulebook` key from pi's user and project settings; project keys override user keys.
 * Missing files are fine; unreadable JSON and bad values become errors naming the file and key.
 */
export async function readRulebookSettings(
  cwd: string,
  agentDir: string,
): Promise<{ settings: RulebookSettings; errors: RuleWarning[]; files: SettingsFiles; ttsrDisabledRules: string[] }> {
  const files = settingsFiles(cwd, agentDir);
  const errors: RuleWarning[] = [];
  let merged: RulebookSettings = { ...DEFAULT_SETTINGS };
  let ttsrDisabledRules: string[] = [];
  for (const file of [files.user, files.project]) {
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
        errors.push({
          path: file,
          kind: "settings",
          message: `${file}: cannot read settings: ${(error as Error).message}`,
        });
      }
      continue;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      errors.push({
        path: file,
        kind: "settings",
        message: `${file}: not valid JSON (${(error as Error).message}); rulebook settings ignored`,
      });
      continue;
    }
    if (json === null || typeof json !== "object" || Array.isArray(json)) continue;
    ttsrDisabledRules = readTtsrDisabledRules(json) ?? ttsrDisabledRules;
    const raw = Object.hasOwn(json, "rulebook") ? (json as Record<string, unknown>)["rulebook"] : undefined;
    if (raw === undefined) continue;
    // The schema (zod) is loaded only when there is something to validate: most sessions never pay for it.
    const { parsePartialRulebookSettings } = await import("./schema.ts");
    const { settings, errors: keyErrors } = parsePartialRulebookSettings(raw, file);
    errors.push(...keyErrors);
    merged = { ...merged, ...settings };
  }
  return { settings: merged, errors, files, ttsrDisabledRules };
}

/**
 * `ttsr.disabledRules` of one settings file (the reference's key, oh-my-pi's `settings.ttsr.disabledRules`): those
 * names leave every bucket, not only TTSR registration. Read as data, string entries only; pi-ttsr validates the
 * key and names a bad entry. `undefined` when the file does not set it (a project file overrides the user's).
 */
export function readTtsrDisabledRules(json: object): string[] | undefined {
  const ttsr = Object.hasOwn(json, "ttsr") ? (json as Record<string, unknown>)["ttsr"] : undefined;
  if (ttsr === null || typeof ttsr !== "object" || Array.isArray(ttsr) || !Object.hasOwn(ttsr, "disabledRules"))
    return undefined;
  const list = (ttsr as Record<string, unknown>)["disabledRules"];
  if (!Array.isArray(list)) return undefined;
  return list
    .filter((n): n is string => typeof n === "string")
    .map((n) => n.trim())
    .filter((n) => n.length > 0);
}
