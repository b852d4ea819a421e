import { describe, expect, it } from "vitest";
import type { ViewMessage } from "../model/messages.ts";
import { Analysis, analyze, type Block, blocksIn } from "../plan/analysis.ts";
import { planPrune } from "../plan/plan.ts";
import { applyPatch, NOTICE_TYPE, patchFor } from "../render/render.ts";
import { type Replacement, replacementFor } from "../render/replacements.ts";
import { defaultSettings } from "../settings/settings.ts";
import type { StateEntry } from "../state/entries.ts";
import { image, text } from "../testing/fixtures.ts";
import { SessionView } from "./session-view.ts";

const MIN = 60_000;
const settings = defaultSettings({
  keepRecentTurns: 3,
  keepRecentIntactTurns: 1,
  minGainTokens: 0,
  keepRecentImages: 2,
  maxImageBase64Total: 10_000,
});

/**
 * A session of several thousand messages (a render works on slices of about a thousand), with every shape whose view
 * depends on another message: results away from their calls (also across a slice's end), reasoning dropped with
 * Responses ids on calls answered later, images in prompts and results (chosen newest first over the whole list),
 * repeated call ids (and timestamps), unanswered calls, a user's bash runs, custom messages, string contents.
 */
function longSession(seed: number, count: number, repeats: Repeats = "call ids"): ViewMessage[] {
  let state = seed;
  const rand = (n: number) => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return (state >>> 8) % n;
  };
  const out: ViewMessage[] = [];
  let t = 1_000;
  let call = 0;
  const tick = () => {
    if (repeats !== "call ids and timestamps" || rand(8) !== 0) t += 1_000;
    return t;
  };
  while (out.length < count) {
    out.push(
      rand(5) === 0
        ? {
            role: "user",
            content: [{ type: "text", text: `ask ${text(50 + rand(900))}` }, image(100 + rand(4000))],
            timestamp: tick(),
          }
        : {
            role: "user",
            content: rand(2) ? `ask ${text(rand(1500))}` : [{ type: "text", text: text(rand(1500)) }],
            timestamp: tick(),
          },
    );
    for (let k = rand(4); k > 0; k--) {
      const ids = Array.from({ length: 1 + rand(3) }, () =>
        repeats !== "none" && rand(30) === 0 ? "call_dup" : `call_${++call}|fc_${call}`,
      );
      out.push({
        role: "assistant",
        content: [
          ...(rand(2)
            ? [{ type: "thinking" as const, thinking: text(rand(800), "why"), thinkingSignature: "sig" }]
            : []),
          ...(rand(3) === 0 ? [{ type: "text" as const, text: text(rand(1200), "say") }] : []),
          ...ids.map((id) => ({
            type: "toolCall" as const,
            id,
            name: ["read", "bash", "grep", "edit", "mcp"][rand(5)] as string,
            arguments: { path: `f${rand(50)}.ts`, n: rand(9) },
          })),
        ],
        timestamp: tick(),
      });
      if (rand(6) === 0)
        out.push({ role: "custom", customType: "note", content: text(rand(900)), display: true, timestamp: tick() });
      for (const id of ids) {
        if (rand(25) === 0) continue; // never answered
        out.push({
          role: "toolResult",
          toolCallId: id,
          toolName: "read",
          content: [
            { type: "text", text: text(rand(6000), "body") },
            ...(rand(8) === 0 ? [image(200 + rand(3000))] : []),
          ],
          isError: rand(10) === 0,
          timestamp: tick(),
        });
      }
      if (rand(7) === 0)
        out.push({
          role: "bashExecution",
          command: `make ${text(rand(300))}`,
          output: text(rand(4000)),
          exitCode: 0,
          timestamp: tick(),
        } as ViewMessage);
    }
    out.push({ role: "assistant", content: [{ type: "text", text: text(rand(1500), "done") }], timestamp: tick() });
  }
  out.push({ role: "user", content: "next", timestamp: t + 1_000 });
  return out;
}

/**
 * What repeats in a session: nothing, tool call ids (`call_0` in every response), or also timestamps (two messages of
 * one role in the same millisecond: after a reload their ids are told apart by order alone, see `messageId`).
 */
type Repeats = "none" | "call ids" | "call ids and timestamps";

const json = (messages: readonly ViewMessage[]) => messages.map((m) => JSON.stringify(m));

/** The same prune and view built over the whole list at once, from the stages themselves. */
function wholeListView(messages: readonly ViewMessage[]) {
  const analysis = analyze(messages);
  const built: Replacement[] = [];
  const replacement = (block: Block) => (built[block.at] ??= replacementFor(messages, block, settings));
  const pins = { ids: new Set<string>(), tools: new Set<string>(), paths: [] };
  const plan = planPrune({ messages, analysis, pruned: new Map(), pins, settings, replacement });
  const patch = patchFor(messages, analysis, blocksIn(new Set(plan.ids)), [], replacement);
  return { ids: plan.ids, messages: json(applyPatch(structuredClone(messages) as ViewMessage[], patch)) };
}

describe("a long list in slices", () => {
  it.each([
    [1, "call ids and timestamps"],
    [2, "call ids"],
    [3, "none"],
  ] as const)(
    "prunes and draws what one pass over the whole list does (seed %i, repeats: %s), also reloaded",
    (seed, repeats) => {
      const messages = longSession(seed, 5_000, repeats);
      const whole = wholeListView(messages);
      const view = new SessionView(settings);
      view.load([{ kind: "touch", at: 0, ttlSeconds: 300 }]);
      const now = (messages.at(-1)?.timestamp ?? 0) + 10 * MIN;
      const result = view.render(structuredClone(messages), { now, ttlSeconds: 300 });
      expect(result.plan?.ids).toEqual(whole.ids);
      expect(whole.ids.length).toBeGreaterThan(1_000);
      const sent = result.messages.filter((m) => (m as { customType?: string }).customType !== NOTICE_TYPE);
      expect(json(sent)).toEqual(whole.messages);
      // Reloaded: a new view draws the pruned blocks from the entries alone (no plan), slice by slice as well.
      const reloaded = new SessionView(settings);
      reloaded.load([...(result.entries as StateEntry[]), view.touchEntry() as StateEntry]);
      const again = reloaded.render(structuredClone(messages), { now: now + MIN, ttlSeconds: 300 });
      expect(again.plan).toBeUndefined();
      // Messages of one role in the same millisecond are told apart by order only: a reload may swap their ids.
      if (repeats !== "call ids and timestamps") expect(json(again.messages)).toEqual(json(result.messages));
    },
  );

  it("a plan the gain gate stops leaves the view as it was, though its slices were drawn as it went", () => {
    const messages = longSession(4, 3_000, "none");
    const gated = defaultSettings({ ...settings, minGainTokens: 10_000_000 });
    const view = new SessionView(gated);
    view.load([{ kind: "touch", at: 0, ttlSeconds: 300 }]);
    const result = view.render(structuredClone(messages), { now: 10 * MIN, ttlSeconds: 300 });
    expect(result.plan).toBeUndefined();
    expect(json(result.messages)).toEqual(json(messages));
  });

  it("a render that fails between slices leaves nothing half done: the next request's view is a fresh view's", () => {
    // Turns of a prompt, a call and its result. The first request has 502 messages, so the next one's slices end at
    // 1,526 and 2,550: the call at 2,549 has its result in the next slice.
    const messages: ViewMessage[] = [
      { role: "custom", customType: "x", content: "hi", display: true, timestamp: 1_000 },
    ];
    for (let k = 0; messages.length < 2_701; k++) {
      const t = 2_000 + 3_000 * k;
      messages.push({ role: "user", content: `q${k}`, timestamp: t });
      messages.push({
        role: "assistant",
        content: [{ type: "toolCall", id: `call_${k}`, name: "read", arguments: { path: `f${k}.ts` } }],
        timestamp: t + 1_000,
      });
      messages.push({
        role: "toolResult",
        toolCallId: `call_${k}`,
        toolName: "read",
        content: [{ type: "text", text: text(3000, `body${k}`) }],
        isError: false,
        timestamp: t + 2_000,
      });
    }
    expect(messages[2_549]?.role).toBe("assistant");
    const view = new SessionView(settings);
    view.load([{ kind: "touch", at: 0, ttlSeconds: 300 }]);
    view.render(structuredClone(messages.slice(0, 502)), { now: MIN, ttlSeconds: 300 });
    // The expired request: weighing the call at 2,000 throws once (any failure after some slices were analysed).
    const failing = structuredClone(messages);
    const call = (failing[2_000] as { content: { arguments?: unknown }[] }).content[0] as { arguments?: unknown };
    const args = call.arguments;
    let thrown = false;
    Object.defineProperty(call, "arguments", {
      get() {
        if (thrown) return args;
        thrown = true;
        throw new Error("boom");
      },
    });
    expect(() => view.render(failing, { now: 20 * MIN, ttlSeconds: 300 })).toThrow("boom");
    const next = view.render(structuredClone(messages), { now: 21 * MIN, ttlSeconds: 300 });
    const fresh = new SessionView(settings);
    fresh.load([{ kind: "touch", at: MIN, ttlSeconds: 300 }]);
    const expected = fresh.render(structuredClone(messages), { now: 21 * MIN, ttlSeconds: 300 });
    expect(next.plan?.ids).toEqual(expected.plan?.ids);
    expect(json(next.messages)).toEqual(json(expected.messages));
  });

  it("an analysis left between slices is not extended", () => {
    const messages = longSession(6, 2_000, "none");
    const partial = new Analysis();
    partial.extend(messages, 1_000);
    expect(partial.extends(structuredClone(messages))).toBe(false);
    partial.extend(messages);
    expect(partial.extends(structuredClone(messages))).toBe(true);
  });
});
