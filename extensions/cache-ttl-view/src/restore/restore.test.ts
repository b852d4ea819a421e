import { describe, expect, it } from "vitest";
import { SessionView } from "../engine/session-view.ts";
import { analyze, type Block } from "../plan/analysis.ts";
import { defaultSettings } from "../settings/settings.ts";
import { image, SessionBuilder, text } from "../testing/fixtures.ts";
import { RESTORE_TOOL, restoredContent, restoreNotes } from "./restore.ts";

describe("restoredContent (context_restore's result)", () => {
  it("returns tool results, prose and images as they were, and names unknown ids", () => {
    const s = new SessionBuilder().user(`long prompt ${text(2000)}`, [image(50)]);
    s.tool("read", { path: "a.ts" }, "export const a = 1;\n");
    const blocks = analyze(s.messages).blocks;
    const pick = (kind: Block["kind"]) => blocks.find((b) => b.kind === kind) as Block;
    const found = (["tool", "text", "image"] as const).map((kind) => ({
      id: pick(kind).id,
      block: pick(kind),
      messages: s.messages,
    }));
    const parts = restoredContent(found, restoreNotes({ notPruned: [], alreadyShown: [], missing: ["ffffffff"] }));
    const all = parts.map((p) => (p.type === "text" ? p.text : `<image ${p.mimeType} ${p.data.length}>`)).join("\n");
    expect(all).toContain(`<original id="${pick("tool").id}" tool="read" tool_call_id="call_1">`);
    expect(all).toContain('arguments: {"path":"a.ts"}');
    expect(all).toContain("export const a = 1;");
    expect(all).toContain(`<original id="${pick("text").id}" role="user">\nlong prompt lorem`);
    expect(all).toContain("<image image/png 50>");
    expect(all).toContain("Unknown id(s): ffffffff.");
  });
});

describe("shownOriginals (what a second context_restore does not append again)", () => {
  const MIN = 60_000;

  it("an image restored earlier and pruned since, inside that restore's result, is restored again", () => {
    const view = new SessionView(defaultSettings({ keepRecentTurns: 2, minGainTokens: 0, keepRecentImages: 1 }));
    const s = new SessionBuilder();
    s.user(`look ${text(2000)}`, [image(50_000)]).assistant(`ok ${text(2000)}`);
    s.user(`second ${text(2000)}`, [image(50_000)]).assistant(`ok ${text(2000)}`);
    for (let i = 0; i < 3; i++) s.user(`t${i} ${text(2000)}`).assistant(`a ${text(2000)}`);
    s.user("now");
    view.load([{ kind: "touch", at: 0, ttlSeconds: 300 }]);
    const first = view.render(s.clone(), { now: 10 * MIN, ttlSeconds: 300 });
    const imageId = first.plan?.blocks.find((b) => b.kind === "image")?.id as string;
    expect(imageId).toBeDefined();
    // The model restores it: the original lands at the tail, and while it is in view a second ask is not repeated.
    const content = restoredContent(view.originals([imageId], s.messages).found);
    const call = { type: "toolCall" as const, id: "restore_1", name: RESTORE_TOOL, arguments: { ids: [imageId] } };
    s.push({ role: "assistant", content: [call], timestamp: 5_000_000 });
    s.push({
      role: "toolResult",
      toolCallId: call.id,
      toolName: RESTORE_TOOL,
      content,
      isError: false,
      timestamp: 5_000_001,
    });
    s.assistant("seen it");
    expect(view.originals([imageId], s.messages).alreadyShown).toEqual([imageId]);
    // Two newer images and an expiry later, the image budget prunes the one inside that restore result.
    s.user(`new ${text(2000)}`, [image(50_000)]).assistant(`ok ${text(2000)}`);
    s.user(`new2 ${text(2000)}`, [image(50_000)]).assistant(`ok ${text(2000)}`);
    for (let i = 0; i < 3; i++) s.user(`u${i} ${text(2000)}`).assistant(`a ${text(2000)}`);
    s.user("where is that first image?");
    const later = view.render(s.clone(), { now: 30 * MIN, ttlSeconds: 300 });
    const restore = later.messages.find((m) => m.role === "toolResult" && m.toolName === RESTORE_TOOL);
    expect((restore as { content: { type: string }[] }).content.some((p) => p.type === "image")).toBe(false);
    const again = view.originals([imageId], s.messages);
    expect(again.alreadyShown).toEqual([]);
    expect(again.found.map((f) => f.id)).toEqual([imageId]);
  });
});
