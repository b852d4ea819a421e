import type { Rule } from "../rule.ts";

export type ResolveResult = { ok: true; rule: Rule } | { ok: false; error: string };

/** `rule://name` or `name` to the bare name (trimmed). */
export function ruleNameFromRef(ref: string): string {
  const trimmed = ref.trim();
  return trimmed.startsWith("rule://") ? trimmed.slice("rule://".length) : trimmed;
}

/**
 * Resolve what the model asked for to one of the readable rules: exact name only, no paths, no
 * prefixes, nothing outside the loaded rules. An unknown name lists the available ones.
 */
export function resolveRule(ref: string, readable: readonly Rule[]): ResolveResult {
  const name = ruleNameFromRef(ref);
  const rule = readable.find((r) => r.name === name);
  if (rule) return { ok: true, rule };
  const available = readable.map((r) => r.name);
  return {
    ok: false,
    error: `Unknown rule "${name}". Available rules: ${available.length ? available.join(", ") : "(none)"}`,
  };
}
