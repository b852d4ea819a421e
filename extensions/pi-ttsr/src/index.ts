/**
 * @pi-rails/pi-ttsr library: the incremental stream matcher, rule normalization, the TtsrManager (buffers,
 * repeat policy, decisions), delivery templates, settings and the CLI entry. The pi extension is
 * `src/extension.ts` (bundled as the package's `pi.extensions` entry, `dist/pi/extension.js`); nothing here imports pi.
 */

export {
  /** Moved to agent-core's stream hook, which reads new responses from the stream on either pi; re-exported. */
  ResponseBoundary,
  resolveAgentDir as defaultAgentDir,
  TTSR_TRIGGERED_EVENT,
  type TtsrTriggeredPayload,
} from "@pi-rails/agent-core/kit";
/** Moved to rulebook, which reads stream conditions for every tool; re-exported for existing callers. */
export { type InlineFlagsResult, translateInlineFlags } from "@pi-rails/rulebook/discovery";
export { main as runCli, processIo, USAGE } from "./cli/main.ts";
export {
  followUpMessage,
  INJECTION_ENTRY,
  INJECTION_ENTRY_TYPE,
  INJECTION_MESSAGE_TYPE,
  type InjectionEntryData,
  interruptRetry,
  withToolReminder,
} from "./delivery/injection.ts";
export {
  type AttemptUsage,
  addInterrupt,
  COST_ENTRY,
  EMPTY_TALLY,
  type InterruptCostTally,
  interruptCostStatus,
  interruptCostText,
  readAttemptUsage,
} from "./delivery/interrupt-cost.ts";
export { INTERRUPT_TEMPLATE, REMINDER_TEMPLATE, renderInterrupt, renderReminder } from "./delivery/templates.ts";
export { buildRegistry } from "./manager/build-registry.ts";
export { canFire, type FiringRecord, shouldInterrupt } from "./manager/policy.ts";
export { admitsSource, gate, type RegisteredRule, RuleRegistry } from "./manager/registry.ts";
export { type DeltaDecision, type DeltaInput, type RuleMatch, TtsrManager } from "./manager/ttsr-manager.ts";
export {
  type CompiledPattern,
  compilePattern,
  MAX_NATIVE_DEGREE,
  type MatchWindow,
  type PatternMode,
  type PatternSpec,
  type Refusal,
  splitLiteral,
} from "./matcher/compile.ts";
export { JsonStringDecoder, pathsFromArgs } from "./matcher/json-strings.ts";
export type { Lane } from "./matcher/lane.ts";
export { naiveFirstMatches } from "./matcher/naive-first-matches.ts";
export { PatternSet } from "./matcher/pattern-set.ts";
export { NATIVE_MAX_WINDOW, type PatternHit, StreamMatcher } from "./matcher/stream-matcher.ts";
export { TextBuffer } from "./matcher/text-buffer.ts";
export { BUILTIN_RULES_DIR, loadBuiltinRules } from "./rules/builtin.ts";
export { type LoadedRules, loadTtsrRules } from "./rules/load.ts";
export { isFileGlobCondition, normalizeRule, parseScope } from "./rules/normalize.ts";
export { type PathBase, rulePathForModel } from "./rules/rule-path.ts";
export type { InterruptMode, RuleIssue, RuleScope, StreamSource, ToolScope, TtsrRule } from "./rules/types.ts";
export { streamRuleProblems } from "./rules/verdicts.ts";
export { DEFAULT_TTSR_SETTINGS } from "./settings/defaults.ts";
export { readTtsrSettings, TTSR_SETTINGS } from "./settings/read.ts";
export { parseTtsrSettings, type TtsrSettings, TtsrSettingsSchema } from "./settings/schema.ts";
