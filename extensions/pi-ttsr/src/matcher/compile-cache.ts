import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  codeFingerprint,
  filesNewestFirst,
  pruneToNewest,
  readJsonCache,
  writeJsonCache,
} from "@pi-rails/agent-core/kit";
import {
  type CompiledPattern,
  type CompileResult,
  compilePattern,
  literalChars,
  type PatternSpec,
  type Refusal,
} from "./compile.ts";
import { deferPattern } from "./deferred.ts";

/**
 * Compiled patterns on disk, so a session whose rules did not change starts without parsing a regex or even
 * loading the regex libraries, and editing one rule recompiles that rule alone:
 * - one file per rule set (the KEPT_SETS newest), so a start with the rules of an earlier one reads one file, and a
 *   changed set finds its unchanged patterns in the last sets' files;
 * - one file per pattern compiled beside an earlier set (an edited rule's), named by a hash of its window, flags and
 *   source (which it also holds, checked on reading).
 * They live in a folder named by a hash of this format, pi-ttsr's version, the regex libraries' versions and the
 * compiler's own code. Read and written with the kit's JSON cache routines (atomic writes); a file that does not
 * parse or does not fit is ignored and rewritten.
 */

/** Bump when what compilePattern produces changes shape or meaning, or how an entry stores it. */
const FORMAT = 6;

/** The compiler's modules, read from the package's shipped src/ so every build of it hashes the same files. */
const COMPILER_SOURCES = ["compile", "analysis", "automaton", "language-check", "redos", "compile-cache"];

/** The regex libraries, whose versions change what a compiled pattern looks like. */
const REGEX_LIBRARIES = ["refa", "regexp-ast-analysis", "scslre"];

/**
 * The folder of this compiler's entries in `cacheDir`, named by the kit's hash of the compiler's own code, pi-ttsr's
 * and the regex libraries' versions and FORMAT: a changed compiler never reads entries an older one wrote, even when
 * no version number changed (a development build, a patched install).
 */
function folderOf(cacheDir: string): string {
  return join(cacheDir, `patterns-${compilerFingerprint().slice(0, 16)}`);
}

/** The kit's fingerprint of this compiler (its code, the regex libraries' versions, FORMAT), which names its folder. */
function compilerFingerprint(): string {
  return codeFingerprint({
    packageName: "@pi-rails/pi-ttsr",
    from: import.meta.url,
    sources: COMPILER_SOURCES.map((name) => `src/matcher/${name}.ts`),
    dependencies: REGEX_LIBRARIES,
    salt: `${FORMAT}`,
  });
}

/** The cache file of one pattern: in this compiler's folder, named by a hash of the pattern. */
export function cacheFile(cacheDir: string, spec: PatternSpec): string {
  const hash = createHash("sha256").update(`${spec.window}\u0000${spec.flags}\u0000${spec.source}`);
  return join(folderOf(cacheDir), `${hash.digest("hex").slice(0, 32)}.json`);
}

/**
 * The shipped rules compiled at build time (scripts/compile-builtins.mjs), one folder above this module in the
 * built package (dist/), in a whole-set file's format plus the compiler it was made by: a first start finds them
 * there, so it compiles none of them. Ignored when another compiler made it (or it is missing: tests on src/).
 */
export const SHIPPED_SET = fileURLToPath(new URL("../builtin-compiled.json", import.meta.url));

/**
 * What the shipped set must have been made with: pi-ttsr's and the regex libraries' versions and FORMAT. (Not the
 * compiler's sources, which the installed package does not have; the set is built with the very dist/ it ships in.)
 */
const compilerId = () =>
  codeFingerprint({
    packageName: "@pi-rails/pi-ttsr",
    from: import.meta.url,
    sources: [],
    dependencies: REGEX_LIBRARIES,
    salt: `${FORMAT}`,
  });

/**
 * The kit fingerprints this cache asks for: its folder's, and the one the shipped set must have been made with
 * (read whenever a pattern is missing from the set files). A start-up snapshot computes them while recording what it
 * reads, and keeps them (session-rules.ts): the next start after a rule edit resolves no package for them.
 */
export function compileCacheFingerprints(): { folder: string; shipped: string } {
  return { folder: compilerFingerprint(), shipped: compilerId() };
}

/** Writes the shipped set (the build's script). */
export function writeShippedSet(
  file: string,
  specs: readonly PatternSpec[],
  results: readonly CompileResult[],
): boolean {
  return writeJsonCache(file, {
    format: FORMAT,
    compiler: compilerId(),
    results: results.map((r, i) => toJson(r, specs[i]!)),
  });
}

export interface CompileAllResult {
  results: CompileResult[];
  /** "hit": every pattern read from the cache; "miss": some compiled (and written when a directory was given). */
  cache: "hit" | "miss" | "off";
  /** How many patterns were compiled (the rest were read from the cache, or deferred). */
  compiled: number;
  /** How many patterns were deferred (with `defer`): their results are deferred patterns, compiled later. */
  deferred: number;
  /** Whether the set's file is still to be written (`writeSet: false`, nothing deferred, not read from it). */
  setUnsaved: boolean;
}

export interface CompileAllOptions {
  /**
   * Defer the patterns the cache cannot answer, where deferred.ts can (a session's start), instead of compiling
   * them now. The whole set's file is then written once they are compiled (`saveCompiledSet`).
   */
  defer?: boolean;
  /**
   * Write a changed set's file now (the default); false: the caller writes it later with `saveCompiledSet`, off a
   * session's start (serializing 200 compiled patterns costs a few ms). A first start's set is written anyway.
   */
  writeSet?: boolean;
}

/** Whole-set files kept per compiler folder (the newest; older ones are removed when one is written). */
const KEPT_SETS = 8;

/** The file holding a whole rule set's entries, named by a hash of its patterns in order. */
export function setFile(cacheDir: string, specs: readonly PatternSpec[]): string {
  const hash = createHash("sha256");
  for (const s of specs) hash.update(`\u0000${s.window}\u0000${s.flags}\u0000${s.source}`);
  return join(folderOf(cacheDir), `set-${hash.digest("hex").slice(0, 32)}.json`);
}

/**
 * Compiles every spec, through the cache in `cacheDir` when one is given. A rule set seen before is read from its
 * one whole-set file (what most session starts do). Otherwise the patterns are looked up in the newest set's file
 * (a rule edited, added or removed since the last start: one read), in older sets' files when more than one is
 * missing there (another project's rules ran last), then in their own files; only the rest are compiled, and the
 * set's file is written. A pattern compiled beside an earlier set gets a file of its own too; a first start (no set
 * yet) writes the set's file alone: creating hundreds of small files can cost more than compiling the patterns.
 * Never throws for cache trouble.
 */
export function compileAll(
  specs: readonly PatternSpec[],
  cacheDir?: string,
  options: CompileAllOptions = {},
): CompileAllResult {
  let compiled = 0;
  let deferred = 0;
  const deferOf = (spec: PatternSpec): CompileResult | undefined => {
    const flags = flagLetters(spec.flags ?? "");
    const later = options.defer && !literalChars(spec.source, flags) ? deferPattern(spec, flags) : undefined;
    if (!later) return undefined;
    deferred++;
    return { ok: true, pattern: later };
  };
  const compileOrDefer = (spec: PatternSpec): CompileResult => {
    const later = deferOf(spec);
    if (later) return later;
    compiled++;
    return compilePattern(spec);
  };
  if (!cacheDir) {
    const shipped: Array<CompileResult | undefined> = specs.map(() => undefined);
    fromShipped(specs, shipped);
    const results = specs.map((s, i) => shipped[i] ?? compileOrDefer(s));
    return { results, cache: "off", compiled, deferred, setUnsaved: false };
  }
  const whole = setFile(cacheDir, specs);
  const known = readSet(whole, specs);
  if (known) return { results: known, cache: "hit", compiled: 0, deferred: 0, setUnsaved: false };
  const sets = setFilesNewestFirst(dirname(whole));
  const found: Array<CompileResult | undefined> = specs.map(() => undefined);
  let missing = specs.length;
  for (const [k, file] of sets.entries()) {
    // The newest set always; older ones only while more than one pattern is missing (one is likely just new).
    if (missing === 0 || (k > 0 && missing <= 1)) break;
    const pool = setEntries(file);
    specs.forEach((spec, i) => {
      if (found[i]) return;
      const pooled = pool.get(specKey(spec));
      found[i] = pooled === undefined ? undefined : fromJsonOrUndefined(pooled, spec);
      if (found[i]) missing--;
    });
  }
  if (missing > 0) missing -= fromShipped(specs, found);
  const fresh: number[] = [];
  const results = specs.map((spec, i) => {
    if (found[i]) return found[i];
    // No set yet (a first start): a deferred pattern is cheaper than looking for its file, and so is compiling a
    // plain string (`literalChars`), which is never given a file of its own then.
    const later = sets.length === 0 ? deferOf(spec) : undefined;
    if (later) return later;
    const plain = sets.length === 0 && literalChars(spec.source, flagLetters(spec.flags ?? "")) !== undefined;
    // (A first start without deferring has no pattern files to find either: they are written beside a set.)
    const look = sets.length > 0 || (options.defer === true && !plain);
    const cached = look ? readEntry(cacheFile(cacheDir, spec), spec) : undefined;
    if (cached) return cached;
    const result = compileOrDefer(spec);
    if ((!result.ok || !result.pattern.deferred) && !plain) fresh.push(i);
    return result;
  });
  // A pattern compiled beside an earlier set (or beside deferred ones, which keep the set's file from being
  // written) gets a file of its own.
  if (sets.length > 0 || deferred > 0) for (const i of fresh) saveCompiled(cacheDir, specs[i]!, results[i]!);
  // A changed set may wait for its file (`writeSet: false`): each pattern compiled for it has its own, and the older
  // sets' files hold the rest. A first start's set is written now: nothing else would hold its patterns.
  const writeNow = deferred === 0 && (options.writeSet !== false || sets.length === 0);
  if (writeNow) saveCompiledSet(cacheDir, specs, results);
  const cache = compiled + deferred === 0 ? "hit" : "miss";
  return { results, cache, compiled, deferred, setUnsaved: deferred === 0 && !writeNow };
}

/** Writes one compiled pattern's own file (a deferred one compiled later, an edited rule's). Never throws. */
export function saveCompiled(cacheDir: string, spec: PatternSpec, result: CompileResult): void {
  if (result.ok && result.pattern.deferred) return;
  writeJsonCache(cacheFile(cacheDir, spec), { format: FORMAT, result: toJson(result, spec) });
}

/** Writes a whole set's file (none of its results deferred) and prunes the older ones. Never throws. */
export function saveCompiledSet(cacheDir: string, specs: readonly PatternSpec[], results: readonly CompileResult[]) {
  if (results.some((r) => r.ok && r.pattern.deferred)) return;
  const whole = setFile(cacheDir, specs);
  if (writeJsonCache(whole, { format: FORMAT, results: results.map((r, i) => toJson(r, specs[i]!)) })) {
    pruneToNewest(dirname(whole), KEPT_SETS, isSetFile);
  }
}

/** Fills `found` from the shipped set where it has the spec; how many it filled. */
function fromShipped(specs: readonly PatternSpec[], found: Array<CompileResult | undefined>): number {
  const pool = setEntries(SHIPPED_SET, compilerId());
  if (pool.size === 0) return 0;
  let filled = 0;
  specs.forEach((spec, i) => {
    if (found[i]) return;
    const pooled = pool.get(specKey(spec));
    found[i] = pooled === undefined ? undefined : fromJsonOrUndefined(pooled, spec);
    if (found[i]) filled++;
  });
  return filled;
}

function readSet(file: string, specs: readonly PatternSpec[]): CompileResult[] | undefined {
  return readJsonCache(file, (json) => {
    const data = json as { format?: unknown; results?: unknown };
    if (data.format !== FORMAT || !Array.isArray(data.results) || data.results.length !== specs.length) return;
    const results = (data.results as unknown[]).map((r, i) => fromJson(r, specs[i]!));
    return results.every((r) => r !== undefined) ? (results as CompileResult[]) : undefined;
  });
}

/** A spec as its entries store it (flags normalized: sorted, no `g`/`y`/`d`), for looking entries up. */
function specKey(spec: PatternSpec): string {
  return `${spec.window}\u0000${flagLetters(spec.flags ?? "")}\u0000${spec.source}`;
}

const flagLetters = (flags: string) => [...new Set(flags.replace(/[gyd]/g, ""))].sort().join("");

/** The whole-set files of a compiler folder, newest first (none when it cannot be read). */
const isSetFile = (name: string) => name.startsWith("set-") && name.endsWith(".json");
const setFilesNewestFirst = (folder: string): string[] => filesNewestFirst(folder, isSetFile);

/** A whole-set file's entries by spec (empty when it does not read); each is checked again on use (`fromJson`). */
function setEntries(file: string, compiler?: string): Map<string, unknown> {
  const entries = new Map<string, unknown>();
  readJsonCache(file, (json) => {
    const data = json as { format?: unknown; results?: unknown; compiler?: unknown };
    if (data.format !== FORMAT || !Array.isArray(data.results)) return;
    if (compiler !== undefined && data.compiler !== compiler) return;
    for (const r of data.results as Array<{ spec?: PatternSpec; pattern?: { spec?: PatternSpec } }>) {
      const spec = r?.pattern?.spec ?? r?.spec;
      if (spec && typeof spec.source === "string") entries.set(specKey(spec), r);
    }
    return true;
  });
  return entries;
}

/** `fromJson`, undefined for an entry that does not fit (it throws on a malformed one). */
function fromJsonOrUndefined(value: unknown, spec: PatternSpec): CompileResult | undefined {
  try {
    return fromJson(value, spec);
  } catch {
    return undefined;
  }
}

function readEntry(file: string, spec: PatternSpec): CompileResult | undefined {
  return readJsonCache(file, (json) => {
    const data = json as { format?: unknown; result?: unknown };
    return data.format === FORMAT ? fromJson(data.result, spec) : undefined;
  });
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

/**
 * A plain string's entry (`literalChars`): its spec alone, since compiling one builds its automaton from the
 * characters without the regex libraries, in less time than reading that automaton back (most rules are such strings,
 * and their automata were half of a set's file).
 */
interface LiteralJson {
  ok: true;
  literal: true;
  spec: PatternSpec;
}

const isLiteral = (spec: PatternSpec) =>
  spec.window !== "chunk" && literalChars(spec.source, flagLetters(spec.flags ?? "")) !== undefined;

function toJson(result: CompileResult, spec: PatternSpec): unknown {
  if (!result.ok) return { ...result, spec };
  if (isLiteral(result.pattern.spec) && sameSpec(result.pattern.spec, spec) && !result.pattern.deferred)
    return { ok: true, literal: true, spec: result.pattern.spec } satisfies LiteralJson;
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
  const r = value as { ok?: unknown; error?: unknown; refusal?: Refusal; spec?: PatternSpec; pattern?: PatternJson };
  if (r.ok === false && typeof r.error === "string" && typeof r.refusal === "string") {
    return sameSpec(r.spec, spec) ? { ok: false, error: r.error, refusal: r.refusal } : undefined;
  }
  if (r.ok === true && (r as Partial<LiteralJson>).literal === true) {
    return sameSpec(r.spec, spec) && isLiteral(spec) ? compilePattern(spec) : undefined;
  }
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
  if (!sameSpec(compiled.spec, spec)) return undefined;
  return { ok: true, pattern: compiled };
}

/**
 * Whether an entry's spec is the one asked for (a hash collision or a hand-edited file is not trusted). The stored
 * spec's flags are normalized (sorted, no `g`/`y`/`d`), so they are compared as sets of letters.
 */
function sameSpec(stored: PatternSpec | undefined, spec: PatternSpec): boolean {
  if (!stored || stored.source !== spec.source || stored.window !== spec.window) return false;
  return flagLetters(stored.flags ?? "") === flagLetters(spec.flags);
}
