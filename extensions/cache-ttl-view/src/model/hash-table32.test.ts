import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HashMap32, HashSet32 } from "./hash-table32.ts";

const value = fc.oneof(
  fc.integer({ min: 0, max: 0xffffffff }),
  fc.constantFrom(0, 1, 0xffffffff, 0xfffffffe, 0x80000000, 1024, 2048),
  fc.integer({ min: 0, max: 64 }).map((k) => k * 1024), // one low-bits bucket: long probe runs
);

describe("HashMap32", () => {
  it("holds what a Map of the same uint32 keys and values holds, through growth, overwrites and at the edges", () => {
    const entry = fc.tuple(value, fc.integer({ min: 0, max: 0xffffffff }));
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 3000 }), fc.array(value, { maxLength: 200 }), (entries, asked) => {
        const map = new HashMap32();
        if (entries.length % 3 === 0) map.reserve(entries.length);
        const reference = new Map<number, number>();
        for (const [k, v] of entries) {
          map.set(k, v);
          reference.set(k, v);
        }
        expect(map.size).toBe(reference.size);
        for (const k of [...reference.keys(), ...asked]) expect(map.get(k)).toBe(reference.get(k));
        for (const k of reference.keys()) expect(map.get(k | 0)).toBe(reference.get(k));
      }),
      { numRuns: 200 },
    );
  });
});

describe("HashSet32", () => {
  it("holds what a Set of the same uint32 values holds, through growth and at the edges", () => {
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
