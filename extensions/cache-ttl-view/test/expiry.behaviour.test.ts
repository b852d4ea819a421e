import { type ScriptedResponse, WIRE_FORMATS } from "@pi-rails/testkit";
import { describe, expect, it } from "vitest";
import { bigFile, conversation, isPrefix, json, requestProblems, sessionPerTest } from "./helpers.ts";

const FILE = bigFile(50);
const start = sessionPerTest();
const SCRIPT: ScriptedResponse[] = [
  { toolCalls: [{ id: "call_read", name: "read", arguments: { path: "big.txt" } }] },
  { text: "Read it." },
  { text: "Second answer." },
  { text: "Third answer." },
  { text: "Fourth answer." },
  { text: "Fifth answer." },
];

describe.each(WIRE_FORMATS)(
  "cache-ttl-view in a real AgentSession on %s (strict loopback, injected clock)",
  (format) => {
    it("prunes the big read after expiry only, keeps pairs and the session file, and stays byte-stable", async () => {
      const clock = { now: 1_000_000 };
      const { server, t } = await start({
        format,
        script: SCRIPT,
        clock,
        files: { "big.txt": FILE },
        projectSettings: { cacheTtl: { ttlSeconds: 300 } },
      });
      await t.prompt("read big.txt");
      expect(server.requests).toHaveLength(2);
      expect(json(server.requests[1]!.messages).includes("line 300: payload")).toBe(true);

      clock.now += 100_000; // warm
      await t.prompt("second");
      expect(json(server.requests[2]!.messages).includes("line 300: payload")).toBe(true);
      expect(json(server.requests[2]!.messages).includes("Context was pruned")).toBe(false);

      clock.now += 400_000; // expired
      await t.prompt("third");
      const pruned = conversation(server.requests[3]!);
      expect(json(pruned).includes("line 300: payload")).toBe(false);
      expect(json(pruned).includes("[TRUNCATED FILE] id=")).toBe(true);
      expect(json(pruned).includes("Context was pruned because the prompt cache TTL (300s) was exceeded")).toBe(true);
      expect(requestProblems(server.requests[3]!)).toEqual([]);

      clock.now += 10_000; // warm again: same prefix
      await t.prompt("fourth");
      const next = conversation(server.requests[4]!);
      expect(isPrefix(pruned, next)).toBe(true);

      clock.now += 1_000_000; // expired again, nothing new eligible: no second notice, same prefix
      await t.prompt("fifth");
      const again = conversation(server.requests[5]!);
      expect(isPrefix(next, again)).toBe(true);
      expect(json(again).match(/Context was pruned/g)).toHaveLength(1);
      expect(server.requests.map((r) => r.rejected?.message).filter(Boolean)).toEqual([]);

      const file = json(t.readSessionEntries());
      expect(file.includes("line 300: payload")).toBe(true);
      expect(file.includes('"customType":"cache-ttl:state"')).toBe(true);
    });
  },
);
