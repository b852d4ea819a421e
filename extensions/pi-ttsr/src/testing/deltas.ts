/**
 * A text cut into deltas at the given points (taken modulo its length + 1; repeats and empty deltas dropped): how the
 * property tests turn generated numbers into a stream's chunking.
 */
export function chunk(text: string, cuts: number[]): string[] {
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let last = 0;
  for (const p of points) {
    if (p > last) out.push(text.slice(last, p));
    last = Math.max(last, p);
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}
