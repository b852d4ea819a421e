import { describe, expect, it } from "vitest";
import type { ViewMessage } from "../model/messages.ts";
import { analyze, type Block, blocksIn } from "../plan/analysis.ts";
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
 * repeated call ids and timestamps, unanswered calls, a user's bash runs, custom messages, string contents.
 */
function longSession(seed: number, count: number, repeats = true): ViewMessage[] {
  let state = seed;
  const rand = (n: number) => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return (state >>> 8) % n;
  };
  const out: ViewMessage[] = [];
  let t = 1_000;
  let call = 0;
  const tick = () => {
    if (!repeats || rand(8) !== 0) t += 1_000;
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
        repeats && rand(30) === 0 ? "call_dup" : `call_${++call}|fc_${call}`,
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
    [1, true],
    [2, true],
    [3, false],
  ])(
    "prunes and draws what one pass over the whole list does (seed %i, repeated keys %s), also reloaded",
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
      expect(json(again.messages)).toEqual(json(result.messages));
    },
  );

  it("a plan the gain gate stops leaves the view as it was, though its slices were drawn as it went", () => {
    const messages = longSession(4, 3_000, false);
    const gated = defaultSettings({ ...settings, minGainTokens: 10_000_000 });
    const view = new SessionView(gated);
    view.load([{ kind: "touch", at: 0, ttlSeconds: 300 }]);
    const result = view.render(structuredClone(messages), { now: 10 * MIN, ttlSeconds: 300 });
    expect(result.plan).toBeUndefined();
    expect(json(result.messages)).toEqual(json(messages));
  });
});
