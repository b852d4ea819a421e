import { SessionManager } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { type BranchEntry, sessionBranch } from "./session-branch.ts";

const user = (text: string, timestamp: number) => ({ role: "user" as const, content: text, timestamp });

/** A real pi session tree: a trunk, a branch from its middle, a branch with a summary, custom entries on the way. */
function sessionTree(): { session: SessionManager; leaves: string[] } {
  const session = SessionManager.inMemory("/tmp/project");
  const trunk: string[] = [];
  for (let i = 0; i < 40; i++) {
    trunk.push(session.appendMessage(user(`trunk ${i}`, i)));
    if (i % 7 === 0) session.appendCustomEntry("test-state", { i });
  }
  const leaves = [session.getLeafId() as string];
  session.branch(trunk[12] as string);
  for (let i = 0; i < 5; i++) session.appendMessage(user(`side ${i}`, 100 + i));
  leaves.push(session.getLeafId() as string);
  session.branchWithSummary(trunk[30] as string, "what the other branch did");
  session.appendMessage(user("after the summary", 200));
  leaves.push(session.getLeafId() as string);
  return { session, leaves };
}

describe("sessionBranch", () => {
  it("returns what pi's getBranch returns, the same entries, from every entry of a real session tree", () => {
    const { session, leaves } = sessionTree();
    expect(sessionBranch(session)).toEqual(session.getBranch());
    for (const entry of session.getEntries()) {
      const branch = sessionBranch(session, entry.id);
      const expected = session.getBranch(entry.id);
      expect(branch).toHaveLength(expected.length);
      for (const [i, e] of branch.entries()) expect(e).toBe(expected[i]);
    }
    // The three leaves end three different paths that share the trunk's first entries.
    const paths = leaves.map((leaf) => sessionBranch(session, leaf).map((e) => e.id));
    expect(new Set(paths.map((p) => p.at(-1))).size).toBe(3);
    expect(paths.every((p) => p[0] === paths[0]?.[0])).toBe(true);
  });

  it("is empty for a session without entries and for an unknown id", () => {
    const session = SessionManager.inMemory("/tmp/project");
    expect(sessionBranch(session)).toEqual([]);
    session.appendMessage(user("hi", 1));
    expect(sessionBranch(session, "no-such-entry")).toEqual([]);
  });

  it("ends on parent links that form a cycle (a damaged file), each entry once", () => {
    for (const size of [3, 70_000]) {
      const entries: BranchEntry[] = Array.from({ length: size }, (_, i) => ({ id: `e${i}`, parentId: `e${i - 1}` }));
      // e0's parent is the leaf: a cycle through every entry, entered at the leaf.
      (entries[0] as BranchEntry).parentId = `e${size - 1}`;
      const byId = new Map(entries.map((e) => [e.id, e]));
      const source = {
        getLeafId: () => `e${size - 1}`,
        getEntry: (id: string) => byId.get(id),
        getEntries: () => entries,
      };
      const branch = sessionBranch(source);
      expect(branch).toHaveLength(size);
      expect(new Set(branch).size).toBe(size);
      expect(branch.at(-1)?.id).toBe(`e${size - 1}`);
    }
  });
});
