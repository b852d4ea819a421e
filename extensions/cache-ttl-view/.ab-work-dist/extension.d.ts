import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { type RenderResult } from "./engine/session-view.ts";
/** Env seam for demos and end-to-end tests: shifts this extension's clock forward (seconds). */
export declare const CLOCK_OFFSET_ENV = "CACHE_TTL_VIEW_CLOCK_OFFSET_SECONDS";
export interface CacheTtlViewOptions {
    /** The clock (ms since epoch). Default: `Date.now()` plus `CACHE_TTL_VIEW_CLOCK_OFFSET_SECONDS`. */
    now?: () => number;
    /** Called with what each request's view was made of (diagnostics: the clock, the prune, whether it was prepared). */
    onRender?: (result: RenderResult) => void;
}
/**
 * cache-ttl-view for pi, with an injectable clock. Once the provider's prompt cache has expired, the next request
 * re-writes the whole prefix anyway: that is when old turns are replaced by short texts in the model's view
 * (`context` event only; the session file keeps every original), stickily, so the new prefix is cached again.
 */
export declare function createCacheTtlView(options?: CacheTtlViewOptions): (pi: ExtensionAPI) => void;
/** The extension pi loads (`pi -e`, `pi install`). */
export default function cacheTtlView(pi: ExtensionAPI): void;
//# sourceMappingURL=extension.d.ts.map