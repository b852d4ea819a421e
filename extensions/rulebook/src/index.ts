/**
 * @pi-rails/rulebook library: discovery, precedence and buckets for rule files of every format.
 * Importing this module never imports pi, so pi-ttsr and the CLI can use it anywhere.
 */

export { compileGlobMatchers, matchRules, toCwdRelative } from "./attach/match.ts";
export { type BucketName, type BucketOptions, bucketOf, bucketRules, type RuleBuckets } from "./buckets/buckets.ts";
export { type LoadRulesOptions, loadRules } from "./discovery/load.ts";
export { clearParseCache, parseCacheStats } from "./discovery/parse-cache.ts";
export type { DiscoveryContext, ProviderOutput, RuleProvider } from "./discovery/provider.ts";
export { PROVIDERS } from "./discovery/registry.ts";
export { type ParsedFrontmatter, parseFrontmatter } from "./frontmatter/parse.ts";
export { isTtsrStatusPayload, TTSR_STATUS_EVENT, type TtsrStatusPayload } from "./handoff/ttsr.ts";
export { appendToSystemPrompt, renderRulesPrompt } from "./prompt/render.ts";
export {
  type ProviderReport,
  type Rule,
  type RuleLoadResult,
  RuleSchema,
  type RuleSource,
  RuleSourceSchema,
  type RuleWarning,
  type ShadowedRule,
  type SkippedRule,
} from "./rule.ts";
export { readRulebookSettings, settingsFiles } from "./settings/read.ts";
export {
  DEFAULT_SETTINGS,
  PROVIDER_IDS,
  parseRulebookSettings,
  type RulebookSettings,
  RulebookSettingsSchema,
} from "./settings/schema.ts";
export { resolveRule, ruleNameFromRef } from "./tools/resolve-rule.ts";
