/**
 * What interrupts cost. An aborted request has been billed (Anthropic even reports `message_start` usage, with the
 * cache write, for exactly this case), so every interrupt pi-ttsr causes has a price. The patched loop hands the
 * aborted attempt's pi-ai `Usage` on `stream_abort` as `usage`; stock pi and older patches do not, and then this
 * says nothing rather than "0 tokens". Pure functions: the extension only feeds events in and shows the text.
 */
import { defineSessionEntry, type TtsrCostPayload } from "@pi-rails/agent-core/kit";

/** The part of pi-ai's `Usage` an aborted attempt reports, read defensively. */
export interface AttemptUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** pi-ai's `totalTokens`, or the sum of the four counts when the provider left it 0 or out. */
  totalTokens: number;
  /** `cost.total` in dollars, when pi knows the model's prices and it is not 0 (absent otherwise, never guessed). */
  cost?: number;
}

/** A session's running total: what `pi-rails:ttsr:cost` carries (the kit's contracts), less the text. */
export type InterruptCostTally = Omit<TtsrCostPayload, "text">;

export const EMPTY_TALLY: InterruptCostTally = Object.freeze({
  interrupts: 0,
  withUsage: 0,
  tokens: 0,
  cacheWrite: 0,
  cost: 0,
  costKnown: false,
});

const count = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;

/**
 * The `usage` of a `stream_abort` event (or of a persisted entry), or `undefined` when it is absent or not a usage:
 * stock pi, a patch from before the field, a provider that reported nothing. A field that is not a non-negative
 * number counts as 0; a usage with no token count at all is no usage.
 */
export function readAttemptUsage(value: unknown): AttemptUsage | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const u = value as Record<string, unknown>;
  const parts = [count(u["input"]), count(u["output"]), count(u["cacheRead"]), count(u["cacheWrite"])];
  const total = count(u["totalTokens"]);
  if (total === undefined && parts.every((p) => p === undefined)) return undefined;
  const [input = 0, output = 0, cacheRead = 0, cacheWrite = 0] = parts;
  const sum = input + output + cacheRead + cacheWrite;
  // pi-ai starts every message at zero usage and fills it from the provider's usage event: an attempt aborted
  // before that event (chat-completions sends usage last) reports zeros, which means "unknown", not "free"
  if (sum === 0 && !total) return undefined;
  // pi-ai's `cost: { ..., total }`, or the plain number this module persists (`AttemptUsage.cost`)
  const costValue = u["cost"];
  const cost = count(typeof costValue === "object" ? (costValue as { total?: unknown } | null)?.total : costValue);
  return {
    input,
    output,
    cacheRead,
    cacheWrite,
    totalTokens: total !== undefined && total > 0 ? total : sum,
    // a model without prices (a local or custom model) reports 0: no money to show, so none is said
    ...(cost !== undefined && cost > 0 ? { cost } : {}),
  };
}

/**
 * `ttsr:interrupt-cost` (earlier `ttsr-interrupt-cost`): the usage of one aborted attempt, so a resumed session keeps
 * counting from its total.
 */
export const COST_ENTRY = defineSessionEntry<{ usage: AttemptUsage }>(
  "ttsr:interrupt-cost",
  (data) => {
    const usage = readAttemptUsage((data as { usage?: unknown } | undefined)?.usage);
    return usage ? { usage } : undefined;
  },
  { formerly: ["ttsr-interrupt-cost"] },
);

/** The tally after one more interrupt (`usage` undefined: it reported none). */
export function addInterrupt(tally: InterruptCostTally, usage: AttemptUsage | undefined): InterruptCostTally {
  if (!usage) return { ...tally, interrupts: tally.interrupts + 1 };
  return {
    interrupts: tally.interrupts + 1,
    withUsage: tally.withUsage + 1,
    tokens: tally.tokens + usage.totalTokens,
    cacheWrite: tally.cacheWrite + usage.cacheWrite,
    cost: tally.cost + (usage.cost ?? 0),
    costKnown: tally.costKnown || usage.cost !== undefined,
  };
}

/** Dollars as a person reads them: cents from a cent up, else four decimals ($0.0031). */
export function formatDollars(dollars: number): string {
  return dollars >= 0.01 || dollars === 0 ? `$${dollars.toFixed(2)}` : `$${dollars.toFixed(4)}`;
}

/**
 * "interrupts cost 1,234 tokens this session ($0.0123)", or `undefined` when no interrupt reported usage (nothing
 * is known: say nothing rather than 0). When only some did, says so: the total is then a lower bound.
 */
export function interruptCostText(tally: InterruptCostTally): string | undefined {
  if (tally.withUsage === 0) return undefined;
  const money = tally.costKnown ? ` (${formatDollars(tally.cost)})` : "";
  const partial =
    tally.withUsage < tally.interrupts ? `; ${tally.withUsage} of ${tally.interrupts} interrupts reported usage` : "";
  return `interrupts cost ${tally.tokens.toLocaleString("en-US")} tokens this session${money}${partial}`;
}

/** The `pi-rails:ttsr:cost` payload of a tally, or `undefined` when no interrupt reported usage (nothing to say). */
export function interruptCostPayload(tally: InterruptCostTally): TtsrCostPayload | undefined {
  const text = interruptCostText(tally);
  return text === undefined ? undefined : { ...tally, text };
}

/** The short form for pi's footer status line: "TTSR interrupts: 1,234 tok ($0.01)". */
export function interruptCostStatus(tally: InterruptCostTally): string | undefined {
  if (tally.withUsage === 0) return undefined;
  const money = tally.costKnown ? ` (${formatDollars(tally.cost)})` : "";
  return `TTSR interrupts: ${tally.tokens.toLocaleString("en-US")} tok${money}`;
}
