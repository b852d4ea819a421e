/** Appended text is frozen into flat blocks of about this many characters. */
const BLOCK = 4096;

/**
 * The text of one stream, stored so that reading a recent window costs O(window), not O(everything so far).
 * (A string grown with `+=` is a rope: V8 flattens all of it the first time a regex or `lastIndexOf` touches it,
 * and again after every append, which would make each native check cost the whole response.)
 */
export class TextBuffer {
  private readonly blocks: string[] = [];
  private readonly blockStarts: number[] = [];
  /** Text after the last block (a short rope, flattened when it becomes a block). */
  private tail = "";
  private total = 0;
  /** Offset of the last line feed, -1 if none. */
  lastNewline = -1;

  get length(): number {
    return this.total;
  }

  append(chunk: string): void {
    const nl = chunk.lastIndexOf("\n");
    if (nl >= 0) this.lastNewline = this.total + nl;
    this.tail += chunk;
    this.total += chunk.length;
    if (this.tail.length >= BLOCK) {
      this.blockStarts.push(this.total - this.tail.length);
      this.blocks.push(this.tail);
      this.tail = "";
    }
  }

  /** Characters [from, to) as one flat string. */
  slice(from: number, to = this.total): string {
    from = Math.max(0, Math.min(from, this.total));
    to = Math.max(from, Math.min(to, this.total));
    if (from === to) return "";
    const parts: string[] = [];
    let i = this.blockIndex(from);
    for (; i < this.blocks.length; i++) {
      const start = this.blockStarts[i]!;
      const block = this.blocks[i]!;
      if (start >= to) break;
      parts.push(block.slice(Math.max(0, from - start), Math.min(block.length, to - start)));
    }
    const tailStart = this.total - this.tail.length;
    if (to > tailStart) parts.push(this.tail.slice(Math.max(0, from - tailStart), to - tailStart));
    return parts.join("");
  }

  /** Offset of the last line feed before `end`, -1 if none; reads back at most `limit` characters. */
  lastNewlineBefore(end: number, limit: number): number {
    if (this.lastNewline < end) return this.lastNewline;
    const from = Math.max(0, end - limit);
    const i = this.slice(from, end).lastIndexOf("\n");
    return i < 0 ? (from === 0 ? -1 : from - 1) : from + i;
  }

  private blockIndex(offset: number): number {
    let lo = 0;
    let hi = this.blocks.length - 1;
    let found = this.blocks.length;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.blockStarts[mid]! + this.blocks[mid]!.length > offset) {
        found = mid;
        hi = mid - 1;
      } else lo = mid + 1;
    }
    return found;
  }

  toString(): string {
    return this.slice(0);
  }
}
