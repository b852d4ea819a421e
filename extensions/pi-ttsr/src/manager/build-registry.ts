import type { RuleIssue, TtsrRule } from "../rules/types.ts";
import { type RegistryOptions, RuleRegistry } from "./registry.ts";

/**
 * Compiles the rules into one registry so that one bad rule disables only itself: if compiling the whole set
 * throws (a bug or a limit hit by one rule's pattern or glob), each rule is compiled alone to find the ones that
 * throw; they are skipped with an issue naming their file, and the others are compiled together.
 */
export function buildRegistry(
  rules: readonly TtsrRule[],
  options: RegistryOptions = {},
): { registry: RuleRegistry; issues: RuleIssue[] } {
  try {
    return { registry: new RuleRegistry(rules, options), issues: [] };
  } catch (whole) {
    const issues: RuleIssue[] = [];
    const kept: TtsrRule[] = [];
    for (const rule of rules) {
      try {
        new RuleRegistry([rule]);
        kept.push(rule);
      } catch (error) {
        issues.push({
          rule: rule.name,
          path: rule.path,
          key: rule.conditionKey,
          message: `rule skipped: compiling it failed (${(error as Error).message})`,
        });
      }
    }
    try {
      return { registry: new RuleRegistry(kept, options), issues };
    } catch (error) {
      issues.push({
        path: kept[0]?.path ?? "(rules)",
        message: `no rule could be compiled together (${(error as Error).message ?? String(whole)}); TTSR watches nothing`,
      });
      return { registry: new RuleRegistry([]), issues };
    }
  }
}
