import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { codeFingerprint, writeFileAtomicSync } from "@pi-rails/agent-core/kit";
import { type CompiledPattern, type CompileResult, compilePattern, type PatternSpec } from "./compile.ts";
import { libraryVersions } from "./libs.ts";

/**
 * Compiled rule sets on disk, so a session whose rules did not change starts without parsing a regex or even
 * loading the regex libraries. Keyed by a hash of the patterns, this format, pi-ttsr's version and the regex
 * libraries' versions; written atomically (the kit's `writeFileAtomicSync`); a file that does not parse or does not
 * fit is ignored and rewritten.
 */

/** Bump when what compilePattern produces changes shape or meaning. */
const FORMAT = 4;

/** The compiler's modules, read from the package's shipped src/ so every build of it hashes the same files. */
const COMPILER_SOURCES = ["compile", "analysis", "automaton", "language-check", "redos", "compile-cache"];

/**
 * A hash of the compiler's own code and pi-ttsr's version, so a changed compiler never reads entries an older one wrote, even when the
 * version number did not change (a development build, a patched install).
 */
function compilerCode(): string {
  return codeFingerprint({
    packageName: "@pi-rails/pi-ttsr",
    from: import.meta.url,
    sources: COMPILER_SOURCES.map((name) => `src/matcher/${name}.ts`),
  });
}

/** The cache file name for a set of patterns. */
export function cacheKey(specs: readonly PatternSpec[]): string {
  const hash = createHash("sha256");
  hash.update(JSON.stringify({ format: FORMAT, libs: libraryVersions(), compiler: compilerCode() }));
  for (const s of specs) hash.update(`\u0000${s.window}\u0000${s.flags}\u0000${s.source}`);
  return hash.digest("hex").slice(0, 32);
}

export interface CompileAllResult {
  results: CompileResult[];
  /** "hit": read from the cache; "miss": compiled (and written when a directory was given). */
  cache: "hit" | "miss" | "off";
}

/** Compiles every spec, through the cache in `cacheDir` when one is given. Never throws for cache trouble. */
export function compileAll(specs: readonly PatternSpec[], cacheDir?: string): CompileAllResult {
  if (!cacheDir || specs.length === 0) return { results: specs.map(compilePattern), cache: "off" };
  const file = join(cacheDir, `${cacheKey(specs)}.json`);
  const cached = readCache(file, specs);
  if (cached) return { results: cached, cache: "hit" };
  const results = specs.map(compilePattern);
  try {
    writeFileAtomicSync(file, JSON.stringify({ format: FORMAT, results: results.map(toJson) }));
  } catch {}
  return { results, cache: "miss" };
}

function readCache(file: string, specs: readonly PatternSpec[]): CompileResult[] | undefined {
  try {
    const data = JSON.parse(readFileSync(file, "utf8")) as { format?: unknown; results?: unknown };
    if (data.format !== FORMAT || !Array.isArray(data.results) || data.results.length !== specs.length)
      return undefined;
    const results = (data.results as unknown[]).map((r, i) => fromJson(r, specs[i]!));
    return results.every((r) => r !== undefined) ? (results as CompileResult[]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * JSON has no Infinity; the pattern's numeric fields (and a tail's reach) that hold it are written as this string
 * and restored field by field. Not with a JSON.parse reviver: one call per value made reading a 200-rule set
 * (about 220 KB) five times slower (9 ms instead of 1.7).
 */
const INF = "Infinity";
const NUMERIC_FIELDS = ["maxLength", "lookahead", "readAhead", "lookbehind", "dueFrom", "dueUntil"] as const;
type NumericField = (typeof NUMERIC_FIELDS)[number];

const finiteOr = (n: number): number | typeof INF => (n === Number.POSITIVE_INFINITY ? INF : n);
const numberOf = (v: unknown): number => (v === INF ? Number.POSITIVE_INFINITY : (v as number));

interface RegexJson {
  source: string;
  flags: string;
}

type PatternJson = Omit<CompiledPattern, "regex" | "settledRegex" | "endRegex" | "tail" | "parts" | NumericField> & {
  [K in NumericField]: number | typeof INF;
} & {
  regex: RegexJson;
  settledRegex: RegexJson;
  endRegex?: RegexJson;
  tail?: { regex: RegexJson; reach: number | typeof INF };
  parts?: PatternJson[];
};

const regexJson = (re: RegExp): RegexJson => ({ source: re.source, flags: re.flags });
const regexOf = (json: RegexJson): RegExp => new RegExp(json.source, json.flags);

function toJson(result: CompileResult): unknown {
  if (!result.ok) return result;
  const pattern = (p: CompiledPattern): PatternJson => {
    const { regex, settledRegex, endRegex, tail, parts, ...rest } = p;
    const numbers = Object.fromEntries(NUMERIC_FIELDS.map((k) => [k, finiteOr(p[k])])) as {
      [K in NumericField]: number | typeof INF;
    };
    return {
      ...rest,
      ...numbers,
      regex: regexJson(regex),
      settledRegex: regexJson(settledRegex),
      ...(endRegex ? { endRegex: regexJson(endRegex) } : {}),
      ...(tail ? { tail: { regex: regexJson(tail.regex), reach: finiteOr(tail.reach) } } : {}),
      ...(parts ? { parts: parts.map(pattern) } : {}),
    };
  };
  return { ok: true, pattern: pattern(result.pattern) };
}

function fromJson(value: unknown, spec: PatternSpec): CompileResult | undefined {
  const r = value as { ok?: unknown; error?: unknown; pattern?: PatternJson };
  if (r.ok === false && typeof r.error === "string") return { ok: false, error: r.error };
  if (r.ok !== true || !r.pattern) return undefined;
  const pattern = (p: PatternJson): CompiledPattern => {
    const { regex, settledRegex, endRegex, tail, parts, ...rest } = p;
    if (typeof rest.mode !== "string" || !Array.isArray(rest.notes)) throw new Error("bad entry");
    const numbers = Object.fromEntries(NUMERIC_FIELDS.map((k) => [k, numberOf(p[k])])) as Pick<
      CompiledPattern,
      NumericField
    >;
    return {
      ...rest,
      ...numbers,
      regex: regexOf(regex),
      settledRegex: regexOf(settledRegex),
      ...(endRegex ? { endRegex: regexOf(endRegex) } : {}),
      ...(tail ? { tail: { regex: regexOf(tail.regex), reach: numberOf(tail.reach) } } : {}),
      ...(parts ? { parts: parts.map(pattern) } : {}),
    };
  };
  const compiled = pattern(r.pattern);
  // The entry must be for this very spec (a hash collision or a hand-edited file is not trusted).
  if (compiled.spec.source !== spec.source || compiled.spec.window !== spec.window) return undefined;
  return { ok: true, pattern: compiled };
}
