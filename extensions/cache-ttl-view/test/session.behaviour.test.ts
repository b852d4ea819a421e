import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ScriptedResponse, WIRE_FORMATS } from "@pi-rails/testkit";
import { describe, expect, it, vi } from "vitest";
import { bigFile, conversation, isPrefix, json, requestProblems, sessionPerTest, toolResults } from "./helpers.ts";

const MIN = 60_000;
const FILE = bigFile(50);
const startSession = sessionPerTest();

const READ_BIG: ScriptedResponse = { toolCalls: [{ id: "call_read", name: "read", arguments: { path: "big.txt" } }] };

/** The model reads big.txt, answers, and after the expiry restores the pruned read with `options`. */
const readThenRestore =
  (options: { inPlace?: boolean }) =>
  (index: number, text: string): ScriptedResponse => {
    if (index === 0) return READ_BIG;
    if (index === 2) {
      const id = /id=([0-9a-f]{8}) path=big\.txt/.exec(text)?.[1] ?? "missing";
      return { toolCalls: [{ id: "call_restore", name: "context_restore", arguments: { ids: [id], ...options } }] };
    }
    return { text: `answer ${index}` };
  };

describe.each(WIRE_FORMATS)("on %s (strict loopback)", (format) => {
  const start = (
    script: ScriptedResponse[] | ((index: number, text: string) => ScriptedResponse),
    clock: { now: number },
    settings: Record<string, unknown> = { ttlSeconds: 300 },
    files: Record<string, string> = {},
  ) =>
    startSession({
      format,
      script: Array.isArray(script) ? script : (request, index) => script(index, json(request.messages)),
      clock,
      files: { "big.txt": FILE, ...files },
      projectSettings: { cacheTtl: settings },
    });

  describe("reload (bootstrap rule) in a real AgentSession", () => {
    it("judges the first request after a reload with the stored TTL, then with the new one", async () => {
      const clock = { now: 1_000_000 };
      const { server, t } = await start([READ_BIG, { text: "ok" }, { text: "a" }, { text: "b" }], clock, {
        ttlSeconds: 3600,
      });
      await t.prompt("read big.txt");
      writeFileSync(join(t.cwd, ".pi", "settings.json"), JSON.stringify({ cacheTtl: { ttlSeconds: 300 } }));
      await t.session.reload();

      clock.now += 20 * MIN; // beyond the new 300 s, within the stored 3600 s: warm
      await t.prompt("after reload");
      expect(json(server.requests[2]!.messages).includes("line 300: payload")).toBe(true);

      clock.now += 6 * MIN; // now the current TTL (300 s) applies: expired
      await t.prompt("later");
      expect(json(server.requests[3]!.messages).includes("line 300: payload")).toBe(false);
      expect(json(server.requests[3]!.messages).includes("TTL (300s) was exceeded")).toBe(true);
    });

    it("re-applies the persisted prune after a reload: the prefix stays byte-identical", async () => {
      const clock = { now: 1_000_000 };
      const { server, t } = await start([READ_BIG, { text: "ok" }, { text: "a" }, { text: "b" }], clock);
      await t.prompt("read big.txt");
      clock.now += 10 * MIN;
      await t.prompt("expired");
      const before = conversation(server.requests[2]!);
      expect(json(before).includes("cache-ttl:pruned") || json(before).includes("Context was pruned")).toBe(true);
      await t.session.reload();
      clock.now += 1 * MIN;
      await t.prompt("warm after reload");
      expect(isPrefix(before, conversation(server.requests[3]!))).toBe(true);
    });
  });

  describe("context_restore in a real AgentSession", () => {
    it("appends the original at the tail; the pruned prefix stays byte-identical", async () => {
      const clock = { now: 1_000_000 };
      const { server, t } = await start(readThenRestore({}), clock);
      await t.prompt("read big.txt");
      clock.now += 10 * MIN;
      await t.prompt("what was on line 300?");
      expect(server.requests).toHaveLength(4);
      const pruned = conversation(server.requests[2]!);
      const restored = conversation(server.requests[3]!);
      expect(json(pruned).includes("line 300: payload")).toBe(false);
      expect(isPrefix(pruned, restored)).toBe(true);
      // Only the restore's call and its result came after the prefix, and the result holds the original.
      const results = toolResults(server.requests[3]!);
      expect(results).toHaveLength(toolResults(server.requests[2]!).length + 1);
      expect(json(restored.slice(pruned.length))).toContain("line 300: payload");
      expect(results.at(-1)).toContain("line 300: payload");
      expect(requestProblems(server.requests[3]!)).toEqual([]);
    });

    it("restores in place on request: the next request carries the original where it was", async () => {
      const clock = { now: 1_000_000 };
      const { server, t } = await start(readThenRestore({ inPlace: true }), clock);
      await t.prompt("read big.txt");
      clock.now += 10 * MIN;
      await t.prompt("need it back");
      const results = toolResults(server.requests[3]!);
      expect(results[0]).toContain("line 300: payload");
      expect(results[1]).toContain("Restored in place");
      expect(json(t.readSessionEntries()).includes('"kind":"restore"')).toBe(true);
    });
  });

  describe("pins and /cache-ttl in a real AgentSession", () => {
    it("never prunes pinned paths (settings glob) nor what /cache-ttl pin names; /cache-ttl reports", async () => {
      const clock = { now: 1_000_000 };
      const doc = bigFile(20, "specline");
      const notes = bigFile(20, "noteline");
      const { server, t } = await start(
        [
          {
            toolCalls: [
              { id: "c1", name: "read", arguments: { path: "big.txt" } },
              { id: "c2", name: "read", arguments: { path: "docs/spec/api.md" } },
              { id: "c3", name: "read", arguments: { path: "notes.md" } },
            ],
          },
          { text: "read all three" },
          { text: "pruned" },
        ],
        clock,
        { ttlSeconds: 300, pins: { paths: ["docs/spec/**"] } },
        { "docs/spec/api.md": doc, "notes.md": notes },
      );
      await t.prompt("read the files");
      const out: string[] = [];
      vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
        out.push(String(chunk));
        return true;
      });
      await t.session.prompt("/cache-ttl pin notes.md");
      clock.now += 10 * MIN;
      await t.prompt("go on");
      const view = json(conversation(server.requests[2]!));
      expect(view.includes("line 300: payload")).toBe(false);
      expect(view.includes("line 100: specline")).toBe(true);
      expect(view.includes("line 100: noteline")).toBe(true);
      expect(requestProblems(server.requests[2]!)).toEqual([]);

      await t.session.prompt("/cache-ttl");
      const report = out.join("");
      expect(report).toContain("pinned paths matching notes.md");
      expect(report).toMatch(/Pruned: 1 blocks in 1 prune\(s\), about [\d,]+ tokens less per request/);
      expect(report).toContain("Pins: tools [], paths [docs/spec/**, notes.md]");
    });

    it("reports a bad setting with file and key once, ignores it and applies the other keys", async () => {
      const clock = { now: 1_000_000 };
      const err: string[] = [];
      vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
        err.push(String(chunk));
        return true;
      });
      const { server, t } = await start([READ_BIG, { text: "ok" }, { text: "a" }, { text: "b" }], clock, {
        ttlSeconds: 300,
        keepRecentTurns: "six",
        constructor: 1,
      });
      await t.prompt("read big.txt");
      clock.now += 10 * MIN;
      await t.prompt("later");
      // ttlSeconds: 300 still applies: ten minutes later the old read is pruned.
      expect(json(server.requests[2]!.messages).includes("line 300: payload")).toBe(false);
      // The kit's one notice rule: once per session, and a /reload (a fresh extension instance) repeats none.
      await t.session.reload();
      await t.prompt("after the reload");
      const text = err.join("");
      const where = `${join(t.cwd, ".pi", "settings.json")}: cacheTtl.keepRecentTurns:`;
      expect(text.split(where)).toHaveLength(2);
      expect(text.match(/cacheTtl\.constructor: unknown key \(known: [^)]*\); ignored/g)).toHaveLength(1);
    });
  });
});
