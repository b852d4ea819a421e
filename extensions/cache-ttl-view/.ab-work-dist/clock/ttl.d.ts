/**
 * The provider's prompt-cache TTL when `cacheTtl.ttlSeconds` is not set, keyed on the wire format (`model.api`),
 * which decides what cache hints go out, not on the provider's name: Claude behind a custom provider name speaks
 * `anthropic-messages` with the same `cache_control`. The retention is what pi-ai 0.73.1 really sends: it reads
 * `PI_CACHE_RETENTION` and only `long` changes anything (with `none` it still sends its default cache markers).
 */
export type CacheRetention = "short" | "long";
/** The model fields that decide the TTL (pi-ai's `Model`, structurally). */
export interface TtlModel {
    api?: string;
    provider?: string;
    id?: string;
    baseUrl?: string;
    compat?: {
        supportsLongCacheRetention?: boolean;
        cacheControlFormat?: string;
    } | undefined;
}
interface TtlRow {
    short: number;
    long: number;
    note: string;
}
/** TTLs per wire format (`model.api`); see the README's table. */
export declare const API_TTLS: ReadonlyMap<string, TtlRow>;
/** Chat-completions servers whose cache pi-ai addresses or that cache on their own, by provider. */
export declare const COMPLETIONS_PROVIDER_TTLS: ReadonlyMap<string, TtlRow>;
/** pi-ai's cache retention for this process: `long` only when `PI_CACHE_RETENTION=long`. */
export declare function cacheRetention(env?: NodeJS.ProcessEnv): CacheRetention;
export interface ResolvedTtl {
    /** Seconds; undefined or <= 0 means pruning is off. */
    seconds: number | undefined;
    source: "settings" | "api" | "off";
    /** Why, in one line (shown once when pruning is off, and by `/cache-ttl`). */
    reason: string;
}
/**
 * `ttlSeconds` from settings wins; else the TTL of the model's wire format for pi-ai's retention (long only where
 * the model supports long retention, as pi-ai decides); an unknown cache: off, with the reason.
 */
export declare function resolveTtl(settingTtl: number | undefined, model: TtlModel | undefined, retention: CacheRetention): ResolvedTtl;
/** A TTL the buffer eats entirely (`bufferSeconds >= ttl`) would make every request expired: pruning is off then. */
export declare function applyBuffer(ttl: ResolvedTtl, bufferSeconds: number): ResolvedTtl;
export {};
//# sourceMappingURL=ttl.d.ts.map