import { homeDir, resolveAgentDir } from "@pi-rails/agent-core/kit";
import { compileGlobMatchers, type GlobMatcher } from "../attach/match.ts";
import { type BucketOptions, bucketRules, type RuleBuckets } from "../buckets/buckets.ts";
import { loadRules } from "../discovery/load.ts";
import { renderRules } from "../prompt/render.ts";
import type { RuleLoadResult } from "../rule.ts";
import { readRulebookSettings } from "../settings/read.ts";
import type { RulebookSettings } from "../settings/schema.ts";
import { READ_RULE_TOOL } from "../tools/read-rule.ts";

/** A session's rules and what they were read with. */
export interface SessionRules {
  cwd: string;
  /** pi's project trust when the rules were read: project settings count only in a trusted project. */
  trusted: boolean;
  settings: RulebookSettings;
  result: RuleLoadResult;
}

/**
 * Reads the settings and discovers the rules, with the real home and pi's agent dir. Never throws: discovery
 * reports bad files itself, and a failure beyond that becomes a warning, so pi never loses a session to rulebook.
 */
export async function readSessionRules(cwd: string, trusted: boolean): Promise<SessionRules> {
  const agentDir = resolveAgentDir();
  const { settings, issues, ttsrDisabledRules } = await readRulebookSettings(cwd, agentDir, {
    projectTrusted: trusted,
  });
  let result: RuleLoadResult;
  try {
    result = await loadRules({ cwd, home: homeDir(), agentDir, settings, ttsrDisabledRules });
  } catch (error) {
    result = {
      rules: [],
      shadowed: [],
      skipped: [],
      warnings: [{ message: `rule discovery failed: ${(error as Error).message}` }],
      providers: [],
      stats: { files: 0, cacheHits: 0, ms: 0 },
    };
  }
  result.warnings.unshift(...issues);
  return { cwd, trusted, settings, result };
}

/** What pi-ttsr said of itself: whether it is active, and why a stream rule is not delivered (its word first). */
export type TtsrView = Pick<BucketOptions, "ttsrActive" | "streamProblem">;

/** What a session delivers, derived from its rules and pi-ttsr's status (rebuilt when either changes). */
export interface RuleView {
  buckets: RuleBuckets;
  promptText: string;
  matchers: GlobMatcher[];
  /** Delivery warnings: stream rules without pi-ttsr, rules left out of the capped list. */
  warnings: string[];
}

export function ruleView({ result, settings }: SessionRules, ttsr: TtsrView): RuleView {
  const { globAttach, maxListedChars } = settings;
  const buckets = bucketRules(result.rules, { ...ttsr, globAttach });
  const rendered = renderRules(buckets, {
    ttsrActive: ttsr.ttsrActive,
    globAttach,
    toolName: READ_RULE_TOOL,
    maxListedChars,
    attach: buckets.attach,
  });
  const warnings = [...buckets.warnings];
  if (rendered.omitted.length) {
    warnings.push(
      `${rendered.omitted.length} rule(s) are not listed in the system prompt: the list is capped at ${maxListedChars} characters (rulebook.maxListedChars); they stay readable with read_rule`,
    );
  }
  return { buckets, promptText: rendered.text, matchers: compileGlobMatchers(buckets.attach), warnings };
}
