import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { TTSR_COST_EVENT } from "@pi-rails/agent-core/kit";
import {
  closeAfterEach,
  createTestSession,
  startProviderServer,
  type TestSession,
  type WireFormat,
} from "@pi-rails/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { COST_ENTRY, readAttemptUsage } from "../src/delivery/interrupt-cost.ts";
import ttsrExtension from "../src/extension.ts";
import { completedTurns } from "../src/manager/completed-turns.ts";
import { recorder, ruleFile } from "./helpers.ts";

const NO_CONSOLE = ruleFile({ condition: "console\\.log\\(", scope: "text" }, "Use the project logger.");
const NO_EVAL = ruleFile({ condition: "\\beval\\(", scope: "text" }, "Never eval.");

const keep = closeAfterEach(afterEach);

/** An observer of the real events: what pi reported on stream_abort, and what pi-ttsr said of it. */
function costProbe() {
  const aborts: unknown[] = [];
  const said: Array<{ tokens: number; interrupts: number; cost: number; costKnown: boolean; text?: string }> = [];
  const factory = (pi: ExtensionAPI) => {
    pi.on("stream_abort", (event) => {
      aborts.push(event.usage);
    });
    pi.events.on(TTSR_COST_EVENT, (data) => said.push(data as (typeof said)[number]));
  };
  return { aborts, said, factory };
}

const costEntries = (session: TestSession) =>
  session
    .readSessionEntries()
    .filter((e) => e.type === "custom" && (e as { customType?: string }).customType === COST_ENTRY.customType)
    .map((e) => readAttemptUsage((e as { data: { usage: unknown } }).data.usage));

describe("what interrupts cost (patched pi reports the aborted attempt's usage on stream_abort)", () => {
  it("adds up the usage pi reported for each aborted attempt, says it, and keeps it in the session", async () => {
    const r = recorder();
    const { aborts, said, factory } = costProbe();
    const t = await createTestSession({
      files: { ".pi/rules/no-console.md": NO_CONSOLE, ".pi/rules/no-eval.md": NO_EVAL },
      extensions: [factory, ttsrExtension],
      persist: true,
      model: {
        kind: "faux",
        responses: [
          r.reply("First I call console.log(value) and then I keep talking for a while."),
          r.reply("I call log.info(value)."),
          r.reply("Then eval(code) runs and I keep talking for a while."),
          r.reply("Then JSON.parse(code)."),
        ],
      },
    }).then(keep);
    await t.prompt("one");
    await t.prompt("two");
    expect(r.contexts).toHaveLength(4);
    expect(aborts).toHaveLength(2);
    const usages = aborts.map((u) => readAttemptUsage(u));
    expect(usages.every((u) => u !== undefined && u.totalTokens > 0)).toBe(true);
    const first = usages[0]!.totalTokens;
    const both = first + usages[1]!.totalTokens;
    expect(said.map((s) => [s.interrupts, s.tokens, s.text])).toEqual([
      [1, first, `interrupts cost ${first.toLocaleString("en-US")} tokens this session`],
      [2, both, `interrupts cost ${both.toLocaleString("en-US")} tokens this session`],
    ]);
    expect(costEntries(t)).toEqual(usages);
    // pi keeps each billed attempt in the session without its content; the explanation it carries is pi-ttsr's.
    const records = t.readSessionEntries().flatMap((e) => {
      const m = e.type === "message" ? e.message : undefined;
      return m?.role === "assistant" && m.stopReason === "aborted" ? [{ content: m.content, why: m.errorMessage }] : [];
    });
    expect(records).toEqual([
      { content: [], why: "Interrupted by pi-ttsr (rule no-console) and retried; kept for its usage only" },
      { content: [], why: "Interrupted by pi-ttsr (rule no-eval) and retried; kept for its usage only" },
    ]);
    // Those records ended no turn: a resumed session counts the turns the live one counted (after-gap goes on).
    const turnEnds = t.events.filter((e) => e.type === "turn_end").length;
    expect(turnEnds).toBe(2);
    expect(completedTurns(t.readSessionEntries())).toBe(turnEnds);
  });
});

/** The rule fires early; the long tail keeps the server writing (5 ms a delta, ~2 s) until the client closes. */
const VIOLATING = `First I call console.log(value) and then I keep talking.${" More words after it.".repeat(80)}`;

describe("on each provider's wire format, the tally is what the server billed for the aborted attempt", () => {
  it.each([
    ["anthropic-messages", "message_start usage, cache write included; priced"],
    ["google-generative-ai", "usage with every chunk; priced"],
  ] as Array<[WireFormat, string]>)("%s (%s)", async (format) => {
    const server = await startProviderServer(format, {
      strict: true,
      script: [
        {
          text: VIOLATING,
          delayMs: 5,
          usage: {
            prompt_tokens: 1200,
            completion_tokens: 40,
            cache_write_tokens: format === "anthropic-messages" ? 4000 : 0,
          },
        },
        { text: "I call log.info(value)." },
      ],
    }).then(keep);
    const { said, factory } = costProbe();
    const t = await createTestSession({
      files: { ".pi/rules/no-console.md": NO_CONSOLE },
      extensions: [factory, ttsrExtension],
      persist: true,
      model: { kind: "provider", server },
    }).then(keep);
    await t.prompt("print the value");
    const [aborted, retried] = server.requests;
    expect(aborted?.closedEarly).toBe(true);
    expect(retried?.completed).toBe(true);
    const billed = aborted!.usageReported!;
    const tokens = billed.input + billed.output + billed.cacheRead + billed.cacheWrite;
    expect(billed.input).toBe(1200);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatchObject({ interrupts: 1, tokens, costKnown: true });
    expect(said[0]!.cost).toBeGreaterThan(0);
    expect(said[0]!.text).toMatch(
      new RegExp(`^interrupts cost ${tokens.toLocaleString("en-US")} tokens this session \\(\\$0\\.\\d+\\)$`),
    );
    expect(costEntries(t)).toEqual([expect.objectContaining({ totalTokens: tokens })]);
  });

  it.each([["openai-responses"], ["openai-completions"]] as Array<[WireFormat]>)(
    "%s sends usage only at the end: an aborted attempt reports none, and nothing is said",
    async (format) => {
      const server = await startProviderServer(format, {
        strict: true,
        script: [
          { text: VIOLATING, delayMs: 5, usage: { prompt_tokens: 1200, completion_tokens: 40 } },
          { text: "I call log.info(value)." },
        ],
      }).then(keep);
      const { said, factory } = costProbe();
      const t = await createTestSession({
        files: { ".pi/rules/no-console.md": NO_CONSOLE },
        extensions: [factory, ttsrExtension],
        persist: true,
        model: { kind: "provider", server },
      }).then(keep);
      await t.prompt("print the value");
      expect(server.requests).toHaveLength(2);
      expect(server.requests[0]!.closedEarly).toBe(true);
      expect(server.requests[0]!.usageReported).toBeUndefined();
      expect(said).toEqual([]);
      expect(costEntries(t)).toEqual([]);
    },
  );
});
