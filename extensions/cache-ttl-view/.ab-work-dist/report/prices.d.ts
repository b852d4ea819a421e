/** Prices in dollars per million tokens, as pi-ai's `Model.cost`. */
export interface Prices {
    input: number;
    cacheRead: number;
    cacheWrite: number;
}
/** Cost of one request's prompt prefix: tokens read from the cache, and tokens written (or sent uncached). */
export declare function prefixCost(prices: Prices, readTokens: number, writeTokens: number): number;
/**
 * Money a prune saved so far: its saved tokens were not written on the pruning request, and not read on every
 * request after it.
 */
export declare function pruneSavings(prices: Prices, savedTokens: number, requests: number): number;
export declare function formatUsd(amount: number): string;
//# sourceMappingURL=prices.d.ts.map