export { type CacheState, describeCache, judgeCache } from "./clock/cache-clock.ts";
export {
  type CacheTtlSettings,
  CacheTtlSettingsSchema,
  loadCacheTtlSettings,
  type SettingsProblem,
} from "./settings/settings.ts";
