import { isAbsolute, relative } from "node:path";
import { JsonStringDecoder } from "../matcher/json-strings.ts";
import type { PatternHit, StreamMatcher } from "../matcher/stream-matcher.ts";
import type { StreamSource, TtsrRule } from "../rules/types.ts";
import { DEFAULT_TTSR_SETTINGS } from "../settings/defaults.ts";
import type { TtsrSettings } from "../settings/schema.ts";
import { canFire, type FiringRecord, recordFiring, shouldInterrupt } from "./policy.ts";
import { gate, type RegisteredRule, RuleRegistry } from "./registry.ts";

/** One streamed delta, whatever the host (patched `stream_text` or stock `message_update`). */
export interface DeltaInput {
  source: StreamSource;
  chunk: string;
  /** Tool-call deltas: the call's id and name; `chunk` is raw argument JSON. */
  toolCall?: { id: string; name: string };
}

export interface RuleMatch {
  rule: TtsrRule;
  source: StreamSource;
  toolCallId?: string;
  toolName?: string;
  /** File paths of the tool call at match time (cwd-relative). */
  paths: string[];
  /** Offset just past the match in the stream's (decoded) text. */
  end: number;
}

/** What to do after a delta. */
export interface DeltaDecision {
  /** Abort now and inject these rules (deduplicated; includes queued prose rules). Empty: keep streaming. */
  interrupt: RuleMatch[];
  /** Non-interrupting matches recorded by this delta (queued prose, or bucketed on a tool call). */
  deferred: RuleMatch[];
}

/** The answer for the common delta: nothing matched (shared, never mutated). */
const NOTHING: DeltaDecision = Object.freeze({
  interrupt: Object.freeze([]),
  deferred: Object.freeze([]),
}) as unknown as DeltaDecision;

interface StreamState {
  matcher: StreamMatcher;
  source: StreamSource;
  decoder?: JsonStringDecoder;
  toolName?: string;
  toolCallId?: string;
  paths: string[];
  /** Rules whose condition matched but whose file gate waits for the path to stream (rule index -> match end). */
  awaitingPath: Map<number, number>;
}

export interface TtsrManagerOptions {
  settings?: TtsrSettings;
  cwd?: string;
  /** Clock for cooldowns (tests). */
  now?: () => number;
}

/**
 * The stateful core of TTSR, independent of pi: per-stream buffers and matchers, the repeat policy, and
 * the decision for each match (interrupt now, queue for after the message, or fold into a tool result).
 */
export class TtsrManager {
  readonly registry: RuleRegistry;
  settings: TtsrSettings;
  private readonly cwd: string;
  private readonly now: () => number;
  private streams = new Map<string, StreamState>();
  private readonly records = new Map<string, FiringRecord>();
  private turn = 0;
  /** Prose matches waiting for the end of a successful assistant message. */
  private proseQueue: RuleMatch[] = [];
  /** Tool-source matches waiting for their tool call's result, by tool call id. */
  private toolBuckets = new Map<string, RuleMatch[]>();

  /** Pass a RuleRegistry to share one compiled rule set between managers (the CLI scans file by file). */
  constructor(rules: readonly TtsrRule[] | RuleRegistry, options: TtsrManagerOptions = {}) {
    this.registry = rules instanceof RuleRegistry ? rules : new RuleRegistry(rules);
    this.settings = options.settings ?? DEFAULT_TTSR_SETTINGS;
    this.cwd = options.cwd ?? process.cwd();
    this.now = options.now ?? Date.now;
  }

  get active(): boolean {
    return this.settings.enabled && this.registry.rules.length > 0;
  }

  get completedTurns(): number {
    return this.turn;
  }

  /** New assistant message (or a retry): every stream buffer starts empty. Unconsumed tool buckets are dropped. */
  resetStreams(): void {
    this.streams = new Map();
    this.toolBuckets = new Map();
  }

  /** Feeds one delta; returns what to do. The hot path: bounded work per delta. */
  checkDelta(input: DeltaInput): DeltaDecision {
    if (!this.active) return NOTHING;
    const stream = this.streamFor(input);
    let text = input.chunk;
    if (stream.decoder) {
      text = stream.decoder.push(input.chunk);
      const decoded = stream.decoder.paths;
      if (decoded.length > stream.paths.length) stream.paths = decoded.map((p) => this.relativePath(p));
      if (input.toolCall?.name) stream.toolName = input.toolCall.name;
    }
    const hits = text.length > 0 ? stream.matcher.push(text) : [];
    if (hits.length === 0 && stream.awaitingPath.size === 0) return NOTHING;
    return this.decide(stream, hits, true);
  }

  /**
   * The assistant message finished streaming: matches that only the end of a stream completes (a trailing `\b`
   * or `$`) are decided now. Nothing is left to interrupt, so they are delivered as reminders (a follow-up for
   * prose, the tool result for tool calls). Call before `onMessageEnd`.
   */
  finishStreams(): DeltaDecision {
    if (!this.active) return NOTHING;
    const decision: DeltaDecision = { interrupt: [], deferred: [] };
    for (const stream of this.streams.values()) {
      const hits = stream.matcher.finish();
      if (hits.length === 0 && stream.awaitingPath.size === 0) continue;
      decision.deferred.push(...this.decide(stream, hits, false).deferred);
    }
    return decision;
  }

  private decide(stream: StreamState, hits: readonly PatternHit[], canInterrupt: boolean): DeltaDecision {
    const decision: DeltaDecision = { interrupt: [], deferred: [] };
    const candidates = new Map<number, number>(stream.awaitingPath);
    for (const hit of hits) {
      const owner = this.registry.patternOwner[hit.pattern];
      if (owner !== undefined && !candidates.has(owner)) candidates.set(owner, hit.end);
    }
    if (candidates.size === 0) return decision;
    const matches: RuleMatch[] = [];
    for (const [index, end] of candidates) {
      const entry = this.registry.rules[index]!;
      const verdict = gate(entry, stream.source, stream.toolName, stream.paths);
      if (verdict === "needs-path") {
        stream.awaitingPath.set(index, end);
        continue;
      }
      stream.awaitingPath.delete(index);
      if (verdict === "fail" || !this.eligible(entry)) continue;
      matches.push(this.matchOf(entry, stream, end));
    }
    for (const match of matches) {
      if (canInterrupt && shouldInterrupt(match.rule, match.source, this.settings.interruptMode)) {
        decision.interrupt.push(match);
      } else if (match.source === "tool" && match.toolCallId) {
        this.toolBuckets.set(match.toolCallId, [...(this.toolBuckets.get(match.toolCallId) ?? []), match]);
        decision.deferred.push(match);
      } else {
        this.proseQueue.push(match);
        decision.deferred.push(match);
      }
    }
    if (decision.interrupt.length > 0) {
      // One injection for everything pending: the interrupt carries the queued prose rules along.
      const names = new Set(decision.interrupt.map((m) => m.rule.name));
      for (const queued of this.proseQueue) if (!names.has(queued.rule.name)) decision.interrupt.push(queued);
      this.proseQueue = [];
    }
    return decision;
  }

  /** Queue prose matches for after the message (stock pi cannot interrupt them). */
  queueProse(matches: readonly RuleMatch[]): void {
    for (const m of matches) if (!this.proseQueue.some((q) => q.rule.name === m.rule.name)) this.proseQueue.push(m);
  }

  /** A rule may fire if the repeat policy allows and it is not already waiting for delivery. */
  private eligible(entry: RegisteredRule): boolean {
    const name = entry.rule.name;
    if (this.proseQueue.some((m) => m.rule.name === name)) return false;
    for (const bucket of this.toolBuckets.values()) if (bucket.some((m) => m.rule.name === name)) return false;
    return canFire(entry.rule, this.records.get(name), this.settings, this.turn, this.now());
  }

  private matchOf(entry: RegisteredRule, stream: StreamState, end: number): RuleMatch {
    const match: RuleMatch = { rule: entry.rule, source: stream.source, paths: [...stream.paths], end };
    if (stream.toolCallId) match.toolCallId = stream.toolCallId;
    if (stream.toolName) match.toolName = stream.toolName;
    return match;
  }

  private streamFor(input: DeltaInput): StreamState {
    const key = input.source === "tool" ? `tool:${input.toolCall?.id ?? "?"}` : input.source;
    let stream = this.streams.get(key);
    if (!stream) {
      stream = {
        matcher: this.registry.patternSet.stream(this.registry.patternsFor(input.source)),
        source: input.source,
        paths: [],
        awaitingPath: new Map(),
      };
      if (input.source === "tool") {
        stream.decoder = new JsonStringDecoder();
        if (input.toolCall?.id) stream.toolCallId = input.toolCall.id;
        if (input.toolCall?.name) stream.toolName = input.toolCall.name;
      }
      this.streams.set(key, stream);
    }
    return stream;
  }

  private relativePath(path: string): string {
    const p = isAbsolute(path) ? relative(this.cwd, path) : path;
    return p.replace(/^\.\//, "").replaceAll("\\", "/");
  }

  /** Records that these rules were injected (they count against the repeat policy from now on). */
  markInjected(names: readonly string[]): void {
    const now = this.now();
    for (const name of new Set(names)) this.records.set(name, recordFiring(this.records.get(name), this.turn, now));
  }

  /** Undoes one firing of each rule (its injection never reached the model). */
  revokeInjected(names: readonly string[]): void {
    for (const name of new Set(names)) {
      const prev = this.records.get(name);
      if (!prev) continue;
      if (prev.count <= 1) this.records.delete(name);
      else this.records.set(name, { ...prev, count: prev.count - 1 });
    }
  }

  /** Restores firings persisted in the session (resume), in order; `revoked` entries undo one firing. */
  restoreInjected(entries: ReadonlyArray<{ rules: readonly string[]; turn?: number; kind?: string }>): void {
    for (const entry of entries) {
      if (entry.kind === "revoked") {
        this.revokeInjected(entry.rules);
        continue;
      }
      for (const name of new Set(entry.rules))
        this.records.set(name, recordFiring(this.records.get(name), entry.turn ?? 0, 0));
    }
  }

  /** Sets the completed-turn counter (on resume, to the number of turns already in the session). */
  setCompletedTurns(turns: number): void {
    this.turn = turns;
  }

  firings(name: string): FiringRecord | undefined {
    return this.records.get(name);
  }

  /** A turn completed: the `after-gap` counter advances. */
  onTurnEnd(): void {
    this.turn++;
  }

  /**
   * The assistant message ended. Successful: returns the queued prose matches to deliver as a follow-up.
   * Aborted or error: tool buckets are dropped (their rules stay eligible); prose stays queued.
   */
  onMessageEnd(stopReason: string | undefined): RuleMatch[] {
    if (stopReason !== "aborted" && stopReason !== "error") return this.takeProseQueue();
    this.dropToolBuckets();
    return [];
  }

  /** The queued prose matches, taken for delivery (patched pi delivers them at the next loop seam). */
  takeProseQueue(): RuleMatch[] {
    const due = this.proseQueue;
    this.proseQueue = [];
    return due;
  }

  /** The message ended aborted or in error before its tools ran: their reminders are dropped, rules stay eligible. */
  dropToolBuckets(): void {
    this.toolBuckets = new Map();
  }

  /** The tool call produced its result: the rules bucketed on it, consumed. */
  takeToolBucket(toolCallId: string): RuleMatch[] {
    const bucket = this.toolBuckets.get(toolCallId) ?? [];
    this.toolBuckets.delete(toolCallId);
    return bucket;
  }

  /** Rules queued or bucketed and not yet delivered (for status and tests). */
  pending(): { prose: string[]; tools: Record<string, string[]> } {
    const tools: Record<string, string[]> = {};
    for (const [id, bucket] of this.toolBuckets) tools[id] = bucket.map((m) => m.rule.name);
    return { prose: this.proseQueue.map((m) => m.rule.name), tools };
  }
}
