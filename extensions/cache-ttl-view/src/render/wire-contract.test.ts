import { describe, expect, it } from "vitest";
import { cacheRetention } from "../clock/ttl.ts";
import { SessionView } from "../engine/session-view.ts";
import type { ToolResultMsg, ViewMessage } from "../model/messages.ts";
import { defaultSettings } from "../settings/settings.ts";
import { text } from "../testing/fixtures.ts";
import {
  providerAssistant,
  responsesLinks,
  signedItems,
  visibleText,
  type WireApi,
  wireModel,
  wirePayload,
  wireProblems,
} from "../testing/wire.ts";

/**
 * Every wire format pi-ai speaks, through pi-ai's real request builders: the pruned view must still be a request
 * the public API accepts (pairing, reasoning items, signatures, no empty content, thinking first in a tool loop),
 * and pruned reasoning must never come back as visible text.
 */

const APIS: WireApi[] = ["anthropic-messages", "openai-responses", "google-generative-ai", "openai-completions"];
const MIN = 60_000;

/** A session of `turns` turns as the model of `api` produced it, ending inside a tool loop (a pending result). */
function providerSession(api: WireApi, turns: number): ViewMessage[] {
  const model = wireModel(api);
  const messages: ViewMessage[] = [];
  let t = 1_000_000;
  const tick = () => {
    t += 1000;
    return t;
  };
  let n = 0;
  const result = (id: string, name: string, body: string): ToolResultMsg => ({
    role: "toolResult",
    toolCallId: id,
    toolName: name,
    content: [{ type: "text", text: body }],
    isError: false,
    timestamp: tick(),
  });
  for (let turn = 0; turn < turns; turn++) {
    messages.push({ role: "user", content: `prompt ${turn}: ${text(900)}`, timestamp: tick() });
    const call = providerAssistant(
      model,
      ++n,
      {
        thinking: `REASONING-${n} I should read the file ${text(1500, "why")}`,
        calls: [{ name: "read", args: { path: `src/f${turn}.ts` } }],
      },
      tick(),
    );
    messages.push(call);
    const callPart = call.content.find((p) => p.type === "toolCall") as { id: string };
    messages.push(result(callPart.id, "read", text(6000, `body${turn}`)));
    const last = turn === turns - 1;
    const answer = providerAssistant(
      model,
      ++n,
      last
        ? { thinking: `REASONING-${n} now run the tests ${text(600, "plan")}`, calls: [{ name: "bash", args: {} }] }
        : { thinking: `REASONING-${n} summarise ${text(1200, "hmm")}`, text: `answer ${turn}: ${text(1200)}` },
      tick(),
    );
    messages.push(answer);
    if (last) {
      const bash = answer.content.find((p) => p.type === "toolCall") as { id: string };
      messages.push(result(bash.id, "bash", "tests passed"));
    }
  }
  return messages;
}

function prunedView(messages: readonly ViewMessage[]) {
  const view = new SessionView(defaultSettings({ keepRecentTurns: 2, minGainTokens: 0 }));
  view.load([{ kind: "touch", at: 1_000_000, ttlSeconds: 300 }]);
  const r = view.render(structuredClone(messages) as ViewMessage[], { now: 1_000_000 + 60 * MIN, ttlSeconds: 300 });
  expect(r.plan?.ids.length ?? 0).toBeGreaterThan(0);
  return r.messages;
}

describe.each(APIS)("the pruned view on %s (pi-ai's real request builder)", (api) => {
  it("is a request the API accepts: pairing, reasoning links, unmodified signatures, no empty content", async () => {
    const model = wireModel(api);
    const messages = providerSession(api, 8);
    const original = await wirePayload(model, messages);
    expect(wireProblems(api, original)).toEqual([]); // the checks accept what pi sends unpruned
    const rules = { signed: signedItems(api, original), links: responsesLinks(original) };
    const pruned = await wirePayload(model, prunedView(messages));
    expect(wireProblems(api, pruned, rules)).toEqual([]);
    expect(JSON.stringify(pruned).length).toBeLessThan(JSON.stringify(original).length * 0.5);
  });

  it("never re-sends pruned reasoning as visible text", async () => {
    const model = wireModel(api);
    const messages = providerSession(api, 8);
    const visible = visibleText(api, await wirePayload(model, prunedView(messages)));
    expect(visible).not.toMatch(/REASONING-\d+/);
  });

  it("keeps the current tool loop's assistant message whole, thinking first", async () => {
    const messages = providerSession(api, 8);
    const view = prunedView(messages);
    // The notice follows the last message; the tool loop before it is untouched.
    expect(view[messages.length - 2]).toEqual(messages.at(-2));
    expect(view[messages.length - 1]).toEqual(messages.at(-1));
  });
});

describe("OpenAI Responses links", () => {
  it("a function call whose reasoning item was dropped is sent without its fc_ item id, its output still paired", async () => {
    const model = wireModel("openai-responses");
    const messages = providerSession("openai-responses", 8);
    const pruned = (await wirePayload(model, prunedView(messages))) as { input: Record<string, unknown>[] };
    const calls = pruned.input.filter((i) => i["type"] === "function_call");
    const outputs = new Set(pruned.input.filter((i) => i["type"] === "function_call_output").map((i) => i["call_id"]));
    expect(calls.some((c) => c["id"] === undefined)).toBe(true);
    for (const c of calls) expect(outputs.has(c["call_id"])).toBe(true);
    expect(pruned.input.filter((i) => i["type"] === "function_call_output")).toHaveLength(calls.length);
  });
});

describe("PI_CACHE_RETENTION=none in pi-ai 1.6", () => {
  it("still sends cache markers, so the TTL stays the short one (cacheRetention reads it as short)", async () => {
    const saved = process.env["PI_CACHE_RETENTION"];
    process.env["PI_CACHE_RETENTION"] = "none";
    try {
      const payload = await wirePayload(wireModel("anthropic-messages"), providerSession("anthropic-messages", 1));
      expect(JSON.stringify(payload)).toContain('"cache_control":{"type":"ephemeral"}');
      expect(cacheRetention()).toBe("short");
    } finally {
      if (saved === undefined) delete process.env["PI_CACHE_RETENTION"];
      else process.env["PI_CACHE_RETENTION"] = saved;
    }
  });
});
