import type { PendingItemSummary, PendingParams, PendingResult } from "../protocol/protocol.ts";
import { contentBytes, type SteeringQueue } from "./steering-queue.ts";

/**
 * One page of the pending items, content cut to a preview: the socket's answer to `steer/pending`, bounded
 * whatever the queue holds (a full queue is 8 MiB of content; a page is at most 200 previews). The cursor is the
 * arrival number of the last item listed, so items delivered between pages never shift the next page.
 */
export function pagePending(queue: SteeringQueue, options: PendingParams = {}): PendingResult {
  const limit = options.limit ?? 50;
  const previewChars = options.previewChars ?? 200;
  const after = parseCursor(options.cursor);
  const all = queue.pending();
  const items: PendingItemSummary[] = [];
  let last: number | undefined;
  let more = false;
  for (const item of all) {
    const seq = queue.sequenceOf(item.id) ?? 0;
    if (seq <= after) continue;
    if (items.length === limit) {
      more = true;
      break;
    }
    const chars = [...item.content];
    const summary: PendingItemSummary = { ...item, contentBytes: contentBytes(item) };
    if (chars.length > previewChars) {
      summary.content = chars.slice(0, previewChars).join("");
      summary.truncated = true;
    }
    items.push(summary);
    last = seq;
  }
  const result: PendingResult = { items, total: all.length, totalBytes: queue.pendingBytes };
  if (more && last !== undefined) result.nextCursor = `after:${last}`;
  return result;
}

function parseCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const match = /^after:(\d{1,15})$/.exec(cursor);
  if (!match) throw new PendingCursorError(cursor);
  return Number(match[1]);
}

/** A cursor that no page handed out. */
export class PendingCursorError extends Error {
  constructor(cursor: string) {
    super(`cursor: ${JSON.stringify(cursor.slice(0, 40))} is not a cursor from steer/pending (expected "after:<n>")`);
    this.name = "PendingCursorError";
  }
}
