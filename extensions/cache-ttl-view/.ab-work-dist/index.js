export { describeCache, inferTouch, judgeCache, ttlForJudgement } from "./clock/cache-clock.js";
export { API_TTLS, cacheRetention, resolveTtl } from "./clock/ttl.js";
export { SessionView } from "./engine/session-view.js";
export { CLOCK_OFFSET_ENV, createCacheTtlView } from "./extension.js";
export { analyze } from "./plan/analysis.js";
export { planPrune } from "./plan/plan.js";
export { NOTICE_TYPE } from "./render/render.js";
export { main as reportMain } from "./report/cli.js";
export { replaySession } from "./report/replay.js";
export { parseSessionFile } from "./report/session-file.js";
export { RESTORE_TOOL } from "./restore/restore.js";
export { CacheTtlSettingsSchema, defaultSettings, loadCacheTtlSettings, } from "./settings/settings.js";
export { STATE_ENTRY_TYPE } from "./state/entries.js";
//# sourceMappingURL=index.js.map