import type { Rule, ShadowedRule } from "../rule.ts";

/**
 * Deduplicate by name, first wins. `candidates` must already be in precedence order; every loser is
 * kept with the rule that shadowed it, so `rulebook doctor` can say why it is not in effect.
 */
export function dedupeByName(candidates: readonly Rule[]): { rules: Rule[]; shadowed: ShadowedRule[] } {
  const winners = new Map<string, Rule>();
  const rules: Rule[] = [];
  const shadowed: ShadowedRule[] = [];
  for (const rule of candidates) {
    const by = winners.get(rule.name);
    if (by) {
      shadowed.push({ rule, by });
      continue;
    }
    winners.set(rule.name, rule);
    rules.push(rule);
  }
  return { rules, shadowed };
}
