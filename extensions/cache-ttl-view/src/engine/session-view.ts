import { type CacheState, inferTouch, judgeCache, ttlForJudgement } from "../clock/cache-clock.ts";
import { rawMessageKey } from "../model/ids.ts";
import type { UsageLike, ViewMessage } from "../model/messages.ts";
import { type Analysis, analyze, type Block, blockById } from "../plan/analysis.ts";
import { noticeText } from "../plan/notice.ts";
import { type PinSet, pathArgument } from "../plan/pins.ts";
import { type Plan, planPrune } from "../plan/plan.ts";
import { applyPatch, patchFor, type ViewPatch } from "../plan/render.ts";
import { type Replacement, replacementFor, toolCallOf } from "../plan/replacements.ts";
import type { CacheTtlSettings } from "../settings/settings.ts";
import { emptyState, type FoldedState, foldEntries, foldEntry, type StateEntry } from "../state/entries.ts";

export interface RenderContext {
  now: number;
  /** The current TTL (settings, else derived from the provider); undefined: pruning off. */
  ttlSeconds: number | undefined;
}

export interface RenderResult {
  messages: ViewMessage[];
  clock: CacheState;
  /** The prune made by this request, when one was made. */
  plan?: Plan;
  /** Entries to persist (`pi.appendEntry`), in order. */
  entries: StateEntry[];
  /** Whether the cached patch was reused (the warm path: no analysis). */
  reused: boolean;
}

interface Memo {
  length: number;
  firstKey: string;
  lastKey: string;
  version: number;
  patch: ViewPatch;
}

/**
 * The cache-TTL view of one session: clock, sticky prune set, notices and pins, folded from persisted entries. Pure
 * apart from its own state: the pi adapter and the report's replay both drive it with messages and a clock.
 */
export class SessionView {
  readonly settings: CacheTtlSettings;
  readonly cwd: string | undefined;
  state: FoldedState = emptyState();
  bootstrapPending = false;
  /** Idle seconds before the last request (for usage evidence). */
  lastIdleSeconds: number | undefined;
  /** Requests made since each prune (index-aligned with state.prunes; this process only). */
  requestsAfterPrune: number[] = [];
  #version = 0;
  #memo: Memo | undefined;
  #replacements = new Map<string, Replacement>();
  #lastMessages: readonly ViewMessage[] = [];
  #lastAnalysis: Analysis | undefined;

  constructor(settings: CacheTtlSettings, cwd?: string) {
    this.settings = settings;
    this.cwd = cwd;
  }

  /** Rebuild state from the data of persisted entries (oldest first): a reload, resume or fork. */
  load(datas: readonly unknown[]): void {
    this.state = foldEntries(datas);
    this.bootstrapPending = this.state.ttlSeconds !== undefined;
    this.requestsAfterPrune = this.state.prunes.map(() => 0);
    this.invalidate();
  }

  /** Drop the cached patch (the message list changed shape: compaction, tree navigation). */
  invalidate(): void {
    this.#memo = undefined;
    this.#version++;
  }

  pins(): PinSet {
    const p = this.settings.pins;
    return {
      ids: new Set([...p.ids, ...this.state.pins.ids]),
      tools: new Set([...p.tools, ...this.state.pins.tools]),
      paths: [...p.paths, ...this.state.pins.paths],
    };
  }

  /** Judge the clock without changing anything (for `/cache-ttl`). */
  peekClock(now: number, ttlSeconds: number | undefined): CacheState {
    return judgeCache({
      now,
      touchAt: this.state.touchAt,
      ttlSeconds: ttlForJudgement(this.bootstrapPending, this.state.ttlSeconds, ttlSeconds),
      bufferSeconds: this.settings.bufferSeconds,
      warmGapSeconds: this.state.warmGapSeconds,
    });
  }

  #replacement = (block: Block): Replacement => {
    let r = this.#replacements.get(block.id);
    if (!r) {
      r = replacementFor(this.#lastMessages, block, this.settings);
      this.#replacements.set(block.id, r);
    }
    return r;
  };

  #analyze(messages: readonly ViewMessage[]): Analysis {
    // A copy: the view is patched into `messages` in place, the originals stay here for context_restore.
    this.#lastMessages = messages.slice();
    this.#lastAnalysis = analyze(messages);
    return this.#lastAnalysis;
  }

  /**
   * The view for one request: judge the clock (bootstrap rule, inference), prune newly eligible blocks when the
   * cache has expired, then apply every pruned block and notice. `messages` is pi's clone and is modified in place.
   */
  render(messages: ViewMessage[], ctx: RenderContext): RenderResult {
    const entries: StateEntry[] = [];
    if (!this.settings.enabled) return { messages, clock: { kind: "off" }, entries, reused: false };
    const s = this.state;
    const inferred = s.touchAt === undefined && s.ttlSeconds === undefined ? inferTouch(messages) : undefined;
    const touchAt = s.touchAt ?? inferred;
    const clock = judgeCache({
      now: ctx.now,
      touchAt,
      ttlSeconds: ttlForJudgement(this.bootstrapPending, s.ttlSeconds, ctx.ttlSeconds),
      bufferSeconds: this.settings.bufferSeconds,
      warmGapSeconds: s.warmGapSeconds,
    });
    this.bootstrapPending = false;
    this.lastIdleSeconds = touchAt === undefined ? undefined : (ctx.now - touchAt) / 1000;
    for (let i = 0; i < this.requestsAfterPrune.length; i++) this.requestsAfterPrune[i]!++;

    let plan: Plan | undefined;
    let analysis: Analysis | undefined;
    if (clock.kind === "expired") {
      analysis = this.#analyze(messages);
      const candidate = planPrune({
        messages,
        analysis,
        pruned: s.pruned,
        pins: this.pins(),
        settings: this.settings,
        ...(this.cwd !== undefined ? { cwd: this.cwd } : {}),
        replacement: this.#replacement,
      });
      if (candidate.ids.length > 0 && messages.length > 0) {
        plan = candidate;
        const ttl = ttlForJudgement(true, s.ttlSeconds, ctx.ttlSeconds) ?? 0;
        const entry: StateEntry = {
          kind: "prune",
          at: ctx.now,
          ttlSeconds: ctx.ttlSeconds ?? ttl,
          ids: plan.ids,
          savedTokens: plan.savedTokens,
          notice: {
            after: analysis.keys[messages.length - 1] as string,
            at: ctx.now,
            text: noticeText(plan, ttl, clock.idleSeconds),
          },
        };
        foldEntry(s, entry);
        this.requestsAfterPrune.push(1);
        entries.push(entry);
        this.invalidate();
      }
    }
    if (ctx.ttlSeconds !== undefined && ctx.ttlSeconds > 0) {
      s.touchAt = ctx.now;
      s.ttlSeconds = ctx.ttlSeconds;
    }

    const memo = this.#memo;
    if (!analysis && memo && this.#memoFits(memo, messages)) {
      return { messages: applyPatch(messages, memo.patch), clock, entries, reused: true };
    }
    analysis ??= this.#analyze(messages);
    const patch = patchFor(messages, analysis, s.pruned, s.notices, this.#replacement);
    this.#memo = {
      length: messages.length,
      firstKey: messages.length > 0 ? rawMessageKey(messages[0] as ViewMessage) : "",
      lastKey: messages.length > 0 ? rawMessageKey(messages[messages.length - 1] as ViewMessage) : "",
      version: this.#version,
      patch,
    };
    return { messages: applyPatch(messages, patch), clock, ...(plan ? { plan } : {}), entries, reused: false };
  }

  #memoFits(memo: Memo, messages: readonly ViewMessage[]): boolean {
    if (memo.version !== this.#version || messages.length < memo.length || memo.length === 0) return false;
    return (
      rawMessageKey(messages[0] as ViewMessage) === memo.firstKey &&
      rawMessageKey(messages[memo.length - 1] as ViewMessage) === memo.lastKey
    );
  }

  /** The provider's usage of the last response: a cache read after an idle proves the cache lived that long. */
  observeUsage(usage: UsageLike | undefined): StateEntry | undefined {
    if (!usage || !(Number(usage.cacheRead) > 0) || this.lastIdleSeconds === undefined) return undefined;
    if (this.lastIdleSeconds <= this.state.warmGapSeconds) return undefined;
    this.state.warmGapSeconds = this.lastIdleSeconds;
    return this.touchEntry();
  }

  /** The touch entry to persist (the clock after this process's last request). */
  touchEntry(): StateEntry | undefined {
    const { touchAt, ttlSeconds, warmGapSeconds } = this.state;
    if (touchAt === undefined || ttlSeconds === undefined) return undefined;
    return { kind: "touch", at: touchAt, ttlSeconds, ...(warmGapSeconds > 0 ? { warmGapSeconds } : {}) };
  }

  /** Apply an entry made outside `render` (restore in place, pins) and persist it through the caller. */
  apply(entry: StateEntry): StateEntry {
    foldEntry(this.state, entry);
    this.invalidate();
    return entry;
  }

  /** Pruned blocks with a short label (tool and path, or the message role), for `/cache-ttl`. */
  prunedBlocks(): { id: string; label: string }[] {
    const out: { id: string; label: string }[] = [];
    for (const id of this.state.pruned) {
      const block = this.#lastAnalysis ? blockById(this.#lastAnalysis, id) : undefined;
      if (!block) {
        out.push({ id, label: "(not in the current view)" });
      } else if (block.kind === "tool") {
        const path = pathArgument(toolCallOf(this.#lastMessages, block).arguments ?? {});
        out.push({ id, label: path ? `${block.tool} ${path}` : block.tool });
      } else if (block.kind === "image") out.push({ id, label: "image" });
      else out.push({ id, label: `${(this.#lastMessages[block.msg] as ViewMessage).role} text` });
    }
    return out;
  }

  /** The originals behind pruned ids, from the last analysed message list. */
  originals(ids: readonly string[]): {
    found: { id: string; block: Block; messages: readonly ViewMessage[] }[];
    missing: string[];
  } {
    const found: { id: string; block: Block; messages: readonly ViewMessage[] }[] = [];
    const missing: string[] = [];
    for (const id of ids) {
      const block = this.#lastAnalysis ? blockById(this.#lastAnalysis, id) : undefined;
      if (block) found.push({ id, block, messages: this.#lastMessages });
      else missing.push(id);
    }
    return { found, missing };
  }
}
