/** Cost of one request's prompt prefix: tokens read from the cache, and tokens written (or sent uncached). */
export function prefixCost(prices, readTokens, writeTokens) {
    const write = prices.cacheWrite > 0 ? prices.cacheWrite : prices.input;
    const read = prices.cacheRead > 0 ? prices.cacheRead : prices.input;
    return (readTokens * read + writeTokens * write) / 1_000_000;
}
/**
 * Money a prune saved so far: its saved tokens were not written on the pruning request, and not read on every
 * request after it.
 */
export function pruneSavings(prices, savedTokens, requests) {
    if (requests <= 0)
        return 0;
    return prefixCost(prices, savedTokens * (requests - 1), savedTokens);
}
export function formatUsd(amount) {
    return amount >= 0.01 || amount === 0 ? `$${amount.toFixed(2)}` : `$${amount.toFixed(4)}`;
}
//# sourceMappingURL=prices.js.map