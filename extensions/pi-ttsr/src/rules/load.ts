import { readFile } from "node:fs/promises";
import { loadRules } from "@pi-rails/rulebook";
import type { TtsrSettings } from "../settings/schema.ts";
import { BUILTIN_PROVIDER, loadBuiltinRules, ruleFromText } from "./builtin.ts";
import { normalizeRule } from "./normalize.ts";
import type { RuleIssue, SourceRule, TtsrRule } from "./types.ts";

export interface LoadTtsrRulesOptions {
  cwd: string;
  agentDir: string;
  home?: string;
  settings: TtsrSettings;
  /** Test exactly these rule files instead of discovery (CLI `--rule`). */
  ruleFiles?: string[];
}

export interface LoadedRules {
  /** Normalized TTSR rules, in precedence order, builtins last. Not yet compiled (the manager does that). */
  rules: TtsrRule[];
  issues: RuleIssue[];
  /** Rules dropped by `ttsr.disabledRules` / `ttsr.builtinRules` or shadowed by a same-name rule. */
  dropped: Array<{ name: string; path: string; reason: string }>;
}

/**
 * Rule discovery for TTSR: rulebook's `loadRules` (every format, one parse per file, precedence by name)
 * plus the shipped rules, filtered by `disabledRules` / `builtinRules`, normalized to TTSR rules.
 */
export async function loadTtsrRules(options: LoadTtsrRulesOptions): Promise<LoadedRules> {
  const issues: RuleIssue[] = [];
  const dropped: LoadedRules["dropped"] = [];
  let sources: SourceRule[] = [];
  if (options.ruleFiles) {
    for (const path of options.ruleFiles) {
      let text: string;
      try {
        text = await readFile(path, "utf8");
      } catch (error) {
        issues.push({ path, message: `cannot read rule file: ${(error as Error).message}` });
        continue;
      }
      const parsed = ruleFromText(path, text, "file");
      sources.push(parsed.rule);
      issues.push(...parsed.issues);
    }
  } else {
    try {
      const result = await loadRules({
        cwd: options.cwd,
        agentDir: options.agentDir,
        ...(options.home ? { home: options.home } : {}),
      });
      sources = result.rules;
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
  const disabled = new Set(options.settings.disabledRules);
  const rules: TtsrRule[] = [];
  for (const source of sources) {
    if (disabled.has(source.name) && !options.ruleFiles) {
      dropped.push({ name: source.name, path: source.path, reason: "listed in ttsr.disabledRules" });
      continue;
    }
    const normalized = normalizeRule(source, { builtin: source.source.provider === BUILTIN_PROVIDER });
    issues.push(...normalized.issues);
    if (normalized.rule) rules.push(normalized.rule);
  }
  return { rules, issues, dropped };
}

function hasCondition(rule: SourceRule): boolean {
  return (rule.condition?.length ?? 0) > 0 || rule.meta["trigger"] !== undefined;
}
