import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ToolResultMsg, ViewMessage } from "../model/messages.ts";
import { type Replacement, replacementFor } from "../render/replacements.ts";
import { defaultSettings } from "../settings/settings.ts";
import { image, SessionBuilder, text } from "../testing/fixtures.ts";
import { analyze, type Block, messageOf } from "./analysis.ts";
import { cannotShrink, planPrune } from "./plan.ts";

const noPins = { ids: new Set<string>(), tools: new Set<string>(), paths: [] as string[] };

function plan(
  s: SessionBuilder,
  over: Partial<ReturnType<typeof defaultSettings>> = {},
  pins = noPins,
  pruned = new Set<string>(),
) {
  const settings = defaultSettings({ minGainTokens: 0, ...over });
  const analysis = analyze(s.messages);
  const result = planPrune({
    messages: s.messages,
    analysis,
    pruned,
    pins,
    settings,
    cwd: "/repo",
    replacement: (b: Block) => replacementFor(s.messages, b, settings),
  });
  const kinds = (ids: string[]) =>
    ids.map((id) => analysis.byId(id) as Block).map((b) => `${b.kind}@${analysis.ageOf(messageOf(b))}`);
  return { ...result, analysis, kinds: kinds(result.ids) };
}

/** `turns` turns, each: a long user prompt, a read of `readChars`, a long answer. */
function session(turns: number, readChars = 6000): SessionBuilder {
  const s = new SessionBuilder();
  for (let i = 0; i < turns; i++) {
    s.user(`prompt ${i} ${text(800)}`);
    s.tool("read", { path: `src/f${i}.ts` }, text(readChars, `body${i}`));
    s.assistant(`answer ${i} ${text(800)}`);
  }
  return s;
}

describe("planPrune windows", () => {
  it("old turns lose text and tools; cold turns only heavy tools; the intact turn nothing", () => {
    const p = plan(session(4), { keepRecentTurns: 2, keepRecentIntactTurns: 1 });
    // ages 3 and 2 are old (user text, tool, assistant text each); age 1 is cold (heavy read only); age 0 intact.
    expect(p.kinds.sort()).toEqual(["text@2", "text@2", "text@3", "text@3", "tool@1", "tool@2", "tool@3"].sort());
  });

  it("cold tool blocks are pruned only above maxBase64Chars", () => {
    expect(plan(session(2, 4000), { keepRecentTurns: 6, maxBase64Chars: 4000 }).ids).toEqual([]);
    expect(plan(session(2, 4001), { keepRecentTurns: 6, maxBase64Chars: 4000 }).kinds).toEqual(["tool@1"]);
  });

  it("never prunes compaction summaries, and never when the replacement would not be smaller", () => {
    const s = new SessionBuilder()
      .push({ role: "compactionSummary", summary: text(9000), timestamp: 1 })
      .user("hi")
      .assistant("short answer");
    s.tool("ls", {}, "a\nb");
    s.user("now");
    expect(plan(s, { keepRecentTurns: 0, keepRecentIntactTurns: 0 }).ids).toEqual([]);
  });

  it("never prunes the current turn, even with windows of 0/0 (the prompt and the tool loop being answered)", () => {
    expect(plan(session(1), { keepRecentTurns: 0, keepRecentIntactTurns: 0 }).kinds).toEqual([]);
    expect(plan(session(2), { keepRecentTurns: 0, keepRecentIntactTurns: 0 }).kinds.sort()).toEqual(
      ["text@1", "text@1", "tool@1"].sort(),
    );
  });

  it("skips already pruned blocks (idempotent: a second plan adds only new ones)", () => {
    const s = session(4);
    const first = plan(s, { keepRecentTurns: 2 });
    const again = plan(s, { keepRecentTurns: 2 }, noPins, new Set(first.ids));
    expect(again.ids).toEqual([]);
  });
});

describe("cannotShrink (the cheap pre-check) agrees with building the replacement", () => {
  it("skips exactly the blocks whose replacement would not be smaller", () => {
    const s = new SessionBuilder().user("short").assistant(text(399)).assistant(text(5000));
    s.tool("ls", {}, "a\nb");
    s.tool("grep", { pattern: "x" }, text(150));
    s.tool("read", { path: "f" }, text(300));
    s.tool("edit", { path: "f", edits: [{ oldText: text(120), newText: text(140) }] }, "Edited.");
    s.tool("bash", { command: "ls -la" }, text(380));
    s.tool("bash", { command: "make" }, text(2400));
    s.tool("write", { path: "f", content: text(500) }, "Wrote 500 bytes");
    s.tool("find", { pattern: "*.ts" }, "a.ts\nb.ts\nc.ts");
    s.tool("web_search", { q: "x" }, JSON.stringify([{ url: "u", title: "t", text: text(500), score: 1 }]));
    s.tool("memory", { key: text(900) }, text(1200));
    s.user("now");
    const settings = defaultSettings();
    const analysis = analyze(s.messages);
    for (const block of analysis.blocks) {
      const r = replacementFor(s.messages, block, settings);
      if (cannotShrink(s.messages, analysis, block, settings)) expect(r.newChars).toBeGreaterThanOrEqual(r.origChars);
    }
  });
});

describe("a plan over replacements built beforehand (prepared while idle)", () => {
  it("prunes exactly what a plan that builds them on demand prunes", () => {
    const s = new SessionBuilder().user("short").assistant(text(399)).assistant(text(5000));
    for (let turn = 0; turn < 12; turn++) {
      s.user(`turn ${turn}`);
      s.tool("ls", {}, "a\nb");
      s.tool("grep", { pattern: "x" }, text(150 + turn));
      s.tool("read", { path: `f${turn}` }, text(300 * turn));
      s.tool("edit", { path: "f", edits: [{ oldText: text(120), newText: text(140) }] }, "Edited.");
      s.tool("bash", { command: "make" }, text(2400 - 100 * turn));
      s.tool("write", { path: "f", content: text(500) }, "Wrote 500 bytes");
      s.tool("memory", { key: text(900) }, text(turn % 2 ? 1200 : 20));
      s.assistant(text(100 * turn));
    }
    s.user("now");
    const settings = defaultSettings({ minGainTokens: 0 });
    const analysis = analyze(s.messages);
    const input = { messages: s.messages, analysis, pruned: new Set<string>(), pins: noPins, settings };
    const onDemand = planPrune({ ...input, replacement: (b: Block) => replacementFor(s.messages, b, settings) });
    const built = analysis.blocks.map((b) => replacementFor(s.messages, b, settings));
    let asked = 0;
    const prepared = planPrune({
      ...input,
      replacement: (b: Block) => {
        asked++;
        return built[b.at] as Replacement;
      },
      built: (b: Block) => built[b.at],
    });
    expect(onDemand.ids.length).toBeGreaterThan(10);
    expect(prepared.ids).toEqual(onDemand.ids);
    expect(prepared.savedTokens).toBe(onDemand.savedTokens);
    // Only text blocks still go through the pre-check and then ask for their replacement.
    expect(asked).toBeLessThanOrEqual(analysis.blocks.filter((b) => b.kind !== "tool").length);
  });
});

describe("the analysis's text sizes (what cannotShrink weighs, read while analysing)", () => {
  /** The sizes as the pre-check measured them from the messages before they were kept in the analysis. */
  function reference(messages: readonly ViewMessage[], block: Block): number {
    if (block.kind === "tool") {
      const result = block.resultMsg >= 0 ? (messages[block.resultMsg] as ToolResultMsg) : undefined;
      let n = 0;
      for (const part of result?.content ?? []) if (part.type === "text") n += part.text.length;
      return n;
    }
    const m = messages[block.msg] as ViewMessage;
    if (m.role === "bashExecution") return -1;
    const content = (m as { content?: unknown }).content;
    if (typeof content === "string") return content.length;
    let n = 0;
    for (const part of Array.isArray(content) ? (content as { text?: unknown; thinking?: unknown }[]) : []) {
      if (typeof part.text === "string") n += part.text.length + 1;
      else if (typeof part.thinking === "string") n += part.thinking.length + 1;
    }
    return n;
  }

  it("are the sizes measured from the messages, for every kind of message and part", () => {
    const words = fc.string({ maxLength: 40 });
    const userPart = fc.oneof(
      words.map((t) => ({ type: "text", text: t })),
      fc.constant(image(12)),
    );
    const message = fc.oneof(
      fc.oneof(words, fc.array(userPart, { maxLength: 3 })).map((content) => ({ role: "user", content })),
      fc
        .array(userPart, { maxLength: 3 })
        .map((content) => ({ role: "custom", customType: "x", content, display: true })),
      fc.tuple(words, words).map(([command, output]) => ({ role: "bashExecution", command, output, exitCode: 0 })),
      fc
        .array(
          fc.oneof(
            words.map((t) => ({ type: "text", text: t })),
            words.map((t) => ({ type: "thinking", thinking: t })),
            fc.constant("call"),
          ),
          { maxLength: 4 },
        )
        .map((parts) => ({ role: "assistant", content: parts })),
    );
    fc.assert(
      fc.property(fc.array(message, { maxLength: 12 }), (drafts) => {
        // Calls get ids and their results follow (text and images), as pi's loop writes them.
        const messages: ViewMessage[] = [];
        let call = 0;
        for (const [i, draft] of drafts.entries()) {
          const m = { ...draft, timestamp: i } as ViewMessage & { content?: unknown };
          if (m.role !== "assistant") {
            messages.push(m);
            continue;
          }
          const results: ViewMessage[] = [];
          m.content = (draft as { content: unknown[] }).content.map((part) => {
            if (part !== "call") return part;
            const id = `c${++call}`;
            results.push({
              role: "toolResult",
              toolCallId: id,
              toolName: "t",
              content:
                call % 3 === 0 ? [] : [{ type: "text", text: `r${call}` }, image(4), { type: "text", text: "z" }],
              isError: false,
              timestamp: i,
            } as ViewMessage);
            return { type: "toolCall", id, name: "t", arguments: {} };
          });
          messages.push(m, ...results);
        }
        const analysis = analyze(messages);
        for (const block of analysis.blocks) {
          if (block.kind !== "image") expect(analysis.textChars(block)).toBe(reference(messages, block));
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe("planPrune thresholds and pins", () => {
  it("minGainTokens: prunes at exactly the threshold, nothing one token above", () => {
    const s = session(2);
    const all = plan(s, { keepRecentTurns: 1 });
    expect(plan(s, { keepRecentTurns: 1, minGainTokens: all.savedTokens }).ids).toEqual(all.ids);
    const below = plan(s, { keepRecentTurns: 1, minGainTokens: all.savedTokens + 1 });
    expect(below.ids).toEqual([]);
    expect(below.belowMinGain).toBe(true);
  });

  it("pins by tool, by path glob (also for absolute paths under cwd) and by id", () => {
    const s = new SessionBuilder().user("go");
    s.tool("memory", { key: "k" }, text(9000));
    s.tool("read", { path: "/repo/docs/spec/a.md" }, text(9000));
    s.tool("read", { path: "src/b.ts" }, text(9000));
    s.user("next");
    const base = plan(s, { keepRecentTurns: 1 });
    expect(base.kinds.filter((k) => k.startsWith("tool"))).toHaveLength(3);
    const pinned = plan(
      s,
      { keepRecentTurns: 1 },
      { ids: new Set(), tools: new Set(["memory"]), paths: ["docs/spec/**"] },
    );
    const tools = pinned.ids.map((id) => pinned.analysis.byId(id)).filter((b) => b?.kind === "tool");
    expect(tools).toHaveLength(1);
    const byId = plan(s, { keepRecentTurns: 1 }, { ids: new Set(base.ids), tools: new Set(), paths: [] });
    expect(byId.ids).toEqual([]);
  });
});

describe("planPrune images", () => {
  function withImages(sizes: number[]): SessionBuilder {
    const s = new SessionBuilder();
    for (const size of sizes) s.user("look", [image(size)]).assistant("ok");
    return s.user("now");
  }
  const imagesPruned = (p: ReturnType<typeof plan>) => p.kinds.filter((k) => k.startsWith("image"));

  it("keeps the newest keepRecentImages within the base64 budget", () => {
    expect(imagesPruned(plan(withImages([10_000, 10_000, 10_000]), { keepRecentImages: 2 }))).toEqual(["image@3"]);
    expect(imagesPruned(plan(withImages([10_000, 10_000, 10_000]), { keepRecentImages: 3 }))).toEqual([]);
    expect(
      imagesPruned(plan(withImages([10_000, 10_000, 10_000]), { keepRecentImages: 3, maxImageBase64Total: 20_000 })),
    ).toEqual(["image@3"]);
  });

  it("always keeps the newest image, even over budget or with keepRecentImages 0", () => {
    const p = plan(withImages([50_000, 50_000]), { keepRecentImages: 0, maxImageBase64Total: 10 });
    expect(imagesPruned(p)).toEqual(["image@2"]);
  });

  it("never touches images in the intact window, and counts them against the budget", () => {
    const s = new SessionBuilder()
      .user("old", [image(10_000)])
      .assistant("ok")
      .user("new", [image(10_000)]);
    expect(imagesPruned(plan(s, { keepRecentImages: 1, keepRecentIntactTurns: 1 }))).toEqual(["image@1"]);
  });
});
