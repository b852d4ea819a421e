import type { Plan } from "../plan/plan.ts";

/**
 * `n.toLocaleString("en-US")` for a whole number (`12,345`), without Intl: its first use in a process loads ICU's
 * number formats, about 5-8 ms of the first pruning request. Anything else still goes to Intl.
 */
export function groupThousands(n: number): string {
  if (!Number.isSafeInteger(n) || Object.is(n, -0)) return n.toLocaleString("en-US");
  const digits = String(Math.abs(n));
  let out = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return n < 0 ? `-${out}` : out;
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * The text of the `cache-ttl:pruned` notice: what was pruned, why, about how many tokens it saves, and how to get
 * an original back. Persisted verbatim, so later requests repeat it byte for byte.
 */
export function noticeText(plan: Plan, ttlSeconds: number, idleSeconds: number): string {
  const parts: string[] = [];
  if (plan.counts.tool)
    parts.push(plural(plan.counts.tool, "tool call with its result", "tool calls with their results"));
  if (plan.counts.text) parts.push(plural(plan.counts.text, "message", "messages"));
  if (plan.counts.image) parts.push(plural(plan.counts.image, "image", "images"));
  const example = plan.ids[0] ?? "";
  return (
    `[SYSTEM MESSAGE] Context was pruned because the prompt cache TTL (${ttlSeconds}s) was exceeded ` +
    `(idle ${idleSeconds}s). Replaced by short [TRUNCATED] / [TRUNCATED FILE] texts: ${parts.join(", ")} ` +
    `(about ${groupThousands(plan.savedTokens)} tokens less per request). The originals are kept in the ` +
    `session: call context_restore with the ids shown in those texts, e.g. {"ids":["${example}"]}, to see them ` +
    "again (they are appended at the end of the conversation)."
  );
}
