import type { PendingItemSummary, PendingParams, PendingResult } from "../protocol/protocol.ts";
import { contentBytes, type SteeringQueue } from "./steering-queue.ts";
import type { SteeringItem } from "./types.ts";

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
  const sequence = (item: SteeringItem) => queue.sequenceOf(item.id) ?? 0;
  const rest = all.filter((item) => sequence(item) > after);
  const items = rest.slice(0, limit).map((item) => summarize(item, previewChars));
  const result: PendingResult = { items, total: all.length, totalBytes: queue.pendingBytes };
  const last = items.at(-1);
  if (rest.length > items.length && last) result.nextCursor = `after:${sequence(last)}`;
  return result;
}

/** An item with its content cut to `previewChars` code points (then marked `truncated`), and its full size. */
function summarize(item: SteeringItem, previewChars: number): PendingItemSummary {
  const chars = [...item.content];
  const summary: PendingItemSummary = { ...item, contentBytes: contentBytes(item) };
  if (chars.length > previewChars) {
    summary.content = chars.slice(0, previewChars).join("");
    summary.truncated = true;
  }
  return summary;
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
