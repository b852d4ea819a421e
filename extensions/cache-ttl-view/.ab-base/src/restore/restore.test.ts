import { describe, expect, it } from "vitest";
import { analyze, type Block } from "../plan/analysis.ts";
import { image, SessionBuilder, text } from "../testing/fixtures.ts";
import { restoredContent, restoreNotes } from "./restore.ts";

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
