import { randomUUID } from "node:crypto";
import type { DeliveryMode, LoopSeam } from "@pi-rails/agent-core/kit";
import { ItemInput, issuePath } from "../protocol/item.ts";
import type {
  Ack,
  AckState,
  DeliverySite,
  EnqueueResult,
  RevokeResult,
  SteeringItem,
  SteeringItemInput,
} from "./types.ts";

/** Thrown for input the queue refuses (unknown mode, empty content, ...); `field` names what was wrong. */
export class SteeringInputError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.name = "SteeringInputError";
    this.field = field;
  }
}

/** Thrown when accepting an item would pass a queue limit; nothing was queued. `limit` names which. */
export class QueueFullError extends Error {
  readonly limit: "pendingItems" | "pendingBytes";
  readonly max: number;
  constructor(limit: "pendingItems" | "pendingBytes", max: number, message: string) {
    super(message);
    this.name = "QueueFullError";
    this.limit = limit;
    this.max = max;
  }
}

/** Default limits of a queue: what one session holds for its producers (README "Limits"). */
export const QUEUE_LIMITS = {
  /** Longest content of one item, UTF-8 bytes. */
  maxContentBytes: 256 * 1024,
  /** Most items pending at once. */
  maxPendingItems: 1000,
  /** Most content bytes pending at once (all items). */
  maxPendingBytes: 8 * 1024 * 1024,
} as const;

export interface SteeringQueueOptions {
  now?: () => number;
  newId?: () => string;
  /** How many settled ids are at least remembered for `revoke` answers (up to twice as many are). Default 10,000. */
  settledLimit?: number;
  maxContentBytes?: number;
  maxPendingItems?: number;
  maxPendingBytes?: number;
}

type AckListener = (ack: Ack) => void;
type AcceptListener = (item: SteeringItem) => void;
type DeliverListener = (acks: readonly Ack[]) => void;
type ReopenListener = (items: readonly SteeringItem[]) => void;

/**
 * One session's steering queue: pending items in arrival order, each ending in exactly one acknowledged state.
 * The queue decides nothing about seams; a seam asks it for the items of one mode (or the inbox) and the queue
 * hands them over, acknowledging each as delivered there. Dedupe, expiry, revoke and the loop-exit leftover policy
 * live here so that every producer (socket, TUI command, other extensions) gets the same rules.
 */
export class SteeringQueue {
  readonly #pending = new Map<string, SteeringItem>();
  readonly #byDedupeKey = new Map<string, string>();
  /** Settled ids in two generations: the newer fills up to settledLimit, then replaces the older (O(1) bound). */
  #settled = new Map<string, AckState>();
  #settledBefore = new Map<string, AckState>();
  readonly #listeners = new Set<AckListener>();
  readonly #acceptListeners = new Set<AcceptListener>();
  readonly #deliverListeners = new Set<DeliverListener>();
  readonly #reopenListeners = new Set<ReopenListener>();
  /** Items handed over (`hand`) that wait for `confirm` or `reopen`, with the ack they get on `confirm`. */
  readonly #handing = new Map<string, { item: SteeringItem; ack: Ack; seq: number }>();
  readonly #now: () => number;
  readonly #newId: () => string;
  readonly #settledLimit: number;
  readonly #limits: { maxContentBytes: number; maxPendingItems: number; maxPendingBytes: number };
  /** Content bytes of every pending item, and each item's arrival number (for paging). */
  #pendingBytes = 0;
  readonly #seq = new Map<string, number>();
  #nextSeq = 1;
  #expiryTimer: NodeJS.Timeout | undefined;
  #nextExpiry = Number.POSITIVE_INFINITY;

  constructor(options: SteeringQueueOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#newId = options.newId ?? (() => `st_${randomUUID().replaceAll("-", "").slice(0, 16)}`);
    this.#settledLimit = options.settledLimit ?? 10_000;
    this.#limits = {
      maxContentBytes: options.maxContentBytes ?? QUEUE_LIMITS.maxContentBytes,
      maxPendingItems: options.maxPendingItems ?? QUEUE_LIMITS.maxPendingItems,
      maxPendingBytes: options.maxPendingBytes ?? QUEUE_LIMITS.maxPendingBytes,
    };
  }

  /** Content bytes pending now. */
  get pendingBytes(): number {
    return this.#pendingBytes;
  }

  /**
   * Listen to every item accepted by `enqueue` (not restored ones), called before `enqueue` returns: the journal
   * writes it to disk here, so an "accepted" answer means the item is on disk. A listener that throws makes the
   * enqueue fail and the item is taken back (never acknowledged).
   */
  onAccept(listener: AcceptListener): () => void {
    this.#acceptListeners.add(listener);
    return () => this.#acceptListeners.delete(listener);
  }

  /**
   * Listen to every hand-over (a seam's drain, stock pi's hand-off to its own queue) before the items leave the
   * queue, with the acks they are about to get: the journal writes them here, so an item that reaches pi is on disk
   * as settled and no later process of the session delivers it again. A listener that throws keeps the items
   * pending: nothing is handed over, and the next hand-over tries again.
   */
  onDeliver(listener: DeliverListener): () => void {
    this.#deliverListeners.add(listener);
    return () => this.#deliverListeners.delete(listener);
  }

  /** Listen to items put back by `reopen` (the journal writes them as pending again). */
  onReopen(listener: ReopenListener): () => void {
    this.#reopenListeners.add(listener);
    return () => this.#reopenListeners.delete(listener);
  }

  /** Remember ids settled elsewhere (a journal of an earlier run): a retry with one of them is a duplicate. */
  rememberSettled(entries: Iterable<[string, AckState]>): void {
    for (const [id, state] of entries) if (!this.#pending.has(id)) this.#remember(id, state);
  }

  /** The arrival number of a pending item (increasing; for paging `pending`). */
  sequenceOf(id: string): number | undefined {
    return this.#seq.get(id);
  }

  /** Listen to every end state; returns an unsubscribe function. */
  onAck(listener: AckListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  get size(): number {
    return this.#pending.size;
  }

  /** Queue an item; a pending item with the same dedupeKey is replaced (acknowledged as revoked/replaced). */
  enqueue(input: SteeringItemInput): EnqueueResult {
    const item = this.#normalize(input);
    if (input.id !== undefined) {
      const pending = this.#pending.get(input.id);
      if (pending) return { item: pending, duplicate: true };
      if (this.settledState(input.id) !== undefined) return { item, duplicate: true };
    }
    this.sweep();
    this.#checkRoom(item);
    const result = this.#add(item);
    try {
      for (const listener of this.#acceptListeners) listener(item);
    } catch (error) {
      // Not on disk: take it back silently (it was never accepted, so it gets no ack).
      this.#unlink(item);
      throw error;
    }
    return result;
  }

  /** Refuse an item that would pass the pending-items or pending-bytes limit (a dedupe replacement frees room). */
  #checkRoom(item: SteeringItem): void {
    const replacedId = item.dedupeKey === undefined ? undefined : this.#byDedupeKey.get(item.dedupeKey);
    const replaced = replacedId === undefined ? undefined : this.#pending.get(replacedId);
    const items = this.#pending.size - (replaced ? 1 : 0) + 1;
    const bytes = this.#pendingBytes - (replaced ? contentBytes(replaced) : 0) + contentBytes(item);
    const { maxPendingItems, maxPendingBytes } = this.#limits;
    const retry = "retry once some are delivered";
    if (items > maxPendingItems) {
      const pending = `${this.#pending.size} items pending, the limit is ${maxPendingItems}`;
      throw new QueueFullError("pendingItems", maxPendingItems, `Queue full: ${pending}; ${retry}`);
    }
    if (bytes > maxPendingBytes) {
      const pending = `${this.#pendingBytes} content bytes pending, this item would pass the limit of ${maxPendingBytes}`;
      throw new QueueFullError("pendingBytes", maxPendingBytes, `Queue full: ${pending}; ${retry}`);
    }
  }

  /**
   * Put back items restored from a journal or session file (ids kept, limits not applied: they were accepted
   * before); already expired ones are acknowledged as expired. Returns the items put back.
   */
  restore(items: readonly SteeringItem[]): SteeringItem[] {
    const added: SteeringItem[] = [];
    for (const item of items) {
      if (this.#pending.has(item.id) || this.settledState(item.id) !== undefined) continue;
      const copy = { ...item };
      this.#add(copy);
      added.push(copy);
    }
    this.sweep();
    return added;
  }

  /** Pending items in arrival order (expired ones are settled first). */
  pending(): SteeringItem[] {
    this.sweep();
    return [...this.#pending.values()];
  }

  /** Revoke a pending item before it is delivered. */
  revoke(id: string): RevokeResult {
    const item = this.#pending.get(id);
    if (item) {
      this.#settle(item, { id, state: "revoked", reason: "revoked", at: this.#now() });
      return { id, status: "revoked" };
    }
    const state = this.settledState(id) ?? this.#handing.get(id)?.ack.state;
    return state ? { id, status: "already_settled", state } : { id, status: "unknown" };
  }

  /** Take the bridge items of one mode (arrival order), acknowledging them as delivered (or audited) at `seam`. */
  takeMode(mode: DeliveryMode, seam: LoopSeam, iteration: number): SteeringItem[] {
    return this.#take((item) => item.channel === "bridge" && item.mode === mode, seam, iteration);
  }

  /** Take the pending items `match` picks for a delivery outside the loop seams (stock pi hands them to its queue). */
  takeWhere(match: (item: SteeringItem) => boolean, site: DeliverySite, iteration: number): SteeringItem[] {
    return this.#take(match, site, iteration);
  }

  /**
   * Hand over the items `match` picks, as `takeWhere` does (the deliver listeners write them as settled first; a
   * refusal keeps them pending), but acknowledge none yet: the host may still drop them (stock pi drops a boundary's
   * entries when one of them is invalid). `confirm` acknowledges them, `reopen` puts them back.
   */
  hand(match: (item: SteeringItem) => boolean, site: DeliverySite, iteration: number): SteeringItem[] {
    return this.#take(match, site, iteration, false);
  }

  /** Acknowledge handed-over items: pi kept them. */
  confirm(ids: Iterable<string>): void {
    for (const id of ids) {
      const handing = this.#handing.get(id);
      if (!handing) continue;
      this.#handing.delete(id);
      this.#remember(id, handing.ack.state);
      this.#tell(handing.ack);
    }
  }

  /**
   * Put handed-over items back, pending (in their order, after any that arrived meanwhile): pi dropped them. One
   * whose dedupeKey a newer item took meanwhile is acknowledged as replaced by it.
   */
  reopen(ids: Iterable<string>): void {
    const reopened: SteeringItem[] = [];
    const handed = [...ids].flatMap((id) => this.#handing.get(id) ?? []).sort((a, b) => a.seq - b.seq);
    for (const { item } of handed) {
      const id = item.id;
      this.#handing.delete(id);
      const newer = item.dedupeKey === undefined ? undefined : this.#byDedupeKey.get(item.dedupeKey);
      if (newer !== undefined) {
        this.#remember(id, "revoked");
        this.#tell({ id, state: "revoked", reason: "replaced", replacedBy: newer, at: this.#now() });
        continue;
      }
      this.#add(item);
      reopened.push(item);
    }
    if (reopened.length === 0) return;
    for (const listener of this.#reopenListeners) {
      try {
        listener(reopened);
      } catch {
        // Pending here still; the listener told why it could not record them.
      }
    }
  }

  /**
   * Apply each leftover's policy at loop exit: `discard` is acknowledged as discarded, `audit` is demoted to an
   * audit_only bridge item (so the loop_exit drain writes it to the transcript), `carry` stays for the next run.
   * Returns the items carried.
   */
  settleLeftovers(): SteeringItem[] {
    this.sweep();
    const carried: SteeringItem[] = [];
    for (const item of [...this.#pending.values()]) {
      if (item.channel === "bridge" && item.mode === "audit_only") continue;
      if (item.leftover === "discard") {
        this.#settle(item, { id: item.id, state: "discarded", at: this.#now() });
      } else if (item.leftover === "audit") {
        this.#pending.set(item.id, { ...item, channel: "bridge", mode: "audit_only" });
      } else {
        carried.push(item);
      }
    }
    return carried;
  }

  /**
   * Apply the leftover policy when the session ends (no loop left to write audit records through): audit_only
   * items and `audit` leftovers are acknowledged as audited at "shutdown" and returned for the caller to write,
   * `discard` ones are discarded, `carry` ones stay pending (returned as carried, for the snapshot).
   */
  settleForShutdown(): { audited: SteeringItem[]; carried: SteeringItem[] } {
    this.sweep();
    const audited: SteeringItem[] = [];
    const carried: SteeringItem[] = [];
    const at = this.#now();
    for (const item of [...this.#pending.values()]) {
      if (item.mode === "audit_only" || item.leftover === "audit") {
        audited.push(item);
        this.#settle(item, { id: item.id, state: "audited", seam: "shutdown", iteration: 0, at });
      } else if (item.leftover === "discard") {
        this.#settle(item, { id: item.id, state: "discarded", at });
      } else {
        carried.push(item);
      }
    }
    return { audited, carried };
  }

  /** Acknowledge items whose ttl has passed. Called at every seam and by `pending()`. */
  sweep(): void {
    const now = this.#now();
    if (now < this.#nextExpiry) return;
    let next = Number.POSITIVE_INFINITY;
    for (const item of [...this.#pending.values()]) {
      if (item.expiresAt === undefined) continue;
      if (item.expiresAt <= now) this.#settle(item, { id: item.id, state: "expired", at: now });
      else next = Math.min(next, item.expiresAt);
    }
    this.#nextExpiry = next;
    this.#armExpiryTimer();
  }

  /** The state an id ended in, if it was settled and is still remembered. */
  settledState(id: string): AckState | undefined {
    return this.#settled.get(id) ?? this.#settledBefore.get(id);
  }

  /** Stop the expiry timer (the session ends). Pending items stay for a snapshot. */
  dispose(): void {
    if (this.#expiryTimer) clearTimeout(this.#expiryTimer);
    this.#expiryTimer = undefined;
  }

  /**
   * Take the matching items, each acknowledged where it went: audit_only ones as audited, the rest delivered; none
   * when a deliver listener refused them (they stay pending).
   */
  #take(match: (item: SteeringItem) => boolean, seam: DeliverySite, iteration: number, settle = true): SteeringItem[] {
    this.sweep();
    const taken = [...this.#pending.values()].filter(match);
    if (taken.length === 0) return taken;
    const at = this.#now();
    const acks = taken.map((item): Ack => {
      const state = item.mode === "audit_only" ? "audited" : "delivered";
      return { id: item.id, state, seam, iteration, at };
    });
    try {
      for (const listener of this.#deliverListeners) listener(acks);
    } catch {
      return []; // not on disk as handed over: they stay pending (the listener told why)
    }
    for (const [i, item] of taken.entries()) {
      if (settle) this.#settle(item, acks[i]!);
      else {
        const seq = this.#seq.get(item.id) ?? 0;
        if (this.#unlink(item)) this.#handing.set(item.id, { item, ack: acks[i]!, seq });
      }
    }
    return taken;
  }

  #add(item: SteeringItem): EnqueueResult {
    const previousId = item.dedupeKey === undefined ? undefined : this.#byDedupeKey.get(item.dedupeKey);
    const previous = previousId === undefined ? undefined : this.#pending.get(previousId);
    if (previous) {
      const at = this.#now();
      this.#settle(previous, { id: previous.id, state: "revoked", reason: "replaced", replacedBy: item.id, at });
    }
    if (item.dedupeKey !== undefined) this.#byDedupeKey.set(item.dedupeKey, item.id);
    this.#pending.set(item.id, item);
    this.#pendingBytes += contentBytes(item);
    this.#seq.set(item.id, this.#nextSeq++);
    if (item.expiresAt !== undefined && item.expiresAt < this.#nextExpiry) {
      this.#nextExpiry = item.expiresAt;
      this.#armExpiryTimer();
    }
    return previous ? { item, replaced: previous.id } : { item };
  }

  /** Remove a pending item without an ack; false when it was not pending. */
  #unlink(item: SteeringItem): boolean {
    const pending = this.#pending.get(item.id);
    if (!pending) return false;
    this.#pending.delete(item.id);
    this.#seq.delete(item.id);
    this.#pendingBytes -= contentBytes(pending);
    if (item.dedupeKey !== undefined && this.#byDedupeKey.get(item.dedupeKey) === item.id) {
      this.#byDedupeKey.delete(item.dedupeKey);
    }
    return true;
  }

  #settle(item: SteeringItem, ack: Ack): void {
    if (!this.#unlink(item)) return;
    this.#remember(item.id, ack.state);
    this.#tell(ack);
  }

  #tell(ack: Ack): void {
    for (const listener of this.#listeners) {
      try {
        listener(ack);
      } catch {
        // A broken listener must not lose the acknowledgement for the others.
      }
    }
  }

  #remember(id: string, state: AckState): void {
    if (this.#settled.size >= this.#settledLimit) {
      this.#settledBefore = this.#settled;
      this.#settled = new Map();
    }
    this.#settled.set(id, state);
  }

  #armExpiryTimer(): void {
    if (this.#expiryTimer) clearTimeout(this.#expiryTimer);
    this.#expiryTimer = undefined;
    if (!Number.isFinite(this.#nextExpiry)) return;
    this.#expiryTimer = setTimeout(
      () => {
        this.#expiryTimer = undefined;
        this.sweep();
        // A clamped (far-future) timer wakes before the expiry: sweep found nothing due, so wait again.
        if (!this.#expiryTimer) this.#armExpiryTimer();
      },
      expiryTimerDelay(this.#nextExpiry, this.#now()),
    );
    this.#expiryTimer.unref?.();
  }

  /** The item for a producer's input, checked by the item rules (protocol/item.ts) and this queue's content cap. */
  #normalize(input: SteeringItemInput): SteeringItem {
    const parsed = ItemInput.safeParse(input);
    const issue = parsed.error?.issues[0];
    if (issue) throw new SteeringInputError(issuePath(issue, "input"), issue.message);
    const { id, content, kind, mode, dedupeKey, ttlMs, leftover = "carry", source = "unknown" } = parsed.data!;
    const [bytes, max] = [contentBytes({ content }), this.#limits.maxContentBytes];
    if (bytes > max) throw new SteeringInputError("content", `must be at most ${max} bytes (UTF-8), got ${bytes}`);
    const now = this.#now();
    const channel = kind === "note" ? "inbox" : "bridge";
    const item: SteeringItem = { id: id ?? this.#newId(), content, kind, channel, leftover, source, enqueuedAt: now };
    if (mode !== undefined) item.mode = mode;
    if (dedupeKey !== undefined) item.dedupeKey = dedupeKey;
    if (ttlMs !== undefined) Object.assign(item, { ttlMs, expiresAt: now + ttlMs });
    return item;
  }
}

/** UTF-8 size of an item's content (what the limits count). */
export function contentBytes(item: { content: string }): number {
  return Buffer.byteLength(item.content);
}

/** Node's largest timer delay; a longer one prints TimeoutOverflowWarning and fires after 1 ms. */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/**
 * The delay to arm the expiry timer with: 1 ms past the expiry (so the sweep sees it due), never negative and
 * never above Node's maximum, so a far-future expiry waits in steps instead of firing at once.
 */
export function expiryTimerDelay(expiresAt: number, now: number): number {
  return Math.min(Math.max(0, expiresAt - now) + 1, MAX_TIMER_DELAY_MS);
}
