import { existsSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { type PiHostKind, registerCheckpoints, type SeamMessage, type SeamPass } from "@pi-rails/agent-core/kit";
import { closeAfterEach, createTestSession, type Script, startModelServer } from "@pi-rails/testkit";
import { afterEach, describe, expect, it } from "vitest";
import invalidBoundary from "./fixtures/invalid-boundary.ts";
import { conversation } from "./helpers.ts";

// agent-core's checkpoint hosts on their own (no bridge), each in a real pi AgentSession: the repository's pi is the
// patched one, whose public events are stock pi 1.6's, so the stock host is forced there (`{ host: "stock" }`); the
// published stock pi runs it through steering-bridge in stock-pi.e2e.test.ts.

const keep = closeAfterEach(afterEach);
const message = (content: string): SeamMessage => ({
  role: "custom",
  customType: "probe:note",
  content,
  display: true,
  details: { content },
  timestamp: Date.now(),
});

type Handler = Parameters<typeof registerCheckpoints>[1];

async function run(host: PiHostKind, script: Script, handler: Handler, others: ((pi: ExtensionAPI) => void)[] = []) {
  const server = keep(await startModelServer({ script }));
  const probe = (pi: ExtensionAPI) => void registerCheckpoints(pi, handler, { host });
  const test = keep(await createTestSession({ model: { kind: "loopback", server }, extensions: [probe, ...others] }));
  return { server, test };
}

describe.each(["patched", "stock"] as const)("registerCheckpoints on the %s host", (host) => {
  it("pre_tool_dispatch: a skip gives each pending call its placeholder result, the message follows it; the pass says so", async () => {
    const passes: SeamPass[] = [];
    const settled: boolean[] = [];
    let answered = false;
    const { server, test } = await run(
      host,
      [
        { toolCalls: [{ id: "w1", name: "write", arguments: { path: "danger.txt", content: "boom" } }] },
        { text: "ok" },
      ],
      {
        checkpoint: ({ kind, toolCalls }) => {
          if (kind !== "pre_tool_dispatch" || answered) return undefined;
          answered = true;
          expect(toolCalls).toEqual([{ id: "w1", name: "write" }]);
          return {
            messages: [message("STOP")],
            skipToolDispatch: true,
            skipReason: "probe",
            settled: (k) => void settled.push(k),
          };
        },
        pass: (pass) => void passes.push(pass),
      },
    );
    await test.prompt("write danger.txt");
    expect(existsSync(join(test.cwd, "danger.txt"))).toBe(false);
    const next = conversation(server.requests[1]!.messages);
    expect(next.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user"]);
    expect(next[2]!.text).toContain("Tool call write was not dispatched: probe");
    expect(next[3]!.text).toBe("STOP");
    expect(settled).toEqual([true]);
    expect(passes.find((p) => p.kind === "pre_tool_dispatch")).toMatchObject({
      iteration: 1,
      delivered: 1,
      dispatchSkipped: true,
    });
    expect(passes.at(-1)).toMatchObject({ kind: "loop_exit" });
  });

  it("iteration_start of a run's first iteration: the message goes in right after the prompt, in the first request, once; told kept", async () => {
    const passes: SeamPass[] = [];
    const settled: boolean[] = [];
    let answered = false;
    const { server, test } = await run(host, [{ text: "first" }, { text: "second" }], {
      checkpoint: ({ kind, iteration }) => {
        if (kind !== "iteration_start" || answered) return undefined;
        answered = true;
        expect(iteration).toBe(1);
        return { messages: [message("AT-START")], settled: (k) => void settled.push(k) };
      },
      pass: (pass) => void passes.push(pass),
    });
    await test.prompt("go");
    await test.prompt("again");
    expect(server.requests).toHaveLength(2);
    expect(conversation(server.requests[0]!.messages).map((m) => m.text)).toEqual(["go", "AT-START"]);
    expect(conversation(server.requests[1]!.messages).map((m) => m.text)).toEqual(["go", "AT-START", "first", "again"]);
    expect(settled).toEqual([true]);
    expect(passes.filter((p) => p.kind === "iteration_start" && p.delivered > 0)).toMatchObject([
      { iteration: 1, delivered: 1 },
    ]);
    expect(test.session.messages.filter((m) => m.role === "custom")).toHaveLength(1);
  });

  it("a handler that throws at pre_tool_dispatch keeps no call from running (pi hears of the error, the model does not)", async () => {
    const { server, test } = await run(
      host,
      [{ toolCalls: [{ id: "w1", name: "write", arguments: { path: "fine.txt", content: "ok" } }] }, { text: "ok" }],
      {
        checkpoint: ({ kind }) => {
          if (kind === "pre_tool_dispatch") throw new Error("handler failed");
          return undefined;
        },
      },
    );
    await test.prompt("write fine.txt");
    expect(existsSync(join(test.cwd, "fine.txt"))).toBe(true);
    expect(JSON.stringify(server.requests[1]!.messages)).not.toContain("handler failed");
  });

  it("a message pi dropped at a boundary (another extension's proposal was invalid) is told so, and goes in at the next one", async () => {
    const settled: [string, boolean][] = [];
    let kept = false;
    const { server, test } = await run(
      host,
      [{ text: "answer" }, { text: "saw the note" }],
      {
        checkpoint: ({ kind }) => {
          if (kept || kind !== "iteration_end") return undefined;
          return {
            messages: [message("NOTE")],
            settled: (k) => {
              settled.push([kind, k]);
              kept ||= k;
            },
          };
        },
      },
      [invalidBoundary],
    );
    await test.prompt("answer");
    expect(server.requests).toHaveLength(2);
    expect(conversation(server.requests[1]!.messages).map((m) => m.text)).toEqual(["answer", "answer", "NOTE"]);
    // The patched pi appends a seam's messages in its loop; stock pi's turn_end boundary dropped them all.
    expect(settled).toEqual(
      host === "patched"
        ? [["iteration_end", true]]
        : [
            ["iteration_end", false],
            ["iteration_end", true],
          ],
    );
    expect(test.session.messages.filter((m) => m.role === "custom")).toHaveLength(1);
  });
});

describe("the host a session gets", () => {
  it("names the seams stock pi cannot stop at", async () => {
    let host: ReturnType<ReturnType<typeof registerCheckpoints>["host"]> | undefined;
    const probe = (pi: ExtensionAPI) => {
      const checkpoints = registerCheckpoints(pi, { checkpoint: () => undefined }, { host: "stock" });
      pi.on("session_start", () => {
        host = checkpoints.host();
      });
    };
    const server = keep(await startModelServer({ script: [] }));
    keep(await createTestSession({ model: { kind: "loopback", server }, extensions: [probe] }));
    expect(host).toEqual({
      kind: "stock",
      seams: ["iteration_start", "pre_tool_dispatch", "post_tool_dispatch", "iteration_end", "loop_exit"],
      missing: ["pre_compact", "post_compact"],
    });
  });
});
