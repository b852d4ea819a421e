import { type CacheRetention, decideTtl, type ResolvedTtl, type TtlModel } from "../clock/ttl.ts";
import { SessionView } from "../engine/session-view.ts";
import type { ViewMessage } from "../model/messages.ts";
import { messageTokens } from "../model/tokens.ts";
import type { CacheTtlSettings } from "../settings/settings.ts";
import { type Prices, prefixCost } from "./prices.ts";
import type { ParsedSession } from "./session-file.ts";

export interface PrefixCost {
  readTokens: number;
  writeTokens: number;
  cost: number;
}

export interface RequestRow {
  index: number;
  at: string;
  /** Seconds since the previous request (undefined for the first). */
  idleSeconds?: number;
  /**
   * Whether the provider's cache was still warm: the time since the cache was last touched (the previous request,
   * or a later cache-warming request of pi's) is under the TTL.
   */
  warm: boolean;
  /** pi's cache-warming requests since the previous request (`usage` entries of kind `cache_warm`), when any. */
  cacheWarms?: number;
  /**
   * The last choice cache-ttl-view made with pi's cache warming before this request (recorded sessions): warm the
   * cache, or let it expire and prune, and why.
   */
  warming?: { chosen: "warm" | "prune"; reason: string };
  /** Blocks newly pruned before this request. */
  pruned: number;
  baseline: PrefixCost;
  withPruning: PrefixCost;
}

export interface ReplayReport {
  /**
   * `recorded`: the session was recorded with cache-ttl-view, and "with pruning" is what it did (its prunes, with
   * the caps stored with them, its notices, pins and restores). `simulated`: what it would have done with these
   * settings (a session recorded without it, or `--ttl`).
   */
  mode: "recorded" | "simulated";
  /**
   * The TTL of the last request: `--ttl`, else the one the extension stored, else the extension's own decision for
   * that request's model and these settings (`decideTtl`). `null`: pruning is off (`ttl.reason` says why).
   */
  ttlSeconds: number | null;
  /** Where `ttlSeconds` came from, or why pruning is off, in the extension's words. */
  ttl: { source: ResolvedTtl["source"] | "stored"; reason: string };
  /**
   * The cache lifetime the warm/cold accounting of the last request assumed: the TTL, or, when it is not known,
   * the shortest any provider keeps a prompt cache (300 s): an assumption for the cost columns, not a decision.
   */
  cacheSeconds: number;
  /** Line numbers skipped as not JSON. */
  skippedLines: number[];
  model?: string;
  prices: Prices;
  requests: RequestRow[];
  totals: { baseline: PrefixCost; withPruning: PrefixCost; saved: number };
}

/** Per-message token estimates (the package's one estimate) and serialisations, cached by object and API. */
class Sizer {
  #cache = new WeakMap<object, { api: string | undefined; json: string; tokens: number }>();
  api: string | undefined;
  of(m: ViewMessage): { json: string; tokens: number } {
    let v = this.#cache.get(m);
    if (!v || v.api !== this.api) {
      v = { api: this.api, json: JSON.stringify(m), tokens: messageTokens(m, this.api) };
      this.#cache.set(m, v);
    }
    return v;
  }
}

/** Cache accounting of one request: the prefix shared with the previous request is read when warm; the rest written. */
function account(
  sizer: Sizer,
  view: readonly ViewMessage[],
  previous: readonly string[] | undefined,
  warm: boolean,
  prices: Prices,
) {
  const jsons = view.map((m) => sizer.of(m).json);
  let total = 0;
  let read = 0;
  let shared = warm && previous !== undefined;
  for (let i = 0; i < view.length; i++) {
    const tokens = sizer.of(view[i] as ViewMessage).tokens;
    total += tokens;
    if (shared && previous?.[i] === jsons[i]) read += tokens;
    else shared = false;
  }
  const row = { readTokens: read, writeTokens: total - read, cost: prefixCost(prices, read, total - read) };
  return { row, jsons };
}

const add = (a: PrefixCost, b: PrefixCost): PrefixCost => ({
  readTokens: a.readTokens + b.readTokens,
  writeTokens: a.writeTokens + b.writeTokens,
  cost: a.cost + b.cost,
});

export interface ReplayOptions {
  settings: CacheTtlSettings;
  /** False when the settings' fields conflict: the extension then prunes nothing new (default true). */
  settingsValid?: boolean;
  /** `--ttl`: overrides every TTL (the stored ones and the derived one). */
  ttlSeconds?: number;
  /** pi-ai's retention when the session was recorded (for a TTL derived from the model's API). */
  retention?: CacheRetention;
  prices: Prices;
  /**
   * Catalogue models by `provider/id` (pi-ai's, when installed): a request's model is read from there for the
   * lifetime it declares (`promptCache`) and its compat flags; else from the request's API, provider and id alone.
   */
  catalog?: ReadonlyMap<string, TtlModel>;
}

/** The line the report prints under a request made after the view's choice with pi's cache warming. */
export function warmingNote(row: Pick<RequestRow, "warming">): string | undefined {
  return row.warming && `pi's cache warming before it: ${row.warming.chosen}: ${row.warming.reason}`;
}

/** The cache lifetime the cost columns assume when the TTL is not known (the shortest any provider keeps one). */
export const ASSUMED_CACHE_SECONDS = 300;

/** Whether cache-ttl-view ran in the session: it persists its clock and its prunes. */
export function recordedWithView(session: ParsedSession): boolean {
  return session.requests.some((r) => r.stateEntries.some((e) => e.kind === "touch" || e.kind === "prune"));
}

/**
 * Replay a recorded session with its timestamps: per request, the prompt prefix written and read with and without
 * cache-ttl-view, and the cost of each at the model's prices. Without pruning the raw context is sent; with pruning
 * the same SessionView the extension uses renders the view. A session recorded with the extension replays what it
 * did: every entry it saved is folded in before the request it was saved for (its prunes with their ids and caps,
 * its notices, pins, unpins and in-place restores), and nothing is decided again. Otherwise (or with `--ttl`) the
 * view decides as the extension would: pins and restores from the session, the TTL of each request's API and
 * retention, and the usage counters of each recorded response as evidence about the cache's lifetime.
 */
export function replaySession(session: ParsedSession, options: ReplayOptions): ReplayReport {
  const sizer = new Sizer();
  const view = new SessionView(options.settings, session.cwd);
  view.load([]);
  const recorded = options.ttlSeconds === undefined && recordedWithView(session);
  const rows: RequestRow[] = [];
  let prevAt: number | undefined;
  let prevBase: string[] | undefined;
  let prevView: string[] | undefined;
  const zero = { readTokens: 0, writeTokens: 0, cost: 0 };
  let baseTotal: PrefixCost = zero;
  let viewTotal: PrefixCost = zero;
  let storedTtl: number | undefined;
  let lastTtl: ReplayReport["ttl"] & { seconds: number | undefined } = {
    seconds: undefined,
    source: "off",
    reason: "no request",
  };
  let lastCache = ASSUMED_CACHE_SECONDS;
  for (const [index, request] of session.requests.entries()) {
    let prunedNow = 0;
    let warming: RequestRow["warming"];
    for (const entry of request.stateEntries) {
      if (entry.kind === "warming") warming = { chosen: entry.chosen, reason: entry.reason };
      if (entry.kind === "touch" || entry.kind === "prune") {
        if (entry.ttlSeconds > 0) storedTtl = entry.ttlSeconds;
        if (!recorded) continue;
        if (entry.kind === "prune") prunedNow += entry.ids.length;
      }
      view.apply(entry);
    }
    const known = options.catalog?.get(`${request.provider}/${request.model}`);
    // The extension's own decision for this request's model (pi's model when the report found it, else what the
    // session recorded of it), unless `--ttl` or the extension's stored TTL says otherwise.
    const ttl =
      options.ttlSeconds !== undefined
        ? { seconds: options.ttlSeconds, source: "override" as const, reason: "--ttl" }
        : storedTtl !== undefined
          ? { seconds: storedTtl, source: "stored" as const, reason: "stored by cache-ttl-view in the session" }
          : decideTtl(
              options.settings,
              options.settingsValid ?? true,
              { ...known, api: request.api ?? known?.api, provider: request.provider, id: request.model },
              options.retention ?? "short",
            );
    const viewTtl = ttl.seconds;
    const cacheTtl = viewTtl ?? ASSUMED_CACHE_SECONDS;
    lastTtl = ttl;
    lastCache = cacheTtl;
    sizer.api = request.api;
    const idle = prevAt === undefined ? undefined : (request.at - prevAt) / 1000;
    // pi 1.6's cache warming re-sends the previous request shortly before its cache entry expires: the cache was
    // touched then, for this accounting and for the view's clock (as in the extension: no prune while it is warm).
    const warmedAt = request.cacheWarms?.at(-1);
    const touched = warmedAt !== undefined && prevAt !== undefined ? Math.max(prevAt, warmedAt) : prevAt;
    if (warmedAt !== undefined && !recorded) view.warmed(warmedAt);
    const sinceTouch = touched === undefined ? undefined : (request.at - touched) / 1000;
    const warm = sinceTouch !== undefined && sinceTouch < cacheTtl;
    const base = account(sizer, request.context, prevBase, warm, options.prices);
    // Recorded: the clock is off, so the view only applies what the entries say (it decides nothing).
    const rendered = view.render(request.context.slice(), {
      now: request.at,
      ttlSeconds: recorded ? undefined : viewTtl,
      ...(request.api !== undefined ? { api: request.api } : {}),
    });
    if (!recorded) view.observeUsage(request.usage);
    const pruned = account(sizer, rendered.messages, prevView, warm, options.prices);
    rows.push({
      index,
      at: new Date(request.at).toISOString(),
      ...(idle !== undefined ? { idleSeconds: Math.round(idle) } : {}),
      warm,
      ...(request.cacheWarms ? { cacheWarms: request.cacheWarms.length } : {}),
      ...(warming ? { warming } : {}),
      pruned: recorded ? prunedNow : (rendered.plan?.ids.length ?? 0),
      baseline: base.row,
      withPruning: pruned.row,
    });
    baseTotal = add(baseTotal, base.row);
    viewTotal = add(viewTotal, pruned.row);
    prevAt = request.at;
    prevBase = base.jsons;
    prevView = pruned.jsons;
  }
  const last = session.requests.at(-1);
  return {
    mode: recorded ? "recorded" : "simulated",
    ttlSeconds: lastTtl.seconds ?? null,
    ttl: { source: lastTtl.source, reason: lastTtl.reason },
    cacheSeconds: lastCache,
    ...(last?.model ? { model: `${last.provider ?? "?"}/${last.model}` } : {}),
    prices: options.prices,
    requests: rows,
    totals: { baseline: baseTotal, withPruning: viewTotal, saved: baseTotal.cost - viewTotal.cost },
    skippedLines: session.skippedLines,
  };
}
