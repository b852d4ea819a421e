import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonLength, quoteJson } from "./json.ts";

/** Strings as wide as JSON's escaping: quotes, backslashes, controls, lone and paired surrogates, astral chars. */
const text = fc.oneof(
  fc.string({ unit: "binary" }),
  fc.string({ unit: fc.constantFrom("a", '"', "\\", "\n", "\t", "\u0000", "\u001f", "\u2028", "\ud800", "\udc00") }),
);
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    text,
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.array(tie("value"), { maxLength: 5 }),
    fc.dictionary(text, tie("value"), { maxKeys: 5 }),
  ),
})).value;

describe("jsonLength", () => {
  it("is the length of JSON.stringify for any JSON-like value", () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(jsonLength(value)).toBe(JSON.stringify(value)?.length ?? 0);
      }),
      { numRuns: 2000 },
    );
  });

  it("is exact up to the limit and past it only says so", () => {
    fc.assert(
      fc.property(json, fc.nat(200), (value, limit) => {
        const exact = JSON.stringify(value)?.length ?? 0;
        const measured = jsonLength(value, limit);
        if (exact <= limit) expect(measured).toBe(exact);
        else expect(measured).toBeGreaterThan(limit);
      }),
      { numRuns: 2000 },
    );
  });

  it("measures what is not plain data as JSON.stringify writes it (toJSON, dates, keys named __proto__)", () => {
    const values = [
      { at: new Date(0), list: [undefined, () => 1, Symbol("s")], f: () => 1 },
      { ...JSON.parse('{"__proto__": {"a": 1}}'), b: [1, -0, 1e21, Number.NaN, -Infinity] },
      { toJSON: () => ({ shown: "instead" }) },
      Object.assign(Object.create(null), { a: "b" }),
    ];
    for (const value of values) expect(jsonLength(value)).toBe(JSON.stringify(value).length);
  });

  it("stops walking a long string once it is past the limit", () => {
    const big = { path: "a.ts", content: "x".repeat(1_000_000) };
    expect(jsonLength(big, 100)).toBeGreaterThan(100);
    expect(jsonLength(big)).toBe(JSON.stringify(big).length);
  });
});

describe("quoteJson", () => {
  it("writes what JSON.stringify writes for any string", () => {
    fc.assert(
      fc.property(text, (s) => {
        expect(quoteJson(s)).toBe(JSON.stringify(s));
      }),
      { numRuns: 3000 },
    );
  });
});
