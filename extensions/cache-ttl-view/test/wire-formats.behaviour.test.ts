import {
  createTestSession,
  type ModelServer,
  type ScriptedResponse,
  startProviderServer,
  type TestSession,
  WIRE_FORMATS,
  type WireFormat,
} from "@pi-rails/testkit";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createCacheTtlView } from "../src/extension.ts";
import { visibleText, type WireApi, wireProblems } from "../src/testing/wire.ts";
import { bigFile, conversation, withoutCacheMarkers } from "./helpers.ts";

/**
 * The extension in a real pi AgentSession on every wire format pi-ai speaks, against testkit's loopback servers in
 * strict mode (they answer 400 like the real API: pairing, reasoning items, signatures, empty content, thinking
 * first in a tool loop). Several turns of thinking and tool calls, an expiry, then a tool loop on the pruned view.
 */

const MIN = 60_000;
let server: ModelServer | undefined;
let t: TestSession | undefined;
afterEach(async () => {
  await t?.dispose();
  await server?.close();
  t = undefined;
  server = undefined;
});

const script = (_request: unknown, index: number): ScriptedResponse =>
  index % 2 === 0
    ? {
        thinking: `REASONING-${index} I will read the file first ${"because ".repeat(150)}`,
        toolCalls: [{ name: "read", arguments: { path: "big.txt" } }],
        chunkSize: 400,
      }
    : {
        thinking: `REASONING-${index} now summarise ${"since ".repeat(150)}`,
        text: `answer ${index}: ${"the file holds numbered payload lines. ".repeat(30)}`,
        chunkSize: 400,
      };

/** Every format with its default model, and Gemini 3 (its function calls of the current turn must be signed). */
const TARGETS: [WireFormat, string | undefined][] = [
  ...WIRE_FORMATS.map((format): [WireFormat, undefined] => [format, undefined]),
  ["google-generative-ai", "gemini-3.1-pro-preview"],
];

describe.each(TARGETS)("cache-ttl-view on %s %s (strict loopback server)", (format, modelId) => {
  it("sends only requests the API accepts, prunes after expiry, and never re-sends reasoning as text", async () => {
    const clock = { now: 1_000_000 };
    server = await startProviderServer(format, { strict: true, script });
    // Chat completions' loopback has no known cache TTL (it is off and says so); the others derive it from model.api.
    const cacheTtl = {
      keepRecentTurns: 2,
      minGainTokens: 0,
      ...(format === "openai-completions" ? { ttlSeconds: 300 } : {}),
    };
    t = await createTestSession({
      model: { kind: "provider", server, ...(modelId ? { modelId } : {}) },
      thinkingLevel: "medium",
      files: { "big.txt": bigFile(20) },
      projectSettings: { cacheTtl },
      extensions: [createCacheTtlView({ now: () => clock.now })],
      persist: true,
    });
    for (let turn = 0; turn < 5; turn++) {
      await t.prompt(`turn ${turn}: read big.txt and summarise it`);
      clock.now += 30_000;
    }
    const before = server.requests.length;
    clock.now += 10 * MIN;
    await t.prompt("after the break: read big.txt again");
    const requests = server.requests;
    if (modelId) expect(requests.every((r) => r.url.includes(`/models/${modelId}:`))).toBe(true);
    expect(requests.map((r) => r.rejected?.message).filter(Boolean)).toEqual([]);
    expect(requests.every((r) => r.completed)).toBe(true);

    const pruning = requests[before]!;
    const body = JSON.stringify(pruning.body);
    expect(body).toContain("Context was pruned");
    expect(body.split("line 100: payload").length - 1).toBeLessThan(3); // the older reads are gone
    const api = format as WireApi;
    expect(wireProblems(api, pruning.body)).toEqual([]);
    expect(visibleText(api, pruning.body)).not.toMatch(/REASONING-\d+/);
    // The tool loop on the pruned view (the request after the read) is accepted too.
    expect(requests.length).toBe(before + 2);
    expect(wireProblems(api, requests[before + 1]!.body)).toEqual([]);
    // The pruned view is the new cached prefix: the next request repeats it byte for byte (cache markers aside,
    // which move to the newest block) and only appends, so the provider's cache reads it again.
    const [pruned, next] = [conversation(pruning), conversation(requests[before + 1]!)];
    expect(next.length).toBeGreaterThan(pruned.length);
    expect(next.slice(0, pruned.length)).toEqual(pruned);
    const system = (body: Record<string, unknown>) =>
      withoutCacheMarkers(body.system ?? body.instructions ?? body.systemInstruction);
    expect(system(requests[before + 1]!.body)).toEqual(system(pruning.body));
  });
});

describe("the TTL comes from model.api, not the provider's name", () => {
  it("Claude behind a custom provider name (a corporate gateway) is pruned like Claude", async () => {
    const clock = { now: 1_000_000 };
    server = await startProviderServer("anthropic-messages", { strict: true, script });
    t = await createTestSession({
      model: { kind: "provider", server },
      thinkingLevel: "medium",
      files: { "big.txt": bigFile(20) },
      projectSettings: { cacheTtl: { keepRecentTurns: 2, minGainTokens: 0 } },
      extensions: [
        (pi) =>
          pi.registerProvider("corp-gateway", {
            baseUrl: server?.baseUrl ?? "",
            apiKey: "test-key",
            api: "anthropic-messages",
            models: [
              {
                id: "claude-sonnet-4-5",
                name: "Claude via the gateway",
                reasoning: true,
                input: ["text", "image"],
                cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
                contextWindow: 200_000,
                maxTokens: 16_384,
              },
            ],
          }),
        createCacheTtlView({ now: () => clock.now }),
      ],
      persist: true,
    });
    const gateway = t.session.modelRuntime.getModel("corp-gateway", "claude-sonnet-4-5");
    expect(gateway?.api).toBe("anthropic-messages");
    await t.session.setModel(gateway as NonNullable<typeof gateway>);
    expect(t.session.model?.provider).toBe("corp-gateway");
    for (let turn = 0; turn < 4; turn++) {
      await t.prompt(`turn ${turn}: read big.txt`);
      clock.now += 30_000;
    }
    const before = server.requests.length;
    clock.now += 10 * MIN;
    await t.prompt("after the break");
    expect(server.requests.map((r) => r.rejected?.message).filter(Boolean)).toEqual([]);
    expect(JSON.stringify(server.requests[before]?.body)).toContain(
      "Context was pruned because the prompt cache TTL (300s)",
    );
  });

  it("a model with no known cache TTL is not pruned, and the extension says once why (also across /reload)", async () => {
    const clock = { now: 1_000_000 };
    const err: string[] = [];
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      err.push(String(chunk));
      return true;
    });
    try {
      server = await startProviderServer("openai-completions", { script });
      t = await createTestSession({
        model: { kind: "provider", server },
        files: { "big.txt": bigFile(20) },
        projectSettings: { cacheTtl: { keepRecentTurns: 1, minGainTokens: 0 } },
        extensions: [createCacheTtlView({ now: () => clock.now })],
      });
      await t.prompt("read big.txt");
      clock.now += 10 * MIN;
      await t.prompt("later");
      await t.prompt("and later");
      // A fresh extension instance with the same agent dir and model: nothing new to say.
      await t.session.reload();
      await t.prompt("after the reload");
    } finally {
      spy.mockRestore();
    }
    expect(JSON.stringify(server.requests.at(-1)?.body)).not.toContain("Context was pruned");
    const said = err.join("").split("pruning is off: the prompt-cache TTL of loopback/loopback-model");
    expect(said).toHaveLength(2); // once
    expect(err.join("")).toContain("set cacheTtl.ttlSeconds to prune");
  });
});
