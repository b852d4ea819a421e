import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { type CliIo, formatSettingsIssue, resolveAgentDir, UsageError } from "@pi-rails/agent-core/kit";
import { buildRegistry } from "../manager/build-registry.ts";
import type { RuleRegistry } from "../manager/registry.ts";
import { loadTtsrRules } from "../rules/load.ts";
import { formatIssue } from "../rules/types.ts";
import { readTtsrSettings } from "../settings/read.ts";
import type { TtsrSettings } from "../settings/schema.ts";

export interface CliRules {
  registry: RuleRegistry;
  settings: TtsrSettings;
  warnings: string[];
  dropped: Array<{ name: string; path: string; reason: string }>;
  /** Rules not loaded because of a problem (each is also one of `warnings`, which `ttsr list` does not repeat). */
  skipped: Array<{ name: string; path: string; reason: string }>;
  /** `warnings` without the ones about rules in `skipped`. */
  otherWarnings: string[];
  cwd: string;
  /** The settings file that set `ttsr.enabled`, when one did. */
  enabledFrom?: string;
}

/** Loads what a session in `cwd` would load (or only `ruleFiles`), with every warning as text. */
export async function loadCliRules(io: CliIo, options: { cwd?: string; ruleFiles?: string[] }): Promise<CliRules> {
  const cwd = resolve(io.cwd, options.cwd ?? ".");
  const info = await stat(cwd).catch(() => undefined);
  if (!info) throw new UsageError(`--cwd ${options.cwd ?? "."}: no such directory (${cwd})`);
  if (!info.isDirectory()) throw new UsageError(`--cwd ${options.cwd ?? "."}: not a directory (${cwd})`);
  const agentDir = resolveAgentDir(io.env);
  const { settings, issues, from } = await readTtsrSettings(cwd, agentDir);
  const loaded = await loadTtsrRules({
    cwd,
    agentDir,
    settings,
    ...(options.ruleFiles ? { ruleFiles: options.ruleFiles.map((f) => resolve(io.cwd, f)) } : {}),
  });
  const { registry, issues: buildIssues } = buildRegistry(loaded.rules);
  const ruleIssues = [...loaded.issues, ...buildIssues, ...registry.issues];
  const warnings = [...new Set([...issues.map(formatSettingsIssue), ...ruleIssues.map(formatIssue)])];
  const notLoaded = new Set(ruleIssues.filter((i) => i.notLoaded).map(formatIssue));
  // A rule suspended while `test` / `scan` match (native work over its CPU-time budget) is warned about too.
  registry.onIssue((issue) => warnings.push(formatIssue(issue)));
  return {
    registry,
    settings,
    warnings,
    dropped: loaded.dropped,
    skipped: [...loaded.skipped, ...registry.skipped],
    otherWarnings: warnings.filter((w) => !notLoaded.has(w)),
    cwd,
    ...(from.enabled ? { enabledFrom: from.enabled } : {}),
  };
}
