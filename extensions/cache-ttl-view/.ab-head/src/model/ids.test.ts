import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hash32, hashBoth, ownerHash } from "./ids.ts";

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
