// Parses and compiles the shipped rules (rules/) at build time: dist/builtin-parsed.json (their frontmatter parses and
// a hash of each text, src/rules/builtin.ts) and dist/builtin-compiled.json (their patterns, which the compile cache reads when
// it has no entry of its own: src/matcher/compile-cache.ts). A first start after installing or upgrading pi-ttsr
// then neither parses nor compiles them. Run by `pnpm build` after tsc.
import { chmodSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

process.env.PI_TTSR_CACHE_DIR = "off"; // the build must not read or write anyone's cache

const { BUILTIN_RULES_DIR, SHIPPED_PARSES, loadBuiltinRules, textHash } = await import("../dist/rules/builtin.js");
const { parseFrontmatter } = await import("@pi-rails/rulebook/discovery");

const parses = {};
for (const name of readdirSync(BUILTIN_RULES_DIR)
  .filter((n) => /\.(md|mdc)$/i.test(n))
  .sort()) {
  const text = readFileSync(join(BUILTIN_RULES_DIR, name), "utf8");
  parses[name] = { hash: textHash(text), parsed: parseFrontmatter(text) };
}
writeFileSync(SHIPPED_PARSES, `${JSON.stringify(parses)}\n`);
const { normalizeRule } = await import("../dist/rules/normalize.js");
const { compilePattern } = await import("../dist/matcher/compile.js");
const { SHIPPED_SET, writeShippedSet } = await import("../dist/matcher/compile-cache.js");

const { rules, issues } = await loadBuiltinRules();
if (issues.length > 0) throw new Error(`compile-builtins: ${issues.map((i) => i.message).join("; ")}`);
const specs = [];
for (const source of rules) {
  const { rule, issues: ruleIssues } = normalizeRule(source, { builtin: true });
  if (!rule || ruleIssues.length > 0)
    throw new Error(`compile-builtins: ${source.path}: ${JSON.stringify(ruleIssues)}`);
  for (const c of rule.conditions) specs.push({ source: c.source, flags: c.flags, window: rule.window });
}
const results = specs.map(compilePattern);
const refused = results.flatMap((r) => (r.ok ? [] : [r.error]));
if (refused.length > 0) throw new Error(`compile-builtins: ${refused.join("; ")}`);
if (!writeShippedSet(SHIPPED_SET, specs, results)) throw new Error(`compile-builtins: cannot write ${SHIPPED_SET}`);
chmodSync(SHIPPED_SET, 0o644); // the cache's files are private; this one ships in the package
console.log(`compile-builtins: ${specs.length} patterns of ${rules.length} rules -> ${SHIPPED_SET}`);
