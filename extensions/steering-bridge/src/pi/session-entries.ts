import {
  defineSessionEntry,
  type SessionEntryType,
  type SessionEntryWriter,
  writeSessionEntry,
} from "@pi-rails/agent-core/kit";
import { renderItem, type SteeringMessageDetails } from "../queue/render.ts";
import { isSteeringItem, type SteeringItem } from "../queue/types.ts";

/**
 * What steering-bridge keeps in pi's session file, declared once with the check every read goes through (agent-core's
 * session-entries kit): a damaged or foreign entry is skipped, never thrown.
 */

/**
 * A steering-bridge entry type, named `steering:<kind>` as pi-rails entries are (`<extension>:<kind>`), still reading
 * the spelling written before (`steering-<kind>`), which sessions written then hold.
 */
function defineSteeringEntry<T>(kind: string, read: (data: unknown) => T | undefined): SessionEntryType<T> {
  return defineSessionEntry(`steering:${kind}`, read, { formerly: [`steering-${kind}`] });
}

/** The items pending at loop_exit and shutdown, carried to the next run (sessions of older versions rely on it). */
export interface QueueSnapshot {
  version: 1;
  items: SteeringItem[];
}

export const QUEUE_SNAPSHOT_ENTRY = defineSteeringEntry<QueueSnapshot>("queue", (data) => {
  const snapshot = data as Partial<QueueSnapshot> | undefined;
  if (snapshot?.version !== 1 || !Array.isArray(snapshot.items)) return undefined;
  return { version: 1, items: snapshot.items.filter(isSteeringItem) };
});

/** An audit_only item as written: a custom entry, so no model request (chat, compaction, summary) is built from it. */
export interface AuditRecord extends SteeringMessageDetails {
  content: string;
}

export const AUDIT_ENTRY = defineSteeringEntry<AuditRecord>("audit", (data) => {
  const record = data as Partial<AuditRecord> | undefined;
  return typeof record?.id === "string" && typeof record.content === "string" ? (record as AuditRecord) : undefined;
});

/** Write each item as an audit record of where and when it was audited. */
export function writeAuditRecords(
  pi: SessionEntryWriter,
  items: readonly SteeringItem[],
  seam: SteeringMessageDetails["seam"],
  iteration: number,
): void {
  for (const item of items) {
    writeSessionEntry(pi, AUDIT_ENTRY, { ...renderItem(item, seam, iteration).details, content: item.content });
  }
}
