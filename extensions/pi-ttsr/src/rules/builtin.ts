import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { noteRead, noteReadError } from "@pi-rails/agent-core/kit";
import {
  loadParseStore,
  type ParsedFrontmatter,
  parseFrontmatter,
  readParsed,
  saveParseStore,
} from "@pi-rails/rulebook/discovery";
import { defaultCacheDir } from "../settings/read.ts";
import type { RuleIssue, SourceRule } from "./types.ts";

/** The `rules/` folder shipped with the package (next to `src/` and `dist/`). */
export const BUILTIN_RULES_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "rules");

/**
 * The shipped rules' parses and a hash of each file's text, made at build time (scripts/compile-builtins.mjs) one
 * folder above this module in the built package (dist/): a first start parses none of them (no YAML parser loaded).
 * A file whose text no longer has the recorded hash is parsed as any other.
 */
export const SHIPPED_PARSES = fileURLToPath(new URL("../builtin-parsed.json", import.meta.url));

/** How a shipped rule's text is recorded beside its parse. */
export const textHash = (text: string): string => createHash("sha256").update(text).digest("base64url");

/** The recorded parses by file name (empty when missing or unreadable: tests on src/). */
function shippedParses(): Map<string, { hash: string; parsed: ParsedFrontmatter }> {
  try {
    return new Map(Object.entries(JSON.parse(readFileSync(SHIPPED_PARSES, "utf8"))));
  } catch {
    return new Map();
  }
}

/** Provider id of the shipped rules: lowest precedence, so a user rule of the same name replaces one. */
export const BUILTIN_PROVIDER = "pi-ttsr-builtin";

/**
 * Parses one rule file into rulebook's rule shape, the way rulebook would (same frontmatter parser). A file the
 * parser refuses or throws on yields no rule and an issue naming it.
 */
export function ruleFromText(path: string, text: string, provider: string): { rule?: SourceRule; issues: RuleIssue[] } {
  let parsed: ParsedFrontmatter;
  try {
    parsed = parseFrontmatter(text);
  } catch (error) {
    return {
      issues: [{ path, message: `rule skipped: its frontmatter could not be read (${(error as Error).message})` }],
    };
  }
  return ruleFromParsed(path, parsed, provider);
}

/** A parsed rule file in rulebook's rule shape (see ruleFromText). */
function ruleFromParsed(
  path: string,
  parsed: ParsedFrontmatter,
  provider: string,
): { rule?: SourceRule; issues: RuleIssue[] } {
  const refused = (parsed as { refused?: { reason: string } }).refused;
  if (refused) return { issues: [{ path, message: `rule skipped: ${refused.reason}` }] };
  const issues: RuleIssue[] = [];
  if (parsed.fallback)
    issues.push({ path, message: `YAML frontmatter failed (${parsed.fallback.error}); read line by line` });
  if (parsed.unclosed) issues.push({ path, message: "frontmatter is never closed; the whole file is the body" });
  const data = parsed.data;
  const rule: SourceRule = {
    name: path
      .split(/[\\/]/)
      .pop()!
      .replace(/\.(md|mdc)$/i, ""),
    path,
    content: parsed.body,
    source: { provider, priority: -1, scope: "user", path },
    meta: data,
  };
  if (typeof data["description"] === "string") rule.description = data["description"];
  const globs = data["globs"];
  if (typeof globs === "string")
    rule.globs = globs
      .split(",")
      .map((g) => g.trim())
      .filter(Boolean);
  else if (Array.isArray(globs)) rule.globs = globs.filter((g): g is string => typeof g === "string");
  return { rule, issues };
}

/**
 * Loads the shipped rules (parsed like any rule file, through rulebook's parse cache and store). Their parses are
 * kept across sessions next to the compiled rule sets, so a session loads no YAML parser for them.
 */
export async function loadBuiltinRules(dir = BUILTIN_RULES_DIR): Promise<{ rules: SourceRule[]; issues: RuleIssue[] }> {
  const cacheDir = defaultCacheDir();
  const store = cacheDir ? join(cacheDir, "builtin-rules.json") : false;
  const rules: SourceRule[] = [];
  const issues: RuleIssue[] = [];
  let names: string[];
  noteRead(dir);
  try {
    names = (await readdir(dir)).filter((n) => /\.(md|mdc)$/i.test(n)).sort();
  } catch (error) {
    noteReadError(error);
    return { rules, issues: [{ path: dir, message: "builtin rules folder is missing" }] };
  }
  const shipped = dir === BUILTIN_RULES_DIR ? shippedParses() : new Map();
  let storeLoaded = false;
  const paths = names.map((n) => join(dir, n));
  for (const path of paths) {
    noteRead(path);
    let parsed: ParsedFrontmatter;
    try {
      const known = shipped.get(basename(path));
      if (known && textHash(await readFile(path, "utf8")) === known.hash) parsed = known.parsed;
      else {
        if (!storeLoaded) loadParseStore(store);
        storeLoaded = true;
        parsed = (await readParsed(path, await stat(path))).parsed;
      }
    } catch (error) {
      noteReadError(error);
      issues.push({ path, message: `rule skipped: it could not be read (${(error as Error).message})` });
      continue;
    }
    const { rule, issues: fileIssues } = ruleFromParsed(path, parsed, BUILTIN_PROVIDER);
    if (rule) rules.push(rule);
    issues.push(...fileIssues);
  }
  if (storeLoaded) saveParseStore(store, paths);
  return { rules, issues };
}
