import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { groupThousands } from "./notice.ts";

describe("groupThousands", () => {
  it("writes what toLocaleString('en-US') writes, for whole numbers of any size and sign, and for the rest", () => {
    const numbers = fc.oneof(
      fc.integer({ min: -1_000_000, max: 1_000_000 }),
      fc.maxSafeInteger(),
      fc.constantFrom(0, -0, 999, 1000, 999_999, 1_000_000, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER),
      fc.double(),
    );
    fc.assert(
      fc.property(numbers, (n) => {
        expect(groupThousands(n)).toBe(n.toLocaleString("en-US"));
      }),
      { numRuns: 2000 },
    );
  });
});
