/**
 * Warm or prune: pi 1.6 keeps a prompt cache warm by re-sending the last request before its entry expires, when it
 * expects that to pay (`cacheWarming`, the `cache_warming_decision` event). Its alternative is a miss: the next
 * request writes the whole prefix again. With cache-ttl-view the alternative is cheaper: the cache expires, and the
 * next request prunes and writes a smaller prefix. So the view weighs pi's refresh against that, with pi's own
 * figures and rule, and only ever turns a refresh pi wants into "stop" when the prune is the cheaper way.
 */

/** pi's figures for one refresh (`CacheWarmingDecisionEvent`, structurally: pi is an optional peer). */
export interface WarmingFigures {
  /** The price of this refresh: a cache read of the prefix (plus one output token). */
  warmCost: number;
  /** The extra price of the next request if the entry is lost: a cache write of the prefix minus a cache read. */
  missCost: number;
  /** pi's estimate that a request arrives before the entry expires. */
  continuationProbability: number;
  /** pi's own decision. */
  action: "warm" | "stop";
}

/** The prefix the view would send if the cache expired now. */
export interface PrunePlanFigures {
  /** Prompt tokens of the last request (the provider's input + cache read + cache write, as pi counts them). */
  promptTokens: number;
  /** Tokens a prune at expiry would take out of it (0: nothing to prune, or pruning is off). */
  prunableTokens: number;
}

/**
 * pi-ai's `CACHE_WARMING_MINIMUM_EXPECTED_SAVINGS` (a test holds the two equal): a refresh is sent only when it is
 * expected to save at least this many dollars. The same bar for both alternatives keeps the view's rule pi's rule
 * when there is nothing to prune.
 */
export const MIN_EXPECTED_SAVINGS = 0.05;

export interface WarmingChoice {
  /** `warm`: the refresh goes out and the view does not prune; `prune`: the cache expires, the next request prunes. */
  chosen: "warm" | "prune";
  /** What the view answers pi (`undefined`: pi's own decision stands). */
  answer: "stop" | undefined;
  /** The refresh's expected savings against a full miss (pi's figure) and against expiring and pruning (the view's). */
  savingsVsMiss: number;
  savingsVsPrune: number;
  /** Why, in one line (the `/cache-ttl` status and the report say it). */
  reason: string;
}

const usd = (x: number) => `${x < 0 ? "-" : ""}$${Math.abs(x).toFixed(4)}`;

/**
 * Choose by expected cost: a refresh now costs `warmCost` (a cache read of the prefix) and saves, when a request
 * comes in time (`continuationProbability`), what that request would pay beyond a cache read: pi counts a write of
 * the whole prefix (`missCost`), the view a write of the pruned prefix, which is `1 - prunable/prompt` of it.
 * `warm` only when that is at least pi's bar, and never when pi itself stops; with nothing to prune, pi's decision.
 */
export function chooseWarmOrPrune(pi: WarmingFigures, prefix: PrunePlanFigures): WarmingChoice {
  const p = pi.continuationProbability;
  const read = pi.warmCost;
  const kept = prefix.promptTokens > 0 ? Math.max(0, 1 - prefix.prunableTokens / prefix.promptTokens) : 1;
  const savingsVsMiss = p * pi.missCost - pi.warmCost;
  const savingsVsPrune = p * (kept * (pi.missCost + read) - read) - pi.warmCost;
  const figures = `refresh ${usd(pi.warmCost)}, ${Math.round(p * 100)}% chance of a request in time`;
  const choice = (chosen: "warm" | "prune", reason: string, answer?: "stop"): WarmingChoice => ({
    chosen,
    answer,
    savingsVsMiss,
    savingsVsPrune,
    reason,
  });
  if (prefix.prunableTokens <= 0 || kept >= 1) {
    const why = `expected savings ${usd(savingsVsMiss)}, bar ${usd(MIN_EXPECTED_SAVINGS)}`;
    return choice(pi.action === "warm" ? "warm" : "prune", `pi's own, nothing to prune at expiry (${figures}; ${why})`);
  }
  const pruned = `~${Math.round(prefix.prunableTokens)} of ${Math.round(prefix.promptTokens)} prompt tokens pruned`;
  if (pi.action === "stop") {
    const why = `a refresh's expected savings ${usd(savingsVsMiss)} < ${usd(MIN_EXPECTED_SAVINGS)}`;
    return choice("prune", `pi does not refresh (${why}); the next request prunes (${pruned})`);
  }
  if (savingsVsPrune >= MIN_EXPECTED_SAVINGS) {
    return choice("warm", `a refresh saves ${usd(savingsVsPrune)} even against pruning (${figures}; ${pruned})`);
  }
  const reason =
    `expiring and pruning costs less: a refresh (${figures}) saves ${usd(savingsVsMiss)} against writing the ` +
    `whole prefix again, but ${usd(savingsVsPrune)} < ${usd(MIN_EXPECTED_SAVINGS)} against writing it pruned (${pruned})`;
  return choice("prune", reason, "stop");
}
