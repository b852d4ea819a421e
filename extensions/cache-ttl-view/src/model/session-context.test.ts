import { buildSessionContext, type SessionEntry } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { anchorBefore } from "./ids.ts";
import type { ViewMessage } from "./messages.ts";
import { builderOf } from "./session-context.ts";

/** Session entries chained by parentId, as pi 1.6 writes them (ids e0, e1, ...; or the id an entry names). */
function chain(entries: Record<string, unknown>[]): SessionEntry[] {
  let parent: string | null = null;
  return entries.map((e, i) => {
    const id = typeof e["id"] === "string" ? e["id"] : `e${i}`;
    const entry = { ...e, id, parentId: parent, timestamp: new Date(1_000_000 + i * 1000).toISOString() };
    parent = id;
    return entry as unknown as SessionEntry;
  });
}

const system = (t: number, extra: Record<string, unknown> = {}) => ({
  type: "message",
  message: { role: "system", content: "You are pi.", ...extra, timestamp: t },
});
const user = (text: string, t: number) => ({ type: "message", message: { role: "user", content: text, timestamp: t } });
const assistant = (text: string, t: number) => ({
  type: "message",
  message: { role: "assistant", content: [{ type: "text", text }], timestamp: t },
});

/** The builder's context next to pi's own `buildSessionContext` of the same entries. */
function both(entries: SessionEntry[]) {
  return {
    ours: builderOf(entries).messages(),
    pis: buildSessionContext(entries, entries.at(-1)?.id ?? null).messages as unknown as ViewMessage[],
  };
}

describe("the session context, built as pi 1.6 builds it", () => {
  it("keeps system messages (the prompt and a later tool patch) where they are; usage and custom entries add none", () => {
    const entries = chain([
      system(1),
      user("a", 2),
      assistant("b", 3),
      { type: "usage", kind: "cache_warm", provider: "p", model: "m", usage: { input: 0, output: 1 } },
      { type: "custom", customType: "cache-ttl-view", data: { kind: "touch" } },
      system(4, { content: "", toolsRemoved: [{ name: "edit" }] }),
      user("c", 5),
    ]);
    const { ours, pis } = both(entries);
    expect(ours).toEqual(pis);
    expect(ours.map((m) => m.role)).toEqual(["system", "user", "assistant", "system", "user"]);
  });

  it("a context_edit omits or replaces its target (the latest edit wins), and the history keeps the original", () => {
    const entries = chain([
      system(1),
      user("first", 2),
      assistant("answer", 3),
      { type: "context_edit", targetId: "e2", replacement: null },
      { type: "context_edit", targetId: "e1", replacement: { content: "first, edited" } },
      { type: "custom_message", customType: "memory", content: "fact", display: false },
      { type: "context_edit", targetId: "e5", replacement: { content: "fact, edited" } },
      { type: "context_edit", targetId: "e5", replacement: { content: "fact, edited again" } },
      user("second", 9),
    ]);
    const { ours, pis } = both(entries);
    expect(ours).toEqual(pis);
    expect(ours.map((m) => (m as { content?: unknown }).content)).toEqual([
      "You are pi.",
      "first, edited",
      "fact, edited again",
      "second",
    ]);
    expect(
      builderOf(entries)
        .history()
        .some((m) => m.role === "assistant"),
    ).toBe(true);
  });

  it("a compaction leads with its system checkpoint and summary; kept entries lose their system messages", () => {
    const entries = chain([
      system(1),
      user("old", 2),
      assistant("old answer", 3),
      system(4, { content: "", sections: { skills: "<skills/>" } }),
      user("kept", 5),
      assistant("kept answer", 6),
      {
        type: "compaction",
        summary: "they talked",
        firstKeptEntryId: "e4",
        tokensBefore: 1000,
        systemMessage: { role: "system", content: "You are pi.", sections: { skills: "<skills/>" }, timestamp: 7 },
      },
      user("new", 8),
    ]);
    const { ours, pis } = both(entries);
    expect(ours).toEqual(pis);
    expect(ours.map((m) => m.role)).toEqual(["system", "compactionSummary", "user", "assistant", "user"]);
  });

  it("a retain-none compaction (its own id as firstKeptEntryId) keeps nothing before it", () => {
    const entries = chain([
      system(1),
      user("old", 2),
      assistant("old answer", 3),
      { id: "c1", type: "compaction", summary: "all of it", firstKeptEntryId: "c1", tokensBefore: 10 },
      user("new", 5),
    ]);
    const { ours, pis } = both(entries);
    expect(ours).toEqual(pis);
    expect(ours.map((m) => m.role)).toEqual(["compactionSummary", "user"]);
  });

  it("a custom message is anchored at the message before it that is not a system message", () => {
    const entries = chain([
      system(1),
      user("prompt", 2),
      system(3, { content: "", toolsRemoved: [{ name: "edit" }] }),
      { type: "custom_message", customType: "rules", content: "always test", display: false },
    ]);
    const messages = builderOf(entries).messages();
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "system", "custom"]);
    // pi folds the patch into a compaction's checkpoint: anchored at it, the rules would change their key then.
    expect(anchorBefore(messages, 3)).toBe(2);
  });
});
