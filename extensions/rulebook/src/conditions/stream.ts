/**
 * How a rule's stream condition is read: the one answer to "can pi-ttsr watch for this?" that rulebook's doctor,
 * show and list and pi-ttsr's loader share (pi-ttsr depends on rulebook, so the decision lives here). A condition
 * is a file glob (`*.rs`: an edit or write of a matching path) or a regex (`/src/flags` literal, a leading `(?i)`
 * moved to flags); a regex must compile under the flags pi-ttsr runs it with and must not match empty text.
 * What only pi-ttsr's matcher can judge (patterns too slow to watch a stream) pi-ttsr reports itself.
 */

import { checkGlob } from "../globs/check.ts";
import type { Rule } from "../rule.ts";
import { translateInlineFlags } from "./inline-flags.ts";
import { needsACharacter } from "./needs-a-character.ts";

/** A regex condition as pi-ttsr compiles it. */
export interface StreamRegex {
  source: string;
  flags: string;
}

/** The conditions of one rule: the regexes and file globs that can be used, and why the others cannot. */
export interface StreamConditions {
  regexes: StreamRegex[];
  globs: string[];
  /** One entry per unusable condition: the condition as written and why. */
  problems: { condition: string; message: string }[];
  /** A glob that is kept but can never match (an unclosed `[`): the rule loads, the user is told. */
  notes: { condition: string; message: string }[];
}

/** Regex flags a rule may set (`flags: "i"`); `g`, `y` and `d` are the matcher's business and dropped. */
export const RULE_FLAGS = /^[dgimsuvy]*$/;

function uniqueFlags(flags: string): string {
  return [...new Set(flags.replace(/[gyd]/g, ""))].sort().join("");
}

/**
 * Parses `/source/flags` literals written in rule files; plain strings are the source itself. Like a JS literal,
 * the source may not contain an unescaped `/`, so a condition such as `/usr/bin/` stays a plain pattern.
 */
export function splitConditionLiteral(condition: string, flags: string): StreamRegex {
  const literal = /^\/(.+)\/([dgimsuvy]*)$/s.exec(condition);
  if (literal && !/(^|[^\\])\//.test(literal[1]!)) {
    return { source: literal[1]!, flags: uniqueFlags(literal[2]! + flags) };
  }
  return { source: condition, flags: uniqueFlags(flags) };
}

/**
 * A condition that is a file glob (`*.rs`, `src/**` + `/*.ts`), not a regex: the reference's shorthand for
 * "an edit or write of a matching path".
 */
export function isFileGlobCondition(condition: string): boolean {
  const token = condition.trim();
  if (!token || /[\\^$+|()]/.test(token) || !/[?*[\]{}]/.test(token)) return false;
  // Regex idioms a glob does not use (`https?://[^/]*`, `//.*TODO`): such a condition stays a regex.
  if (/\.[*?]|\[\^|:\/\//.test(token)) return false;
  return token.includes("/") || /^\*\.[^\s/]+$/.test(token);
}

/** Why one regex cannot watch a stream, or undefined when it compiles and cannot match empty text. */
export function regexProblem(regex: StreamRegex): string | undefined {
  let compiled: RegExp;
  try {
    compiled = new RegExp(regex.source, regex.flags);
  } catch (error) {
    // V8 repeats the pattern in its message; the condition is named by the caller
    const message = (error as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, "");
    return `invalid regex: ${message}`;
  }
  // compiling it to try it on empty text is the costly part: skipped when the source shows it needs a character
  if (!needsACharacter(regex.source, regex.flags) && compiled.test(""))
    return "it matches empty text, so it would fire on every response";
  return undefined;
}

/** Reads a rule's conditions as pi-ttsr uses them (see the module comment). */
export function readStreamConditions(conditions: readonly string[], flags: string): StreamConditions {
  const out: StreamConditions = { regexes: [], globs: [], problems: [], notes: [] };
  for (const condition of conditions) {
    if (!condition.trim()) continue;
    if (isFileGlobCondition(condition)) {
      const glob = condition.trim();
      const check = checkGlob(glob);
      if (check.glob === undefined)
        out.problems.push({
          condition,
          message: check.issue?.message ?? `glob ${JSON.stringify(glob)} cannot be used`,
        });
      else out.globs.push(glob);
      if (check.issue?.kind === "glob-unmatchable") out.notes.push({ condition, message: check.issue.message });
      continue;
    }
    const literal = splitConditionLiteral(condition, flags);
    const translated = translateInlineFlags(literal.source, literal.flags);
    if (!translated.ok) {
      out.problems.push({ condition, message: translated.error });
      continue;
    }
    const regex = { source: translated.source, flags: translated.flags };
    const problem = regexProblem(regex);
    if (problem) out.problems.push({ condition, message: problem });
    else out.regexes.push(regex);
  }
  return out;
}

/** The `flags` key of a rule's frontmatter as pi-ttsr reads it; a value that is not flags is ignored (""). */
export function ruleFlags(meta: Record<string, unknown>): string {
  const flags = Object.hasOwn(meta, "flags") ? meta["flags"] : undefined;
  return typeof flags === "string" && RULE_FLAGS.test(flags.trim()) ? flags.trim() : "";
}

/** `/TODO((fix/: invalid regex: Unterminated group`, the words every tool uses for one unusable condition. */
export function conditionProblemText(problem: { condition: string; message: string }): string {
  const c = problem.condition.trim();
  const shown = isFileGlobCondition(c) ? `glob ${c}` : c.startsWith("/") && c.length > 1 ? c : `/${c}/`;
  return `${shown}: ${problem.message}`;
}

/**
 * Why pi-ttsr cannot watch the stream for this rule at all (none of its conditions can be used), or undefined when
 * it has none or at least one usable condition. The reason names each condition and what is wrong with it.
 */
export function streamConditionProblem(rule: Pick<Rule, "condition" | "meta">): string | undefined {
  const conditions = rule.condition?.filter((c) => c.trim() !== "") ?? [];
  if (conditions.length === 0) return undefined;
  const read = readStreamConditions(conditions, ruleFlags(rule.meta ?? {}));
  if (read.regexes.length > 0 || read.globs.length > 0) return undefined;
  return noUsableConditionText(read.problems);
}

/** The reason for a rule none of whose conditions can be used (pi-ttsr's loader says it in the same words). */
export function noUsableConditionText(problems: StreamConditions["problems"]): string {
  return `no stream condition can be used: ${problems.map(conditionProblemText).join("; ")}`;
}
