import type { ViewMessage } from "../model/messages.ts";
import { type StateEntry } from "../state/entries.ts";
/** One request of a recorded session: the context pi sent, when, and with which model. */
export interface RecordedRequest {
    at: number;
    context: ViewMessage[];
    provider?: string;
    model?: string;
    /** The wire format the request went out in (`model.api`). */
    api?: string;
    /** The `cache-ttl-view` entries written since the previous request (pins, restores, touches, prunes). */
    stateEntries: StateEntry[];
    usage?: {
        input?: number;
        cacheRead?: number;
        cacheWrite?: number;
        cost?: Record<string, number>;
    };
}
export interface ParsedSession {
    cwd?: string;
    requests: RecordedRequest[];
    /** Lines that are not JSON (a torn last write, garbage): skipped, as pi skips them, and counted. */
    skippedLines: number[];
}
/**
 * Parse a pi session file (JSONL) into the requests pi made: every assistant message is one request whose context
 * is the messages before it on the branch (compactions replace what they summarised, as pi does). Lines that are
 * not JSON are skipped like pi skips them (their numbers are returned); a file with nothing of a session is an error.
 */
export declare function parseSessionFile(text: string, file?: string): ParsedSession;
//# sourceMappingURL=session-file.d.ts.map