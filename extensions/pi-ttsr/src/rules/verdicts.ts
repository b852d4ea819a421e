import type { Rule } from "@pi-rails/rulebook/discovery";
import { buildRegistry } from "../manager/build-registry.ts";
import { normalizeRule } from "./normalize.ts";
import type { TtsrRule } from "./types.ts";

/**
 * Why pi-ttsr would not watch each of these rules, by name: what a session's loader and registry would skip them
 * for (a condition none of which can be used, a pattern the compiler refuses, a scope that reaches no stream), in
 * the same words. `rulebook doctor` asks this of the pi-ttsr installed next to it, so the CLI gives the answer a
 * session acts on. Rules without a stream condition are not pi-ttsr's and never in the result.
 */
export function streamRuleProblems(rules: readonly Rule[]): Map<string, string> {
  const problems = new Map<string, string>();
  const normalized: TtsrRule[] = [];
  for (const rule of rules) {
    try {
      const result = normalizeRule(rule);
      if (result.skipped) problems.set(rule.name, result.skipped.reason);
      else if (result.rule) normalized.push(result.rule);
    } catch (error) {
      problems.set(rule.name, `it could not be read (${(error as Error).message})`);
    }
  }
  const { registry, issues } = buildRegistry(normalized);
  for (const skipped of registry.skipped) problems.set(skipped.name, skipped.reason);
  for (const issue of issues) if (issue.rule) problems.set(issue.rule, issue.message);
  return problems;
}
