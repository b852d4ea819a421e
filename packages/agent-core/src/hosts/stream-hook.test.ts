import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AssistantMessage,
  type Context,
  fauxAssistantMessage,
  fauxProvider,
  fauxText,
  fauxToolCall,
} from "@earendil-works/pi-ai";
import {
  type AgentSession,
  createAgentSession,
  DefaultResourceLoader,
  type ExtensionAPI,
  ModelRuntime,
  SessionManager,
  SettingsManager,
} from "@earendil-works/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { PI_PATCH_SYMBOL } from "../patch/detect.ts";
import { ABORTED_ATTEMPT_EXPLANATION } from "../pi/stream-retry.ts";
import {
  registerStreamHook,
  type StreamHook,
  type StreamHookInterrupt,
  type StreamHookOutcome,
  type StreamHookRegistration,
} from "./stream-hook.ts";

type Reply = (context: Context) => AssistantMessage;
type Host = "patched" | "stock";

/** What the hook saw, and what the model was sent, request by request. */
interface Run {
  session: AgentSession;
  registration: StreamHookRegistration;
  requests: string[];
  outcomes: StreamHookOutcome[];
  ends: string[];
  starts: number;
  ran: string[];
}

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A real pi AgentSession (pi's SDK, as the CLI builds one) on pi-ai's faux model, with one extension: `hook` on
 * `registerStreamHook`, and a `note` tool that records its calls. On "stock" the patched pi's mark is removed
 * while the session lives, so the session gets the public-events host, as in the published pi.
 */
async function run(host: Host, hook: Partial<StreamHook>, replies: string[], prompts = ["go"]): Promise<Run> {
  const marks = globalThis as Record<symbol, unknown>;
  const mark = marks[PI_PATCH_SYMBOL];
  if (host === "stock") {
    delete marks[PI_PATCH_SYMBOL];
    cleanups.push(() => {
      marks[PI_PATCH_SYMBOL] = mark;
    });
  }
  const root = mkdtempSync(join(tmpdir(), "stream-hook-"));
  const env = { HOME: process.env["HOME"], PI_CODING_AGENT_DIR: process.env["PI_CODING_AGENT_DIR"] };
  process.env["HOME"] = root;
  process.env["PI_CODING_AGENT_DIR"] = join(root, "agent");
  cleanups.push(() => {
    for (const [key, value] of Object.entries(env)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    rmSync(root, { recursive: true, force: true });
  });
  const requests: string[] = [];
  const faux = fauxProvider({ tokenSize: { min: 1, max: 1 } });
  faux.setResponses(
    replies.map(
      (reply): Reply =>
        (context) => {
          requests.push(JSON.stringify(context.messages.filter((m) => (m.role as string) !== "system")));
          // "error:<text>": the provider fails; "call:<tool>#<id>:<text>": a call with that id (providers may reuse one); "note:<text>": a note.
          if (reply.startsWith("error:"))
            return fauxAssistantMessage([], { stopReason: "error", errorMessage: reply.slice(6) });
          const call = /^call:(\w+)#(\w+):(.*)$/.exec(reply);
          if (call) return fauxAssistantMessage([fauxToolCall(call[1]!, { text: call[3]! }, { id: call[2]! })]);
          return reply.startsWith("note:")
            ? fauxAssistantMessage([fauxToolCall("note", { text: reply.slice(5) })])
            : fauxAssistantMessage([fauxText(reply)]);
        },
    ),
  );
  const result = { requests, outcomes: [], ends: [], starts: 0, ran: [] } as unknown as Run;
  const extension = (pi: ExtensionAPI) => {
    result.registration = registerStreamHook(pi, {
      onDelta: () => undefined,
      ...hook,
      onResponseStart: (ctx) => {
        result.starts++;
        hook.onResponseStart?.(ctx);
      },
      onResponseEnd: (end, ctx) => {
        result.ends.push(end.stopReason);
        hook.onResponseEnd?.(end, ctx);
      },
      onOutcome: (outcome, ctx) => {
        result.outcomes.push(outcome);
        hook.onOutcome?.(outcome, ctx);
      },
    });
    pi.registerTool({
      name: "note",
      label: "note",
      description: "Writes a note",
      parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      async execute(_id, params: { text: string }) {
        result.ran.push(params.text);
        return { content: [{ type: "text", text: "noted" }], details: {} };
      },
    });
  };
  const cwd = join(root, "project");
  const agentDir = join(root, "agent");
  const modelRuntime = await ModelRuntime.create({
    authPath: join(agentDir, "auth.json"),
    modelsPath: join(agentDir, "models.json"),
  });
  modelRuntime.registerNativeProvider(faux.provider);
  const settingsManager = SettingsManager.inMemory({ retry: { enabled: false } } as never);
  const resourceLoader = new DefaultResourceLoader({ cwd, agentDir, settingsManager, extensionFactories: [extension] });
  await resourceLoader.reload();
  const { session } = await createAgentSession({
    cwd,
    agentDir,
    modelRuntime,
    model: faux.getModel(),
    resourceLoader,
    sessionManager: SessionManager.inMemory(cwd),
    settingsManager,
  });
  cleanups.push(() => session.dispose());
  await session.bindExtensions({});
  result.session = session;
  for (const prompt of prompts) {
    await session.prompt(prompt);
    await session.agent.waitForIdle();
  }
  // Stock pi sends the retry once pi settled, a run of its own: wait until every scripted reply was asked for.
  await expect.poll(() => session.isStreaming || requests.length < replies.length).toBe(false);
  await session.agent.waitForIdle();
  return result;
}

/** A hook that interrupts on `needle` in prose (and in a tool call's arguments) with this retry. */
const interruptOn = (needle: string, extra: Partial<StreamHookInterrupt> = {}): Partial<StreamHook> => {
  let seen = "";
  return {
    onResponseStart: () => {
      seen = "";
    },
    onDelta: ({ chunk }) => {
      seen += chunk;
      return seen.includes(needle) ? { customType: "test:retry", content: `Never ${needle}`, ...extra } : undefined;
    },
  };
};

const assistants = (session: AgentSession) =>
  session.messages.filter((m): m is AssistantMessage => m.role === "assistant");

describe.each<Host>(["patched", "stock"])("registerStreamHook on %s pi", (host) => {
  it("stops a response on the delta that breaks the rule; the retry carries its message and not the partial", async () => {
    const hook = interruptOn("eval(");
    const r = await run(host, hook, [
      "Sure: just call eval(input) and return what it gives you back.",
      "Use JSON.parse(input).",
    ]);
    expect(r.registration.kind).toBe(host);
    expect(r.requests).toHaveLength(2);
    expect(r.requests[1]).toContain("Never eval(");
    expect(r.requests[1]).not.toContain("just call eval");
    expect(r.outcomes).toEqual([
      expect.objectContaining({
        kind: "retried",
        consecutive: 1,
        interrupt: expect.objectContaining({ content: "Never eval(" }),
      }),
    ]);
    expect(r.starts).toBe(2);
    // The interrupted response ends as "aborted" where pi ends it (stock pi); the patched loop drops it unended.
    expect(r.ends).toEqual(host === "stock" ? ["aborted", "stop"] : ["stop"]);
    const texts = assistants(r.session).map((m) =>
      m.content.map((c) => (c.type === "text" ? c.text : c.type)).join(""),
    );
    expect(texts.at(-1)).toBe("Use JSON.parse(input).");
    expect(texts.join("")).not.toContain("just call eval");
    // No error shows: stock pi's aborted message is replaced by one that ended normally; the patched pi records the
    // billed attempt with the explanation, which defaults to agent-core's.
    const errors = assistants(r.session).flatMap((m) => (m.errorMessage ? [m.errorMessage] : []));
    expect(errors).toEqual(host === "stock" ? [] : [ABORTED_ATTEMPT_EXPLANATION]);
  });

  it("keeps the partial's prose when the interrupt says so", async () => {
    const hook = interruptOn("eval(", { keepPartial: true });
    const r = await run(host, hook, ["Plan: eval(input) and then more words after it.", "Plan: JSON.parse(input)."]);
    expect(r.requests[1]).toContain("Plan: eval");
    expect(r.requests[1]).toContain("Never eval(");
    // The kept prose is not a response that ended: the hook hears the end of the retried one only.
    expect(r.ends).toEqual(host === "stock" ? ["aborted", "stop"] : ["stop"]);
  });

  it("a tool call whose arguments break the rule never runs", async () => {
    const hook = interruptOn("rm -rf");
    const r = await run(host, hook, ["note:then rm -rf / everything", "Done."]);
    expect(r.ran).toEqual([]);
    expect(r.requests[1]).toContain("Never rm -rf");
    expect(r.requests[1]).not.toContain("then rm -rf");
    expect(r.outcomes.map((o) => o.kind)).toEqual(["retried"]);
  });

  it("a hook whose outcome handler throws still gets its retry (pi reports the error; the answer is not left empty)", async () => {
    const hook = {
      ...interruptOn("eval("),
      onOutcome: () => {
        throw new Error("outcome handler failed");
      },
    };
    const r = await run(host, hook, ["Sure: just call eval(input) and more.", "Use JSON.parse(input)."]);
    expect(r.requests).toHaveLength(2);
    expect(r.requests[1]).toContain("Never eval(");
    const last = assistants(r.session).at(-1);
    expect(last?.content).toEqual([expect.objectContaining({ text: "Use JSON.parse(input)." })]);
  });

  it("a hook that throws when the stopped response ends: the response is still replaced, and retried", async () => {
    const hook = {
      ...interruptOn("eval("),
      onResponseEnd: ({ stopReason }: { stopReason: string }) => {
        if (stopReason === "aborted") throw new Error("response-end handler failed");
      },
    };
    const r = await run(host, hook, ["Sure: just call eval(input) and more.", "Use JSON.parse(input)."]);
    expect(r.requests).toHaveLength(2);
    expect(r.requests[1]).toContain("Never eval(");
    const texts = assistants(r.session).map((m) => m.content.map((c) => (c.type === "text" ? c.text : "")).join(""));
    expect(texts.join("")).not.toContain("just call eval");
    if (host === "stock") expect(assistants(r.session).flatMap((m) => m.errorMessage ?? [])).toEqual([]);
  });

  it("a follow-up after a response that ended normally reaches the model's next request", async () => {
    let due = true;
    const r = await run(
      host,
      {
        takeFollowUp: () => {
          if (!due) return undefined;
          due = false;
          return { customType: "test:follow-up", content: "Remember the rule." };
        },
      },
      ["First answer.", "Second answer."],
    );
    expect(r.requests).toHaveLength(2);
    expect(r.requests[1]).toContain("First answer.");
    expect(r.requests[1]).toContain("Remember the rule.");
    expect(r.outcomes).toEqual([]);
  });
});

describe("the abort cap (three interrupts in a row)", () => {
  /** Interrupts each response once, on its first X. */
  const always = (): Partial<StreamHook> => {
    let fired = false;
    return {
      onResponseStart: () => {
        fired = false;
      },
      onDelta: ({ chunk }) => {
        if (fired || !chunk.includes("X")) return undefined;
        fired = true;
        return { customType: "test:retry", content: "No X.", blockReason: "Blocked: no X." };
      },
    };
  };

  it("patched pi: the loop ends the turn at the fourth; the hook hears `capped` with turnEnded", async () => {
    const r = await run("patched", always(), ["XXXX", "XXXX", "XXXX", "XXXX"]);
    expect(r.outcomes.map((o) => `${o.kind}${o.kind === "capped" ? `:${o.turnEnded}` : ""}`)).toEqual([
      "retried",
      "retried",
      "retried",
      "capped:true",
    ]);
    expect(assistants(r.session).at(-1)?.stopReason).toBe("error");
  });

  it("stock pi: the fourth response runs on, and a tool call it was about is blocked with the block reason", async () => {
    const r = await run("stock", always(), ["XXXX", "XXXX", "XXXX", "note:XXXX", "Understood."]);
    expect(r.outcomes.map((o) => `${o.kind}${o.kind === "capped" ? `:${o.turnEnded}` : ""}`)).toEqual([
      "retried",
      "retried",
      "retried",
      "capped:false",
      "blocked",
    ]);
    expect(r.ran).toEqual([]);
    expect(r.requests).toHaveLength(5);
    expect(r.requests[4]).toContain("Blocked: no X.");
    // pi never sends an empty assistant message: the three emptied ones stay out of every request.
    for (const request of r.requests) expect(request).not.toContain('"content":[]');
  });

  it("stock pi: a new prompt starts counting again, even after interrupts whose last retry failed", async () => {
    const r = await run("stock", always(), ["XXXX", "XXXX", "error:overloaded", "XXXX", "Fine."], ["go", "again"]);
    expect(r.outcomes.map((o) => o.kind)).toEqual(["retried", "retried", "retried"]);
    expect(r.outcomes.map((o) => (o.kind === "retried" ? o.consecutive : 0))).toEqual([1, 2, 1]);
    expect(r.requests).toHaveLength(5);
    expect(r.requests[4]).toContain("No X.");
  });

  it("stock pi: a capped call pi never dispatched (an unknown tool) blocks no later call that reuses its id", async () => {
    const r = await run("stock", always(), [
      "XXXX",
      "XXXX",
      "XXXX",
      "call:missing#c1:XXXX",
      "call:note#c1:fine",
      "Done.",
    ]);
    expect(r.outcomes.map((o) => o.kind)).toEqual(["retried", "retried", "retried", "capped"]);
    expect(r.ran).toEqual(["fine"]);
    expect(r.requests).toHaveLength(6);
  });
});
