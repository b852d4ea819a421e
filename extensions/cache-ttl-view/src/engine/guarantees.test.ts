import { describe, expect, it } from "vitest";
import { hash32, ownerHash, rawMessageKey } from "../model/ids.ts";
import type { ToolResultMsg, ViewMessage } from "../model/messages.ts";
import { analyze } from "../plan/analysis.ts";
import { defaultSettings } from "../settings/settings.ts";
import { image, SessionBuilder, text } from "../testing/fixtures.ts";
import { SessionView } from "./session-view.ts";

/** The documented guarantees, on SessionView (the code the extension and the report share). */

const MIN = 60_000;

function expiredView(s: SessionBuilder, over: Partial<ReturnType<typeof defaultSettings>> = {}) {
  const view = new SessionView(defaultSettings({ keepRecentTurns: 2, minGainTokens: 0, ...over }));
  view.load([{ kind: "touch", at: 0, ttlSeconds: 300 }]);
  const r = view.render(s.clone(), { now: 60 * MIN, ttlSeconds: 300 });
  return { view, r };
}

function toolPair(s: SessionBuilder, id: string, name: string, args: Record<string, unknown>, content: unknown[]) {
  s.push({ role: "assistant", content: [{ type: "toolCall", id, name, arguments: args }], timestamp: 0 });
  s.push({ role: "toolResult", toolCallId: id, toolName: name, content, isError: false, timestamp: 0 } as ViewMessage);
}

describe("images", () => {
  it("keeps the newest image when it came through read: the file text is pruned, the image stays", () => {
    const s = new SessionBuilder().user(`old ${text(2000)}`);
    s.tool("read", { path: "shot.png" }, `Read image file [image/png] ${text(3000)}`, { images: [image(40_000)] });
    s.assistant(`seen ${text(2000)}`);
    for (let i = 0; i < 3; i++) s.user(`turn ${i} ${text(2000)}`).assistant(`ok ${text(2000)}`);
    s.user("now");
    const { r } = expiredView(s);
    const result = r.messages.find((m) => m.role === "toolResult") as ToolResultMsg;
    expect(result.content.map((p) => p.type)).toEqual(["text", "image"]);
    expect((result.content[0] as { text: string }).text).toContain("[TRUNCATED FILE]");
    expect((result.content[1] as { data: string }).data.length).toBe(40_000);
  });

  it("never replaces images inside the results of a pinned tool", () => {
    const s = new SessionBuilder();
    for (let i = 0; i < 4; i++) {
      s.user(`turn ${i} ${text(2000)}`);
      s.tool("screenshot", { n: i }, "shot", { images: [image(30_000)] });
      s.assistant(`ok ${text(2000)}`);
    }
    s.user("now", [image(30_000)]);
    const { r } = expiredView(s, { keepRecentImages: 1, pins: { tools: ["screenshot"], paths: [], ids: [] } });
    const results = r.messages.filter((m) => m.role === "toolResult") as ToolResultMsg[];
    for (const result of results) expect(result.content.map((p) => p.type)).toEqual(["text", "image"]);
    expect(r.plan?.counts.image ?? 0).toBe(0);
  });
});

describe("block ids", () => {
  it("are unique within a session: two tool calls whose ids hash alike get different block ids", () => {
    // call_24829 and call_1204060 collide under the 32-bit hash.
    expect(hash32("t:", "call_24829")).toBe(hash32("t:", "call_1204060"));
    const s = new SessionBuilder().user(`old ${text(2000)}`);
    toolPair(s, "call_24829", "read", { path: "a.ts" }, [{ type: "text", text: text(9000, "OLD") }]);
    s.assistant(`seen ${text(2000)}`);
    for (let i = 0; i < 3; i++) s.user(`turn ${i} ${text(2000)}`).assistant(`ok ${text(2000)}`);
    s.user("now read b");
    toolPair(s, "call_1204060", "read", { path: "b.ts" }, [{ type: "text", text: "FRESH b.ts body" }]);
    const ids = analyze(s.messages)
      .blocks.filter((b) => b.kind === "tool")
      .map((b) => b.id);
    expect(new Set(ids).size).toBe(2);

    const { view, r } = expiredView(s);
    const fresh = r.messages.find((m) => m.role === "toolResult" && m.toolCallId === "call_1204060") as ToolResultMsg;
    expect(fresh.content).toEqual([{ type: "text", text: "FRESH b.ts body" }]);
    // A restore of the old id returns the old original, not the fresh one.
    const oldId = ids[0] as string;
    const { found } = view.originals([oldId], s.messages);
    expect(found.map((f) => f.block.kind === "tool" && f.block.callMsg)).toEqual([1]);
  });

  it("keep naming their block when the colliding block before it is compacted away", () => {
    const s = new SessionBuilder().user(`old ${text(2000)}`);
    toolPair(s, "call_24829", "read", { path: "a.ts" }, [{ type: "text", text: text(9000, "AAA") }]);
    s.user(`next ${text(2000)}`);
    toolPair(s, "call_1204060", "read", { path: "b.ts" }, [{ type: "text", text: text(9000, "BBB") }]);
    for (let i = 0; i < 3; i++) s.user(`turn ${i} ${text(2000)}`).assistant(`ok ${text(2000)}`);
    s.user("now");
    const { view, r } = expiredView(s);
    const [a, b] = r.plan?.blocks.filter((block) => block.kind === "tool").map((block) => block.id) ?? [];
    expect(b).toBe(`${a}.2`);

    // pi compacts: the first turn (with a.ts) becomes a summary; the view is asked again.
    const compacted = [{ role: "compactionSummary", summary: "a.ts read", timestamp: 1 }, ...s.messages.slice(3)];
    view.invalidate();
    const after = view.render(structuredClone(compacted), { now: 61 * MIN, ttlSeconds: 300 });
    const result = after.messages.find((m) => m.role === "toolResult") as ToolResultMsg;
    expect(JSON.stringify(result.content)).toContain(`"id\\":\\"${b}\\"`);
    expect(JSON.stringify(result.content)).toContain("b.ts");
    const { found } = view.originals([b as string], compacted);
    expect(found.map((f) => f.messages[(f.block as { resultMsg: number }).resultMsg])).toMatchObject([
      { toolCallId: "call_1204060" },
    ]);
  });

  /** A provider that numbers tool calls per response (`call_0` in every turn, as some local servers do). */
  function repeatedIds() {
    const s = new SessionBuilder();
    let t = 10_000;
    const next = () => {
      t += 1_000;
      return t;
    };
    const turn = (body: string) => {
      s.push({ role: "user", content: `read it ${text(1500)}`, timestamp: next() });
      s.push({
        role: "assistant",
        content: [{ type: "toolCall", id: "call_0", name: "read", arguments: { path: `${body}.ts` } }],
        timestamp: next(),
      });
      s.push({
        role: "toolResult",
        toolCallId: "call_0",
        toolName: "read",
        content: [{ type: "text", text: body }],
        isError: false,
        timestamp: next(),
      });
    };
    // The first result is too short to prune, the second long: only the second is pruned.
    turn("tiny");
    turn(text(9000, "LONG"));
    for (let i = 0; i < 3; i++) turn(text(9000, `later${i}`));
    s.push({ role: "user", content: "now", timestamp: next() });
    return s;
  }

  it("name their own block when tool call ids repeat: after a reload, and after a compaction", () => {
    const s = repeatedIds();
    const { view, r } = expiredView(s);
    const ids = analyze(s.messages)
      .blocks.filter((b) => b.kind === "tool")
      .map((b) => b.id);
    expect(r.plan?.ids).toContain(ids[1]);
    expect(r.plan?.ids).not.toContain(ids[0]);
    // Reloaded: the same ids go to the same blocks (the short first result is not the one shown pruned).
    const reloaded = new SessionView(defaultSettings({ keepRecentTurns: 2, minGainTokens: 0 }));
    reloaded.load([...r.entries, view.touchEntry()].filter((e) => e !== undefined));
    const again = reloaded.render(s.clone(), { now: 61 * MIN, ttlSeconds: 300 });
    expect(JSON.stringify(again.messages)).toBe(JSON.stringify(r.messages));
    expect(reloaded.originals([ids[1] as string], s.messages).found[0]?.block).toMatchObject({ callMsg: 4 });
    // Compacted: the pruned turns become a summary, and a new turn calls `call_0` again. Its fresh result is not
    // the pruned block of the same call id.
    const compacted: ViewMessage[] = [
      { role: "compactionSummary", summary: "read", timestamp: 1 },
      ...s.messages.slice(12),
    ];
    compacted.push({
      role: "assistant",
      content: [{ type: "toolCall", id: "call_0", name: "read", arguments: { path: "new.ts" } }],
      timestamp: 99_000,
    });
    compacted.push({
      role: "toolResult",
      toolCallId: "call_0",
      toolName: "read",
      content: [{ type: "text", text: "FRESH new.ts body" }],
      isError: false,
      timestamp: 99_001,
    } as ViewMessage);
    reloaded.invalidate();
    const after = reloaded.render(structuredClone(compacted), { now: 62 * MIN, ttlSeconds: 300 });
    expect(after.messages.at(-1)).toMatchObject({ content: [{ type: "text", text: "FRESH new.ts body" }] });
  });

  it("prunes written before owners named the content still apply after a reload (legacy owners)", () => {
    const s = new SessionBuilder();
    for (let i = 0; i < 5; i++) {
      s.user(`turn ${i} ${text(1500)}`);
      s.tool("read", { path: `f${i}.ts` }, text(9000, `body${i}`), { images: i === 1 ? [image(40_000)] : [] });
      s.assistant(`ok ${i} ${text(1500)}`);
    }
    s.user("now", [image(40_000)]);
    const { view, r } = expiredView(s, { keepRecentImages: 1 });
    expect(r.plan?.counts).toMatchObject({ tool: 5, text: 8, image: 1 });
    // What an older version wrote: the same prune, its owners the hash of each block's source alone.
    const analysis = analyze(s.messages);
    const legacy = r.entries.map((e) => {
      if (e.kind !== "prune") return e;
      const { ownerVersion: _version, ...rest } = e;
      const owners = e.ids.map((id) => {
        const block = analysis.byId(id);
        if (block?.kind === "tool") return ownerHash("t:", (s.messages[block.resultMsg] as ToolResultMsg).toolCallId);
        const key = rawMessageKey(s.messages[block?.msg ?? 0] as ViewMessage);
        return block?.kind === "image" ? ownerHash("i:", `${key}#${block.part}`) : ownerHash("m:", key);
      });
      return { ...rest, owners };
    });
    const reloaded = new SessionView(defaultSettings({ keepRecentTurns: 2, minGainTokens: 0 }));
    reloaded.load([...legacy, view.touchEntry()].filter((e) => e !== undefined));
    expect(reloaded.state.legacyOwners.size).toBe(r.plan?.ids.length);
    const again = reloaded.render(s.clone(), { now: 61 * MIN, ttlSeconds: 300 });
    expect(JSON.stringify(again.messages)).toBe(JSON.stringify(r.messages));
  });

  it("a prune of this version wins over an older version's prune of the same repeated call id", () => {
    const turn = (t: number, body: string): ViewMessage[] => [
      { role: "user", content: "go", timestamp: t },
      {
        role: "assistant",
        content: [{ type: "toolCall", id: "call_0", name: "read", arguments: { path: body } }],
        timestamp: t + 1,
      },
      {
        role: "toolResult",
        toolCallId: "call_0",
        toolName: "read",
        content: [{ type: "text", text: body }],
        isError: false,
        timestamp: t + 2,
      } as ViewMessage,
    ];
    const list = [...turn(1000, "one"), ...turn(2000, "two")];
    const analysis = analyze(list);
    const [first, second] = analysis.blocks.filter((b) => b.kind === "tool");
    const caps = { maxTextChars: 100, maxFieldChars: 100, maxListItems: 5, maxDictKeys: 5 };
    const view = new SessionView(defaultSettings({}));
    view.load([
      // The first turn pruned by an older version (its owner: the call id alone), and restored in place.
      {
        kind: "prune",
        at: 1,
        ttlSeconds: 300,
        ids: [first?.id ?? ""],
        savedTokens: 1,
        caps,
        owners: [ownerHash("t:", "call_0")],
      },
      { kind: "restore", at: 1, ids: [first?.id ?? ""] },
      // The second pruned by this version.
      {
        kind: "prune",
        at: 2,
        ttlSeconds: 300,
        ids: [second?.id ?? ""],
        savedTokens: 1,
        caps,
        owners: [second ? analysis.ownerOf(second) : 0],
        ownerVersion: 2,
      },
      { kind: "touch", at: 3, ttlSeconds: 300 },
    ]);
    const before = view.render(structuredClone(list), { now: 4, ttlSeconds: 300 });
    expect(JSON.stringify(before.messages[5])).toContain("[TRUNCATED FILE]");
    // Compacted: the first turn is gone. The second keeps its own id, stays pruned, and is found by a restore.
    view.invalidate();
    const compacted: ViewMessage[] = [{ role: "compactionSummary", summary: "s", timestamp: 5 }, ...turn(2000, "two")];
    const after = view.render(structuredClone(compacted), { now: 5, ttlSeconds: 300 });
    expect(JSON.stringify(after.messages[3])).toBe(JSON.stringify(before.messages[5]));
    expect(view.originals([second?.id ?? ""], compacted).found).toHaveLength(1);
  });
});
