import { describe, expect, it } from "vitest";
import { defineSessionEntry, latestSessionEntry, readSessionEntries, writeSessionEntry } from "./session-entries.ts";

const COUNT = defineSessionEntry("test-count", (data) => {
  const n = (data as { n?: unknown } | undefined)?.n;
  return typeof n === "number" ? { n } : undefined;
});

const entries = [
  { type: "message", message: { role: "user" } },
  { type: "custom", customType: "test-count", data: { n: 1 } },
  { type: "custom", customType: "other", data: { n: 9 } },
  { type: "custom", customType: "test-count", data: { n: "two" } },
  null,
  { type: "custom", customType: "test-count" },
  { type: "custom", customType: "test-count", data: { n: 3 } },
  { type: "custom", customType: "test-count", data: "garbage" },
];

describe("custom session entries", () => {
  it("reads every usable entry of one type in order, skipping other types and damaged data", () => {
    expect(readSessionEntries(entries, COUNT)).toEqual([{ n: 1 }, { n: 3 }]);
  });

  it("finds the newest usable entry, passing over a damaged newer one", () => {
    expect(latestSessionEntry(entries, COUNT)).toEqual({ n: 3 });
    expect(latestSessionEntry([], COUNT)).toBeUndefined();
  });

  it("writes under the type's customType, and what it wrote reads back", () => {
    const written: { type: string; customType: string; data: unknown }[] = [];
    const pi = {
      appendEntry: (customType: string, data?: unknown) => written.push({ type: "custom", customType, data }),
    };
    writeSessionEntry(pi, COUNT, { n: 7 });
    expect(written).toEqual([{ type: "custom", customType: "test-count", data: { n: 7 } }]);
    expect(readSessionEntries(written, COUNT)).toEqual([{ n: 7 }]);
  });

  it("reads the spellings an entry type had before, in session order, and writes only the new one", () => {
    const RENAMED = defineSessionEntry("test:count", COUNT.read, { formerly: ["test-count"] });
    const mixed = [...entries, { type: "custom", customType: "test:count", data: { n: 4 } }];
    expect(readSessionEntries(mixed, RENAMED)).toEqual([{ n: 1 }, { n: 3 }, { n: 4 }]);
    expect(latestSessionEntry(entries, RENAMED)).toEqual({ n: 3 });
    const written: unknown[] = [];
    writeSessionEntry({ appendEntry: (customType: string) => written.push(customType) }, RENAMED, { n: 5 });
    expect(written).toEqual(["test:count"]);
  });
});
