import { type PlainNfa, rangesAreAll, rangesHave, reverseNfa } from "./automaton.ts";
import type { TextBuffer } from "./text-buffer.ts";

/**
 * Finds where a match that ends at a known offset can start, by running the pattern's (assertion-free superset)
 * automaton reversed, backwards from the end (RE2's trick). The native check of a candidate then reads only the
 * match itself, not everything since the line or the window began: `result\s*=` spans a few characters even
 * though `\s*` could cross lines.
 */
/** How far back the reversed automaton reads before giving up (it then costs no more than the window it saves). */
const SCAN_BUDGET = 1024;
/** Above this many states a backward scan costs more than it saves (`.{121,}` has 122). */
const MAX_FINDER_NODES = 64;

export class StartFinder {
  private readonly out: PlainNfa["out"];
  private readonly finals: Uint8Array;
  private readonly initial: number;
  private listA = new Int32Array(0);
  private listB = new Int32Array(0);
  private mark = new Int32Array(0);

  constructor(nfa: PlainNfa) {
    const reversed = reverseNfa(nfa);
    this.out = reversed.out;
    this.finals = new Uint8Array(reversed.out.length);
    for (const f of reversed.finals) this.finals[f] = 1;
    this.initial = reversed.initial;
    // A state looping on every character (`[\s\S]*` at the pattern's start, e.g. a widened backreference)
    // never dies: the backward scan could not bound the start, so it is not worth running. Nor is a large
    // automaton: the scan would cost more than the window it saves.
    this.useful =
      this.out.length <= MAX_FINDER_NODES &&
      !this.out.some((edges, id) => edges.some((e) => e.to === id && rangesAreAll(e.ranges)));
  }

  /** False when a backward scan cannot bound the start (see the constructor). */
  readonly useful: boolean;

  /**
   * Earliest offset ≥ `maxEnd - limit` where a superset match ending anywhere in [minEnd, maxEnd] can start.
   * Reads back at most SCAN_BUDGET characters past `minEnd`: a pattern like `(\w+) [\s\S]*` can start anywhere,
   * and then `maxEnd - limit` is the answer anyway.
   */
  earliestStart(text: TextBuffer, minEnd: number, maxEnd: number, limit: number): number {
    const floor = Math.max(0, maxEnd - limit);
    // Most scans end within a few characters: try a short stretch first, the whole budget only if needed.
    for (const budget of [64, SCAN_BUDGET]) {
      const from = Math.max(floor, minEnd - budget);
      const result = this.scan(text.slice(from, maxEnd), from, minEnd);
      if (result.done || from === floor) return result.earliest >= 0 ? result.earliest : floor;
    }
    return floor;
  }

  /** Runs backwards over `window` (ending at the last match end), starting a match at every end ≥ `minEnd`. */
  private scan(window: string, offset: number, minEnd: number): { earliest: number; done: boolean } {
    // Two preallocated state lists, swapped each step; `mark` holds the step number a state was added at.
    const size = this.out.length;
    if (this.listA.length < size + 1) {
      this.listA = new Int32Array(size + 1);
      this.listB = new Int32Array(size + 1);
      this.mark = new Int32Array(size);
    }
    let current = this.listA;
    let next = this.listB;
    const mark = this.mark;
    mark.fill(-1);
    current[0] = this.initial;
    let count = 1;
    let earliest = this.finals[this.initial] === 1 ? offset + window.length : -1;
    for (let i = window.length - 1; i >= 0; i--) {
      const c = window.charCodeAt(i);
      let n = 0;
      for (let k = 0; k < count; k++) {
        for (const edge of this.out[current[k]!]!) {
          if (mark[edge.to] !== i && rangesHave(edge.ranges, c)) {
            mark[edge.to] = i;
            next[n++] = edge.to;
            if (this.finals[edge.to] === 1) earliest = offset + i;
          }
        }
      }
      // Matches may also end at this offset (every candidate end is at or after minEnd).
      if (offset + i >= minEnd && mark[this.initial] !== i) next[n++] = this.initial;
      if (n === 0) return { earliest, done: true };
      const swap = current;
      current = next;
      next = swap;
      count = n;
    }
    return { earliest, done: false };
  }
}
