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

export class LazyDfa {
  private readonly out: Array<Array<{ to: number; ranges: number[] }>> = [];
  private readonly owner: number[] = [];
  private readonly finalOf: Int32Array;
  private readonly lineNode: Uint8Array;
  private readonly initialNode: Uint8Array;
  private readonly initials: number[] = [];
  private readonly initStepAscii: (Int32Array | undefined)[] = new Array(128);
  private readonly initStepOther = new Map<number, Int32Array>();
  private cache = new Map<string, DfaState>();
  readonly start: DfaState;

  constructor(patterns: ReadonlyArray<DfaPattern | undefined>) {
    const finals: number[] = [];
    const lines: number[] = [];
    patterns.forEach((p, patternId) => {
      if (!p) return;
      const base = this.owner.length;
      const isFinal = new Set(p.nfa.finals);
      p.nfa.out.forEach((edges, local) => {
        this.owner.push(patternId);
        finals.push(isFinal.has(local) ? patternId : -1);
        lines.push(p.lineMode ? 1 : 0);
        this.out.push(edges.map((e) => ({ to: base + e.to, ranges: e.ranges })));
      });
      this.initials.push(base + p.nfa.initial);
    });
    this.finalOf = Int32Array.from(finals);
    this.lineNode = Uint8Array.from(lines);
    this.initialNode = new Uint8Array(this.owner.length);
    for (const id of this.initials) this.initialNode[id] = 1;
    this.start = this.intern([]);
  }

  get stateCount(): number {
    return this.cache.size;
  }

  /** The cached transition, or computes it. Call as `s.ascii[c] ?? dfa.step(s, c)` on the hot path. */
  step(state: DfaState, c: number): DfaState {
    const cached = c < 128 ? state.ascii[c] : state.other.get(c);
    if (cached) return cached;
    const next = new Set<number>();
    for (const node of state.nodes) this.stepNode(node, c, next);
    for (const node of this.initStep(c)) next.add(node);
    if (this.cache.size >= MAX_STATES) this.flush();
    const target = this.intern([...next]);
    if (c < 128) state.ascii[c] = target;
    else state.other.set(c, target);
    return target;
  }

  private stepNode(node: number, c: number, into: Set<number>): void {
    if (c === LF && this.lineNode[node] === 1) return;
    for (const edge of this.out[node]!) {
      if (this.initialNode[edge.to] === 1) continue;
      if (rangesHave(edge.ranges, c)) into.add(edge.to);
    }
  }

  private initStep(c: number): Int32Array {
    const cached = c < 128 ? this.initStepAscii[c] : this.initStepOther.get(c);
    if (cached) return cached;
    const into = new Set<number>();
    for (const node of this.initials) this.stepNode(node, c, into);
    const result = Int32Array.from(into);
    if (c < 128) this.initStepAscii[c] = result;
    else this.initStepOther.set(c, result);
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
      accepts: Int32Array.from(accepts),
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
