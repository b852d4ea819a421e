import {
  createTestSession,
  type ModelServer,
  type ScriptedResponse,
  startProviderServer,
  type TestSession,
  WIRE_FORMATS,
} from "@pi-rails/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { createCacheTtlView } from "../src/extension.ts";
import { visibleText, type WireApi, wireProblems } from "../src/testing/wire.ts";
import { bigFile } from "./helpers.ts";

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

describe.each(WIRE_FORMATS)("cache-ttl-view on %s (strict loopback server)", (format) => {
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
      model: { kind: "provider", server },
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
  });
});
