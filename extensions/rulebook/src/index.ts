/**
 * @pi-rails/rulebook library: discovery, precedence and buckets for rule files of every format.
 * Importing this module never imports pi, so pi-ttsr and the CLI can use it anywhere.
 */

export {
  type AttachPlan,
  compileGlobMatchers,
  matchRules,
  planAttachments,
  type RankedMatch,
  rankMatches,
  toCwdRelative,
} from "./attach/match.ts";
export { type BucketName, type BucketOptions, bucketOf, bucketRules, type RuleBuckets } from "./buckets/buckets.ts";
export { type InlineFlagsResult, translateInlineFlags } from "./conditions/inline-flags.ts";
export {
  conditionProblemText,
  isFileGlobCondition,
  readStreamConditions,
  ruleFlags,
  type StreamConditions,
  splitConditionLiteral,
  streamConditionProblem,
} from "./conditions/stream.ts";
export { PI_CONTEXT_NAMES, piContextFiles } from "./discovery/context-files.ts";
export { type LoadRulesOptions, loadRules } from "./discovery/load.ts";
export { clearParseCache, parseBytes, parseCacheStats } from "./discovery/parse-cache.ts";
export type { DiscoveryContext, ProviderOutput, RuleProvider } from "./discovery/provider.ts";
export { PROVIDERS } from "./discovery/registry.ts";
export {
  MAX_FRONTMATTER_CHARS,
  MAX_FRONTMATTER_VALUES,
  type ParsedFrontmatter,
  parseFrontmatter,
} from "./frontmatter/parse.ts";
export {
  checkGlob,
  countExpansions,
  type GlobCheck,
  type GlobIssueKind,
  globSpecificity,
  MAX_GLOB_CHARS,
  MAX_GLOB_EXPANSIONS,
} from "./globs/check.ts";
export {
  isTtsrStatusPayload,
  TTSR_STATUS_EVENT,
  type TtsrStatusPayload,
  ttsrSkippedRules,
} from "./handoff/ttsr.ts";
export { escapeXml } from "./prompt/escape.ts";
export { appendToSystemPrompt, type RenderedRules, renderRules, renderRulesPrompt } from "./prompt/render.ts";
export {
  type PiContextFile,
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
export { DEFAULT_SETTINGS } from "./settings/defaults.ts";
export { readRulebookSettings } from "./settings/read.ts";
export {
  PROVIDER_IDS,
  parseRulebookSettings,
  type RulebookSettings,
  RulebookSettingsSchema,
} from "./settings/schema.ts";
export { resolveRule, ruleNameFromRef } from "./tools/resolve-rule.ts";
