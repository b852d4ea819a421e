import type { ScriptedResponse } from "@pi-rails/testkit";
import { describe, expect, it } from "vitest";
import { hash32 } from "../src/model/ids.ts";
import { bigFile, conversation, json, sessionPerTest } from "./helpers.ts";

/**
 * Block ids across a real pi compaction (AgentSession, loopback model): unique, and restores find the right original.
 * On chat completions only: the test needs two tool call ids whose block ids collide, and OpenAI Responses and Gemini
 * carry ids of their own (`call_…|fc_…`, generated ones) that a script cannot choose. The other flows run on every
 * format (expiry, session, lifecycle and wire-format tests).
 */

const MIN = 60_000;
// Two tool call ids whose block ids hash alike (32-bit): the ids must still differ, before and after compaction.
const OLD_CALL = "call_24829";
const NEW_CALL = "call_1204060";
const start = sessionPerTest();

const lastUser = (text: string) =>
  [...text.matchAll(/"role":"user","content":\[\{"type":"text","text":"([^"]*)"/g)].at(-1)?.[1] ?? "";
const idOf = (text: string, file: string) =>
  new RegExp(`id=([0-9a-f]{8}(?:\\.\\d+)?) path=${file}`).exec(text)?.[1] ?? `no pruned ${file}`;

describe("block ids after pi compacts the session", () => {
  it("a fresh tool call whose id hashes like a compacted pruned one is sent whole, and restores return the right original", async () => {
    expect(hash32("t:", OLD_CALL)).toBe(hash32("t:", NEW_CALL));
    const clock = { now: 1_000_000 };
    const restoreIds: string[] = [];
    const { server, t } = await start({
      script: (request): ScriptedResponse => {
        const text = json(request.messages);
        const last = request.messages.at(-1);
        const prompt = lastUser(text);
        if (last?.role === "tool") return { text: `done ${prompt}` };
        if (prompt === "read a") return { toolCalls: [{ id: OLD_CALL, name: "read", arguments: { path: "a.txt" } }] };
        if (prompt === "read b") return { toolCalls: [{ id: NEW_CALL, name: "read", arguments: { path: "b.txt" } }] };
        if (prompt === "restore") {
          return { toolCalls: [{ id: "call_restore", name: "context_restore", arguments: { ids: restoreIds } }] };
        }
        return { text: `answer ${prompt || "summary"}` };
      },
      clock,
      files: { "a.txt": bigFile(20, "alpha"), "b.txt": bigFile(20, "bravo") },
      projectSettings: {
        cacheTtl: { ttlSeconds: 300, keepRecentTurns: 2, minGainTokens: 0 },
        compaction: { keepRecentTokens: 200 },
      },
    });

    await t.prompt("read a");
    for (const n of [1, 2, 3]) await t.prompt(`filler ${n}`);
    clock.now += 10 * MIN;
    await t.prompt("expired once");
    const pruned = json(conversation(server.requests.at(-1)!));
    const oldId = idOf(pruned, "a.txt");
    expect(oldId).toMatch(/^[0-9a-f]{8}$/);

    await t.session.compact();
    const compacted = json(t.session.messages);
    expect(compacted).not.toContain(OLD_CALL);

    // The fresh read of b.txt (same 32-bit hash as the compacted, pruned read of a.txt) is sent whole.
    await t.prompt("read b");
    const fresh = json(conversation(server.requests.at(-1)!));
    expect(fresh.includes("line 250: bravo")).toBe(true);
    expect(fresh.match(/\[TRUNCATED FILE\] id=[^"]*/g)).toEqual(null);

    // Pruned after the next expiry: its own id, and restoring it returns b.txt, not a.txt.
    for (const n of [4, 5, 6]) await t.prompt(`filler ${n}`);
    clock.now += 10 * MIN;
    await t.prompt("expired twice");
    const newId = idOf(json(conversation(server.requests.at(-1)!)), "b.txt");
    expect(newId).not.toBe(oldId);
    expect(newId.startsWith(oldId)).toBe(true);

    // The model asks for both: b.txt's id, and a.txt's that it saw before the compaction cut that read.
    restoreIds.push(newId, oldId);
    await t.prompt("restore");
    const restored = json(conversation(server.requests.at(-1)!).at(-1));
    const original = (id: string) =>
      restored.split("<original id=").find((part) => part.startsWith(`\\"${id}\\"`)) ?? "";
    expect(original(newId).includes("line 250: bravo")).toBe(true);
    expect(original(newId).includes("alpha")).toBe(false);
    expect(original(oldId).includes("line 250: alpha")).toBe(true);
    expect(original(oldId).includes("bravo")).toBe(false);
  });
});
