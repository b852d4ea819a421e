import { randomUUID } from "node:crypto";
import { type DeliveryMode, isDeliveryMode, type LoopSeam } from "@pi-rails/agent-core/kit";
import type {
  Ack,
  AckState,
  DeliverySite,
  EnqueueResult,
  LeftoverPolicy,
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

export interface SteeringQueueOptions {
  now?: () => number;
  newId?: () => string;
  /** How many settled ids are at least remembered for `revoke` answers (up to twice as many are). Default 10,000. */
  settledLimit?: number;
}

type AckListener = (ack: Ack) => void;

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
  readonly #now: () => number;
  readonly #newId: () => string;
  readonly #settledLimit: number;
  #expiryTimer: NodeJS.Timeout | undefined;
  #nextExpiry = Number.POSITIVE_INFINITY;

  constructor(options: SteeringQueueOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#newId = options.newId ?? (() => `st_${randomUUID().replaceAll("-", "").slice(0, 16)}`);
    this.#settledLimit = options.settledLimit ?? 10_000;
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
    return this.#add(item);
  }

  /** Put back items restored from a session file (ids kept); already expired ones are acknowledged as expired. */
  restore(items: readonly SteeringItem[]): void {
    for (const item of items) {
      if (this.#pending.has(item.id) || this.settledState(item.id) !== undefined) continue;
      this.#add({ ...item });
    }
    this.sweep();
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
    const state = this.settledState(id);
    return state ? { id, status: "already_settled", state } : { id, status: "unknown" };
  }

  /** Take the bridge items of one mode (arrival order), acknowledging them as delivered at `seam`. */
  takeMode(mode: DeliveryMode, seam: LoopSeam, iteration: number): SteeringItem[] {
    return this.#take(
      (item) => item.channel === "bridge" && item.mode === mode,
      (item, at) =>
        mode === "audit_only"
          ? { id: item.id, state: "audited", seam, iteration, at }
          : { id: item.id, state: "delivered", seam, iteration, at },
    );
  }

  /** Take every inbox note, acknowledging them as delivered at `seam`. */
  takeInbox(seam: LoopSeam, iteration: number): SteeringItem[] {
    return this.#take(
      (item) => item.channel === "inbox",
      (item, at) => ({ id: item.id, state: "delivered", seam, iteration, at }),
    );
  }

  /** Take every pending item for a delivery outside the loop seams (stock pi hands them to its own queue). */
  takeAll(site: DeliverySite, iteration: number): SteeringItem[] {
    return this.#take(
      () => true,
      (item, at) =>
        item.mode === "audit_only"
          ? { id: item.id, state: "audited", seam: site, iteration, at }
          : { id: item.id, state: "delivered", seam: site, iteration, at },
    );
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

  #take(match: (item: SteeringItem) => boolean, ack: (item: SteeringItem, at: number) => Ack): SteeringItem[] {
    this.sweep();
    const taken: SteeringItem[] = [];
    if (this.#pending.size === 0) return taken;
    const at = this.#now();
    for (const item of this.#pending.values()) {
      if (match(item)) taken.push(item);
    }
    for (const item of taken) this.#settle(item, ack(item, at));
    return taken;
  }

  #add(item: SteeringItem): EnqueueResult {
    let replaced: string | undefined;
    if (item.dedupeKey !== undefined) {
      const previousId = this.#byDedupeKey.get(item.dedupeKey);
      const previous = previousId === undefined ? undefined : this.#pending.get(previousId);
      if (previous) {
        replaced = previous.id;
        this.#settle(previous, {
          id: previous.id,
          state: "revoked",
          reason: "replaced",
          replacedBy: item.id,
          at: this.#now(),
        });
      }
      this.#byDedupeKey.set(item.dedupeKey, item.id);
    }
    this.#pending.set(item.id, item);
    if (item.expiresAt !== undefined && item.expiresAt < this.#nextExpiry) {
      this.#nextExpiry = item.expiresAt;
      this.#armExpiryTimer();
    }
    return replaced === undefined ? { item } : { item, replaced };
  }

  #settle(item: SteeringItem, ack: Ack): void {
    if (!this.#pending.delete(item.id)) return;
    if (item.dedupeKey !== undefined && this.#byDedupeKey.get(item.dedupeKey) === item.id) {
      this.#byDedupeKey.delete(item.dedupeKey);
    }
    if (this.#settled.size >= this.#settledLimit) {
      this.#settledBefore = this.#settled;
      this.#settled = new Map();
    }
    this.#settled.set(item.id, ack.state);
    for (const listener of this.#listeners) {
      try {
        listener(ack);
      } catch {
        // A broken listener must not lose the acknowledgement for the others.
      }
    }
  }

  #armExpiryTimer(): void {
    if (this.#expiryTimer) clearTimeout(this.#expiryTimer);
    this.#expiryTimer = undefined;
    if (!Number.isFinite(this.#nextExpiry)) return;
    const delay = Math.max(0, Math.min(this.#nextExpiry - this.#now(), 2 ** 31 - 1));
    this.#expiryTimer = setTimeout(() => {
      this.#expiryTimer = undefined;
      this.sweep();
    }, delay + 1);
    this.#expiryTimer.unref?.();
  }

  #normalize(input: SteeringItemInput): SteeringItem {
    if (typeof input.content !== "string" || input.content.trim() === "") {
      throw new SteeringInputError("content", "must be a non-empty string");
    }
    if (input.id !== undefined && !/^[A-Za-z0-9._:-]{1,64}$/.test(input.id)) {
      throw new SteeringInputError("id", "must be 1-64 characters of A-Z a-z 0-9 . _ : -");
    }
    const channel = input.kind === "note" ? "inbox" : "bridge";
    if (input.kind !== "message" && input.kind !== "reminder" && input.kind !== "note") {
      throw new SteeringInputError(
        "kind",
        `expected "message", "reminder" or "note", got ${JSON.stringify(input.kind)}`,
      );
    }
    if (channel === "bridge" && !isDeliveryMode(input.mode)) {
      throw new SteeringInputError(
        "mode",
        input.mode === undefined
          ? "is required: interrupt_immediate, finish_step or audit_only"
          : `expected interrupt_immediate, finish_step or audit_only, got ${JSON.stringify(input.mode)}`,
      );
    }
    if (channel === "inbox" && input.mode !== undefined) {
      throw new SteeringInputError("mode", "inbox notes have no mode (they are drained at pre_compact / post_compact)");
    }
    if (input.ttlMs !== undefined && !(Number.isInteger(input.ttlMs) && input.ttlMs > 0)) {
      throw new SteeringInputError("ttlMs", `must be a positive integer (ms), got ${JSON.stringify(input.ttlMs)}`);
    }
    const leftover: LeftoverPolicy = input.leftover ?? "carry";
    if (leftover !== "carry" && leftover !== "discard" && leftover !== "audit") {
      throw new SteeringInputError("leftover", `expected carry, discard or audit, got ${JSON.stringify(leftover)}`);
    }
    const now = this.#now();
    const item: SteeringItem = {
      id: input.id ?? this.#newId(),
      content: input.content,
      kind: input.kind,
      channel,
      leftover,
      source: input.source ?? "unknown",
      enqueuedAt: now,
    };
    if (channel === "bridge") item.mode = input.mode as DeliveryMode;
    if (input.dedupeKey !== undefined) item.dedupeKey = input.dedupeKey;
    if (input.ttlMs !== undefined) {
      item.ttlMs = input.ttlMs;
      item.expiresAt = now + input.ttlMs;
    }
    return item;
  }
}
