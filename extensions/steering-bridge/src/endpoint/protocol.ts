/** Moved to ../protocol/protocol.ts; kept only until queue/pending-page.ts imports its types from there. */
export type { PendingItemSummary, PendingResult } from "../protocol/protocol.ts";
