import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { fauxToolCall } from "@earendil-works/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
// @ts-expect-error: plain .mjs helper shared with the bench and build scripts
import { ensureUpstreamCore } from "../scripts/core-files.mjs";
import { Agent, type AgentEvent, type AgentTool } from "../src/index.ts";
import { fauxAssistantMessage, fauxProvider, streamFn, stringsSchema } from "./helpers.ts";

const registrations: { unregister(): void }[] = [];
afterEach(() => {
  for (const registration of registrations.splice(0)) registration.unregister();
});

type AgentClass = typeof Agent;

async function runScenario(AgentImpl: AgentClass): Promise<string[]> {
  const faux = fauxProvider();
  registrations.push(faux);
  faux.setResponses([
    fauxAssistantMessage([fauxToolCall("echo", { text: "hi" }, { id: "c1" })], { stopReason: "toolUse" }),
    fauxAssistantMessage("finished with a longer closing sentence"),
  ]);
  const tool: AgentTool = {
    name: "echo",
    label: "echo",
    description: "echo",
    parameters: stringsSchema("text"),
    execute: async (_id, params) => ({
      content: [{ type: "text", text: String((params as { text: string }).text) }],
      details: {},
    }),
  };
  const agent = new AgentImpl({
    streamFn,
    initialState: { model: faux.getModel(), systemPrompt: "sys", tools: [tool] },
  });
  const events: string[] = [];
  agent.subscribe((event: AgentEvent) => {
    const detail =
      event.type === "message_update"
        ? event.assistantMessageEvent.type
        : "message" in event && event.message && typeof event.message === "object" && "role" in event.message
          ? event.message.role
          : "";
    events.push(`${event.type}${detail ? `:${detail}` : ""}`);
  });
  await agent.prompt("go");
  agent.followUp({ role: "user", content: [{ type: "text", text: "and again" }], timestamp: 0 });
  faux.setResponses([fauxAssistantMessage("again")]);
  await agent.continue();
  return events;
}

describe("with no hook registered", () => {
  it("emits exactly upstream's event sequence", async () => {
    const upstreamDir: string = ensureUpstreamCore();
    const upstream = (await import(pathToFileURL(join(upstreamDir, "dist", "index.js")).href)) as { Agent: AgentClass };
    const upstreamSource = await import("node:fs").then((fs) =>
      fs.readFileSync(join(upstreamDir, "dist", "agent-loop.js"), "utf8"),
    );
    expect(upstreamSource).not.toContain("[pi-rails]");

    const expected = await runScenario(upstream.Agent);
    const actual = await runScenario(Agent);
    expect(actual).toEqual(expected);
    expect(actual.length).toBeGreaterThan(20);
  });
});
