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
  const shownName = name.length > MAX_ECHOED_NAME ? `${name.slice(0, MAX_ECHOED_NAME - 3)}...` : name;
  return { ok: false, error: `Unknown rule "${shownName}". Available rules: ${listNames(readable)}` };
}

/** The unknown-name error lists names up to this many characters, then counts the rest. */
export const MAX_ERROR_NAMES_CHARS = 2000;
const MAX_ECHOED_NAME = 200;

function listNames(readable: readonly Rule[]): string {
  if (!readable.length) return "(none)";
  const shown: string[] = [];
  let size = 0;
  for (const r of readable) {
    if (size + r.name.length + 2 > MAX_ERROR_NAMES_CHARS) break;
    shown.push(r.name);
    size += r.name.length + 2;
  }
  const rest = readable.length - shown.length;
  return `${shown.join(", ")}${rest ? `, ... and ${rest} more (${readable.length} in all; names are listed in the system prompt)` : ""}`;
}
