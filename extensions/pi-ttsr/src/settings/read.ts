import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { DEFAULT_TTSR_SETTINGS, type SettingsIssue } from "./defaults.ts";
import type { TtsrSettings } from "./schema.ts";

/** pi's agent dir: `PI_CODING_AGENT_DIR` or `~/.pi/agent` (same rule as pi's `getAgentDir`). */
export function defaultAgentDir(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env["PI_CODING_AGENT_DIR"];
  if (fromEnv) return fromEnv.startsWith("~/") ? join(homedir(), fromEnv.slice(2)) : fromEnv;
  return join(homedir(), ".pi", "agent");
}

/**
 * Where pi-ttsr keeps what it computed for earlier sessions (compiled rule sets, the shipped rules' parses):
 * `PI_TTSR_CACHE_DIR` (`off`: nowhere), else `<agent dir>/cache/pi-ttsr`.
 */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const fromEnv = env["PI_TTSR_CACHE_DIR"];
  if (fromEnv === "off") return undefined;
  if (fromEnv) return fromEnv;
  return join(defaultAgentDir(env), "cache", "pi-ttsr");
}

/** The settings files in precedence order (later wins): user, then project. */
export function ttsrSettingsFiles(cwd: string, agentDir: string): string[] {
  return [join(agentDir, "settings.json"), join(cwd, ".pi", "settings.json")];
}

/** Reads `ttsr` from pi's settings files. Never throws: unreadable JSON and bad keys become issues. */
export async function readTtsrSettings(
  cwd: string,
  agentDir: string,
): Promise<{ settings: TtsrSettings; issues: SettingsIssue[]; from: Partial<Record<keyof TtsrSettings, string>> }> {
  let settings = DEFAULT_TTSR_SETTINGS;
  const issues: SettingsIssue[] = [];
  /** The file each key's value came from (a key left at its default is absent): to say where a switch was set. */
  const from: Partial<Record<keyof TtsrSettings, string>> = {};
  for (const file of ttsrSettingsFiles(cwd, agentDir)) {
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch {
      continue;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      issues.push({ file, key: "ttsr", message: `settings file is not valid JSON (${(error as Error).message})` });
      continue;
    }
    const raw =
      json && typeof json === "object" && !Array.isArray(json) && Object.hasOwn(json, "ttsr")
        ? (json as Record<string, unknown>)["ttsr"]
        : undefined;
    if (raw === undefined) continue;
    // The schema (zod) is loaded only when there is something to validate: most sessions never pay for it.
    const { parseTtsrSettings } = await import("./schema.ts");
    const parsed = parseTtsrSettings(raw, file, settings);
    settings = parsed.settings;
    issues.push(...parsed.issues);
    if (raw && typeof raw === "object" && !Array.isArray(raw)) {
      for (const key of Object.keys(DEFAULT_TTSR_SETTINGS) as (keyof TtsrSettings)[]) {
        if (Object.hasOwn(raw, key) && !parsed.issues.some((i) => i.key === `ttsr.${key}`)) from[key] = file;
      }
    }
  }
  return { settings, issues, from };
}
