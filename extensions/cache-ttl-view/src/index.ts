export { type CacheState, describeCache, inferTouch, judgeCache, ttlForJudgement } from "./clock/cache-clock.ts";
export { API_TTLS, cacheRetention, decideTtl, type ResolvedTtl, resolveTtl } from "./clock/ttl.ts";
export { type RenderResult, SessionView } from "./engine/session-view.ts";
export { type CacheTtlViewOptions, CLOCK_OFFSET_ENV, createCacheTtlView } from "./extension.ts";
export type { ViewMessage } from "./model/messages.ts";
export { analyze } from "./plan/analysis.ts";
export { planPrune } from "./plan/plan.ts";
export { NOTICE_TYPE } from "./render/render.ts";
export { main as reportMain } from "./report/cli.ts";
export { replaySession } from "./report/replay.ts";
export { parseSessionFile } from "./report/session-file.ts";
export { RESTORE_TOOL } from "./restore/restore.ts";
export {
  type CacheTtlSettings,
  CacheTtlSettingsSchema,
  defaultSettings,
  loadCacheTtlSettings,
  type SettingsIssue,
  type SettingsProblem,
} from "./settings/settings.ts";
export { STATE_ENTRY_TYPE } from "./state/entries.ts";
