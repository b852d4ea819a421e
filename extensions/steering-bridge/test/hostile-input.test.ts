import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { SteeringClient, SteeringRpcError } from "../src/client/client.ts";
import { SteeringInputError } from "../src/queue/steering-queue.ts";
import type { SteeringItem } from "../src/queue/types.ts";
import { type BridgeHarness, openBridgeSession } from "./helpers.ts";

let harness: BridgeHarness | undefined;
const clients: SteeringClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await harness?.dispose();
  harness = undefined;
});

/** Send raw bytes on a fresh connection; collect `n` reply lines (raw text and parsed), or fail after 5 s. */
function raw(socket: string, payload: string | Buffer, n: number): Promise<{ text: string; value: unknown }[]> {
  return new Promise((resolve, reject) => {
    const s = connect(socket);
    let buffer = "";
    const lines: { text: string; value: unknown }[] = [];
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error(`got ${lines.length} of ${n} replies in 5 s`));
    }, 5000);
    s.on("data", (chunk) => {
      buffer += chunk.toString("utf8");
      let at = buffer.indexOf("\n");
      while (at !== -1) {
        const text = buffer.slice(0, at);
        lines.push({ text, value: JSON.parse(text) });
        buffer = buffer.slice(at + 1);
        at = buffer.indexOf("\n");
      }
      if (lines.length >= n) {
        clearTimeout(timer);
        s.destroy();
        resolve(lines);
      }
    });
    s.on("error", reject);
    s.write(payload);
  });
}

const request = (id: unknown, method = "steer/status", params: unknown = {}) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, params });

describe("no frame can end the agent's run", () => {
  it("a 10 KB frame whose id is nested 5,000 levels deep is answered -32600 with id null; pi runs on", async () => {
    harness = await openBridgeSession({ script: [{ text: "still here" }] });
    const socket = harness.api().socketPath()!;
    const deepId = `${"[".repeat(5000)}1${"]".repeat(5000)}`;
    const [reply] = await raw(socket, `{"jsonrpc":"2.0","id":${deepId},"method":"steer/status"}\n`, 1);
    expect(reply!.value).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
    expect((reply!.value as { error: { message: string } }).error.message).toMatch(/id must be a string/);
    const deepParams = `{"jsonrpc":"2.0","id":2,"method":"steer/inject","params":{"content":${deepId},"mode":"finish_step"}}\n`;
    const [params] = await raw(socket, deepParams, 1);
    expect(params!.value).toMatchObject({ id: 2, error: { code: -32602 } });
    await harness.test.prompt("are you alive?");
    expect(harness.server.requests).toHaveLength(1);
  });

  it("ids other than string, number or null are refused and never echoed", async () => {
    harness = await openBridgeSession();
    const socket = harness.api().socketPath()!;
    for (const id of [{ secret: "ECHO-ME" }, ["ECHO-ME"], true, "x".repeat(300)]) {
      const [reply] = await raw(socket, `${request(id)}\n`, 1);
      expect(reply!.value).toMatchObject({ id: null, error: { code: -32600 } });
      expect(reply!.text).not.toContain("ECHO-ME");
      expect(reply!.text).not.toContain("xxxxxxxx");
    }
    const [ok] = await raw(socket, `${request("job-1")}\n`, 1);
    expect(ok!.value).toMatchObject({ id: "job-1", result: { sessionId: harness.api().sessionId } });
  });

  it("a batch is answered with an array, even for one request; a batch of notifications gets no answer", async () => {
    harness = await openBridgeSession();
    const socket = harness.api().socketPath()!;
    const [one] = await raw(socket, `[${request(1)}]\n`, 1);
    expect(Array.isArray(one!.value)).toBe(true);
    expect(one!.value).toMatchObject([{ id: 1, result: { sessionId: harness.api().sessionId } }]);
    const [mixed] = await raw(socket, `[${request(1)}, {"id": {"deep": true}}, 5]\n`, 1);
    expect(mixed!.value).toMatchObject([
      { id: 1, result: {} },
      { id: null, error: { code: -32600 } },
      { id: null, error: { code: -32600 } },
    ]);
    const notification = JSON.stringify({ jsonrpc: "2.0", method: "steer/status" });
    const [after] = await raw(socket, `[${notification}]\n${request(9)}\n`, 1);
    expect(after!.value).toMatchObject({ id: 9 });
    const [empty] = await raw(socket, "[]\n", 1);
    expect(empty!.value).toMatchObject({ id: null, error: { code: -32600 } });
  });
});

describe("no producer can make pi hold unbounded state", () => {
  it("content per item is limited for in-process callers and socket clients alike", async () => {
    harness = await openBridgeSession();
    const api = harness.api();
    const big = "x".repeat(256 * 1024 + 1);
    let error: unknown;
    try {
      api.inject({ content: big, mode: "finish_step", kind: "message" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SteeringInputError);
    expect(error).toMatchObject({ field: "content", message: expect.stringMatching(/at most 262144 bytes/) });
    const c = await SteeringClient.connect(api.socketPath()!);
    clients.push(c);
    const refused = await c.inject({ content: big, mode: "finish_step" }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: -32602, message: expect.stringMatching(/content: must be at most/) });
    expect(api.pending()).toEqual([]);
  });

  it("pending items and pending bytes are capped (-32002); steer/pending is paged and small", async () => {
    harness = await openBridgeSession();
    const api = harness.api();
    const c = await SteeringClient.connect(api.socketPath()!);
    clients.push(c);
    // 32 items of 256 KiB fill the 8 MiB of pending content exactly; one byte more is refused.
    const chunk = "y".repeat(256 * 1024);
    for (let i = 0; i < 32; i++) api.inject({ content: chunk, mode: "finish_step", kind: "message" });
    const full = await c.inject({ content: "z", mode: "finish_step" }).catch((e: unknown) => e);
    expect(full).toBeInstanceOf(SteeringRpcError);
    expect(full).toMatchObject({ code: -32002, data: { limit: "pendingBytes", max: 8 * 1024 * 1024 } });
    expect(() => api.inject({ content: "z", mode: "finish_step", kind: "message" })).toThrow(/Queue full/);

    // The reply to pending stays far under a frame, and says how much waits.
    const [reply] = await raw(api.socketPath()!, `${request(1, "steer/pending")}\n`, 1);
    expect(reply!.text.length).toBeLessThan(64 * 1024);
    expect(reply!.value).toMatchObject({
      result: { total: 32, totalBytes: 32 * 256 * 1024, items: expect.any(Array) },
    });
    const first = (reply!.value as { result: { items: (SteeringItem & { truncated?: boolean })[] } }).result.items[0]!;
    expect(first).toMatchObject({ contentBytes: 256 * 1024, truncated: true });
    expect(first.content).toHaveLength(200);

    for (const item of api.pending()) api.revoke(item.id);
    for (let i = 0; i < 1000; i++) api.inject({ content: `item ${i}`, mode: "finish_step", kind: "message" });
    const tooMany = await c.inject({ content: "one more", mode: "finish_step" }).catch((e: unknown) => e);
    expect(tooMany).toMatchObject({ code: -32002, data: { limit: "pendingItems", max: 1000 } });

    // Paging through: every id once, in arrival order.
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await c.pending({ limit: 200, ...(cursor ? { cursor } : {}) });
      seen.push(...page.items.map((i) => i.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(api.pending().map((i) => i.id));
    expect(seen).toHaveLength(1000);
    const badCursor = await c.pending({ cursor: "nope" }).catch((e: unknown) => e);
    expect(badCursor).toMatchObject({ code: -32602, message: expect.stringMatching(/cursor/) });
  });
});
