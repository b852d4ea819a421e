import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  cacheDirFromEnv,
  loadSettings,
  piSettingsFiles,
  resolveAgentDir,
  type SettingsIssue,
  type SettingsSpec,
} from "@pi-rails/agent-core/kit";
import { DEFAULT_TTSR_SETTINGS } from "./defaults.ts";
import type { TtsrSettings } from "./schema.ts";

/**
 * Where pi-ttsr keeps what it computed for earlier sessions (compiled rule sets, the shipped rules' parses):
 * `PI_TTSR_CACHE_DIR` (`off`: nowhere), else `<agent dir>/cache/pi-ttsr`.
 */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return cacheDirFromEnv("PI_TTSR_CACHE_DIR", join(resolveAgentDir(env), "cache", "pi-ttsr"), env);
}

/** The `ttsr` key of pi's settings files; zod is loaded only when a file has the key. */
export const TTSR_SETTINGS: SettingsSpec<TtsrSettings> = {
  section: "ttsr",
  defaults: DEFAULT_TTSR_SETTINGS,
  fields: async () => (await import("./schema.ts")).TtsrSettingsSchema.shape,
};

export interface ReadTtsrSettingsOptions {
  /**
   * pi's project trust (`ctx.isProjectTrusted()` in a session). pi 1.6 loads no project settings in a project it
   * does not trust, and neither does pi-ttsr: a folder must not switch TTSR off or turn rules off for its own
   * files. Default `true` (the CLI reads what it is pointed at).
   */
  projectTrusted?: boolean;
}

/** Said (with the project file and `ttsr`) when an untrusted project's settings have a `ttsr` key. */
export const UNTRUSTED_PROJECT_MESSAGE =
  "ignored: pi does not trust this project (trust it with /trust, or --approve for one run)";

/**
 * Reads `ttsr` from pi's user then project settings (the kit's rule for bad keys). In a project pi does not trust,
 * the project file is left out; if it has a `ttsr` key, one issue says it was ignored. Never throws.
 */
export async function readTtsrSettings(cwd: string, agentDir: string, options: ReadTtsrSettingsOptions = {}) {
  const [userFile, projectFile] = piSettingsFiles(cwd, agentDir) as [string, string];
  if (options.projectTrusted ?? true) return loadSettings(TTSR_SETTINGS, [userFile, projectFile]);
  const loaded = await loadSettings(TTSR_SETTINGS, [userFile]);
  if (!hasTtsrKey(projectFile)) return loaded;
  const ignored: SettingsIssue = { file: projectFile, key: TTSR_SETTINGS.section, message: UNTRUSTED_PROJECT_MESSAGE };
  return { ...loaded, issues: [...loaded.issues, ignored] };
}

/** Whether a settings file is a JSON object with a `ttsr` key (an unreadable or missing file has none). */
function hasTtsrKey(file: string): boolean {
  try {
    const json: unknown = JSON.parse(readFileSync(file, "utf8"));
    return json !== null && typeof json === "object" && !Array.isArray(json) && Object.hasOwn(json, "ttsr");
  } catch {
    return false;
  }
}
