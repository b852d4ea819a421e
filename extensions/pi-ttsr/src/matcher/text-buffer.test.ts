import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TextBuffer } from "./text-buffer.ts";

describe("TextBuffer", () => {
  it("slices like a string across block boundaries and tracks line feeds", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ minLength: 0, maxLength: 900 }), { maxLength: 40 }),
        fc.nat(),
        fc.nat(),
        (chunks, a, b) => {
          const buffer = new TextBuffer();
          let text = "";
          for (const c of chunks) {
            buffer.append(c);
            text += c;
          }
          const from = a % (text.length + 1);
          const to = from + (b % (text.length - from + 1));
          expect(buffer.length).toBe(text.length);
          expect(buffer.slice(from, to)).toBe(text.slice(from, to));
          expect(buffer.slice(from)).toBe(text.slice(from));
          expect(buffer.lastNewline).toBe(text.lastIndexOf("\n"));
          expect(buffer.lastNewlineBefore(to, 1 << 20)).toBe(to === 0 ? -1 : text.lastIndexOf("\n", to - 1));
        },
      ),
      { numRuns: 300 },
    );
  });
});
