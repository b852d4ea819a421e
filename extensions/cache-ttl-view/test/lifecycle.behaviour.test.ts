import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildSessionContext, type ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { type RecordedRequest, type ScriptedResponse, type TestSession, WIRE_FORMATS } from "@pi-rails/testkit";
import { describe, expect, it, vi } from "vitest";
import type { RenderResult } from "../src/engine/session-view.ts";
import { messageKeyAt } from "../src/model/ids.ts";
import type { ViewMessage } from "../src/model/messages.ts";
import { builderOf } from "../src/model/session-context.ts";
import {
  bigFile,
  captureStdout,
  conversation,
  isPrefix,
  json,
  requestProblems,
  sessionPerTest,
  toolResults,
} from "./helpers.ts";

/** State lifecycle and restores, in a real pi AgentSession on every wire format (strict loopback servers). */

const MIN = 60_000;
const FILE = bigFile(50);
const startSession = sessionPerTest();
const READ_BIG: ScriptedResponse = { toolCalls: [{ id: "call_read", name: "read", arguments: { path: "big.txt" } }] };
const bigId = (text: string) => /id=([0-9a-f]{8}(?:\.\d+)?) path=big\.txt/.exec(text)?.[1] ?? "missing";
const count = (text: string, needle: string) => text.split(needle).length - 1;

/**
 * A restore scenario's script: the model reads big.txt (request 0); the pruned read's id is taken from request 2;
 * at each index in `restores` the model calls context_restore on that id, one call per entry with its options;
 * otherwise it answers. `id()` is the id it used.
 */
function restoring(restores: Record<number, { inPlace?: boolean }[]>) {
  let id = "missing";
  const script = (index: number, text: string): ScriptedResponse => {
    if (index === 0) return READ_BIG;
    if (index === 2) id = bigId(text);
    const calls = restores[index];
    if (!calls) return { text: `answer ${index}` };
    return {
      toolCalls: calls.map((options, n) => ({
        id: `call_restore_${index}_${n}`,
        name: "context_restore",
        arguments: { ids: [id], ...options },
      })),
    };
  };
  return { script, id: () => id };
}

/**
 * Another extension that adds context with every prompt (`before_agent_start`), as memory and rule extensions do. pi
 * stamps such a custom message when it makes it, and its session entry when it saves it, after every `message_end`
 * handler (one that awaits anything, a logger, makes the two differ); a reloaded context has the entry's stamp.
 */
const memoryInjector: ExtensionFactory = (pi) => {
  let n = 0;
  pi.on("message_end", async () => {
    await new Promise((done) => setTimeout(done, 5));
  });
  pi.on("before_agent_start", async () => ({
    message: { customType: "memory", content: `MEMORY-${++n} ${"remembered fact. ".repeat(120)}`, display: false },
  }));
};
/** Rules an extension adds to every prompt, the same text each time (its end is past what a pruned marker keeps). */
const RULES = `RULES ${"always run the tests before you answer. ".repeat(100)}END-OF-RULES`;
const rulesInjector: ExtensionFactory = (pi) => {
  pi.on("before_agent_start", async () => ({ message: { customType: "rules", content: RULES, display: false } }));
};
/** pi saves messages in its event queue, after every extension's `message_end` handler: wait until it has. */
const saved = (t: TestSession) =>
  vi.waitFor(() => {
    const entries = t.session.sessionManager.getEntries();
    const kept = entries.filter((e) => e.type === "message" || e.type === "custom_message").length;
    expect(kept).toBe(t.session.messages.length);
  });
const memoryId = (text: string) => /\[TRUNCATED\] id=([0-9a-f]{8}(?:\.\d+)?) chars=\d+: MEMORY-1 /.exec(text)?.[1];

describe.each(WIRE_FORMATS)("on %s (strict loopback)", (format) => {
  const start = (
    script: (index: number, text: string) => ScriptedResponse,
    clock: { now: number },
    settings: Record<string, unknown> = { ttlSeconds: 300 },
  ) =>
    startSession({
      format,
      script: (request, index) => script(index, json(request.messages)),
      clock,
      files: { "big.txt": FILE },
      projectSettings: { cacheTtl: settings },
    });

  describe("context_restore is idempotent", () => {
    it("a second restore of the same id does not append the original again, and says where it is", async () => {
      const clock = { now: 1_000_000 };
      const { server, t } = await start(restoring({ 2: [{}], 3: [{}] }).script, clock);
      await t.prompt("read big.txt");
      clock.now += 10 * MIN;
      await t.prompt("what was on line 300?");
      const last = conversation(server.requests[4]!);
      expect(count(json(last), "line 300: payload")).toBe(1);
      expect(toolResults(server.requests[4]!).at(-1)).toContain("Already restored above");
      expect(requestProblems(server.requests[4]!)).toEqual([]);
    });

    it("two calls of one turn for the same id (pi runs them together) append the original once", async () => {
      const clock = { now: 1_000_000 };
      const { server, t } = await start(restoring({ 2: [{}, {}] }).script, clock);
      await t.prompt("read big.txt");
      clock.now += 10 * MIN;
      await t.prompt("what was on line 300?");
      const last = conversation(server.requests[3]!);
      expect(requestProblems(server.requests[3]!)).toEqual([]);
      expect(count(json(last), "line 300: payload")).toBe(1);
      expect(toolResults(server.requests[3]!).at(-1)).toContain("Already restored above");
      // The next turn sees the first call's result in the session: the same answer, nothing appended again.
      await t.prompt("and again?");
      expect(count(json(conversation(server.requests.at(-1)!)), "line 300: payload")).toBe(1);
    });

    it("an append and an in-place restore of the same id in one turn send the original once", async () => {
      const clock = { now: 1_000_000 };
      const scenario = restoring({ 2: [{}, { inPlace: true }] });
      const { server, t } = await start(scenario.script, clock);
      await t.prompt("read big.txt");
      clock.now += 10 * MIN;
      await t.prompt("what was on line 300?");
      const tools = toolResults(server.requests[3]!);
      expect(tools.at(-1)).toContain(`Already restored above in this conversation (not repeated): ${scenario.id()}`);
      expect(tools.at(-1)).not.toContain("Restored in place");
      expect(count(json(conversation(server.requests[3]!)), "line 300: payload")).toBe(1);
      expect(requestProblems(server.requests[3]!)).toEqual([]);
      // The next turn too: the original stays at the tail only, its place stays pruned (the cached prefix holds).
      await t.prompt("and now?");
      expect(count(json(conversation(server.requests.at(-1)!)), "line 300: payload")).toBe(1);
    });

    it("an in-place restore of an id an earlier turn appended (still in view) sends no second copy", async () => {
      const clock = { now: 1_000_000 };
      const { server, t } = await start(restoring({ 2: [{}], 4: [{ inPlace: true }] }).script, clock);
      await t.prompt("read big.txt");
      clock.now += 10 * MIN;
      await t.prompt("what was on line 300?");
      await t.prompt("put it back where it was");
      expect(toolResults(server.requests[5]!).at(-1)).toContain("Already restored above");
      await t.prompt("and now?");
      expect(count(json(conversation(server.requests.at(-1)!)), "line 300: payload")).toBe(1);
    });

    it("an in-place restore of an id already restored answers that it is not pruned", async () => {
      const clock = { now: 1_000_000 };
      const scenario = restoring({ 2: [{ inPlace: true }], 3: [{ inPlace: true }] });
      const { server, t } = await start(scenario.script, clock);
      await t.prompt("read big.txt");
      clock.now += 10 * MIN;
      await t.prompt("need it back");
      const tools = toolResults(server.requests[4]!);
      expect(tools.at(-2)).toContain("Restored in place");
      expect(tools.at(-1)).toContain(`Not pruned (already shown in full where they are): ${scenario.id()}`);
      expect(tools.at(-1)).not.toContain("Restored in place");
    });
  });

  describe("state lifecycle", () => {
    it("/tree: a branch that never held the prune is sent unpruned", async () => {
      const clock = { now: 1_000_000 };
      const { server, t } = await start((index) => (index === 0 ? READ_BIG : { text: `answer ${index}` }), clock);
      await t.prompt("read big.txt");
      clock.now += 10 * MIN;
      await t.prompt("expired");
      expect(json(server.requests[2]!.messages)).not.toContain("line 300: payload");
      // Back to the first answer: the prune entry was written after it (with the second prompt's request).
      const entries = t.readSessionEntries() as { type: string; id: string; data?: { kind?: string } }[];
      const pruneAt = entries.findIndex((e) => e.type === "custom" && e.data?.kind === "prune");
      const firstAnswer = entries.slice(0, pruneAt).findLast((e) => e.type === "message") as { id: string };
      await t.session.navigateTree(firstAnswer.id);
      clock.now += 1 * MIN;
      await t.prompt("another way");
      const branch = json(server.requests[3]!.messages);
      expect(branch).toContain("line 300: payload");
      expect(branch).not.toContain("Context was pruned");
    });

    /** A read pruned at an expiry, then `/reload` with `settings` in the project, then a warm request. */
    async function prunedThenReloaded(firstPrompt: string, settings: Record<string, unknown>) {
      const clock = { now: 1_000_000 };
      const { server, t } = await start((index) => (index === 0 ? READ_BIG : { text: `answer ${index}` }), clock, {
        ttlSeconds: 300,
        keepRecentTurns: 1,
      });
      await t.prompt(firstPrompt);
      clock.now += 10 * MIN;
      await t.prompt("expired");
      const before = conversation(server.requests[2]!);
      writeFileSync(join(t.cwd, ".pi", "settings.json"), JSON.stringify({ cacheTtl: settings }));
      await t.session.reload();
      clock.now += 1 * MIN;
      await t.prompt("warm after reload");
      return { server, t, clock, before };
    }

    it("/reload with new caps keeps the pruned prefix byte-identical (replacements keep the caps of their prune)", async () => {
      const { server, before } = await prunedThenReloaded(
        `read big.txt ${"and explain every line of it carefully ".repeat(40)}`,
        { ttlSeconds: 300, keepRecentTurns: 1, maxTextChars: 60, maxFieldChars: 20 },
      );
      expect(json(before)).toContain("[TRUNCATED] id=");
      expect(isPrefix(before, conversation(server.requests[3]!))).toBe(true);
    });

    it("/reload into conflicting settings prunes nothing new and keeps the pruned prefix byte-identical", async () => {
      // A buffer not below the TTL: said, naming both fields, and pruning is off.
      const { server, t, clock, before } = await prunedThenReloaded("read big.txt", {
        ttlSeconds: 300,
        bufferSeconds: 300,
        keepRecentTurns: 1,
      });
      expect(json(before)).toContain("[TRUNCATED FILE] id=");
      // Long past the TTL: still nothing new pruned (the answers stay in full), the old prune still applied.
      clock.now += 60 * MIN;
      await t.prompt(`expired again ${"with a long question that would be pruned ".repeat(20)}`);
      clock.now += 60 * MIN;
      await t.prompt("and again");
      const warm = conversation(server.requests[3]!);
      const later = conversation(server.requests[5]!);
      expect(isPrefix(before, warm)).toBe(true);
      expect(isPrefix(warm, later)).toBe(true);
      expect(json(later)).not.toContain("line 300: payload");
      expect(json(later)).toContain("with a long question that would be pruned ".repeat(20).trim());
    });

    it("/cache-ttl right after a resume labels the pruned blocks from the session", async () => {
      const clock = { now: 1_000_000 };
      const { t } = await start((index) => (index === 0 ? READ_BIG : { text: `answer ${index}` }), clock);
      await t.prompt("read big.txt");
      clock.now += 10 * MIN;
      await t.prompt("expired");
      await t.session.reload(); // a fresh extension instance: state from the session, no request yet
      const out = captureStdout();
      await t.session.prompt("/cache-ttl");
      const report = out.join("");
      expect(report).toMatch(/[0-9a-f]{8} \(read big\.txt\)/);
      expect(report).not.toContain("not in the current view");
    });
  });

  describe("prepared while idle", () => {
    it("after a resume the first request uses the analysis made from the session file; a prompt that comes first does not wait for it", async () => {
      const clock = { now: 1_000_000 };
      const rendered: RenderResult[] = [];
      const { server, t } = await startSession({
        format,
        script: (_request, index) => (index % 2 === 0 ? READ_BIG : { text: `answer ${index}` }),
        clock,
        files: { "big.txt": FILE },
        projectSettings: { cacheTtl: { ttlSeconds: 300, keepRecentTurns: 1, minGainTokens: 0 } },
        onRender: (result) => rendered.push(result),
      });
      for (let turn = 0; turn < 3; turn++) {
        clock.now += 10 * MIN;
        await t.prompt(`read big.txt (${turn})`);
      }
      // A fresh extension instance (state from the session); pi idles past the preparation before the prompt.
      await t.session.reload();
      await new Promise((resolve) => setTimeout(resolve, 300));
      rendered.length = 0;
      clock.now += 10 * MIN;
      const before = server.requests.length;
      await t.prompt("expired again");
      expect(rendered[0]?.prepared).toBe(true);
      expect(rendered[0]?.plan?.ids.length).toBeGreaterThan(0);
      const sent = conversation(server.requests[before] as RecordedRequest);
      expect(requestProblems(server.requests[before] as RecordedRequest)).toEqual([]);
      expect(count(json(sent), "[TRUNCATED FILE]")).toBeGreaterThanOrEqual(2);

      // Reloaded and prompted at once (pi -p): the request does the work itself, with the same kind of result.
      await t.session.reload();
      rendered.length = 0;
      clock.now += 10 * MIN;
      await t.prompt("at once");
      expect(rendered[0]?.prepared).toBe(false);
      expect(rendered[0]?.clock.kind).toBe("expired");
    });
  });

  describe("the session's current context", () => {
    it("is built like pi's buildSessionContext (after a compaction and a tree navigation)", async () => {
      const clock = { now: 1_000_000 };
      const { t } = await startSession({
        format,
        script: (_request, index) => (index === 0 ? READ_BIG : { text: `answer ${index}` }),
        clock,
        files: { "big.txt": FILE },
        // pi 1.6 refuses to compact a session whose recent part alone is within keepRecentTokens.
        projectSettings: { cacheTtl: { ttlSeconds: 300 }, compaction: { keepRecentTokens: 200 } },
      });
      await t.prompt("read big.txt");
      await t.prompt("second");
      await t.session.compact();
      await t.prompt("third");
      const manager = t.session.sessionManager;
      const keys = (ms: readonly ViewMessage[]) => ms.map((_m, i) => messageKeyAt(ms, i));
      const both = () => ({
        ours: builderOf(manager.getBranch()).messages(),
        pis: buildSessionContext(manager.getEntries(), manager.getLeafId()).messages as ViewMessage[],
      });
      const compacted = both();
      expect(keys(compacted.ours)).toEqual(keys(compacted.pis));
      expect(compacted.ours).toEqual(compacted.pis);
      // pi 1.6's compacted context leads with the compaction's system checkpoint (the prompt and tools), then its
      // summary; the kept range carries no system message of its own.
      expect(compacted.ours.slice(0, 2).map((m) => m.role)).toEqual(["system", "compactionSummary"]);
      expect(compacted.ours.filter((m) => m.role === "system")).toHaveLength(1);
      const entries = t.readSessionEntries() as { type: string; id: string }[];
      const firstAnswer = entries.find((e) => e.type === "message" && json(e).includes("answer 1")) as { id: string };
      await t.session.navigateTree(firstAnswer.id);
      const { ours, pis } = both();
      expect(keys(ours)).toEqual(keys(pis));
      expect(ours).toEqual(pis);
      expect(ours.length).toBeGreaterThan(2);
    });
  });

  describe("custom messages of another extension", () => {
    let restores = 0;
    const startWithMemory = (clock: { now: number }, restoreId: () => string | undefined) => {
      restores = 0;
      return startSession({
        format,
        // The prompt "please restore" is answered with one restore call, then with text (tool results look alike
        // in no two formats: the script counts instead).
        script: (request, index) => {
          const asked = json(request.messages).includes("please restore");
          if (asked && restores++ === 0) {
            return { toolCalls: [{ id: "call_restore", name: "context_restore", arguments: { ids: [restoreId()] } }] };
          }
          return { text: `answer ${index}` };
        },
        clock,
        files: {},
        projectSettings: { cacheTtl: { ttlSeconds: 300, keepRecentTurns: 1, minGainTokens: 0 } },
        extensions: [memoryInjector],
      });
    };

    /** Three prompts, each with a memory; the third after an expiry prunes the first memory (its id is restored). */
    const prunedMemory = async () => {
      const clock = { now: 1_000_000 };
      let id: string | undefined;
      const { server, t } = await startWithMemory(clock, () => id);
      await t.prompt("first");
      await t.prompt("second");
      clock.now += 10 * MIN;
      await t.prompt("third, after the break");
      const pruned = conversation(server.requests.at(-1)!);
      id = memoryId(json(pruned));
      expect(id).toBeDefined();
      await saved(t);
      return { clock, server, t, pruned };
    };

    it("a pruned one is restored by its id in the same process (pi's copy has another timestamp than the request's)", async () => {
      const { server, t } = await prunedMemory();
      // The session's copy of the message was stamped later than the one the requests carried.
      const stamps = (t.readSessionEntries() as { type: string; timestamp: string }[])
        .filter((e) => e.type === "custom_message")
        .map((e) => Date.parse(e.timestamp));
      const sent = t.session.messages.filter((m) => m.role === "custom").map((m) => m.timestamp);
      expect(stamps[0]).not.toBe(sent[0]);
      await t.prompt("please restore");
      const result = toolResults(server.requests.at(-1)!).at(-1);
      expect(result).toContain("MEMORY-1 remembered fact.");
      expect(result).not.toContain("Unknown id");
    });

    it("the same text added to every prompt: after a compaction cut the pruned older ones, the current turn's is sent whole", async () => {
      const clock = { now: 1_000_000 };
      const { server, t } = await startSession({
        format,
        // Long answers: pi's compaction counts message entries only (not custom ones) to find where to cut.
        script: (_request, index) => ({ text: `answer ${index} ${"with some length. ".repeat(60)}` }),
        clock,
        files: {},
        projectSettings: {
          cacheTtl: { ttlSeconds: 300, keepRecentTurns: 1, minGainTokens: 0 },
          compaction: { keepRecentTokens: 200 },
        },
        extensions: [rulesInjector],
      });
      for (const n of [1, 2, 3]) await t.prompt(`prompt ${n}`);
      clock.now += 10 * MIN;
      await t.prompt("prompt 4, after the break");
      // The rules of the three earlier prompts are pruned, the current turn's are whole.
      expect(count(json(conversation(server.requests.at(-1)!)), "END-OF-RULES")).toBe(1);
      await saved(t);
      await t.session.compact();
      expect(json(t.session.messages)).not.toContain("prompt 1");
      await t.prompt("prompt 5");
      const sent = json(conversation(server.requests.at(-1)!));
      // Whatever the compaction kept of the older turns, the current turn's rules come whole, after its prompt.
      expect(sent.lastIndexOf("END-OF-RULES")).toBeGreaterThan(sent.lastIndexOf("prompt 5"));
      expect(requestProblems(server.requests.at(-1)!)).toEqual([]);
    });

    it("the pruned prefix and its notice (anchored after one) survive /reload and a /tree round trip byte for byte", async () => {
      const { clock, server, t, pruned } = await prunedMemory();
      // The notice comes after the request's last message: the memory added to the third prompt.
      expect(json(pruned.at(-1))).toContain("Context was pruned");
      expect(json(pruned).lastIndexOf("MEMORY-3")).toBeLessThan(json(pruned).lastIndexOf("Context was pruned"));

      await t.session.reload();
      clock.now += MIN;
      await t.prompt("warm, after the reload");
      expect(isPrefix(pruned, conversation(server.requests.at(-1)!))).toBe(true);

      await saved(t);
      const messages = t.session.sessionManager.getEntries().filter((e) => e.type === "message");
      const leaf = t.session.sessionManager.getLeafId() as string;
      await t.session.navigateTree(messages.at(-3)!.id);
      await t.session.navigateTree(leaf);
      clock.now += MIN;
      await t.prompt("warm, after the tree");
      expect(isPrefix(pruned, conversation(server.requests.at(-1)!))).toBe(true);

      await t.prompt("please restore");
      expect(toolResults(server.requests.at(-1)!).at(-1)).toContain("MEMORY-1 remembered fact.");
    });
  });
});
