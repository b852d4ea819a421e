import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createBashToolDefinition, type ExtensionAPI, type ToolDefinition } from "@earendil-works/pi-coding-agent";
import {
  type CancelToolCallOptions,
  type CancelToolCallResult,
  registerCancellableBuiltInTools,
  type ToolCallInFlight,
  type ToolCallRegistry,
} from "@pi-rails/agent-core/kit";
import {
  createTestSession,
  type ModelServer,
  startModelServer,
  startProviderServer,
  type TestSession,
} from "@pi-rails/testkit";
import { afterEach, describe, expect, it } from "vitest";
import stopTool from "./fixtures/stop-tool.ts";

/** A tool without parameters, as plain JSON Schema (pi 1.6 validates tools with pi-schema, TypeBox not needed). */
const NO_PARAMETERS = { type: "object", properties: {} } as const;

type CancelResult = CancelToolCallResult;
type InFlight = ToolCallInFlight[];

/**
 * In the extension: pi's bash made cancellable, and `tools` (test tools) registered through the same registry,
 * as an extension that offers cancel does.
 */
function cancellable(pi: ExtensionAPI, tools: ToolDefinition[] = []): ToolCallRegistry {
  const calls = registerCancellableBuiltInTools(pi, { bash: createBashToolDefinition });
  for (const tool of tools) pi.registerTool(calls.wrap(tool));
  return calls;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function waitFor(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A process counts as gone when signalling it fails or it is a zombie nobody reaped yet. */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

interface CancelPlan {
  tool: string;
  /** Cancel once this returns true (e.g. the child's pid file exists). */
  ready: () => boolean;
  options: CancelToolCallOptions;
  /** Test tools the extension registers (cancellable). */
  tools?: ToolDefinition[];
  /** Called right before the cancel. */
  beforeCancel?: () => void;
}

/** The extension under test: cancels the planned tool call from inside pi, as steering would. */
function canceller(plan: CancelPlan) {
  const record = {
    results: [] as CancelResult[],
    inFlight: [] as InFlight,
    cancelledAt: 0,
    done: undefined as Promise<void> | undefined,
    inFlightAfter: (): InFlight => [],
  };
  const extension = (pi: ExtensionAPI) => {
    const calls = cancellable(pi, plan.tools);
    record.inFlightAfter = () => calls.inFlight();
    pi.on("tool_execution_start", (event) => {
      if (event.toolName !== plan.tool) return;
      // Not awaited: the tool starts only after this handler returns.
      record.done = (async () => {
        await waitFor(plan.ready, "the tool to be running");
        record.inFlight = calls.inFlight();
        plan.beforeCancel?.();
        record.results.push(await calls.cancel(event.toolCallId, plan.options));
        record.cancelledAt = Date.now();
        record.results.push(await calls.cancel(event.toolCallId, { reason: "again" }));
        record.results.push(await calls.cancel("call_nobody_made"));
      })();
    });
  };
  return { extension, record };
}

async function serve(toolCall: { name: string; arguments: Record<string, unknown> }): Promise<ModelServer> {
  const server = await startModelServer({
    script: [{ toolCalls: [{ id: "call_run", ...toolCall }] }, { text: "Understood, I stopped there.", chunkSize: 8 }],
  });
  cleanups.push(() => server.close());
  return server;
}

async function open(options: Parameters<typeof createTestSession>[0]): Promise<TestSession> {
  const test = await createTestSession(options);
  cleanups.push(() => test.dispose());
  return test;
}

const toolMessage = (server: ModelServer, index: number) =>
  server.requests[index]!.messages.find((message) => message.role === "tool" && message.tool_call_id === "call_run");

describe("cancelling a tool call in flight in a real pi session", () => {
  it("an extension cancels a running bash: the process tree dies, the model sees the cancellation, the run ends normally", async () => {
    const server = await serve({
      name: "bash",
      arguments: { command: "sleep 30 & echo $! > child.pid; wait" },
    });
    let pidFile = "";
    let runningBeforeCancel = false;
    const { extension, record } = canceller({
      tool: "bash",
      ready: () => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim().length > 0,
      options: { reason: "user clicked stop" },
      beforeCancel: () => {
        runningBeforeCancel = isRunning(Number(readFileSync(pidFile, "utf8").trim()));
      },
    });
    const test = await open({ model: { kind: "loopback", server }, extensions: [extension], persist: true });
    pidFile = join(test.cwd, "child.pid");

    const final = await test.prompt("sleep for a while");
    await record.done;
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    expect(runningBeforeCancel).toBe(true);

    expect(record.inFlight).toEqual([{ callId: "call_run", tool: "bash", startedAt: expect.any(Number) }]);
    expect(record.results).toEqual([
      { status: "cancelled", callId: "call_run", tool: "bash", reason: "user clicked stop" },
      { status: "already_cancelled", callId: "call_run", tool: "bash", reason: "user clicked stop" },
      { status: "not_found", callId: "call_nobody_made", reason: "cancelled by the host" },
    ]);
    // The `sleep 30` child of the shell is gone within a second of the cancel.
    while (isRunning(pid) && Date.now() - record.cancelledAt < 1000) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(isRunning(pid)).toBe(false);

    // The next request carries the cancelled result (not an error) and the hidden reminder.
    expect(server.requests).toHaveLength(2);
    expect(toolMessage(server, 1)?.content).toBe(
      "Tool call call_run (bash) was cancelled by the host: user clicked stop",
    );
    const sent = JSON.stringify(server.requests[1]!.messages);
    expect(sent).toContain("The host cancelled tool call call_run (bash) while it ran: user clicked stop");
    expect(sent).not.toContain("Command aborted");

    expect(final?.stopReason).toBe("stop");
    expect(final?.content).toEqual([{ type: "text", text: "Understood, I stopped there." }]);
    const result = test.session.messages.find((message) => message.role === "toolResult");
    expect(result).toMatchObject({
      isError: false,
      details: { cancelled: { byHost: true, reason: "user clicked stop" } },
    });
    const entries = test.readSessionEntries() as { type: string; customType?: string; display?: boolean }[];
    expect(entries.find((entry) => entry.type === "custom_message")).toMatchObject({
      customType: "tool-call-cancelled",
      display: false,
    });
    expect(record.inFlightAfter()).toEqual([]);
  });

  it("without a reminder the next request holds only the cancelled result", async () => {
    const server = await serve({ name: "bash", arguments: { command: "sleep 30 & echo $! > child.pid; wait" } });
    let pidFile = "";
    const { extension, record } = canceller({
      tool: "bash",
      ready: () => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim().length > 0,
      options: { reason: "not needed", injectReminder: false },
    });
    const test = await open({ model: { kind: "loopback", server }, extensions: [extension] });
    pidFile = join(test.cwd, "child.pid");
    const final = await test.prompt("sleep");
    await record.done;

    expect(record.results[0]?.status).toBe("cancelled");
    expect(toolMessage(server, 1)?.content).toBe("Tool call call_run (bash) was cancelled by the host: not needed");
    expect(JSON.stringify(server.requests[1]!.messages)).not.toContain("The host cancelled tool call");
    expect(final?.stopReason).toBe("stop");
  });

  it("a tool that ignores its signal times out; the run goes on without waiting for it", async () => {
    let release: () => void = () => {};
    let started = false;
    const stubborn: ToolDefinition = {
      name: "stubborn",
      label: "stubborn",
      description: "A tool that ignores cancellation.",
      parameters: NO_PARAMETERS,
      execute: () =>
        new Promise((resolve) => {
          started = true;
          release = () => resolve({ content: [{ type: "text", text: "late result" }], details: {} });
        }),
    };
    cleanups.push(() => release());
    const server = await serve({ name: "stubborn", arguments: {} });
    const { extension, record } = canceller({
      tool: "stubborn",
      ready: () => started,
      options: { reason: "taking too long", timeoutMs: 200 },
      tools: [stubborn],
    });
    const test = await open({ model: { kind: "loopback", server }, extensions: [extension] });
    const final = await test.prompt("go");
    await record.done;

    expect(record.results[0]).toEqual({
      status: "timeout",
      callId: "call_run",
      tool: "stubborn",
      reason: "taking too long",
    });
    expect(toolMessage(server, 1)?.content).toBe(
      "Tool call call_run (stubborn) was cancelled by the host: taking too long",
    );
    expect(final?.stopReason).toBe("stop");
    release();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(JSON.stringify(test.session.messages)).not.toContain("late result");
  });

  it("the README's /stop-tool extension cancels the running bash from a command", async () => {
    const fixture = readFileSync(join(import.meta.dirname, "fixtures", "stop-tool.ts"), "utf8");
    const readme = readFileSync(join(import.meta.dirname, "..", "..", "agent-core", "README.md"), "utf8");
    expect(readme).toContain(fixture);

    const server = await serve({ name: "bash", arguments: { command: "sleep 30 & echo $! > child.pid; wait" } });
    const test = await open({ model: { kind: "loopback", server }, extensions: [stopTool] });
    const pidFile = join(test.cwd, "child.pid");
    const run = test.prompt("sleep");
    await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim().length > 0, "the bash child");
    await test.session.prompt("/stop-tool");
    const final = await run;

    expect(toolMessage(server, 1)?.content).toBe(
      "Tool call call_run (bash) was cancelled by the host: stopped with /stop-tool",
    );
    expect(final?.stopReason).toBe("stop");
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    const deadline = Date.now() + 1000;
    while (isRunning(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(isRunning(pid)).toBe(false);
  });

  it("pi's built-ins registered again through the registry: the model gets the same system prompt and tools", async () => {
    // Cancel needs no patch: it is pi 1.6's public tool override. What the model is sent must not change with it.
    const bodies: Record<string, unknown>[] = [];
    for (const extensions of [[], [(pi: ExtensionAPI) => void cancellable(pi)], [stopTool]]) {
      const server = await startModelServer({ script: [{ text: "hello" }] });
      cleanups.push(() => server.close());
      const test = await open({ model: { kind: "loopback", server }, extensions });
      await test.prompt("hi");
      const { tools, messages } = server.requests[0]!.body as { tools: unknown; messages: { role: string }[] };
      // Each session has its own project folder, which the system prompt names.
      const system = JSON.stringify(messages.filter((message) => message.role === "system"));
      bodies.push({ tools, system: system.replaceAll(test.cwd, "<project>") });
    }
    expect(JSON.stringify(bodies[0]!["tools"])).toContain('"bash"');
    expect(bodies[1]).toEqual(bodies[0]);
    expect(bodies[2]).toEqual(bodies[0]);
    const marker = (globalThis as Record<symbol, { features?: string[] }>)[Symbol.for("@pi-rails/pi-patch")];
    expect(marker?.features).not.toContain("cancel_tool_call");
  });
});

/** A tool that runs until its signal aborts; if nobody cancels it, it ends by itself after `selfEndMs`. */
function waitTool(selfEndMs: number) {
  const starts: string[] = [];
  const tool: ToolDefinition = {
    name: "wait",
    label: "wait",
    description: "Waits until it is cancelled.",
    parameters: NO_PARAMETERS,
    execute: (toolCallId, _params, signal) =>
      new Promise((resolve, reject) => {
        starts.push(toolCallId);
        const timer = setTimeout(
          () => resolve({ content: [{ type: "text", text: "ran to the end" }], details: {} }),
          selfEndMs,
        );
        signal?.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(new Error("aborted"));
        });
      }),
  };
  return { tool, starts };
}

/**
 * On a strict server of `format`: the model calls `wait` (with the API's id `apiId`, or none), an extension cancels
 * it through agent-core's registry (worded by describeCancelledCall), the model answers. Returns what the extension saw and the second
 * request's input in the format's own shape.
 */
async function cancelOn(format: "openai-responses" | "google-generative-ai", apiId: string | undefined) {
  const server = await startProviderServer(format, {
    strict: true,
    script: [
      { toolCalls: [{ ...(apiId ? { id: apiId } : {}), name: "wait", arguments: {} }] },
      { text: "Stopped, as the host asked." },
    ],
  });
  cleanups.push(() => server.close());
  const wait = waitTool(30_000);
  const results: CancelResult[] = [];
  let inFlight: InFlight = [];
  let done: Promise<void> | undefined;
  const extension = (pi: ExtensionAPI) => {
    const calls = cancellable(pi, [wait.tool]);
    pi.on("tool_execution_start", (event) => {
      done = (async () => {
        await waitFor(() => calls.inFlight().length > 0, "the call to be in flight");
        inFlight = calls.inFlight();
        results.push(await calls.cancel(event.toolCallId, { reason: "user clicked stop" }));
      })();
    });
  };
  const test = await open({ model: { kind: "provider", server }, extensions: [extension] });
  const final = await test.prompt("wait");
  await done;
  expect(server.requests.map((r) => r.rejected?.message ?? "accepted")).toEqual(["accepted", "accepted"]);
  const input = server.requests[1]!.messages as Array<Record<string, unknown>>;
  return { inFlight, results, input, final };
}

describe("cancel across turns and providers", () => {
  it("a provider that reuses call_0 in the next turn: the second call is cancelled too, not already_cancelled (issue 24)", async () => {
    const server = await startModelServer({
      script: [
        { toolCalls: [{ id: "call_0", name: "wait", arguments: {} }] },
        { text: "First one stopped." },
        { toolCalls: [{ id: "call_0", name: "wait", arguments: {} }] },
        { text: "Second one stopped." },
      ],
    });
    cleanups.push(() => server.close());
    const wait = waitTool(3000);
    const results: CancelResult[] = [];
    const pending: Promise<void>[] = [];
    const extension = (pi: ExtensionAPI) => {
      const calls = cancellable(pi, [wait.tool]);
      pi.on("tool_execution_start", (event) => {
        pending.push(
          (async () => {
            await waitFor(() => calls.inFlight().some((call) => call.callId === event.toolCallId), "call");
            results.push(await calls.cancel(event.toolCallId, { reason: `turn ${results.length + 1}` }));
          })(),
        );
      });
    };
    const test = await open({ model: { kind: "loopback", server }, extensions: [extension] });
    await test.prompt("wait once");
    await test.prompt("wait again");
    await Promise.all(pending);

    expect(wait.starts).toEqual(["call_0", "call_0"]);
    expect(results).toEqual([
      { status: "cancelled", callId: "call_0", tool: "wait", reason: "turn 1" },
      { status: "cancelled", callId: "call_0", tool: "wait", reason: "turn 2" },
    ]);
    expect(server.requests).toHaveLength(4);
    const toolMessages = (index: number) =>
      server.requests[index]!.messages.filter((message) => message.role === "tool").map((m) => m.content);
    expect(toolMessages(3)).toEqual([
      "Tool call call_0 (wait) was cancelled by the host: turn 1",
      "Tool call call_0 (wait) was cancelled by the host: turn 2",
    ]);
    expect(JSON.stringify(server.requests[3]!.messages)).not.toContain("ran to the end");
  });

  it("OpenAI Responses: in describeCancelledCall's words the model is shown call_…, never pi's call_…|fc_… (issue 21)", async () => {
    const { inFlight, results, input, final } = await cancelOn("openai-responses", "call_sleepy");

    // pi's id is the combined one; the model's is the call_id.
    expect(inFlight).toMatchObject([{ callId: expect.stringMatching(/^call_sleepy\|fc_/), tool: "wait" }]);
    expect(results[0]).toMatchObject({ status: "cancelled", tool: "wait" });
    const output = input.find((item) => item["type"] === "function_call_output");
    expect(output).toMatchObject({
      call_id: "call_sleepy",
      output: "Tool call call_sleepy (wait) was cancelled by the host: user clicked stop",
    });
    // Everything the model reads besides its own function_call item: no pi-made id in any text.
    const read = JSON.stringify(input.filter((item) => item["type"] !== "function_call"));
    expect(read).toContain("The host cancelled tool call call_sleepy (wait) while it ran: user clicked stop.");
    expect(read).not.toContain("|fc_");
    expect(read).not.toMatch(/fc_loopback/);
    expect(final?.stopReason).toBe("stop");
  });

  it("Gemini: the call id pi-ai made up (wait_<ms>_<n>) is never named to the model (issue 21)", async () => {
    const { inFlight, results, input, final } = await cancelOn("google-generative-ai", undefined);

    const madeUp = inFlight[0]!.callId;
    expect(madeUp).toMatch(/^wait_\d+_\d+$/);
    expect(results[0]).toMatchObject({ status: "cancelled", tool: "wait" });
    const parts = input.flatMap((content) => (content["parts"] ?? []) as Array<Record<string, unknown>>);
    const response = parts.find((part) => part["functionResponse"])?.["functionResponse"];
    expect(response).toMatchObject({
      name: "wait",
      response: { output: "The wait tool call was cancelled by the host: user clicked stop" },
    });
    const read = JSON.stringify(input);
    expect(read).toContain("The host cancelled a wait tool call while it ran: user clicked stop.");
    expect(read).not.toContain(madeUp);
    expect(final?.stopReason).toBe("stop");
  });
});
