import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  anchorBefore,
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
  const user = (timestamp: number): ViewMessage => ({ role: "user", content: "hi", timestamp });

  it("names its type, content and anchor, not the timestamp pi changes when it saves the message", () => {
    expect(rawMessageKey(memory(1000), 900)).toBe(rawMessageKey(memory(1007), 900));
    expect(rawMessageKey(memory(1000), 900)).not.toBe(rawMessageKey(memory(1000, "remember that"), 900));
    expect(rawMessageKey(memory(1000), 900)).not.toBe(rawMessageKey({ ...memory(1000), customType: "rules" }, 900));
    // The same text added to another prompt is another message.
    expect(rawMessageKey(memory(1000), 900)).not.toBe(rawMessageKey(memory(1000), 950));
    const image = (data: string) => [{ type: "image" as const, data, mimeType: "image/png" }];
    expect(rawMessageKey(memory(1, image("iVBORw0KGgoAAA")))).not.toBe(
      rawMessageKey(memory(1, image("iVBORw0KGgoAAB"))),
    );
    expect(momentOf(memory(1000), 900)).toBe(900);
    expect(momentOf(user(1000), 900)).toBe(1000);
  });

  it("is anchored at the nearest message before it that is not a custom message", () => {
    const list = [memory(5), user(10), memory(11), memory(12, "other"), user(20)];
    expect([0, 1, 2, 3, 4].map((i) => anchorBefore(list, i))).toEqual([0, 0, 10, 10, 10]);
  });

  it("is found by key in a copy whose custom messages have other timestamps; the same text of each prompt keeps its own key", () => {
    const sent = [user(1000), memory(1001), user(2000), memory(2001), memory(2002)];
    const saved = [user(1000), memory(1005), user(2000), memory(2009), memory(2011)];
    const keys = sent.map((_m, i) => messageKeyAt(sent, i));
    expect(new Set(keys).size).toBe(5);
    // Twins: the same text twice after one prompt are told apart by their order.
    expect(keys[4]).toBe(`${keys[3]}#2`);
    expect(keys.map((_k, i) => messageKeyAt(saved, i))).toEqual(keys);
    expect(findMessageKeys(saved, new Set(keys))).toEqual(new Map(keys.map((k, i) => [k, i])));
    expect(startsWithMessages(saved, sent.slice(0, 4))).toBe(true);
    // After a compaction cut the first prompt, the second prompt's memory keeps its key.
    expect(messageKeyAt(saved.slice(2), 1)).toBe(keys[3]);
    // A key written before (with the timestamp) matches no message now.
    expect(findMessageKeys(sent, new Set(["c:memory:1001"])).size).toBe(0);
  });
});
