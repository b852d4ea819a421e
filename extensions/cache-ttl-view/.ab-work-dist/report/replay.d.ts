import { type CacheRetention } from "../clock/ttl.ts";
import type { CacheTtlSettings } from "../settings/settings.ts";
import { type Prices } from "./prices.ts";
import type { ParsedSession } from "./session-file.ts";
export interface PrefixCost {
    readTokens: number;
    writeTokens: number;
    cost: number;
}
export interface RequestRow {
    index: number;
    at: string;
    /** Seconds since the previous request (undefined for the first). */
    idleSeconds?: number;
    /** Whether the provider's cache was still warm (idle < TTL). */
    warm: boolean;
    /** Blocks newly pruned before this request. */
    pruned: number;
    baseline: PrefixCost;
    withPruning: PrefixCost;
}
export interface ReplayReport {
    /** The TTL of the last request (stored by the extension, else derived, else `--ttl`). */
    ttlSeconds: number;
    /** Line numbers skipped as not JSON. */
    skippedLines: number[];
    model?: string;
    prices: Prices;
    requests: RequestRow[];
    totals: {
        baseline: PrefixCost;
        withPruning: PrefixCost;
        saved: number;
    };
}
export interface ReplayOptions {
    settings: CacheTtlSettings;
    /** `--ttl`: overrides every TTL (the stored ones and the derived one). */
    ttlSeconds?: number;
    /** pi-ai's retention when the session was recorded (for a TTL derived from the model's API). */
    retention?: CacheRetention;
    prices: Prices;
}
/**
 * Replay a recorded session with its timestamps: per request, the prompt prefix written and read with and without
 * cache-ttl-view, and the cost of each at the model's prices. Without pruning the raw context is sent; with pruning
 * the same SessionView the extension uses renders the view, with what the extension did replayed: pins, unpins and
 * in-place restores saved in the session, and the TTL it stored (else the one of the model's API and retention).
 */
export declare function replaySession(session: ParsedSession, options: ReplayOptions): ReplayReport;
//# sourceMappingURL=replay.d.ts.map