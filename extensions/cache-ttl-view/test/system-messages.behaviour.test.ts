import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { type ScriptedResponse, WIRE_FORMATS } from "@pi-rails/testkit";
import { describe, expect, it } from "vitest";
import type { ViewMessage } from "../src/model/messages.ts";
import { bigFile, json, requestProblems, sessionPerTest } from "./helpers.ts";

/**
 * pi 1.6 keeps the prompt and the tool loadout in system messages of the transcript: one leading, and a patch where
 * they change (here: a tool switched off between prompts). The view is drawn in `context_with_system`, so a prune
 * leaves every system message where it was, byte for byte: a model that takes system messages mid-conversation
 * keeps its cached prefix up to the first pruned block, and later patches are appended, never folded into the head.
 */

const MIN = 60_000;
const startSession = sessionPerTest();
const READ_BIG: ScriptedResponse = { toolCalls: [{ id: "call_read", name: "read", arguments: { path: "big.txt" } }] };

/** Switches `edit` off before the prompt that asks for it (pi then persists a system message removing the tool). */
const toolSwitch: ExtensionFactory = (pi) => {
  pi.on("before_agent_start", (event) => {
    if (event.messageType === "user" && event.prompt.includes("no more edits")) {
      pi.setActiveTools(pi.getActiveTools().filter((name) => name !== "edit"));
    }
  });
};

describe.each(WIRE_FORMATS)("system messages on %s (strict loopback)", (format) => {
  it("a prune keeps the leading system message and a later tool patch in place, byte for byte", async () => {
    const clock = { now: 1_000_000 };
    /** What pi sends each request: the transcript after every context_with_system handler (this one runs last). */
    const sent: ViewMessage[][] = [];
    const recorder: ExtensionFactory = (pi) => {
      pi.on("context_with_system", (event) => {
        sent.push(structuredClone(event.messages) as ViewMessage[]);
      });
    };
    const { server, t } = await startSession({
      format,
      script: (_request, index) => (index === 0 ? READ_BIG : { text: `answer ${index}` }),
      clock,
      files: { "big.txt": bigFile(50) },
      projectSettings: { cacheTtl: { ttlSeconds: 300, keepRecentTurns: 1, minGainTokens: 0 } },
      extensions: [toolSwitch],
      after: [recorder],
    });
    await t.prompt("read big.txt");
    clock.now += MIN;
    await t.prompt("no more edits, please");
    clock.now += MIN;
    await t.prompt("third");
    const warm = sent.at(-1) as ViewMessage[];
    const systems = (ms: readonly ViewMessage[]) =>
      ms.flatMap((m, i) => (m.role === "system" ? [[i, json(m)] as const] : []));
    // The leading message, and the patch that removed edit (before the prompt that asked for it).
    expect(systems(warm)).toHaveLength(2);
    expect(systems(warm)[0]?.[0]).toBe(0);
    expect(systems(warm)[1]?.[1]).toContain('"toolsRemoved"');

    clock.now += 10 * MIN; // expired: the read is pruned
    await t.prompt("after the break");
    const pruned = sent.at(-1) as ViewMessage[];
    expect(json(pruned)).toContain("[TRUNCATED FILE] id=");
    expect(json(pruned)).not.toContain("line 300: payload");
    // Every system message where it was, as it was: nothing folded into the head.
    expect(systems(pruned)).toEqual(systems(warm));
    expect(requestProblems(server.requests.at(-1)!)).toEqual([]);
    expect(server.requests.map((r) => r.rejected?.message).filter(Boolean)).toEqual([]);
  });
});
