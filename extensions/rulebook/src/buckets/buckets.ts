import { streamConditionProblem } from "../conditions/stream.ts";
import type { Rule } from "../rule.ts";

/** Where each effective rule is delivered. Every rule lands in exactly one bucket. */
export interface RuleBuckets {
  /** Has a stream condition: pi-ttsr's job (listed in the prompt instead when pi-ttsr is not loaded). */
  ttsr: Rule[];
  /** Full content in the system prompt, first. */
  alwaysApply: Rule[];
  /** Listed by name, description and globs; content read on demand with `read_rule`. */
  rulebook: Rule[];
  /** Globs but no description: attached to the result of a tool call that touches a matching file. */
  glob: Rule[];
  /** Delivered nowhere, with the reason (for `rulebook doctor`). */
  neither: { rule: Rule; reason: string }[];
  /** Rules `read_rule` may return: everything the prompt shows or may attach. */
  readable: Rule[];
  /**
   * Rules auto-attached to a read/edit/write result of a matching file: every readable rule with
   * globs that is not already in the prompt whole (a rulebook rule can be both listed and attached).
   */
  attach: Rule[];
  /** One-time warnings about delivery (a stream condition without pi-ttsr). */
  warnings: string[];
}

export interface BucketOptions {
  /** pi-ttsr announced itself on the event bus. */
  ttsrActive: boolean;
  /** `rulebook.globAttach` (default true). */
  globAttach?: boolean;
  /**
   * Why pi-ttsr will not watch for a rule's stream condition, or undefined when it will. Default: the check of the
   * conditions themselves (`streamConditionProblem`); a session adds what the loaded pi-ttsr reported skipping.
   */
  streamProblem?: (rule: Rule) => string | undefined;
}

/** The reason `doctor` and `/rulebook` give for a stream rule pi-ttsr does not watch. */
export function notEnforcedReason(problem: string): string {
  return `not enforced: pi-ttsr does not load it (${problem})`;
}

/** Why a rule would be delivered nowhere, or `undefined` when it has a bucket. */
function neitherReason(rule: Rule, globAttach: boolean): string | undefined {
  if (rule.manual) return "manual rule (applied only when mentioned in its own tool); pi has no mention mechanism";
  if (rule.globs?.length && !globAttach) return "globs but no description, and rulebook.globAttach is off";
  if (rule.globs?.length) return undefined;
  if (rule.alwaysApply === false) return "alwaysApply is false and there is no description, globs or condition";
  return "no description, globs, alwaysApply or condition: nothing says when to use it";
}

/**
 * Split rules by how they are delivered. Order of tests (first match wins): `alwaysApply: true`
 * (always in the prompt, whatever else the rule has), then a stream condition (TTSR), then a
 * description (rulebook), then globs (glob-attached).
 * Rules keep their precedence order inside each bucket.
 */
export function bucketRules(rules: readonly Rule[], options: BucketOptions): RuleBuckets {
  const globAttach = options.globAttach ?? true;
  const streamProblem = options.streamProblem ?? streamConditionProblem;
  const buckets: RuleBuckets = {
    ttsr: [],
    alwaysApply: [],
    rulebook: [],
    glob: [],
    neither: [],
    readable: [],
    attach: [],
    warnings: [],
  };
  for (const rule of rules) {
    const problem = rule.condition?.length && options.ttsrActive ? streamProblem(rule) : undefined;
    if (rule.alwaysApply === true) {
      // always in the prompt, whatever else it has (globs, description; a condition is still pi-ttsr's too)
      buckets.alwaysApply.push(rule);
      buckets.readable.push(rule);
      if (rule.condition?.length && !options.ttsrActive) {
        buckets.warnings.push(
          `rule "${rule.name}" has a stream condition but pi-ttsr is not loaded: only its always-apply text is delivered (${rule.path})`,
        );
      }
    } else if (problem) {
      // pi-ttsr will not watch for it: it is delivered nowhere, and every tool says so with the same reason
      buckets.neither.push({ rule, reason: notEnforcedReason(problem) });
    } else if (rule.condition?.length) {
      buckets.ttsr.push(rule);
      if (!options.ttsrActive) {
        buckets.readable.push(rule);
        buckets.warnings.push(
          `rule "${rule.name}" has a stream condition but pi-ttsr is not loaded: it is only listed in the prompt (${rule.path})`,
        );
      }
    } else if (rule.description && !rule.manual) {
      buckets.rulebook.push(rule);
      buckets.readable.push(rule);
    } else {
      const reason = neitherReason(rule, globAttach);
      if (reason) {
        buckets.neither.push({ rule, reason });
      } else {
        buckets.glob.push(rule);
        buckets.readable.push(rule);
      }
    }
  }
  if (globAttach) {
    buckets.attach = buckets.readable.filter((r) => r.globs?.length && !buckets.alwaysApply.includes(r));
  }
  return buckets;
}

export type BucketName = "ttsr" | "alwaysApply" | "rulebook" | "glob" | "neither";

/** The bucket one rule falls in (for listings). */
export function bucketOf(buckets: RuleBuckets, rule: Rule): BucketName {
  for (const name of ["ttsr", "alwaysApply", "rulebook", "glob"] as const) {
    if (buckets[name].includes(rule)) return name;
  }
  return "neither";
}
