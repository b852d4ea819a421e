import type { Plan } from "../plan/plan.ts";
/**
 * The text of the `cache_ttl_pruned` notice: what was pruned, why, about how many tokens it saves, and how to get
 * an original back. Persisted verbatim, so later requests repeat it byte for byte.
 */
export declare function noticeText(plan: Plan, ttlSeconds: number, idleSeconds: number): string;
//# sourceMappingURL=notice.d.ts.map