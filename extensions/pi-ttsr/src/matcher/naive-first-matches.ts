import { type CompiledPattern, type CompileResult, compilePattern, type PatternSpec } from "./compile.ts";

/** Compiled specs of earlier calls: the property tests call this thousands of times with few patterns. */
const naiveCompiled = new Map<string, CompileResult>();

/**
 * The reference semantics, written plainly: after each delta, test every pattern on the whole text so far
 * (on each line of it / on the delta, for those windows), accepting only matches whose lookahead context has
 * streamed (`settledRegex`; a closed line is final). With `final`, the end of the stream then settles the rest:
 * a pattern first matching there gets index `deltas.length`. Quadratic; for the property tests.
 */
export function naiveFirstMatches(
  specs: ReadonlyArray<PatternSpec>,
  deltas: readonly string[],
  options: { final?: boolean } = {},
): Array<number | null> {
  const compiled = specs.map((spec) => {
    const key = `${spec.window}\u0000${spec.flags}\u0000${spec.source}`;
    let result = naiveCompiled.get(key);
    if (!result) {
      result = compilePattern(spec);
      if (naiveCompiled.size > 10_000) naiveCompiled.clear();
      naiveCompiled.set(key, result);
    }
    const flags = spec.flags.replace(/[gyd]/g, "");
    const plain = new RegExp(spec.source, flags);
    const tester = (p: CompiledPattern) => new RegExp(p.settledRegex.source, flags);
    // A condition of lookaheads over the rest of the text settles when each of them has.
    const parts = result.ok && result.pattern.parts ? result.pattern.parts.map(tester) : undefined;
    const settled = result.ok ? tester(result.pattern) : plain;
    return {
      plain,
      settled: parts ? { test: (text: string) => parts.every((re) => re.test(text)) } : settled,
    };
  });
  const result: Array<number | null> = specs.map(() => null);
  let acc = "";
  const test = (i: number, spec: PatternSpec, delta: string, final: boolean): boolean => {
    const { plain, settled } = compiled[i]!;
    if (spec.window === "chunk") return !final && plain.test(delta);
    if (spec.window === "line") {
      const lines = acc.split("\n");
      const open = lines.pop()!;
      return lines.some((line) => plain.test(line)) || (final ? plain : settled).test(open);
    }
    return (final ? plain : settled).test(acc);
  };
  deltas.forEach((delta, k) => {
    acc += delta;
    specs.forEach((spec, i) => {
      if (result[i] === null && test(i, spec, delta, false)) result[i] = k;
    });
  });
  if (options.final) {
    specs.forEach((spec, i) => {
      if (result[i] === null && test(i, spec, "", true)) result[i] = deltas.length;
    });
  }
  return result;
}
