import type { NFA } from "refa";

/**
 * An NFA as plain data: what the lazy DFA, the start finder and the load-time check run, and what the disk
 * cache stores. Decoupled from refa's objects so a cached rule set needs no regex library at all.
 */
export interface PlainNfa {
  initial: number;
  finals: number[];
  /** Per node: its edges, each a target and the character ranges `[min0, max0, min1, max1, ...]` it reads. */
  out: Array<Array<{ to: number; ranges: number[] }>>;
}

const MAX_CHAR = 0xffff;

/** Converts a refa NFA (node ids in iteration order, the initial node first). */
export function plainNfa(nfa: NFA): PlainNfa {
  const ids = new Map<NFA.ReadonlyNode, number>();
  for (const node of nfa.nodes()) ids.set(node, ids.size);
  const out: PlainNfa["out"] = [];
  const finals: number[] = [];
  for (const [node, id] of ids) {
    out[id] = [...node.out].map(([to, cs]) => ({ to: ids.get(to)!, ranges: cs.ranges.flatMap((r) => [r.min, r.max]) }));
    if ((nfa.finals as ReadonlySet<NFA.ReadonlyNode>).has(node)) finals.push(id);
  }
  return { initial: ids.get(nfa.initial)!, finals, out };
}

export function rangesHave(ranges: readonly number[], c: number): boolean {
  for (let i = 0; i < ranges.length; i += 2) {
    if (c < ranges[i]!) return false;
    if (c <= ranges[i + 1]!) return true;
  }
  return false;
}

export function rangesAreAll(ranges: readonly number[]): boolean {
  return ranges.length === 2 && ranges[0] === 0 && ranges[1]! >= MAX_CHAR;
}

/** The NFA reversed (matches the reversed strings); one new initial node with a copy of the old finals' edges. */
export function reverseNfa(nfa: PlainNfa): PlainNfa {
  const n = nfa.out.length;
  const out: PlainNfa["out"] = Array.from({ length: n + 1 }, () => []);
  nfa.out.forEach((edges, from) => {
    for (const e of edges) out[e.to]!.push({ to: from, ranges: e.ranges });
  });
  // New initial n: it reads what reaches any old final, i.e. copies the reversed edges of every final.
  for (const f of nfa.finals) for (const e of out[f]!) out[n]!.push(e);
  const finals = [nfa.initial];
  if (nfa.finals.includes(nfa.initial)) finals.push(n);
  return { initial: n, finals, out };
}

/** Longest accepted word; Infinity when a cycle lies on an accepting path. */
export function longestWord(nfa: PlainNfa): number {
  const n = nfa.out.length;
  // Nodes that can reach a final.
  const back: number[][] = Array.from({ length: n }, () => []);
  nfa.out.forEach((edges, from) => {
    for (const e of edges) back[e.to]!.push(from);
  });
  const useful = new Uint8Array(n);
  const stack = [...nfa.finals];
  for (const f of stack) useful[f] = 1;
  while (stack.length > 0) {
    const node = stack.pop()!;
    for (const prev of back[node]!) {
      if (useful[prev]) continue;
      useful[prev] = 1;
      stack.push(prev);
    }
  }
  const memo = new Float64Array(n).fill(-1);
  const onPath = new Uint8Array(n);
  const visit = (node: number): number => {
    if (memo[node]! >= 0) return memo[node]!;
    if (onPath[node]) return Number.POSITIVE_INFINITY;
    onPath[node] = 1;
    let best = 0;
    for (const e of nfa.out[node]!) {
      if (!useful[e.to]) continue;
      best = Math.max(best, 1 + visit(e.to));
      if (!Number.isFinite(best)) break;
    }
    onPath[node] = 0;
    memo[node] = best;
    return best;
  };
  return useful[nfa.initial] ? visit(nfa.initial) : 0;
}

export function nfaReadsChar(nfa: PlainNfa, c: number): boolean {
  return nfa.out.some((edges) => edges.some((e) => rangesHave(e.ranges, c)));
}

/**
 * Unanchored runs of one automaton over short texts: for each text, the prefix lengths (0..len) at which some match
 * ends. For the load-time check on generated strings (state lists and marks allocated once per automaton).
 */
export class NfaRunner {
  private readonly final: Uint8Array;
  private readonly mark: Int32Array;
  private current: Int32Array;
  private next: Int32Array;

  constructor(private readonly nfa: PlainNfa) {
    const n = nfa.out.length;
    this.final = new Uint8Array(n);
    for (const f of nfa.finals) this.final[f] = 1;
    this.mark = new Int32Array(n);
    this.current = new Int32Array(n);
    this.next = new Int32Array(n);
  }

  matchEnds(text: string): number[] {
    const { nfa, final, mark } = this;
    const initial = nfa.initial;
    mark.fill(-1);
    let current = this.current;
    let next = this.next;
    current[0] = initial;
    let count = 1;
    const ends: number[] = final[initial] === 1 ? [0] : [];
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      mark[initial] = i;
      next[0] = initial;
      let size = 1;
      let accepts = final[initial] === 1;
      for (let k = 0; k < count; k++) {
        for (const e of nfa.out[current[k]!]!) {
          if (mark[e.to] === i || !rangesHave(e.ranges, c)) continue;
          mark[e.to] = i;
          next[size++] = e.to;
          if (final[e.to] === 1) accepts = true;
        }
      }
      const swap = current;
      current = next;
      next = swap;
      count = size;
      if (accepts) ends.push(i + 1);
    }
    this.current = current;
    this.next = next;
    return ends;
  }
}
