import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hash32, hashBoth, hashMessageKey, ownerHash, rawMessageKey } from "./ids.ts";
import type { ViewMessage } from "./messages.ts";

describe("hashBoth", () => {
  it("is the id hash and the owner hash of the same source, in one pass", () => {
    const out = new Uint32Array(2);
    fc.assert(
      fc.property(fc.string(), fc.string({ unit: "binary" }), (prefix, text) => {
        hashBoth(prefix, text, out);
        expect([out[0], out[1]]).toEqual([hash32(prefix, text), ownerHash(prefix, text)]);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("hashMessageKey", () => {
  it("hashes what rawMessageKey writes, without building it", () => {
    const out = new Uint32Array(2);
    const timestamp = fc.oneof(
      fc.nat(),
      fc.maxSafeNat(),
      fc.integer({ min: Number.MIN_SAFE_INTEGER, max: -1 }),
      fc.double(),
      fc.constantFrom(undefined, null, 0, 1e21, 2 ** 53, Number.NaN, -0, "1700000000000", 1.5),
    );
    const message = fc.record({
      role: fc.oneof(fc.constantFrom("user", "assistant", "custom", "toolResult", "bashExecution"), fc.string()),
      timestamp,
      toolCallId: fc.oneof(fc.string(), fc.integer()),
      customType: fc.string(),
    });
    fc.assert(
      fc.property(fc.string(), message, (prefix, m) => {
        const key = rawMessageKey(m as unknown as ViewMessage);
        hashMessageKey(prefix, m as unknown as ViewMessage, out);
        expect([out[0], out[1]]).toEqual([hash32(prefix, key), ownerHash(prefix, key)]);
      }),
      { numRuns: 5000 },
    );
  });
});
