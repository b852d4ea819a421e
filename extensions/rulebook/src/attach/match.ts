import { isAbsolute, relative, resolve, sep } from "node:path";
import { Minimatch } from "minimatch";
import type { Rule } from "../rule.ts";

/** Tools whose `path` argument means "the model is reading or editing this file". */
export const FILE_TOOLS = new Set(["read", "edit", "write"]);

export interface GlobMatcher {
  rule: Rule;
  matchers: Minimatch[];
  negations: Minimatch[];
}

/**
 * Compile each rule's globs once per session. A glob without `/` matches the file name in any folder
 * (`*.ts`, as in .gitignore and Cursor); a leading `!` excludes.
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
      const m = new Minimatch(glob, { dot: true, matchBase: !glob.includes("/"), nocomment: true });
      (negated ? negations : matchers).push(m);
    }
    if (matchers.length) out.push({ rule, matchers, negations });
  }
  return out;
}

/** Path relative to cwd with `/` separators, or `undefined` when the file is outside cwd. */
export function toCwdRelative(cwd: string, path: string): string | undefined {
  const cleaned = path.startsWith("@") ? path.slice(1) : path;
  const rel = relative(cwd, resolve(cwd, cleaned));
  if (!rel || rel.startsWith("..") || isAbsolute(rel)) return undefined;
  return rel.split(sep).join("/");
}

/** Rules whose globs match `relPath`, in precedence order. */
export function matchRules(matchers: readonly GlobMatcher[], relPath: string): Rule[] {
  return matchers
    .filter((m) => m.matchers.some((x) => x.match(relPath)) && !m.negations.some((x) => x.match(relPath)))
    .map((m) => m.rule);
}

/** The reminder appended to a tool result when a rule is auto-attached. */
export function renderAttachment(rule: Rule, relPath: string): string {
  return `<rule name="${rule.name}" reason="auto-attached: ${relPath} matches its globs">\n${rule.content}\n</rule>`;
}
