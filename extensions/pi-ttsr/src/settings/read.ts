import { join } from "node:path";
import {
  cacheDirFromEnv,
  loadPiSettings,
  type PiSettingsOptions,
  resolveAgentDir,
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

/**
 * Reads `ttsr` from pi's user then project settings (the kit's rule for bad keys). In a project pi does not trust
 * (`projectTrusted: false`) the project file is left out; if it has a `ttsr` key, one issue says it was ignored.
 */
export function readTtsrSettings(
  cwd: string,
  agentDir: string,
  options: Pick<PiSettingsOptions, "projectTrusted"> = {},
) {
  return loadPiSettings(TTSR_SETTINGS, cwd, agentDir, options);
}
