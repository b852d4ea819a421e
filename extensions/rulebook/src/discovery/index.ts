/**
 * `@pi-rails/rulebook/discovery`: rule discovery and the frontmatter parser, nothing else. Another extension's
 * start-up (pi-ttsr's) imports this instead of the package root, so it loads no schema library, glob engine or
 * prompt rendering it does not use.
 */

export { type InlineFlagsResult, translateInlineFlags } from "../conditions/inline-flags.ts";
export {
  conditionProblemText,
  isFileGlobCondition,
  noUsableConditionText,
  readStreamConditions,
  regexProblem,
  ruleFlags,
  type StreamConditions,
  type StreamRegex,
  splitConditionLiteral,
  streamConditionProblem,
} from "../conditions/stream.ts";
export { forEachOutsideClass } from "../frontmatter/outside-class.ts";
export { type ParsedFrontmatter, parseFrontmatter } from "../frontmatter/parse.ts";
export { splitOutsideBrackets } from "../frontmatter/split.ts";
export { checkGlob, type GlobCheck } from "../globs/check.ts";
export { skippedMessage } from "../report/messages.ts";
export type {
  PiContextFile,
  ProviderReport,
  Rule,
  RuleLoadResult,
  RuleSource,
  RuleWarning,
  ShadowedRule,
  SkippedRule,
} from "../rule.ts";
export { piReportsSettingsIssue } from "../settings/pi-reported.ts";
export { type LoadRulesOptions, loadRules } from "./load.ts";
export { type ParsedFile, readParsed } from "./parse-cache.ts";
export { defaultParseStore, loadParseStore, saveParseStore } from "./parse-store.ts";
