/**
 * createTestSession builds a real pi AgentSession through the SDK; these tests check it with the
 * faux provider and with the loopback server.
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { getCurrentSystemPrompt } from "@earendil-works/pi-ai";
import { type ExtensionAPI, getAgentDir } from "@earendil-works/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import {
  createTestSession,
  deltasOf,
  fauxAssistantMessage,
  fauxToolCall,
  type ModelServer,
  messageText,
  startModelServer,
  type TestSession,
} from "../src/index.ts";
import { MARKER } from "./fixtures/marker-extension.ts";

const fixtureExtension = fileURLToPath(new URL("./fixtures/marker-extension.ts", import.meta.url));

let t: TestSession | undefined;
let server: ModelServer | undefined;
afterEach(async () => {
  await t?.dispose();
  t = undefined;
  await server?.close();
  server = undefined;
});

/** Roles of the conversation; pi 1.6 keeps the prompt and tool declarations as system messages in the transcript. */
const roles = (messages: AgentMessage[]) => messages.flatMap((m) => (m.role === "system" ? [] : [m.role]));

describe("createTestSession with the faux model", () => {
  it("prompt() runs the real agent loop and yields the scripted answer", async () => {
    t = await createTestSession({ model: { kind: "faux", responses: [fauxAssistantMessage("Hello there, tester")] } });

    const reply = await t.prompt("hi");

    expect(messageText(reply?.content)).toBe("Hello there, tester");
    expect(roles(t.session.messages)).toEqual(["user", "assistant"]);
    expect(t.session.messages[0]?.role).toBe("system");
    expect(messageText(t.session.messages[1])).toBe("hi");
    const textDeltas = deltasOf(t.events, "text_delta");
    expect(textDeltas).toEqual(["Hell", "o th", "ere,", " tes", "ter"]);
    const types = t.events.map((e) => e.type);
    expect(types.indexOf("agent_start")).toBeLessThan(types.indexOf("agent_end"));
    expect(t.faux?.state.callCount).toBe(1);
  });

  it("runs tool calls through pi's real tools in the sandbox cwd", async () => {
    t = await createTestSession({
      files: { "notes/a.txt": "sandbox file content" },
      model: {
        kind: "faux",
        responses: [fauxAssistantMessage(fauxToolCall("read", { path: "notes/a.txt" }), { stopReason: "toolUse" })],
      },
    });
    t.faux?.appendResponses([fauxAssistantMessage("done reading")]);

    const reply = await t.prompt("read notes/a.txt");

    expect(messageText(reply?.content)).toBe("done reading");
    expect(roles(t.session.messages)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    const toolResult = t.session.messages.find((m) => m.role === "toolResult") as {
      content: unknown;
      isError: boolean;
    };
    expect(toolResult.isError).toBe(false);
    expect(messageText(toolResult.content)).toContain("sandbox file content");
  });

  it("persists user and assistant messages to a real session file", async () => {
    t = await createTestSession({ persist: true, model: { kind: "faux", responses: [fauxAssistantMessage("saved")] } });
    await t.prompt("remember me");

    expect(t.sessionFile).toBeDefined();
    expect(t.sessionFile?.startsWith(join(t.agentDir, "sessions"))).toBe(true);
    const entries = t.readSessionEntries();
    expect(entries[0]).toMatchObject({ type: "session", cwd: t.cwd });
    const messages = entries.flatMap((e) => (e.type === "message" && e.message.role !== "system" ? [e.message] : []));
    expect(roles(messages)).toEqual(["user", "assistant"]);
    expect(messageText((messages[0] as { content: unknown }).content)).toBe("remember me");
    expect(messageText((messages[1] as { content: unknown }).content)).toBe("saved");
  });

  it("keeps the session in memory unless persist is set", async () => {
    t = await createTestSession({ model: { kind: "faux", responses: [fauxAssistantMessage("x")] } });
    await t.prompt("y");
    expect(t.sessionFile).toBeUndefined();
    expect(t.readSessionEntries()).toEqual([]);
  });

  it("starts inline extensions with session_start and loads extension paths like pi -e", async () => {
    const seen: { reason: string; cwd: string }[] = [];
    const inline = (pi: ExtensionAPI) => {
      pi.on("session_start", (event, ctx) => {
        seen.push({ reason: event.reason, cwd: ctx.cwd });
      });
    };
    let sentPrompt = "";
    t = await createTestSession({
      persist: true,
      extensions: [inline],
      extensionPaths: [fixtureExtension],
      model: {
        kind: "faux",
        responses: [
          (context) => {
            sentPrompt = getCurrentSystemPrompt(context.messages);
            return fauxAssistantMessage("ok");
          },
        ],
      },
    });

    expect(seen).toEqual([{ reason: "startup", cwd: t.cwd }]);
    await t.prompt("go");
    expect(sentPrompt).toContain(MARKER);
    const custom = t.readSessionEntries().find((e) => e.type === "custom");
    expect(custom).toMatchObject({ customType: "testkit-fixture", data: { cwd: t.cwd } });
    expect(t.extensionErrors).toEqual([]);
  });

  it("fails clearly when an extension path does not load", async () => {
    await expect(
      createTestSession({ extensionPaths: [join(fileURLToPath(new URL(".", import.meta.url)), "nope.ts")] }),
    ).rejects.toThrow(/extensions failed to load/);
  });

  it("sandboxes HOME, the agent dir, settings and files, and removes them on dispose", async () => {
    const realHome = homedir();
    t = await createTestSession({
      files: { "src/x.ts": "export {};\n" },
      agentFiles: { "rules/r.md": "# rule\n" },
      settings: { retry: { maxRetries: 7 }, rulebook: { enabled: true } },
      projectSettings: { retry: { maxRetries: 9 } },
    });
    const { root, cwd, agentDir, home } = t;

    expect(homedir()).toBe(home);
    expect(getAgentDir()).toBe(agentDir);
    expect(agentDir).toBe(join(home, ".pi", "agent"));
    expect(readFileSync(join(cwd, "src/x.ts"), "utf8")).toBe("export {};\n");
    expect(existsSync(join(agentDir, "rules/r.md"))).toBe(true);
    expect(JSON.parse(readFileSync(join(agentDir, "settings.json"), "utf8")).rulebook).toEqual({ enabled: true });
    // Project settings override global ones, as in pi.
    expect(t.session.settingsManager.getRetrySettings().maxRetries).toBe(9);

    await t.dispose();
    t = undefined;
    expect(existsSync(root)).toBe(false);
    expect(homedir()).toBe(realHome);
  });
});

describe("createTestSession with the loopback model", () => {
  it("sends pi's system prompt and the user message to the server and shows its answer", async () => {
    server = await startModelServer({ script: [{ text: "Loopback says hi", thinking: "short thought" }] });
    t = await createTestSession({ model: { kind: "loopback", server } });

    const reply = await t.prompt("hello loopback");

    expect(messageText(reply?.content)).toBe("Loopback says hi");
    expect(reply?.provider).toBe("loopback");
    expect(server.requests).toHaveLength(1);
    const [system, ...rest] = server.requests[0]!.messages;
    expect(system?.role).toBe("system");
    expect(messageText(system?.content)).toBe(t.session.systemPrompt);
    expect(messageText(system?.content)).toContain("pi");
    expect(rest.map((m) => m.role)).toEqual(["user"]);
    expect(messageText(rest[0]?.content)).toBe("hello loopback");
    const thinking = deltasOf(t.events, "thinking_delta");
    expect(thinking.join("")).toBe("short thought");
  });

  it("replays the conversation on the next request", async () => {
    server = await startModelServer({ script: [{ text: "first answer" }, { text: "second answer" }] });
    t = await createTestSession({ model: { kind: "loopback", server } });
    await t.prompt("one");
    await t.prompt("two");

    const second = server.requests[1]!.messages.slice(1);
    expect(second.map((m) => [m.role, messageText(m.content)])).toEqual([
      ["user", "one"],
      ["assistant", "first answer"],
      ["user", "two"],
    ]);
  });

  it("runs a streamed tool call and sends the tool result back on the next request", async () => {
    server = await startModelServer({
      script: [
        { toolCalls: [{ id: "call_read", name: "read", arguments: { path: "hello.txt" } }], chunkSize: 3 },
        { text: "The file says hi." },
      ],
    });
    t = await createTestSession({ model: { kind: "loopback", server }, files: { "hello.txt": "hi from disk" } });

    const reply = await t.prompt("what is in hello.txt?");

    expect(messageText(reply)).toBe("The file says hi.");
    expect(deltasOf(t.events, "toolcall_delta").length).toBeGreaterThan(3);
    expect(server.requests).toHaveLength(2);
    const followUp = server.requests[1]!.messages;
    expect(followUp.at(-2)).toMatchObject({
      role: "assistant",
      tool_calls: [{ id: "call_read", type: "function", function: { name: "read" } }],
    });
    expect(followUp.at(-1)).toMatchObject({ role: "tool", tool_call_id: "call_read" });
    expect(messageText(followUp.at(-1))).toContain("hi from disk");
  });

  it("sees the HTTP stream closed early when an extension aborts mid-stream", async () => {
    server = await startModelServer({ script: [{ text: "y".repeat(300), chunkSize: 1, delayMs: 5 }] });
    const abortingExtension = (pi: ExtensionAPI) => {
      pi.on("message_update", (event, ctx) => {
        if (event.assistantMessageEvent.type === "text_delta" && messageText(event.message).length >= 10) ctx.abort();
      });
    };
    t = await createTestSession({ model: { kind: "loopback", server }, extensions: [abortingExtension] });

    const reply = await t.prompt("stream a lot");
    await server.waitForIdle();

    expect(reply?.stopReason).toBe("aborted");
    const request = server.requests[0]!;
    expect(request.closedEarly).toBe(true);
    expect(request.completed).toBe(false);
    expect(request.deltasSent).toBeLessThan(request.deltasPlanned);
  });
});
