import { type CacheState } from "../clock/cache-clock.ts";
import type { UsageLike, ViewMessage } from "../model/messages.ts";
import { type Block } from "../plan/analysis.ts";
import { type PinSet } from "../plan/pins.ts";
import { type Plan } from "../plan/plan.ts";
import type { CacheTtlSettings } from "../settings/settings.ts";
import { type FoldedState, type StateEntry } from "../state/entries.ts";
export interface RenderContext {
    now: number;
    /** The current TTL (settings, else derived from the model's API); undefined: pruning off. */
    ttlSeconds: number | undefined;
    /** The wire format of the model (`model.api`): what images and old thinking cost there. */
    api?: string;
}
/** What `context_restore` finds for the ids it is asked for. */
export interface Originals {
    found: {
        id: string;
        block: Block;
        messages: readonly ViewMessage[];
    }[];
    notPruned: string[];
    alreadyShown: string[];
    missing: string[];
}
/** A cache read must cover this share of the previous request's prompt to prove the whole prefix survived. */
export declare const PREFIX_EVIDENCE_SHARE = 0.9;
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
 * The cache-TTL view of one session: clock, sticky prune set, notices and pins, folded from persisted entries. Pure
 * apart from its own state: the pi adapter and the report's replay both drive it with messages and a clock.
 */
export declare class SessionView {
    #private;
    readonly settings: CacheTtlSettings;
    readonly cwd: string | undefined;
    state: FoldedState;
    bootstrapPending: boolean;
    /** Idle seconds before the last request (for usage evidence). */
    lastIdleSeconds: number | undefined;
    /** Requests made since each prune (index-aligned with state.prunes; this process only). */
    requestsAfterPrune: number[];
    constructor(settings: CacheTtlSettings, cwd?: string);
    /** Rebuild state from the persisted entries (oldest first): a reload, resume or fork. */
    load(entries: readonly StateEntry[]): void;
    /**
     * Another branch of the same session (`/tree`): its own prunes, notices, pins and restores, but the clock of this
     * process (the provider's cache was touched by the last request, whichever branch it came from).
     */
    switchBranch(entries: readonly StateEntry[]): void;
    /** Drop the cached analysis and view (the message list changed shape: compaction, tree navigation). */
    invalidate(): void;
    pins(): PinSet;
    /** Judge the clock without changing anything (for `/cache-ttl`). */
    peekClock(now: number, ttlSeconds: number | undefined): CacheState;
    /**
     * The view for one request: judge the clock (bootstrap rule, inference), prune newly eligible blocks when the
     * cache has expired, then apply every pruned block and notice. `messages` is pi's clone and is modified in place.
     */
    render(messages: ViewMessage[], ctx: RenderContext): RenderResult;
    /**
     * Do the costly part of a cold pass while pi is idle (after a resume, a reload, a branch switch or a compaction),
     * so that the first request takes the running-session path: the analysis of the session's messages, and the
     * replacements of the blocks already pruned and of those the next expiry would prune. Nothing is decided or
     * persisted here, and the view is still drawn from the request's own messages. `messages`: the session's current
     * context, as the next request will start.
     */
    prepare(messages: readonly ViewMessage[]): void;
    /**
     * The provider's usage of the response to the last request, read as evidence about the whole prefix: after an
     * idle beyond the TTL, a cache read covering the previous prompt proves the cache lived that long (later prunes
     * are held within that idle); a read of only part of it (the system prompt and tools, shared with other sessions)
     * proves nothing, and a miss within a held idle withdraws the evidence.
     */
    observeUsage(usage: UsageLike | undefined): StateEntry | undefined;
    /** The touch entry to persist (the clock after this process's last request). */
    touchEntry(): StateEntry | undefined;
    /** Apply an entry made outside `render` (restore in place, pins) and persist it through the caller. */
    apply(entry: StateEntry): StateEntry;
    /** Pruned blocks with a short label (tool and path, or the message role), for `/cache-ttl`. */
    prunedBlocks(messages: readonly ViewMessage[]): {
        id: string;
        label: string;
    }[];
    /**
     * The originals behind ids in `messages` (the session's current context): found (pruned now), shown (already
     * restored at the tail and still in view there, or not pruned at all), and unknown ids. An id whose block
     * compaction cut from the context is looked up in `history` (every message of the branch).
     */
    originals(ids: readonly string[], messages: readonly ViewMessage[], history?: readonly ViewMessage[]): Originals;
}
//# sourceMappingURL=session-view.d.ts.map