import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { z } from "zod";

/** Settings key `cacheTtl` in pi's settings files. Unknown keys are errors, so a typo never silently does nothing. */
export const CacheTtlSettingsSchema = z
  .object({
    enabled: z.boolean().default(true),
    /** Provider prompt-cache TTL in seconds (Anthropic's default is 5 minutes). */
    ttlSeconds: z.number().positive().default(300),
    /** Safety margin: treat the cache as expired this many seconds early. */
    bufferSeconds: z.number().min(0).default(10),
  })
  .strict();

export type CacheTtlSettings = z.infer<typeof CacheTtlSettingsSchema>;

export interface SettingsProblem {
  file: string;
  key: string;
  message: string;
}

/** Read `cacheTtl` from the user then the project settings file (project wins); problems are returned, not thrown. */
export function loadCacheTtlSettings(
  cwd: string,
  agentDir = defaultAgentDir(),
): {
  settings: CacheTtlSettings;
  problems: SettingsProblem[];
} {
  const problems: SettingsProblem[] = [];
  let merged: Record<string, unknown> = {};
  for (const file of [join(agentDir, "settings.json"), join(cwd, ".pi", "settings.json")]) {
    if (!existsSync(file)) continue;
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, "utf8"));
    } catch (error) {
      problems.push({ file, key: "", message: `not valid JSON: ${(error as Error).message}` });
      continue;
    }
    const section = (raw as Record<string, unknown> | null)?.cacheTtl;
    if (section === undefined) continue;
    if (typeof section !== "object" || section === null || Array.isArray(section)) {
      problems.push({ file, key: "cacheTtl", message: "must be an object" });
      continue;
    }
    const candidate = { ...merged, ...section };
    const parsed = CacheTtlSettingsSchema.safeParse(candidate);
    if (parsed.success) {
      merged = candidate;
      continue;
    }
    for (const issue of parsed.error.issues) {
      const keys = issue.code === "unrecognized_keys" ? issue.keys : [issue.path.join(".")];
      for (const key of keys) problems.push({ file, key: `cacheTtl.${key}`, message: issue.message });
    }
  }
  return { settings: CacheTtlSettingsSchema.parse(merged), problems };
}

function defaultAgentDir(): string {
  return process.env.PI_CODING_AGENT_DIR ?? join(homedir(), ".pi", "agent");
}
