import { NfaRunner, type PlainNfa, rangesHave } from "./automaton.ts";

/**
 * Load-time check of what the regex library made of a pattern with assertions: the automaton is compared with
 * the native regex on generated strings (words of the automata, with context around them, and mutations).
 * refa's assertion rewriting is not faithful for every shape (two adjacent lookbehinds, a lookbehind `\b` at the
 * end, a lookahead before an alternation), so nothing it produced is trusted without this check.
 */

/** Strings that exercise a pattern: words of its automata, with context characters around them. */
export function sampleStrings(nfas: readonly PlainNfa[], seed: number, source = "", count = 160): string[] {
  const rand = rng(seed);
  const alphabet = alphabetOf(nfas, source);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
  const context = (max: number) => {
    let s = "";
    const n = Math.floor(rand() * (max + 1));
    for (let i = 0; i < n; i++) s += pick(alphabet);
    return s;
  };
  // The alphabet's characters on each edge, computed once per edge (not once per generated character).
  const members = new Map<readonly number[], string[]>();
  const membersOf = (ranges: readonly number[]): string[] => {
    let found = members.get(ranges);
    if (!found) {
      found = alphabet.filter((ch) => rangesHave(ranges, ch.charCodeAt(0)));
      members.set(ranges, found);
    }
    return found;
  };
  const finals = nfas.map((nfa) => new Set(nfa.finals));
  const out = new Set<string>();
  for (let i = 0; i < count; i++) {
    const nfa = nfas[i % nfas.length]!;
    const nfaFinals = finals[i % nfas.length]!;
    let word = randomWord(nfa, nfaFinals, rand, membersOf);
    if (word === undefined) word = context(6);
    // A second word (conditions about two places), a mutation, and context on both sides.
    if (rand() < 0.25) word += context(2) + (randomWord(nfa, nfaFinals, rand, membersOf) ?? "");
    if (rand() < 0.3 && word.length > 0) {
      const at = Math.floor(rand() * word.length);
      word =
        rand() < 0.5 ? word.slice(0, at) + word.slice(at + 1) : word.slice(0, at) + pick(alphabet) + word.slice(at);
    }
    out.add(context(3) + word + context(3));
  }
  return [...out];
}

/** First prefix length at which `test` holds (it is monotone on prefixes), or -1. */
export function firstPrefix(text: string, test: (prefix: string) => boolean): number {
  for (let k = 0; k <= text.length; k++) if (test(text.slice(0, k))) return k;
  return -1;
}

/** Prefix lengths at which some match of the automaton ends, for each text. */
export function acceptPoints(nfa: PlainNfa, texts: readonly string[]): number[][] {
  const runner = new NfaRunner(nfa);
  return texts.map((text) => runner.matchEnds(text));
}

function randomWord(
  nfa: PlainNfa,
  finals: ReadonlySet<number>,
  rand: () => number,
  membersOf: (ranges: readonly number[]) => readonly string[],
): string | undefined {
  for (let attempt = 0; attempt < 4; attempt++) {
    let node = nfa.initial;
    let word = "";
    for (let steps = 0; steps < 48; steps++) {
      if (finals.has(node) && (rand() < 0.35 || nfa.out[node]!.length === 0)) return word;
      const edges = nfa.out[node]!;
      if (edges.length === 0) break;
      const edge = edges[Math.floor(rand() * edges.length)]!;
      word += charIn(edge.ranges, rand, membersOf(edge.ranges));
      node = edge.to;
    }
    if (finals.has(node)) return word;
  }
  return undefined;
}

/** A character of the ranges, preferring the alphabet's (`members`: so `\w` yields letters, not CJK). */
function charIn(ranges: readonly number[], rand: () => number, members: readonly string[]): string {
  if (members.length > 0 && rand() < 0.8) return members[Math.floor(rand() * members.length)]!;
  const r = Math.floor(rand() * (ranges.length / 2)) * 2;
  const min = ranges[r]!;
  const max = Math.min(ranges[r + 1]!, min + 64);
  return String.fromCharCode(min + Math.floor(rand() * (max - min + 1)));
}

const BASE_ALPHABET = [" ", "\n", "a", "Z", "0", "_", ".", "-", "(", '"', "é"];

function alphabetOf(nfas: readonly PlainNfa[], source: string): string[] {
  const chars = new Set([...BASE_ALPHABET, ...source.replace(/\\[bBdDsSwW]/g, "")]);
  for (const nfa of nfas) {
    for (const edges of nfa.out) {
      for (const e of edges) {
        for (let i = 0; i < e.ranges.length && i < 16; i += 2) {
          chars.add(String.fromCharCode(e.ranges[i]!));
          chars.add(String.fromCharCode(e.ranges[i + 1]!));
          if (e.ranges[i]! > 0) chars.add(String.fromCharCode(e.ranges[i]! - 1));
          if (e.ranges[i + 1]! < 0xffff) chars.add(String.fromCharCode(e.ranges[i + 1]! + 1));
        }
      }
    }
  }
  return [...chars].filter((c) => {
    const code = c.charCodeAt(0);
    return code < 0xd800 || code > 0xdfff;
  });
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
