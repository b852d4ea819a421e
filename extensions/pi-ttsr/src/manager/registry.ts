import type { PatternSpec } from "../matcher/compile.ts";
import { compileAll, saveCompiled, saveCompiledSet } from "../matcher/compile-cache.ts";
import { PatternSet } from "../matcher/pattern-set.ts";
import { LazyGlob } from "../rules/lazy-glob.ts";
import { checkRuleGlob, scopeReachesAStream } from "../rules/normalize.ts";
import type { RuleIssue, StreamSource, TtsrRule } from "../rules/types.ts";
import { defaultCacheDir } from "../settings/read.ts";

/** A rule accepted by the registry, with its compiled gates. */
export interface RegisteredRule {
  rule: TtsrRule;
  index: number;
  /** Pattern ids (in the shared PatternSet) of its conditions that compiled. */
  patterns: number[];
  globs?: LazyGlob[];
  toolScopes: Array<{ name?: string; glob?: LazyGlob }>;
}

export interface SkippedRegistration {
  name: string;
  path: string;
  reason: string;
}

export interface RegistryOptions {
  /**
   * Where compiled rule sets are cached; `false`: no cache. Default: `PI_TTSR_CACHE_DIR` (`off` disables it),
   * else `<agent dir>/cache/pi-ttsr`.
   */
  cacheDir?: string | false;
  /**
   * Defer compiling the patterns the cache cannot answer (deferred.ts): a session's start. They are compiled when a
   * stream outgrows them or by `compileDeferredLater`, and cached then.
   */
  defer?: boolean;
}

/** After a turn, deferred patterns are compiled from this many ms on (a `pi -p` has exited by then)... */
const IDLE_COMPILE_DELAY_MS = 1000;
/** ...one per timer callback, so that a keystroke never waits for more than one pattern's compile. */
const IDLE_COMPILE_BATCH = 1;

/** A glob for a gate; one normalization did not vet (a library caller's rule) throws here, not on first use. */
function compileGlob(glob: string): LazyGlob {
  const { problem } = checkRuleGlob(glob);
  if (problem) throw new Error(problem);
  return new LazyGlob(glob);
}

/**
 * Compiles rules into one PatternSet (one shared automaton) and the per-rule gates. Registration skips, with a
 * warning, rules whose conditions all fail to compile, duplicate names, and scopes that reach no stream.
 */
export class RuleRegistry {
  readonly rules: RegisteredRule[] = [];
  readonly skipped: SkippedRegistration[] = [];
  readonly issues: RuleIssue[] = [];
  readonly patternSet: PatternSet;
  /** Pattern id -> index into `rules`. */
  readonly patternOwner: number[] = [];
  /** Whether the compiled patterns came from the disk cache. */
  readonly compileCache: "hit" | "miss" | "off";
  private readonly issueListeners: Array<(issue: RuleIssue) => void> = [];

  constructor(input: readonly TtsrRule[], options: RegistryOptions = {}) {
    const specs: PatternSpec[] = [];
    const owners: number[] = [];
    const candidates: TtsrRule[] = [];
    const names = new Set<string>();
    for (const rule of input) {
      if (names.has(rule.name)) {
        this.skip(rule, `duplicate rule name "${rule.name}" (the first one registered wins)`);
        continue;
      }
      if (!scopeReachesAStream(rule.scope)) {
        this.skip(rule, "its scope reaches no stream (use text, thinking, tool, tool:<name> or tool:<name>(<glob>))");
        continue;
      }
      if (rule.globs && rule.scope.tools.length === 0) {
        this.skip(rule, "its globs gate file paths, which only tool calls have, but its scope has no tool stream");
        continue;
      }
      names.add(rule.name);
      const at = candidates.length;
      candidates.push(rule);
      for (const c of rule.conditions) {
        specs.push({ source: c.source, flags: c.flags, window: rule.window });
        owners.push(at);
      }
    }
    const cacheDir = options.cacheDir === undefined ? defaultCacheDir() : options.cacheDir || undefined;
    const defer = options.defer === true;
    const compiled = compileAll(specs, cacheDir, { defer, writeSet: !defer });
    this.compileCache = compiled.cache;
    this.patternSet = new PatternSet(specs, { compiled: compiled.results });
    if (cacheDir && compiled.setUnsaved) {
      const set = this.patternSet;
      this.saveSetLater = () => saveCompiledSet(cacheDir, specs, set.results);
    }
    if (cacheDir && compiled.deferred > 0) {
      const set = this.patternSet;
      set.onCompiled((ids) => {
        // One by one (idle): each pattern's own file; all at once (a stream outgrew them): the set's file alone.
        if (ids.length <= IDLE_COMPILE_BATCH)
          for (const id of ids) saveCompiled(cacheDir, specs[id]!, set.results[id]!);
        if (!set.hasDeferred) saveCompiledSet(cacheDir, specs, set.results);
      });
    }
    const patternsOf: number[][] = candidates.map(() => []);
    const errorsOf: string[][] = candidates.map(() => []);
    specs.forEach((spec, id) => {
      const owner = owners[id]!;
      const error = this.patternSet.errors[id];
      const rule = candidates[owner]!;
      const at = { rule: rule.name, path: rule.path, key: rule.conditionKey };
      if (error) {
        errorsOf[owner]!.push(error);
        return;
      }
      for (const note of this.patternSet.patterns[id]!.notes)
        this.issues.push({ ...at, message: `/${spec.source}/: ${note}` });
      patternsOf[owner]!.push(id);
    });
    candidates.forEach((rule, i) => {
      const errors = errorsOf[i]!;
      if (patternsOf[i]!.length === 0) {
        // one message for one mistake: the rule is not loaded, and why
        names.delete(rule.name);
        this.skip(rule, `no condition compiled: ${errors.join("; ") || "none given"}`, rule.conditionKey);
        return;
      }
      // the rule loads with its other conditions: each one that failed is a warning of its own
      for (const error of errors)
        this.issues.push({ rule: rule.name, path: rule.path, key: rule.conditionKey, message: error });
      const registered: RegisteredRule = {
        rule,
        index: this.rules.length,
        patterns: patternsOf[i]!,
        toolScopes: rule.scope.tools.map((t) => ({
          ...(t.name ? { name: t.name } : {}),
          ...(t.glob ? { glob: compileGlob(t.glob) } : {}),
        })),
      };
      if (rule.globs) registered.globs = rule.globs.map(compileGlob);
      for (const id of registered.patterns) this.patternOwner[id] = registered.index;
      this.rules.push(registered);
    });
    this.patternSet.onSuspend(({ pattern, reason }) => this.suspended(pattern, reason));
  }

  private idleCompile: ReturnType<typeof setTimeout> | undefined;
  /** Writes the set's file that the start left unwritten (a changed set with `defer`), once. */
  private saveSetLater: (() => void) | undefined;

  /**
   * Finishes the compile cache while the session is idle: from IDLE_COMPILE_DELAY_MS on, writes the set's file the
   * start left unwritten, then compiles the deferred patterns, one per timer callback; the timers never keep the
   * process alive. Call after a turn; calling again while it runs does nothing.
   */
  compileDeferredLater(): void {
    if (this.idleCompile || (!this.patternSet.hasDeferred && !this.saveSetLater)) return;
    const step = (delay: number) => {
      this.idleCompile = setTimeout(() => {
        this.idleCompile = undefined;
        const save = this.saveSetLater;
        this.saveSetLater = undefined;
        if (save) save();
        else this.patternSet.compileDeferred(IDLE_COMPILE_BATCH);
        if (this.patternSet.hasDeferred) step(0);
      }, delay);
      this.idleCompile.unref?.();
    };
    step(IDLE_COMPILE_DELAY_MS);
  }

  /**
   * Issues found while matching (a pattern suspended for the session because its native work went over its
   * CPU-time budget): pushed to `issues` and passed to each listener once.
   */
  onIssue(listener: (issue: RuleIssue) => void): void {
    this.issueListeners.push(listener);
  }

  private suspended(pattern: number, reason: string): void {
    const rule = this.rules[this.patternOwner[pattern]!]?.rule;
    if (!rule) return;
    const issue: RuleIssue = { rule: rule.name, path: rule.path, key: rule.conditionKey, message: reason };
    this.issues.push(issue);
    for (const listener of this.issueListeners) listener(issue);
  }

  /** One message for a rule not registered: `<file> (<key>): not loaded: <reason>`. */
  private skip(rule: TtsrRule, reason: string, key?: string): void {
    this.skipped.push({ name: rule.name, path: rule.path, reason });
    const at = { rule: rule.name, path: rule.path, ...(key ? { key } : {}) };
    this.issues.push({ ...at, message: `not loaded: ${reason}`, notLoaded: true });
  }

  private readonly bySource = new Map<StreamSource, readonly number[]>();

  /** The pattern ids a stream of `source` must run: those of rules whose scope can pass it (see admitsSource). */
  patternsFor(source: StreamSource): readonly number[] {
    let ids = this.bySource.get(source);
    if (!ids) {
      ids = this.rules.filter((entry) => admitsSource(entry, source)).flatMap((entry) => entry.patterns);
      this.bySource.set(source, ids);
    }
    return ids;
  }

  byName(name: string): RegisteredRule | undefined {
    return this.rules.find((r) => r.rule.name === name);
  }
}

export type GateVerdict = "pass" | "fail" | "needs-path";

/**
 * Whether `gate` can ever pass this rule on a stream of `source`, before anything of the stream is known: prose
 * and thinking need that source in the scope and no file gate; tool streams need a tool scope.
 */
export function admitsSource(entry: RegisteredRule, source: StreamSource): boolean {
  if (source === "tool") return entry.toolScopes.length > 0;
  return entry.rule.scope[source] && !entry.globs;
}

/**
 * Whether a rule applies to a stream: its scope (source, tool name, tool glob) and its `globs` file gate.
 * `needs-path` when a glob decides and the tool call's path has not streamed yet.
 */
export function gate(
  entry: RegisteredRule,
  source: StreamSource,
  toolName: string | undefined,
  paths: readonly string[],
): GateVerdict {
  let needsPath = false;
  // A file gate on prose has no path to match: the rule only acts on tool calls.
  if (source !== "tool") return admitsSource(entry, source) ? "pass" : "fail";
  let scoped = false;
  for (const t of entry.toolScopes) {
    if (t.name && t.name !== toolName) continue;
    if (!t.glob) {
      scoped = true;
      break;
    }
    if (paths.length === 0) needsPath = true;
    else if (paths.some((p) => t.glob!.match(p))) {
      scoped = true;
      break;
    }
  }
  if (!scoped) return needsPath ? "needs-path" : "fail";
  if (entry.globs) {
    if (paths.length === 0) return "needs-path";
    if (!paths.some((p) => entry.globs!.some((g) => g.match(p)))) return "fail";
  }
  return "pass";
}
