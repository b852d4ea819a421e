import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  findMessageKeys,
  hash32,
  hashBoth,
  hashMessageKey,
  messageKeyAt,
  momentOf,
  ownerHash,
  rawMessageKey,
  startsWithMessages,
} from "./ids.ts";
import type { CustomMsg, ViewMessage } from "./messages.ts";

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

describe("a custom message's key", () => {
  const memory = (timestamp: number, content: CustomMsg["content"] = "remember this"): CustomMsg => ({
    role: "custom",
    customType: "memory",
    content,
    display: false,
    timestamp,
  });

  it("names its type and content, not the timestamp pi changes when it saves the message", () => {
    expect(rawMessageKey(memory(1000))).toBe(rawMessageKey(memory(1007)));
    expect(rawMessageKey(memory(1000))).not.toBe(rawMessageKey(memory(1000, "remember that")));
    expect(rawMessageKey(memory(1000))).not.toBe(rawMessageKey({ ...memory(1000), customType: "rules" }));
    const image = (data: string) => [{ type: "image" as const, data, mimeType: "image/png" }];
    expect(rawMessageKey(memory(1, image("iVBORw0KGgoAAA")))).not.toBe(
      rawMessageKey(memory(1, image("iVBORw0KGgoAAB"))),
    );
    expect(momentOf(memory(1000))).toBe(0);
  });

  it("is found by key in a list whose copy of the message has another timestamp, repeats counted in order", () => {
    const sent = [memory(1000), { role: "user", content: "hi", timestamp: 1001 } as ViewMessage, memory(1002)];
    const saved = [memory(1003), sent[1] as ViewMessage, memory(1009)];
    expect(messageKeyAt(sent, 2)).toBe(`${rawMessageKey(memory(0))}#2`);
    expect(findMessageKeys(saved, new Set([messageKeyAt(sent, 2), messageKeyAt(sent, 0)]))).toEqual(
      new Map([
        [messageKeyAt(sent, 0), 0],
        [messageKeyAt(sent, 2), 2],
      ]),
    );
    expect(startsWithMessages(saved, sent.slice(0, 2))).toBe(true);
    // A key written before (with the timestamp) matches no message now.
    expect(findMessageKeys(sent, new Set(["c:memory:1000"])).size).toBe(0);
  });
});
