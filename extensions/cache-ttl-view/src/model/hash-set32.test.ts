import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HashSet32 } from "./hash-set32.ts";

describe("HashSet32", () => {
  it("holds what a Set of the same uint32 values holds, through growth and at the edges", () => {
    const value = fc.oneof(
      fc.integer({ min: 0, max: 0xffffffff }),
      fc.constantFrom(0, 1, 0xffffffff, 0xfffffffe, 0x80000000, 1024, 2048),
      fc.integer({ min: 0, max: 64 }).map((k) => k * 1024), // one low-bits bucket: long probe runs
    );
    fc.assert(
      fc.property(fc.array(value, { maxLength: 3000 }), fc.array(value, { maxLength: 200 }), (added, asked) => {
        const set = new HashSet32();
        if (added.length % 3 === 0) set.reserve(added.length);
        const reference = new Set<number>();
        for (const v of added) {
          set.add(v);
          reference.add(v);
        }
        expect(set.size).toBe(reference.size);
        for (const v of [...added, ...asked]) expect(set.has(v)).toBe(reference.has(v));
        // Signed views of the same bits are the same value (the analysis passes `h | 0` or `h >>> 0`).
        for (const v of added) expect(set.has(v | 0)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
