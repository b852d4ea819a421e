import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { contentOwner, hash32, hex8, ownerHash } from "../model/ids.ts";
import type { ViewMessage } from "../model/messages.ts";
import { analyze } from "./analysis.ts";

/**
 * The id rules written plainly (strings and Sets, as the allocator was first written): a free plain id that nobody
 * registered; else an id registered to this very block (its call id, message timestamp and part), plain first; else
 * one a legacy registration gives to its call id alone, plain first; else the first free suffix nobody registered.
 */
function referenceIds(
  sources: readonly string[],
  owners: ReadonlyMap<string, number>,
  legacy: ReadonlySet<string>,
): string[] {
  const taken = new Set<string>();
  const registeredBases = new Set([...owners.keys()].filter((id) => id.length > 8).map((id) => id.slice(0, 8)));
  return sources.map((source, i) => {
    const plain = hex8(hash32("t:", source));
    const owner = (id: string) =>
      legacy.has(id) ? ownerHash("t:", source) : contentOwner(ownerHash("t:", source), 2 * i, 0);
    let id: string | undefined;
    if (!taken.has(plain) && !owners.has(plain) && !registeredBases.has(plain)) id = plain;
    const own = (legacyOnes: boolean) => (candidate: string) =>
      legacy.has(candidate) === legacyOnes && owners.get(candidate) === owner(candidate) && !taken.has(candidate);
    if (id === undefined && owners.size > 0) {
      const candidates = [plain, ...[...owners.keys()].filter((k) => k.startsWith(`${plain}.`))];
      id = candidates.find(own(false)) ?? candidates.find(own(true));
    }
    if (id === undefined) {
      id = plain;
      for (let n = 2; taken.has(id) || owners.has(id); n++) id = `${plain}.${n}`;
    }
    taken.add(id);
    return id;
  });
}

/** One tool call and its result per source (the call id is the source of the block's id). */
function toolMessages(sources: readonly string[]): ViewMessage[] {
  return sources.flatMap((id, i) => [
    { role: "assistant", content: [{ type: "toolCall", id, name: "read", arguments: {} }], timestamp: 2 * i },
    {
      role: "toolResult",
      toolCallId: id,
      toolName: "read",
      content: [{ type: "text", text: "x" }],
      timestamp: 2 * i + 1,
    },
  ]) as ViewMessage[];
}

describe("block ids with owners read back from the session", () => {
  it("follow the plain rules, for colliding, repeated and registered sources", () => {
    // call_24829 and call_1204060 collide under the 32-bit hash; the others are plain, some repeated.
    const pool = ["call_24829", "call_1204060", "call_a", "call_b", "call_c"];
    const sources = fc.array(fc.constantFrom(...pool), { minLength: 1, maxLength: 12 });
    const registrations = fc.array(
      fc.record({
        source: fc.constantFrom(...pool),
        suffix: fc.constantFrom("", ".2", ".3"),
        // An id no version wrote (upper-case hex): registered, but never a block's.
        upper: fc.boolean(),
        // Registered to that source, to something else (a block compaction cut away), or damaged on disk.
        owner: fc.constantFrom("own", "other", "damaged"),
        // Written by a version whose owners named the source only (legacy), or the block's content too: then the
        // occurrence of the source it was pruned at (one of the list's, or one compaction cut away).
        legacy: fc.boolean(),
        at: fc.nat(14),
      }),
      { maxLength: 6 },
    );
    fc.assert(
      fc.property(sources, registrations, (list, registered) => {
        const idOf = ({ source, suffix, upper }: (typeof registered)[number]) =>
          upper ? `${hex8(hash32("t:", source))}${suffix}`.toUpperCase() : `${hex8(hash32("t:", source))}${suffix}`;
        const ownerOf = ({ source, owner, legacy, at }: (typeof registered)[number]) => {
          const own = legacy ? ownerHash("t:", source) : contentOwner(ownerHash("t:", source), 2 * at, 0);
          return owner === "own" ? own : owner === "other" ? 12345 : own - 2 ** 32;
        };
        const owners = new Map(registered.map((r) => [idOf(r), ownerOf(r)]));
        // The last registration of an id decides its version, as folding the entries does.
        const legacyOwners = new Set<string>();
        for (const r of registered) {
          if (r.legacy) legacyOwners.add(idOf(r));
          else legacyOwners.delete(idOf(r));
        }
        const ids = analyze(toolMessages(list), { owners, legacyOwners })
          .blocks.filter((b) => b.kind === "tool")
          .map((b) => b.id);
        expect(ids).toEqual(referenceIds(list, owners, legacyOwners));
      }),
      { numRuns: 3000 },
    );
  });
});
