import { readSessionEntries } from "@pi-rails/agent-core/kit";
import { describe, expect, it } from "vitest";
import { foldEntries, STATE_ENTRY } from "./entries.ts";

describe("foldEntries", () => {
  it("folds touches, prune deltas, restores and pins in order", () => {
    const s = foldEntries([
      { kind: "touch", at: 1, ttlSeconds: 300 },
      {
        kind: "prune",
        at: 2,
        ttlSeconds: 300,
        ids: ["a", "b"],
        savedTokens: 10,
        notice: { after: "user:1", at: 2, text: "n1" },
      },
      {
        kind: "prune",
        at: 3,
        ttlSeconds: 3600,
        ids: ["c"],
        savedTokens: 5,
        notice: { after: "user:2", at: 3, text: "n2" },
      },
      { kind: "restore", at: 4, ids: ["b"] },
      { kind: "pin", at: 5, paths: ["docs/**"], tools: ["memory"], ids: ["x"] },
      { kind: "unpin", at: 6, ids: ["x"] },
      { kind: "touch", at: 7, ttlSeconds: 3600, warmGapSeconds: 400 },
    ]);
    expect([...s.pruned.keys()]).toEqual(["a", "c"]);
    expect(s.notices.map((n) => n.text)).toEqual(["n1", "n2"]);
    expect(s.prunes).toEqual([
      { at: 2, count: 2, savedTokens: 10 },
      { at: 3, count: 1, savedTokens: 5 },
    ]);
    expect(s).toMatchObject({ touchAt: 7, ttlSeconds: 3600, warmGapSeconds: 400 });
    expect([...s.pins.paths]).toEqual(["docs/**"]);
    expect([...s.pins.tools]).toEqual(["memory"]);
    expect(s.pins.ids.size).toBe(0);
  });

  it("skips malformed data (it comes from a file) without throwing", () => {
    const datas = [null, 5, "x", { kind: "touch" }, { kind: "prune", at: "no" }, { kind: "pin", ids: [1, "ok"] }];
    const s = foldEntries(
      readSessionEntries(
        datas.map((data) => ({ type: "custom", customType: STATE_ENTRY.customType, data })),
        STATE_ENTRY,
      ),
    );
    expect(s.touchAt).toBeUndefined();
    expect(s.pruned.size).toBe(0);
    expect([...s.pins.ids]).toEqual(["ok"]);
  });

  it("keeps the line counts stored with a prune by id, and drops a list it cannot align with the ids", () => {
    const read = (lines: unknown, ids: unknown[] = ["a", "b", "c"]) =>
      foldEntries(
        readSessionEntries(
          [
            {
              type: "custom",
              customType: STATE_ENTRY.customType,
              data: { kind: "prune", at: 1, ttlSeconds: 300, ids, savedTokens: 1, lines },
            },
          ],
          STATE_ENTRY,
        ),
      );
    const linesOf = (s: ReturnType<typeof foldEntries>) =>
      [...s.pruned].map(([id, row]) => [id, s.rows.lines[row]] as const);
    expect(linesOf(read([12, -1, 7]))).toEqual([
      ["a", 12],
      ["b", -1],
      ["c", 7],
    ]);
    // Not one per id (a non-string id was dropped from the list), not integers, below -1, not a list: none stored.
    for (const [lines, ids] of [
      [[12, 7], undefined],
      [
        [1, 2, 3],
        ["a", 5, "c"],
      ],
      [[1.5, 2, 3], undefined],
      [[1, -2, 3], undefined],
      ["12", undefined],
    ] as const) {
      const s = read(lines, ids as unknown[] | undefined);
      expect(s.pruned.size).toBeGreaterThan(0);
      expect(linesOf(s).every(([, n]) => n === -1)).toBe(true);
    }
  });

  it("reads owners by their version: legacy without one, content owners with 2, none of a version it does not know", () => {
    const prune = (ids: string[], owners: number[], ownerVersion?: number) =>
      ({
        kind: "prune",
        at: 1,
        ttlSeconds: 300,
        ids,
        savedTokens: 1,
        owners,
        ...(ownerVersion ? { ownerVersion } : {}),
      }) as const;
    const s = foldEntries(
      readSessionEntries(
        [prune(["a", "b"], [1, 2]), prune(["b", "c"], [3, 4], 2), prune(["d"], [5], 3)].map((data) => ({
          type: "custom",
          customType: STATE_ENTRY.customType,
          data,
        })),
        STATE_ENTRY,
      ),
    );
    expect([...s.owners]).toEqual([
      ["a", 1],
      ["b", 3],
      ["c", 4],
    ]);
    expect([...s.legacyOwners]).toEqual(["a"]);
    // Pruned all the same: an unknown version's ids are pruned, their owners unread.
    expect([...s.pruned.keys()]).toEqual(["a", "b", "c", "d"]);
  });
});
