// Shapes that backtrack badly in a regex engine, on long lines: the per-delta work must stay bounded.
// Reported: total and worst single delta (ms) for our matcher, and one native `regex.test` of the final text.

/** [label, source, flags, text] for a line of `size` characters. */
export function pathologicalCases(size) {
  return [
    ["[ \\t]+$ (m), spaces then x", "[ \\t]+$", "m", `${" ".repeat(size)}x`],
    ["\\s+$, spaces then x", "\\s+$", "", `${" ".repeat(size)}x`],
    ["a*a*b (u), a…a", "a*a*b", "u", "a".repeat(size)],
    ["^.{121,}$ (m), one long line", "^.{121,}$", "m", `${"y".repeat(size)}`],
    ["x{1,5000}y, x…x", "x{1,5000}y", "", "x".repeat(size)],
  ];
}

/** Streams `text` through `set` in `deltaSize` deltas; total and worst delta in ms. */
export function runStreamed(set, text, deltaSize = 4) {
  const m = set.stream();
  let worst = 0;
  const t0 = performance.now();
  for (let i = 0; i < text.length; i += deltaSize) {
    const t = performance.now();
    m.push(text.slice(i, i + deltaSize));
    worst = Math.max(worst, performance.now() - t);
  }
  const t = performance.now();
  m.finish();
  worst = Math.max(worst, performance.now() - t);
  return { totalMs: performance.now() - t0, worstDeltaMs: worst };
}
