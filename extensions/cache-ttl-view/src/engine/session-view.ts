import { type CacheState, inferTouch, judgeCache, ttlForJudgement } from "../clock/cache-clock.ts";
import { messageKeyAt, startsWithMessages } from "../model/ids.ts";
import type { UsageLike, ViewMessage } from "../model/messages.ts";
import { messageTokens } from "../model/tokens.ts";
import { Analysis, analyze, type Block, PrunedBlocks, toolCallOf } from "../plan/analysis.ts";
import { type PinSet, pathArgument } from "../plan/pins.ts";
import { type Plan, type PlanInput, Planner, planPrune, Savings } from "../plan/plan.ts";
import { noticeText } from "../render/notice.ts";
import { applyPatch, patchFor, type ViewPatch, WholeView } from "../render/render.ts";
import { type Replacement, replacementFor } from "../render/replacements.ts";
import { shownOriginals } from "../restore/restore.ts";
import type { CacheTtlSettings } from "../settings/settings.ts";
import {
  emptyState,
  type FoldedState,
  foldEntries,
  foldEntry,
  OWNER_VERSION,
  type StateEntry,
} from "../state/entries.ts";
import { capsOf } from "../views/caps.ts";

export interface RenderContext {
  now: number;
  /** The current TTL (settings, else derived from the model's API); undefined: pruning off. */
  ttlSeconds: number | undefined;
  /** The wire format of the model (`model.api`): what images and old thinking cost there. */
  api?: string;
}

/** What `context_restore` finds for the ids it is asked for. */
export interface Originals {
  found: { id: string; block: Block; messages: readonly ViewMessage[] }[];
  notPruned: string[];
  alreadyShown: string[];
  missing: string[];
}

/**
 * Messages per slice of a pass that analyses, weighs and draws a long list: each slice is weighed and drawn right
 * after its analysis, while its messages (about 1 MB in a coding session) are still in the processor's cache.
 * Measured at 100k messages: 1,000-2,000 per slice was fastest (see docs/performance.md).
 */
const SLICE = 1024;

/** A cache read must cover this share of the previous request's prompt to prove the whole prefix survived. */
export const PREFIX_EVIDENCE_SHARE = 0.9;

interface Evidence {
  idleSeconds: number;
  /** The clock said the TTL had passed and the prefix was sent unchanged (held, or nothing to prune). */
  beyondTtl: boolean;
  /** Prompt tokens (input + cache read + cache write) of the response before this request. */
  previousPrompt: number;
}

/** What a prune entry stores of a replacement's line count (-1: it counted none). */
const linesOf = (r: Replacement | undefined): number => (r?.kind === "tool" && r.lines !== undefined ? r.lines : -1);

const promptTokens = (u: UsageLike | undefined): number =>
  (Number(u?.input) || 0) + (Number(u?.cacheRead) || 0) + (Number(u?.cacheWrite) || 0);

const lastUsage = (messages: readonly ViewMessage[]): UsageLike | undefined =>
  (messages.findLast((m) => m.role === "assistant") as { usage?: UsageLike } | undefined)?.usage;

export interface RenderResult {
  messages: ViewMessage[];
  clock: CacheState;
  /** The prune made by this request, when one was made. */
  plan?: Plan;
  /** Entries to persist (`pi.appendEntry`), in order. */
  entries: StateEntry[];
  /** Whether the cached patch was reused (the warm path: no analysis). */
  reused: boolean;
  /** Whether the analysis came from `prepare` (the list prepared while idle was this request's start). */
  prepared: boolean;
}

/**
 * The last analysed list: its analysis (the next request extends it when it only appends) and its view, which is
 * drawn from a request's own messages only (a prepared memo has none yet: see `prepare`).
 */
interface Memo {
  analysis: Analysis;
  length: number;
  patch?: ViewPatch;
  /** The list a prepared memo was analysed from: the first request must start with it, message by message. */
  prepared?: readonly ViewMessage[];
}

/**
 * The cache-TTL view of one session: clock, sticky prune set, notices and pins, folded from persisted entries. Pure
 * apart from its own state: the pi adapter and the report's replay both drive it with messages and a clock.
 */
export class SessionView {
  readonly settings: CacheTtlSettings;
  readonly cwd: string | undefined;
  #state: FoldedState = emptyState();
  /** The prune the last request made, not folded into the state yet (see `settle`). */
  #unsettled: StateEntry | undefined;
  bootstrapPending = false;
  /** Idle seconds before the last request (for usage evidence). */
  lastIdleSeconds: number | undefined;
  /** Requests made since each prune (index-aligned with state.prunes; this process only). */
  requestsAfterPrune: number[] = [];
  #evidence: Evidence | undefined;
  #memo: Memo | undefined;
  /**
   * The replacements built for the blocks of the memo's analysis, by block index (small texts, never the
   * originals). Built once per analysis; bytes depend only on the block and its caps, so an analysis made again
   * (after a compaction or `/tree`) builds the same ones.
   */
  #built: (Replacement | undefined)[] = [];

  constructor(settings: CacheTtlSettings, cwd?: string) {
    this.settings = settings;
    this.cwd = cwd;
  }

  /** The state folded from the branch's entries and this view's own (a prune not settled yet is folded in first). */
  get state(): FoldedState {
    this.settle();
    return this.#state;
  }

  /**
   * Fold the prune the last request made into the state. Drawing that request needs only the blocks its plan took,
   * not the 30,000 ids of a long session's first prune in the state's maps (about 8 ms at 100k messages), so the fold
   * waits: the adapter settles once the request is on its way, and anything that reads the state settles first.
   */
  settle(): void {
    const entry = this.#unsettled;
    if (!entry) return;
    this.#unsettled = undefined;
    foldEntry(this.#state, entry);
    this.requestsAfterPrune.push(1);
  }

  /** Rebuild state from the persisted entries (oldest first): a reload, resume or fork. */
  load(entries: readonly StateEntry[]): void {
    this.#unsettled = undefined;
    this.#state = foldEntries(entries);
    this.bootstrapPending = this.#state.ttlSeconds !== undefined;
    this.requestsAfterPrune = this.#state.prunes.map(() => 0);
    this.invalidate();
  }

  /**
   * Another branch of the same session (`/tree`): its own prunes, notices, pins and restores, but the clock of this
   * process (the provider's cache was touched by the last request, whichever branch it came from).
   */
  switchBranch(entries: readonly StateEntry[]): void {
    const { touchAt, ttlSeconds, warmGapSeconds } = this.state;
    this.#state = foldEntries(entries);
    if (touchAt !== undefined) this.#state.touchAt = touchAt;
    if (ttlSeconds !== undefined) this.#state.ttlSeconds = ttlSeconds;
    this.#state.warmGapSeconds = warmGapSeconds;
    this.requestsAfterPrune = this.#state.prunes.map(() => 0);
    this.invalidate();
  }

  /** Drop the cached analysis and view (the message list changed shape: compaction, tree navigation). */
  invalidate(): void {
    this.#memo = undefined;
    this.#built = [];
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
      ttlSeconds: ttlForJudgement(
        this.bootstrapPending,
        this.state.ttlSeconds,
        ttlSeconds,
        this.settings.bufferSeconds,
      ),
      bufferSeconds: this.settings.bufferSeconds,
      warmGapSeconds: this.state.warmGapSeconds,
    });
  }

  /**
   * The replacement of a block, built once. A block pruned earlier is rendered with the caps and the line count
   * stored with its prune, so changed settings (after `/reload`) never change bytes already in the cached prefix,
   * and a reloaded session does not read every pruned output again to count its lines.
   */
  #replacementFor(messages: readonly ViewMessage[]): (block: Block) => Replacement {
    return (block) => (this.#built[block.at] ??= this.#build(messages, block));
  }

  #build(messages: readonly ViewMessage[], block: Block): Replacement {
    // The state as it stands: a block this pass's plan took is not in it yet, and is built with these settings, the
    // caps its prune stores.
    const { pruned, rows } = this.#state;
    const row = pruned.size > 0 ? pruned.get(block.id) : undefined;
    if (row === undefined) return replacementFor(messages, block, this.settings);
    const lines = rows.lines[row] as number;
    return replacementFor(messages, block, rows.caps[row] ?? this.settings, lines >= 0 ? lines : undefined);
  }

  /**
   * The view for one request: judge the clock (bootstrap rule, inference), prune newly eligible blocks when the
   * cache has expired, then apply every pruned block and notice. `messages` is pi's clone and is modified in place.
   */
  render(messages: ViewMessage[], ctx: RenderContext): RenderResult {
    const entries: StateEntry[] = [];
    if (!this.settings.enabled) return { messages, clock: { kind: "off" }, entries, reused: false, prepared: false };
    const prepared = this.#checkPrepared(messages);
    const s = this.state;
    const inferred = s.touchAt === undefined && s.ttlSeconds === undefined ? inferTouch(messages) : undefined;
    const touchAt = s.touchAt ?? inferred;
    const clock = judgeCache({
      now: ctx.now,
      touchAt,
      ttlSeconds: ttlForJudgement(this.bootstrapPending, s.ttlSeconds, ctx.ttlSeconds, this.settings.bufferSeconds),
      bufferSeconds: this.settings.bufferSeconds,
      warmGapSeconds: s.warmGapSeconds,
    });
    this.bootstrapPending = false;
    this.lastIdleSeconds = touchAt === undefined ? undefined : (ctx.now - touchAt) / 1000;
    for (let i = 0; i < this.requestsAfterPrune.length; i++) this.requestsAfterPrune[i]!++;

    const expired = clock.kind === "expired";
    // Between prunes, the cached view of a list that only grew is re-applied (the warm path: no analysis).
    if (!expired && this.#memo?.patch && this.#memo.analysis.extends(messages)) {
      this.#touched(ctx, clock, messages);
      return { messages: applyPatch(messages, this.#memo.patch), clock, entries, reused: true, prepared };
    }
    try {
      return this.#draw(messages, ctx, clock, entries, prepared);
    } catch (error) {
      // A pass that failed partway leaves an analysis and a view of part of the list: the next request starts over.
      // A prune it made was neither sent nor persisted: it is dropped.
      this.#unsettled = undefined;
      this.invalidate();
      throw error;
    }
  }

  /** The view of a request whose clock was judged: the analysis, the prune when expired, the patch. */
  #draw(
    messages: ViewMessage[],
    ctx: RenderContext,
    clock: CacheState,
    entries: StateEntry[],
    prepared: boolean,
  ): RenderResult {
    const s = this.state;
    let plan: Plan | undefined;
    /** The message a notice made now anchors at (its key was just computed: the patch need not look it up). */
    let anchors: Map<string, number> | undefined;
    const replacement = this.#replacementFor(messages);
    const analysis = this.#analysisFor(messages);
    const memo = this.#memo;
    const previous = memo?.patch && { patch: memo.patch, from: memo.length, added: [] as Block[] };
    // What is pruned, block by block: the state's ids, and the blocks the plan takes as it goes.
    const pruned = new PrunedBlocks(s.pruned);
    const planner =
      clock.kind === "expired"
        ? new Planner({ ...this.#planInput(messages, analysis, replacement, ctx.api), taken: pruned })
        : undefined;
    // Without a view to extend, the whole view is drawn slice by slice, each right after its blocks are decided.
    const whole = previous ? undefined : new WholeView(messages, analysis, replacement);
    // The first slice is the analysed prefix: extending by nothing begins the pass (ages are then the whole list's).
    for (let end = analysis.length; ; end = Math.min(messages.length, end + SLICE)) {
      analysis.extend(messages, end);
      planner?.consider(analysis.first[end] as number);
      whole?.drawUpTo(end, pruned);
      if (end === messages.length) break;
    }
    const candidate = planner?.finish();
    if (clock.kind === "expired" && candidate && candidate.ids.length > 0 && messages.length > 0) {
      plan = candidate;
      const ttl = ttlForJudgement(true, s.ttlSeconds, ctx.ttlSeconds, this.settings.bufferSeconds) ?? 0;
      const after = messageKeyAt(messages, messages.length - 1);
      anchors = new Map([[after, messages.length - 1]]);
      const entry: StateEntry = {
        kind: "prune",
        at: ctx.now,
        ttlSeconds: ctx.ttlSeconds ?? ttl,
        ids: plan.ids,
        savedTokens: plan.savedTokens,
        caps: capsOf(this.settings),
        owners: plan.blocks.map((block) => analysis.ownerOf(block)),
        ownerVersion: OWNER_VERSION,
        lines: plan.blocks.map((block) => linesOf(this.#built[block.at])),
        notice: {
          after,
          at: ctx.now,
          text: noticeText(plan, ttl, clock.idleSeconds),
        },
      };
      this.#unsettled = entry;
      entries.push(entry);
    }
    // The notice of the prune made now is drawn now; the prune itself is folded into the state later (`settle`).
    const notices =
      plan && this.#unsettled?.kind === "prune" && this.#unsettled.notice
        ? [...s.notices, this.#unsettled.notice]
        : s.notices;
    this.#touched(ctx, clock, messages, plan);
    if (previous) previous.added = plan?.blocks ?? [];
    // A plan the gain gate stopped took blocks that are not pruned after all: the view is drawn again without them.
    const final = plan || pruned.added === 0 ? pruned : new PrunedBlocks(s.pruned);
    const patch =
      whole && final === pruned
        ? whole.finish(pruned, notices, anchors)
        : patchFor(messages, analysis, final, notices, replacement, previous, anchors);
    this.#memo = { analysis, length: messages.length, patch };
    return {
      messages: applyPatch(messages, patch),
      clock,
      ...(plan ? { plan } : {}),
      entries,
      reused: false,
      prepared,
    };
  }

  /**
   * What every request records: the provider's cache was touched now (also while pruning is off here, settings in
   * conflict or a model whose TTL is not known: when pruning is back on, its clock starts from the last request, not
   * an older one), and the evidence its usage will be read against.
   */
  #touched(ctx: RenderContext, clock: CacheState, messages: readonly ViewMessage[], plan?: Plan): void {
    const s = this.#state;
    s.touchAt = ctx.now;
    if (ctx.ttlSeconds !== undefined && ctx.ttlSeconds > 0) s.ttlSeconds = ctx.ttlSeconds;
    this.#evidence =
      this.lastIdleSeconds === undefined
        ? undefined
        : {
            idleSeconds: this.lastIdleSeconds,
            beyondTtl: clock.kind === "held" || (clock.kind === "expired" && !plan),
            previousPrompt: promptTokens(lastUsage(messages)),
          };
  }

  /** What a prune weighs (the prune itself is decided by `render`). */
  #planInput(
    messages: readonly ViewMessage[],
    analysis: Analysis,
    replacement: (b: Block) => Replacement,
    api?: string,
  ): PlanInput {
    const { cwd, settings } = this;
    const where = { ...(cwd !== undefined ? { cwd } : {}), ...(api !== undefined ? { api } : {}) };
    return {
      messages,
      analysis,
      pruned: this.state.pruned,
      pins: this.pins(),
      settings,
      replacement,
      built: (block) => this.#built[block.at],
      ...where,
    };
  }

  /**
   * Do the costly part of a cold pass while pi is idle (after a resume, a reload, a branch switch or a compaction),
   * so that the first request takes the running-session path: the analysis of the session's messages, and the
   * replacements of the blocks already pruned and of those the next expiry would prune. Nothing is decided or
   * persisted here, and the view is still drawn from the request's own messages. `messages`: the session's current
   * context, as the next request will start.
   */
  prepare(messages: readonly ViewMessage[]): void {
    if (!this.settings.enabled || messages.length === 0) return;
    const analysis = this.#analyze(messages);
    this.#memo = { analysis, length: messages.length, prepared: messages };
    const build = this.#replacementFor(messages);
    // A view may keep a call's own arguments object: the replacement gets a copy, never the session's entry's.
    const replacement = (block: Block): Replacement => {
      const r = this.#built[block.at] ?? build(block);
      if (r.kind !== "tool" || block.kind !== "tool" || r.args !== toolCallOf(messages, block).arguments) return r;
      this.#built[block.at] = { ...r, args: structuredClone(r.args) };
      return this.#built[block.at] as Replacement;
    };
    for (const block of analysis.blocks) if (this.state.pruned.has(block.id)) replacement(block);
    planPrune(this.#planInput(messages, analysis, replacement));
  }

  /** Keep a prepared analysis only when the request's list is the prepared one plus new messages. */
  #checkPrepared(messages: readonly ViewMessage[]): boolean {
    const prepared = this.#memo?.prepared;
    if (!prepared) return false;
    if (startsWithMessages(messages, prepared)) {
      delete this.#memo?.prepared;
      return true;
    }
    this.invalidate();
    return false;
  }

  /** The analysis of `messages`: the previous request's extended by the new messages, or a new one. */
  #analyze(messages: readonly ViewMessage[]): Analysis {
    return this.#analysisFor(messages).extend(messages);
  }

  /**
   * The analysis `messages` extends: the previous request's (its new messages not analysed yet), or a new, empty
   * one (the cached analysis, view and replacements are dropped).
   */
  #analysisFor(messages: readonly ViewMessage[]): Analysis {
    if (this.#memo?.analysis.extends(messages)) return this.#memo.analysis;
    this.invalidate();
    return new Analysis(this.state);
  }

  /**
   * The provider's usage of the response to the last request, read as evidence about the whole prefix: after an
   * idle beyond the TTL, a cache read covering the previous prompt proves the cache lived that long (later prunes
   * are held within that idle); a read of only part of it (the system prompt and tools, shared with other sessions)
   * proves nothing, and a miss within a held idle withdraws the evidence.
   */
  observeUsage(usage: UsageLike | undefined): StateEntry | undefined {
    const evidence = this.#evidence;
    this.#evidence = undefined;
    if (!usage || !evidence?.beyondTtl || !(evidence.previousPrompt > 0)) return undefined;
    const covered = (Number(usage.cacheRead) || 0) >= PREFIX_EVIDENCE_SHARE * evidence.previousPrompt;
    const gap = this.state.warmGapSeconds;
    if (covered && evidence.idleSeconds > gap) this.state.warmGapSeconds = evidence.idleSeconds;
    else if (!covered && gap > 0 && evidence.idleSeconds <= gap) this.state.warmGapSeconds = 0;
    else return undefined;
    return this.touchEntry();
  }

  /**
   * pi's cache warming re-sent the last request at `at`: the provider's cache entry was refreshed then, so the TTL
   * runs from there (a prune waits for the cache to really expire). Returns the touch entry to persist.
   */
  warmed(at: number): StateEntry | undefined {
    const s = this.state;
    if (s.touchAt === undefined || at > s.touchAt) s.touchAt = at;
    return this.touchEntry();
  }

  /**
   * What the next request would prune if the cache expired now (`messages`: the session's current context), and the
   * prompt it would shrink (the provider's count for the last request, else the estimate). Nothing is changed or kept.
   * `newTurn`: the next request starts a turn (pi is idle: it carries the user's next prompt), so the turn that is
   * current now is one turn old then.
   */
  pruneAtExpiry(
    context: readonly ViewMessage[],
    options: { api?: string | undefined; newTurn: boolean },
  ): { plan: Plan; promptTokens: number } {
    const { api, newTurn } = options;
    const messages = newTurn ? [...context, { role: "user" as const, content: "", timestamp: 0 }] : context;
    const analysis = analyze(messages, this.state);
    const input = this.#planInput(messages, analysis, (block) => this.#build(messages, block), api);
    const plan = planPrune({ ...input, built: () => undefined });
    let prompt = promptTokens(lastUsage(messages));
    if (!(prompt > 0)) for (const m of messages) prompt += messageTokens(m, api);
    return { plan, promptTokens: prompt };
  }

  /** The touch entry to persist (the clock after this process's last request). */
  touchEntry(): StateEntry | undefined {
    const { touchAt, ttlSeconds, warmGapSeconds } = this.state;
    if (touchAt === undefined || ttlSeconds === undefined) return undefined;
    return { kind: "touch", at: touchAt, ttlSeconds, warmGapSeconds };
  }

  /** Apply an entry made outside `render` (restore in place, pins) and persist it through the caller. */
  apply(entry: StateEntry): StateEntry {
    foldEntry(this.state, entry);
    // The messages did not change, so the analysis and the built replacements stay; the view is drawn again (a
    // warming choice changes nothing in it).
    if (this.#memo && entry.kind !== "warming") delete this.#memo.patch;
    return entry;
  }

  /**
   * Tokens the blocks pruned now save per request in `messages` (the session's current context): blocks restored in
   * place or cut by a compaction save nothing any more. Built with the caps of their prune, as they are sent.
   */
  savedPerRequest(messages: readonly ViewMessage[], api?: string): number {
    const analysis = analyze(messages, this.state);
    const savings = new Savings(messages, api);
    for (const block of analysis.blocks) {
      if (!this.state.pruned.has(block.id)) continue;
      savings.add(block, this.#build(messages, block));
    }
    return savings.tokens;
  }

  /** Pruned blocks with a short label (tool and path, or the message role), for `/cache-ttl`. */
  prunedBlocks(messages: readonly ViewMessage[]): { id: string; label: string }[] {
    const analysis = analyze(messages, this.state);
    return [...this.state.pruned.keys()].map((id) => {
      const block = analysis.byId(id);
      if (!block) return { id, label: "(not in the current view)" };
      if (block.kind === "image") return { id, label: "image" };
      if (block.kind === "text") return { id, label: `${messages[block.msg]?.role} text` };
      const path = pathArgument(toolCallOf(messages, block).arguments ?? {});
      return { id, label: path ? `${block.tool} ${path}` : block.tool };
    });
  }

  /**
   * The originals behind ids in `messages` (the session's current context): found (pruned now), shown (already
   * restored at the tail and still in view there, or not pruned at all), and unknown ids. An id whose block
   * compaction cut from the context is looked up in `history` (every message of the branch). `appending`: ids whose
   * originals another call of the same turn is appending (its result is not in the session yet: pi runs a turn's
   * tool calls together).
   */
  originals(
    ids: readonly string[],
    messages: readonly ViewMessage[],
    history?: readonly ViewMessage[],
    appending: ReadonlySet<string> = new Set(),
  ): Originals {
    const analysis = analyze(messages, this.state);
    const shown = shownOriginals(messages, analysis, this.state.pruned);
    for (const id of appending) shown.add(id);
    let past: Analysis | undefined;
    const out: Originals = { found: [], notPruned: [], alreadyShown: [], missing: [] };
    for (const id of new Set(ids)) {
      let [block, from] = [analysis.byId(id), messages];
      if (!block && history && this.state.owners.has(id)) {
        past ??= analyze(history, this.state);
        [block, from] = [past.byId(id), history];
      }
      if (!block) out.missing.push(id);
      else if (!this.state.pruned.has(id)) out.notPruned.push(id);
      else if (shown.has(id)) out.alreadyShown.push(id);
      else out.found.push({ id, block, messages: from });
    }
    return out;
  }
}
