import type { SteeringItem } from "../queue/types.ts";

/** customType of the session entry that carries pending items across runs and restarts. */
export const QUEUE_SNAPSHOT_TYPE = "steering-queue";

export interface QueueSnapshot {
  version: 1;
  items: SteeringItem[];
}

/**
 * The latest queue snapshot on the session branch (a `pi.appendEntry` custom entry), or undefined. Malformed
 * entries are ignored, never thrown: a damaged snapshot must not stop the session.
 */
export function findQueueSnapshot(entries: readonly unknown[]): QueueSnapshot | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i] as { type?: unknown; customType?: unknown; data?: unknown } | undefined;
    if (entry?.type !== "custom" || entry.customType !== QUEUE_SNAPSHOT_TYPE) continue;
    const data = entry.data as Partial<QueueSnapshot> | undefined;
    if (data?.version !== 1 || !Array.isArray(data.items)) return undefined;
    return { version: 1, items: data.items.filter(isItem) };
  }
  return undefined;
}

function isItem(value: unknown): value is SteeringItem {
  const item = value as Partial<SteeringItem> | undefined;
  return (
    typeof item?.id === "string" &&
    typeof item.content === "string" &&
    (item.channel === "bridge" || item.channel === "inbox") &&
    (item.kind === "message" || item.kind === "reminder" || item.kind === "note")
  );
}
