import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { cacheDirFromEnv, homeDir } from "@pi-rails/agent-core/kit";
import { loadRules, skippedMessage } from "@pi-rails/rulebook/discovery";
import type { TtsrSettings } from "../settings/schema.ts";
import { BUILTIN_PROVIDER, loadBuiltinRules, ruleFromText } from "./builtin.ts";
import { isWindsurfActivation } from "./normalize.ts";
import { NormalizedStore, normalizedStoreFile } from "./normalized-store.ts";
import { rulePathForModel } from "./rule-path.ts";
import type { RuleIssue, SourceRule, TtsrRule } from "./types.ts";

export interface LoadTtsrRulesOptions {
  cwd: string;
  agentDir: string;
  home?: string;
  settings: TtsrSettings;
  /** Test exactly these rule files instead of discovery (CLI `--rule`). */
  ruleFiles?: string[];
  /**
   * pi's project trust (`ctx.isProjectTrusted()`): `false` leaves the project's settings file out of rulebook's
   * discovery settings too (`rulebook.extraDirs`, `rulebook.disabledRules`), as pi does. Default `true`.
   */
  projectTrusted?: boolean;
  /**
   * Where normalized rules are kept across sessions (normalized-store.ts); `false`: nowhere. Default:
   * `PI_TTSR_CACHE_DIR` (`off`: nowhere), else `<agentDir>/cache/pi-ttsr`, as the compiled patterns.
   */
  cacheDir?: string | false;
}

export interface LoadedRules {
  /** Normalized TTSR rules, in precedence order, builtins last. Not yet compiled (the manager does that). */
  rules: TtsrRule[];
  issues: RuleIssue[];
  /** Rules dropped by `ttsr.disabledRules` / `ttsr.builtinRules` or shadowed by a same-name rule. */
  dropped: Array<{ name: string; path: string; reason: string }>;
  /** Rules with stream conditions none of which can be used (each also has one `notLoaded` issue). */
  skipped: Array<{ name: string; path: string; reason: string }>;
}

/**
 * Rule discovery for TTSR: rulebook's `loadRules` (every format, one parse per file, precedence by name)
 * plus the shipped rules, filtered by `disabledRules` / `builtinRules`, normalized to TTSR rules.
 */
export async function loadTtsrRules(options: LoadTtsrRulesOptions): Promise<LoadedRules> {
  const issues: RuleIssue[] = [];
  const dropped: LoadedRules["dropped"] = [];
  const skipped: LoadedRules["skipped"] = [];
  let sources: SourceRule[] = [];
  // `ttsr.disabledRules` and `rulebook.disabledRules` (rulebook drops both from discovery and reports the names)
  const disabledNames = new Set(options.settings.disabledRules.map((n) => n.trim()).filter(Boolean));
  if (options.ruleFiles) {
    for (const path of options.ruleFiles) {
      const text = await readFile(path, "utf8").catch((error: Error) => {
        issues.push({ path, message: `cannot read rule file: ${error.message}` });
      });
      if (typeof text !== "string") continue;
      const parsed = ruleFromText(path, text, "file");
      if (parsed.rule) sources.push(parsed.rule);
      issues.push(...parsed.issues);
    }
  } else {
    try {
      const result = await loadRules({
        cwd: options.cwd,
        agentDir: options.agentDir,
        ...(options.home ? { home: options.home } : {}),
        ...(options.projectTrusted === undefined ? {} : { projectTrusted: options.projectTrusted }),
        // validated and trimmed here; rulebook drops these names from discovery as it does its own list
        ttsrDisabledRules: options.settings.disabledRules,
      });
      sources = result.rules;
      for (const name of result.disabledRules ?? []) disabledNames.add(name);
      // A file rulebook skipped (over a parse limit, unreadable, binary, a symlink out of bounds) may have been a
      // TTSR rule: it is named with its reason, and its siblings load. A rule the settings turn off is not a
      // problem: it is listed as not loaded (`ttsr list`), never warned about.
      for (const skipped of result.skipped) {
        if (skipped.kind === "not-a-rule") continue;
        if (skipped.kind === "disabled") {
          dropped.push({ name: skipped.rule ?? "", path: skipped.path, reason: skipped.reason });
          continue;
        }
        // rulebook's wording, so a session with both extensions names the file one way.
        issues.push({ path: skipped.path, message: skippedMessage(skipped) });
      }
      for (const w of result.warnings) {
        if (w.path && sources.some((r) => r.path === w.path && hasCondition(r))) {
          issues.push({ path: w.path, ...(w.key ? { key: w.key } : {}), message: w.message });
        }
      }
    } catch (error) {
      issues.push({ path: options.cwd, message: `rule discovery failed: ${(error as Error).message}` });
    }
    if (options.settings.builtinRules) {
      const builtin = await loadBuiltinRules();
      issues.push(...builtin.issues);
      const taken = new Set(sources.map((r) => r.name));
      for (const rule of builtin.rules) {
        if (taken.has(rule.name)) dropped.push({ name: rule.name, path: rule.path, reason: "shadowed by a user rule" });
        else sources.push(rule);
      }
    }
  }
  const base = { cwd: options.cwd, home: options.home ?? homeDir() };
  const rules: TtsrRule[] = [];
  const cacheDir =
    options.cacheDir === undefined
      ? cacheDirFromEnv("PI_TTSR_CACHE_DIR", join(options.agentDir, "cache", "pi-ttsr"))
      : options.cacheDir || undefined;
  const store = new NormalizedStore(cacheDir ? normalizedStoreFile(cacheDir, options.cwd) : undefined);
  for (const source of sources) {
    if (disabledNames.has(source.name) && !options.ruleFiles) {
      const key = options.settings.disabledRules.includes(source.name) ? "ttsr" : "rulebook";
      const reason = `disabled by ${key}.disabledRules ("${source.name}")`;
      dropped.push({ name: source.name, path: source.path, reason });
      continue;
    }
    // One bad rule disables only itself: whatever it throws is reported with its file.
    try {
      const normalized = store.normalize(source, source.source.provider === BUILTIN_PROVIDER);
      issues.push(...normalized.issues);
      if (normalized.skipped) {
        const { reason, key } = normalized.skipped;
        skipped.push({ name: source.name, path: source.path, reason });
        issues.push(notLoadedIssue(source, reason, key));
      }
      // a copy: the store writes the result as normalized (`save`)
      if (normalized.rule) rules.push({ ...normalized.rule, displayPath: rulePathForModel(normalized.rule, base) });
    } catch (error) {
      issues.push({
        rule: source.name,
        path: source.path,
        message: `rule skipped: it could not be read (${(error as Error).message})`,
      });
    }
  }
  store.save();
  return { rules, issues, dropped, skipped };
}

/** The one warning for a rule that is not loaded: `<path> (<key>): not loaded: <reason>`. */
export function notLoadedIssue(rule: { name: string; path: string }, reason: string, key?: string): RuleIssue {
  return {
    rule: rule.name,
    path: rule.path,
    ...(key ? { key } : {}),
    message: `not loaded: ${reason}`,
    notLoaded: true,
  };
}

function hasCondition(rule: SourceRule): boolean {
  const meta = rule.meta ?? {};
  if (isWindsurfActivation(meta)) return false;
  return (rule.condition?.length ?? 0) > 0 || Object.hasOwn(meta, "trigger");
}
