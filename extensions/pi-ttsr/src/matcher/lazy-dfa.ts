import { type PlainNfa, rangesHave } from "./automaton.ts";

/**
 * One state of the shared automaton: the set of NFA states alive after some input, across all patterns.
 * The initial states of every pattern are implicitly always alive (unanchored search), so they are not
 * stored. Transitions are computed on first use and cached, like RE2's lazy DFA: the hot path is one
 * array lookup per character.
 */
export interface DfaState {
  readonly nodes: Int32Array;
  /** Pattern ids whose match ends exactly here. Empty for almost every state. */
  readonly accepts: Int32Array;
  ascii: (DfaState | undefined)[];
  other: Map<number, DfaState>;
}

export interface DfaPattern {
  nfa: PlainNfa;
  /** Line window: a line feed kills the pattern's partial matches (the proposal's `line` scope). */
  lineMode: boolean;
}

const LF = 10;
/** Above this many cached states the cache is dropped and rebuilt on demand (memory stays bounded). */
const MAX_STATES = 20_000;
const NO_NODES = new Int32Array(0);

/**
 * The automaton of a whole lane, built when a stream first needs it (a session start builds one per stream kind),
 * so it copies nothing per edge: the patterns' NFAs are read in place, each through its node offset.
 */
export class LazyDfa {
  /** Per global node: its pattern's NFA edges, the offset of that NFA's node ids, its pattern and whether final. */
  private readonly edgesOf: Array<ReadonlyArray<{ to: number; ranges: number[] }>> = [];
  private readonly baseOf: Int32Array;
  private readonly finalOf: Int32Array;
  private readonly lineNode: Uint8Array;
  private readonly initialNode: Uint8Array;
  private readonly initials: number[] = [];
  /** Per ASCII character: the nodes the initial states step to (built at once: one pass over their edges). */
  private readonly initStepAscii: Int32Array[] = [];
  private readonly initStepOther = new Map<number, Int32Array>();
  /** `mark[node] === stamp`: the node is already in the set being built (no Set per transition). */
  private readonly mark: Int32Array;
  private stamp = 0;
  private cache = new Map<string, DfaState>();
  readonly start: DfaState;

  constructor(patterns: ReadonlyArray<DfaPattern | undefined>) {
    let size = 0;
    for (const p of patterns) if (p) size += p.nfa.out.length;
    this.baseOf = new Int32Array(size);
    this.finalOf = new Int32Array(size).fill(-1);
    this.lineNode = new Uint8Array(size);
    this.initialNode = new Uint8Array(size);
    this.mark = new Int32Array(size);
    patterns.forEach((p, patternId) => {
      if (!p) return;
      const base = this.edgesOf.length;
      for (const edges of p.nfa.out) this.edgesOf.push(edges);
      this.baseOf.fill(base, base, base + p.nfa.out.length);
      if (p.lineMode) this.lineNode.fill(1, base, base + p.nfa.out.length);
      for (const f of p.nfa.finals) this.finalOf[base + f] = patternId;
      this.initials.push(base + p.nfa.initial);
      this.initialNode[base + p.nfa.initial] = 1;
    });
    this.buildAsciiInitSteps();
    this.start = this.intern([]);
  }

  /** How many patterns the automaton runs (none: a stream of this lane reads nothing). */
  get patternCount(): number {
    return this.initials.length;
  }

  get stateCount(): number {
    return this.cache.size;
  }

  /** The cached transition, or computes it. Call as `s.ascii[c] ?? dfa.step(s, c)` on the hot path. */
  step(state: DfaState, c: number): DfaState {
    const cached = c < 128 ? state.ascii[c] : state.other.get(c);
    if (cached) return cached;
    const stamp = this.nextStamp();
    const next: number[] = [];
    for (const node of state.nodes) this.stepNode(node, c, next, stamp);
    for (const node of this.initStep(c)) {
      if (this.mark[node] === stamp) continue;
      this.mark[node] = stamp;
      next.push(node);
    }
    if (this.cache.size >= MAX_STATES) this.flush();
    const target = this.intern(next);
    if (c < 128) state.ascii[c] = target;
    else state.other.set(c, target);
    return target;
  }

  private nextStamp(): number {
    if (this.stamp === 0x7fffffff) {
      this.mark.fill(0);
      this.stamp = 0;
    }
    return ++this.stamp;
  }

  /** Adds the nodes `node` steps to on `c` (not the initial ones: they are always alive) to `into`. */
  private stepNode(node: number, c: number, into: number[], stamp: number): void {
    if (c === LF && this.lineNode[node] === 1) return;
    const base = this.baseOf[node]!;
    for (const edge of this.edgesOf[node]!) {
      const to = base + edge.to;
      if (this.initialNode[to] === 1 || this.mark[to] === stamp) continue;
      if (rangesHave(edge.ranges, c)) {
        this.mark[to] = stamp;
        into.push(to);
      }
    }
  }

  /** Every ASCII character's step from the initial states, from one pass over their edges' ranges. */
  private buildAsciiInitSteps(): void {
    const lists: number[][] = Array.from({ length: 128 }, () => []);
    for (const node of this.initials) {
      const base = this.baseOf[node]!;
      for (const edge of this.edgesOf[node]!) {
        const to = base + edge.to;
        if (this.initialNode[to] === 1) continue;
        const r = edge.ranges;
        for (let i = 0; i < r.length && r[i]! < 128; i += 2) {
          for (let c = r[i]!, end = Math.min(r[i + 1]!, 127); c <= end; c++) {
            if (c === LF && this.lineNode[node] === 1) continue;
            lists[c]!.push(to);
          }
        }
      }
    }
    for (let c = 0; c < 128; c++) {
      const list = lists[c]!;
      this.initStepAscii[c] = list.length === 0 ? NO_NODES : Int32Array.from(new Set(list));
    }
  }

  private initStep(c: number): Int32Array {
    if (c < 128) return this.initStepAscii[c]!;
    const cached = this.initStepOther.get(c);
    if (cached) return cached;
    const into: number[] = [];
    const stamp = this.nextStamp();
    for (const node of this.initials) this.stepNode(node, c, into, stamp);
    const result = Int32Array.from(into);
    this.initStepOther.set(c, result);
    return result;
  }

  private intern(nodes: number[]): DfaState {
    nodes.sort((a, b) => a - b);
    const key = nodes.join(",");
    const existing = this.cache.get(key);
    if (existing) return existing;
    const accepts: number[] = [];
    for (const node of nodes) {
      const p = this.finalOf[node]!;
      if (p >= 0 && !accepts.includes(p)) accepts.push(p);
    }
    const state: DfaState = {
      nodes: Int32Array.from(nodes),
      accepts: accepts.length === 0 ? NO_NODES : Int32Array.from(accepts),
      ascii: new Array(128),
      other: new Map(),
    };
    this.cache.set(key, state);
    return state;
  }

  /** Forget every cached transition; states held by live streams stay valid and re-link on use. */
  private flush(): void {
    for (const state of this.cache.values()) {
      state.ascii = new Array(128);
      state.other = new Map();
    }
    this.cache = new Map();
  }
}
