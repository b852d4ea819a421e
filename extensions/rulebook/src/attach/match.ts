import { resolve, sep } from "node:path";
import { relativeInside } from "@pi-rails/agent-core/kit";
import { Minimatch } from "minimatch";
import { globSpecificity } from "../globs/check.ts";
import { escapeXml } from "../prompt/escape.ts";
import type { Rule } from "../rule.ts";

/** Tools whose `path` argument means "the model is reading or editing this file". */
export const FILE_TOOLS = new Set(["read", "edit", "write"]);

export interface GlobMatcher {
  rule: Rule;
  matchers: Minimatch[];
  negations: Minimatch[];
  /** `globSpecificity` of each of `matchers`, computed once. */
  specificity?: number[];
}

/**
 * Compile each rule's globs once per session. A glob without `/` matches the file name in any folder
 * (`*.ts`, as in .gitignore and Cursor); a leading `!` excludes. A glob the matcher refuses is left
 * out (discovery already reported it), never thrown: one rule cannot take the others down.
 */
export function compileGlobMatchers(rules: readonly Rule[]): GlobMatcher[] {
  const out: GlobMatcher[] = [];
  for (const rule of rules) {
    if (!rule.globs?.length) continue;
    const matchers: Minimatch[] = [];
    const negations: Minimatch[] = [];
    for (const raw of rule.globs) {
      const negated = raw.startsWith("!");
      const glob = (negated ? raw.slice(1) : raw).replace(/^\.\//, "").replace(/^\//, "");
      try {
        const m = new Minimatch(glob, { dot: true, matchBase: !glob.includes("/"), nocomment: true });
        (negated ? negations : matchers).push(m);
      } catch {
        // discovery reports globs the matcher cannot take (too long); nothing to match with here
      }
    }
    if (matchers.length)
      out.push({ rule, matchers, negations, specificity: matchers.map((m) => globSpecificity(m.pattern)) });
  }
  return out;
}

/** Path relative to cwd with `/` separators, or `undefined` when the file is outside cwd. */
export function toCwdRelative(cwd: string, path: string): string | undefined {
  const cleaned = path.startsWith("@") ? path.slice(1) : path;
  const rel = relativeInside(cwd, resolve(cwd, cleaned));
  return rel ? rel.split(sep).join("/") : undefined;
}

/** Rules whose globs match `relPath`, in precedence order. */
export function matchRules(matchers: readonly GlobMatcher[], relPath: string): Rule[] {
  return matchers
    .filter((m) => m.matchers.some((x) => x.match(relPath)) && !m.negations.some((x) => x.match(relPath)))
    .map((m) => m.rule);
}

export interface RankedMatch {
  rule: Rule;
  /** The most specific of the rule's globs that matched. */
  glob: string;
  specificity: number;
}

/**
 * Rules whose globs match `relPath`, most specific matching glob first, then the newest file, then
 * precedence: the order in which auto-attach spends its budget.
 */
export function rankMatches(matchers: readonly GlobMatcher[], relPath: string): RankedMatch[] {
  const out: (RankedMatch & { index: number })[] = [];
  matchers.forEach((m, index) => {
    if (m.negations.some((x) => x.match(relPath))) return;
    let best: Minimatch | undefined;
    let bestScore = -1;
    for (const [i, x] of m.matchers.entries()) {
      if (!x.match(relPath)) continue;
      const score = m.specificity?.[i] ?? globSpecificity(x.pattern);
      if (score > bestScore) {
        best = x;
        bestScore = score;
      }
    }
    if (best) out.push({ rule: m.rule, glob: best.pattern, specificity: bestScore, index });
  });
  out.sort(
    (a, b) =>
      b.specificity - a.specificity || (b.rule.source.mtimeMs ?? 0) - (a.rule.source.mtimeMs ?? 0) || a.index - b.index,
  );
  return out.map(({ index: _index, ...m }) => m);
}

/** What one tool result gets: rules attached whole, and the ones left out for the budget (named only). */
export interface AttachPlan {
  attached: Rule[];
  omitted: Rule[];
}

/**
 * Spend `budgetChars` of rule content on the ranked matches, in order; a rule that does not fit is
 * named instead, and smaller ones after it may still fit.
 */
export function planAttachments(ranked: readonly RankedMatch[], budgetChars: number, relPath: string): AttachPlan {
  const plan: AttachPlan = { attached: [], omitted: [] };
  let spent = 0;
  for (const { rule } of ranked) {
    const size = renderAttachment(rule, relPath).length;
    if (spent + size <= budgetChars) {
      plan.attached.push(rule);
      spent += size;
    } else {
      plan.omitted.push(rule);
    }
  }
  return plan;
}

/**
 * What a tool result for `relPath` brings along: the matching rules not in `seen`, best first, as many as fit
 * `budgetChars` (the rest named for `tool`), and the text appended to the result; undefined when none match.
 */
export function attachmentFor(
  matchers: readonly GlobMatcher[],
  relPath: string,
  seen: ReadonlySet<string>,
  budgetChars: number,
  tool: string,
): { attached: Rule[]; text: string } | undefined {
  const fresh = rankMatches(matchers, relPath).filter((m) => !seen.has(m.rule.name));
  if (!fresh.length) return undefined;
  const plan = planAttachments(fresh, budgetChars, relPath);
  const blocks = plan.attached.map((r) => renderAttachment(r, relPath));
  if (plan.omitted.length) blocks.push(renderOmitted(plan.omitted, relPath, budgetChars, tool));
  return { attached: plan.attached, text: `\n\n${blocks.join("\n\n")}` };
}

/** The reminder appended to a tool result when a rule is auto-attached. Name and path are escaped. */
export function renderAttachment(rule: Rule, relPath: string): string {
  return `<rule name="${escapeXml(rule.name)}" reason="auto-attached: ${escapeXml(relPath)} matches its globs">\n${rule.content}\n</rule>`;
}

/** Names shown for rules left out of one attachment; longer lists are counted. */
const MAX_NAMED = 20;

/** The note for rules that matched but did not fit the budget: their names and how to read them. */
export function renderOmitted(omitted: readonly Rule[], relPath: string, budgetChars: number, tool: string): string {
  const names = omitted.slice(0, MAX_NAMED).map((r) => escapeXml(r.name));
  const more = omitted.length > MAX_NAMED ? `, and ${omitted.length - MAX_NAMED} more` : "";
  return `<rules-not-attached path="${escapeXml(relPath)}" count="${omitted.length}">\n${omitted.length} more rule(s) match this file but did not fit the ${budgetChars}-character attach budget (rulebook.attachBudgetChars): ${names.join(", ")}${more}. Read the ones that concern your task with ${tool}.\n</rules-not-attached>`;
}
