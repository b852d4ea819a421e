import type { DeliveryMode, LoopSeam } from "@pi-rails/agent-core/kit";
import type { ITEM_KINDS, LEFTOVER_POLICIES } from "../protocol/item.ts";

/** What a queued item turns into: a visible message, a hidden system reminder, or an inbox note (pre/post compact). */
export type ItemKind = (typeof ITEM_KINDS)[number];

/** What happens to an item still pending when the loop exits: kept for the next run, dropped, or written as audit. */
export type LeftoverPolicy = (typeof LEFTOVER_POLICIES)[number];

/** Which queue an item waits in: the bridge (drained by mode) or the inbox (drained at pre_compact / post_compact). */
export type ItemChannel = "bridge" | "inbox";

/** One pending item of a session's steering queue. */
export interface SteeringItem {
  id: string;
  content: string;
  kind: ItemKind;
  channel: ItemChannel;
  /** Bridge items only: which seams may drain it. */
  mode?: DeliveryMode;
  /** A newer item with the same key replaces this one while it is pending. */
  dedupeKey?: string;
  /** The lifetime the producer asked for. */
  ttlMs?: number;
  /** Absolute expiry (epoch ms), from ttlMs at enqueue; survives a restart as is. */
  expiresAt?: number;
  leftover: LeftoverPolicy;
  /** Who queued it (e.g. "pi-steer", "socket", an extension name); recorded in the transcript. */
  source: string;
  /** Epoch ms. */
  enqueuedAt: number;
}

export type { SteeringItemInput } from "../protocol/item.ts";

/** Where a delivery landed: a loop seam, or pi's own steer/follow-up queue on stock pi. */
export type DeliverySite = LoopSeam | "pi_queue";

/** The one end state every accepted item reaches. */
export type Ack =
  | { id: string; state: "delivered"; seam: DeliverySite; iteration: number; at: number }
  | { id: string; state: "audited"; seam: DeliverySite | "shutdown"; iteration: number; at: number }
  | { id: string; state: "expired"; at: number }
  | { id: string; state: "revoked"; reason: "revoked" | "replaced"; replacedBy?: string; at: number }
  | { id: string; state: "discarded"; at: number };

export type AckState = Ack["state"];

/** Answer of `revoke(id)`. */
export type RevokeResult =
  | { id: string; status: "revoked" }
  | { id: string; status: "already_settled"; state: AckState }
  | { id: string; status: "unknown" };

/** Answer of `enqueue`: the item as queued, and the pending item it replaced (same dedupeKey), if any. */
export interface EnqueueResult {
  item: SteeringItem;
  replaced?: string;
  /** The producer's id was seen before: nothing was queued; `item` is the pending one when it still waits. */
  duplicate?: boolean;
}

/** The check of an item read back from disk (a journal line, a session snapshot) before it is queued again. */
export function isSteeringItem(value: unknown): value is SteeringItem {
  const item = value as Partial<SteeringItem> | undefined;
  return (
    typeof item?.id === "string" &&
    typeof item.content === "string" &&
    (item.channel === "bridge" || item.channel === "inbox") &&
    (item.kind === "message" || item.kind === "reminder" || item.kind === "note")
  );
}
