import { spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getAgentDir } from "@earendil-works/pi-coding-agent";
import { resolveAgentDir } from "@pi-rails/agent-core/kit";
import { afterEach, describe, expect, it } from "vitest";
import { SteeringBridge } from "../src/bridge/steering-bridge.ts";
import { SteeringClient, SteeringRpcError, withSteeringClient } from "../src/client/client.ts";
import { steeringDir, UnsafePathError } from "../src/endpoint/paths.ts";
import { startEndpoint } from "../src/endpoint/server.ts";
import { listSessions } from "../src/endpoint/session-registry.ts";
import { EmptyParams, method } from "../src/protocol/protocol.ts";
import type { Ack } from "../src/queue/types.ts";
import { acksOf, type BridgeHarness, openBridgeSession } from "./helpers.ts";

let harness: BridgeHarness | undefined;
const clients: SteeringClient[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await harness?.dispose();
  harness = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function client(socket: string): Promise<SteeringClient> {
  const c = await SteeringClient.connect(socket);
  clients.push(c);
  return c;
}

/** Send raw bytes, collect `n` response lines. */
function raw(socket: string, payload: string | Buffer, n: number): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const s = connect(socket);
    let buffer = "";
    const lines: unknown[] = [];
    s.on("data", (chunk) => {
      buffer += chunk.toString("utf8");
      let at = buffer.indexOf("\n");
      while (at !== -1) {
        lines.push(JSON.parse(buffer.slice(0, at)));
        buffer = buffer.slice(at + 1);
        at = buffer.indexOf("\n");
      }
      if (lines.length >= n) {
        s.destroy();
        resolve(lines);
      }
    });
    s.on("error", reject);
    s.write(payload);
  });
}

function tempDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "steer-ep-")));
  dirs.push(dir);
  return dir;
}

describe("the steering socket of a real pi session", () => {
  it("listens owner-only at <agentDir>/steering/<session-id>.sock, with a registry file beside it", async () => {
    harness = await openBridgeSession({ script: [{ text: "ok" }] });
    const api = harness.api();
    expect(resolveAgentDir()).toBe(getAgentDir());
    expect(resolveAgentDir({ PI_CODING_AGENT_DIR: "/x/agent" })).toBe("/x/agent");
    const dir = steeringDir(harness.test.agentDir);
    const socket = api.socketPath()!;
    expect(socket).toBe(join(dir, `${api.sessionId}.sock`));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    const info = JSON.parse(readFileSync(join(dir, `${api.sessionId}.json`), "utf8"));
    expect(info).toMatchObject({ sessionId: api.sessionId, pid: process.pid, cwd: harness.test.cwd, socket });
    expect(listSessions(dir).map((s) => s.sessionId)).toEqual([api.sessionId]);
    await harness.dispose();
    harness = undefined;
    expect(listSessions(dir)).toEqual([]);
  });

  it("injects over the socket and streams every seam pass and ack to a subscriber", async () => {
    harness = await openBridgeSession({ script: [{ text: "ok" }] });
    const c = await client(harness.api().socketPath()!);
    const acks: Ack[] = [];
    const seams: string[] = [];
    c.on("steer/ack", (ack) => acks.push(ack));
    c.on("steer/checkpoint", (checkpoint) => seams.push(checkpoint.kind));
    expect(await c.subscribe()).toEqual({ checkpoints: true, acks: true });
    const queued = await c.inject({ content: "FROM-THE-SOCKET", mode: "finish_step" });
    const note = await c.postEvent({ content: "NOTE-FROM-SOCKET" });
    const reminder = await c.remind({ content: "REMINDER-FROM-SOCKET", mode: "interrupt_immediate" });
    expect((await c.pending()).items.map((i) => i.id)).toEqual([queued.id, note.id, reminder.id]);
    await harness.test.prompt("hi");
    const status = await c.status();
    expect(status).toMatchObject({
      sessionId: harness.api().sessionId,
      running: false,
      iteration: 1,
      lastSeam: "loop_exit",
      pending: 0,
    });
    expect(status.features.seams).toBe(true);
    const body = JSON.stringify(harness.server.requests[0]!.messages);
    for (const text of ["FROM-THE-SOCKET", "NOTE-FROM-SOCKET", "REMINDER-FROM-SOCKET"]) expect(body).toContain(text);
    await expect.poll(() => seams.length).toBe(harness.checkpoints.length);
    expect(seams).toEqual(harness.checkpoints.map((cp) => cp.kind));
    expect(acks.map((a) => [a.id, a.state])).toEqual(harness.acks.map((a) => [a.id, a.state]));
    expect(acksOf(acks, queued.id)).toMatchObject([{ state: "delivered", seam: "iteration_start", iteration: 1 }]);
  });

  it("answers bad input with JSON-RPC errors that name the field, and keeps serving", async () => {
    harness = await openBridgeSession({ script: [{ text: "ok" }] });
    const socket = harness.api().socketPath()!;
    const [parse] = await raw(socket, "{not json\n", 1);
    expect(parse).toMatchObject({ id: null, error: { code: -32700 } });
    const [invalid] = await raw(socket, `${JSON.stringify({ hello: 1 })}\n`, 1);
    expect(invalid).toMatchObject({ error: { code: -32600 } });
    const big = Buffer.alloc(1024 * 1024 + 10, 0x61);
    const [tooBig, after] = await raw(
      socket,
      Buffer.concat([big, Buffer.from(`\n${JSON.stringify({ jsonrpc: "2.0", id: 7, method: "steer/status" })}\n`)]),
      2,
    );
    expect(tooBig).toMatchObject({
      id: null,
      error: { code: -32600, message: expect.stringMatching(/exceeds .*1 MiB/) },
    });
    expect(after).toMatchObject({ id: 7, result: { sessionId: harness.api().sessionId } });

    const c = await client(socket);
    const failure = async (promise: Promise<unknown>) => {
      const error = await promise.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(SteeringRpcError);
      return error as SteeringRpcError;
    };
    const unknown = await failure(c.request(method("steer/nope", EmptyParams), {}));
    expect(unknown.code).toBe(-32601);
    expect(unknown.message).toContain('"steer/nope"');
    const noMode = await failure(c.inject({ content: "x" } as never));
    expect(noMode).toMatchObject({ code: -32602, message: "Invalid params: mode: is required" });
    expect(noMode.data).toEqual({ issues: [{ path: "mode", message: "is required" }] });
    const badMode = await failure(c.inject({ content: "x", mode: "wait_for_completion" as never }));
    expect(badMode.message).toMatch(/mode: must be one of interrupt_immediate, finish_step, audit_only/);
    const badTtl = await failure(c.inject({ content: "x", mode: "finish_step", ttlMs: -5 }));
    expect(badTtl.message).toMatch(/ttlMs: must be positive/);
    const extra = await failure(c.inject({ content: "x", mode: "finish_step", colour: "red" } as never));
    expect(extra.message).toMatch(/unknown key\(s\): colour/);
    const empty = await failure(c.inject({ content: "   ", mode: "finish_step" }));
    expect(empty.message).toMatch(/content: must not be blank/);
    expect((await failure(c.revoke(42 as never))).message).toBe("Invalid params: id: must be a string");
    expect((await failure(c.inject({ id: "no spaces", content: "x", mode: "finish_step" }))).message).toMatch(
      /id: must be 1-64/,
    );
    expect((await c.revoke("st_missing")).status).toBe("unknown");
    expect((await c.pending()).items).toEqual([]);

    await harness.test.prompt("still alive?");
    expect(harness.server.requests).toHaveLength(1);
  });

  it("a retry with the producer's id queues nothing twice, before or after delivery", async () => {
    harness = await openBridgeSession({ script: [{ text: "ok" }, { text: "ok" }] });
    const c = await client(harness.api().socketPath()!);
    expect(await c.inject({ id: "job-7:step-1", content: "ONCE", mode: "finish_step" })).toEqual({
      id: "job-7:step-1",
    });
    expect(await c.inject({ id: "job-7:step-1", content: "ONCE", mode: "finish_step" })).toEqual({
      id: "job-7:step-1",
      duplicate: true,
    });
    await harness.test.prompt("hi");
    expect(await c.inject({ id: "job-7:step-1", content: "ONCE", mode: "finish_step" })).toMatchObject({
      duplicate: true,
    });
    await harness.test.prompt("again");
    expect(JSON.stringify(harness.server.requests[0]!.messages).match(/ONCE/g)).toHaveLength(1);
    expect(JSON.stringify(harness.server.requests[1]!.messages).match(/ONCE/g)).toHaveLength(1);
    expect(acksOf(harness.acks, "job-7:step-1")).toHaveLength(1);
  });

  it("keeps an item whose client vanished mid-request and delivers it exactly once", async () => {
    harness = await openBridgeSession({ script: [{ text: "ok" }] });
    const socket = harness.api().socketPath()!;
    await new Promise<void>((resolve) => {
      const s = connect(socket, () => {
        s.write(
          `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "steer/inject", params: { content: "ORPHAN", mode: "finish_step" } })}\n`,
        );
        s.destroy();
        resolve();
      });
    });
    await expect.poll(() => harness!.api().pending().length).toBe(1);
    await harness.test.prompt("hi");
    const delivered = harness.acks.filter((a) => a.state === "delivered");
    expect(delivered).toHaveLength(1);
    expect(JSON.stringify(harness.server.requests[0]!.messages)).toContain("ORPHAN");
  });

  it("1,000 concurrent clients inject: every accepted item is delivered and acknowledged exactly once", async () => {
    harness = await openBridgeSession({ script: [{ text: "ok" }] });
    const socket = harness.api().socketPath()!;
    const results = await Promise.all(
      Array.from({ length: 1000 }, async (_, i) => {
        // Over the connection cap a client is told busy (-32004) and retries: the request was never read.
        return withSteeringClient(
          socket,
          (c) => c.inject({ content: `ITEM-${i}`, mode: i % 2 ? "finish_step" : "interrupt_immediate" }),
          { timeoutMs: 60_000 },
        );
      }),
    );
    const ids = new Set(results.map((r) => r.id));
    expect(ids.size).toBe(1000);
    await harness.test.prompt("go");
    const delivered = harness.acks.filter((a) => a.state === "delivered");
    expect(delivered).toHaveLength(1000);
    expect(new Set(delivered.map((a) => a.id))).toEqual(ids);
    expect(harness.acks).toHaveLength(1000);
    const body = JSON.stringify(harness.server.requests[0]!.messages);
    expect(body).toContain("ITEM-0");
    expect(body).toContain("ITEM-999");
    expect(harness.api().pending()).toEqual([]);
  }, 120_000);
});

describe("endpoint safety", () => {
  const bridge = (id: string) => new SteeringBridge({ sessionId: id, cwd: "/tmp" });

  it("refuses a steering dir that is a symlink, and tightens a loose one it owns", async () => {
    const agentDir = tempDir();
    const elsewhere = tempDir();
    symlinkSync(elsewhere, join(agentDir, "steering"));
    await expect(startEndpoint({ bridge: bridge("s1"), agentDir })).rejects.toThrow(UnsafePathError);

    const other = tempDir();
    mkdirSync(join(other, "steering"), { mode: 0o755 });
    chmodSync(join(other, "steering"), 0o755);
    const endpoint = await startEndpoint({ bridge: bridge("s2"), agentDir: other });
    expect(statSync(join(other, "steering")).mode & 0o777).toBe(0o700);
    await endpoint.close();
  });

  it("refuses a socket path that is a symlink or owned by someone else", async () => {
    const agentDir = tempDir();
    mkdirSync(join(agentDir, "steering"), { mode: 0o700 });
    symlinkSync("/dev/null", join(agentDir, "steering", "s3.sock"));
    await expect(startEndpoint({ bridge: bridge("s3"), agentDir })).rejects.toThrow(/symbolic link/);

    const path = join(agentDir, "steering", "s4.sock");
    writeFileSync(path, "");
    if (process.getuid?.() === 0) chownSync(path, 12345, 12345);
    else rmSync(path);
    const target = process.getuid?.() === 0 ? "s4" : "../../../../../etc/passwd";
    await expect(startEndpoint({ bridge: bridge(target), agentDir })).rejects.toThrow(
      process.getuid?.() === 0 ? /owned by uid 12345/ : /cannot name a socket file/,
    );
  });

  it("only the owner can connect: another user is refused by the dir's 0700 and, past it, the socket's 0600", async () => {
    const agentDir = tempDir();
    chmodSync(agentDir, 0o755);
    const endpoint = await startEndpoint({ bridge: bridge("owner"), agentDir });
    try {
      expect(statSync(join(agentDir, "steering")).mode & 0o777).toBe(0o700);
      expect(statSync(endpoint.socketPath).mode & 0o777).toBe(0o600);
      if (process.getuid?.() !== 0) return; // connecting as another user needs root to switch users
      const asNobody = () => {
        const script = `const s=require("node:net").connect(${JSON.stringify(endpoint.socketPath)});s.on("connect",()=>{console.log("connected");s.destroy()});s.on("error",(e)=>console.log(e.code))`;
        return spawnSync(process.execPath, ["-e", script], { uid: 65534, gid: 65534, encoding: "utf8" }).stdout.trim();
      };
      expect(asNobody()).toBe("EACCES");
      chmodSync(join(agentDir, "steering"), 0o711);
      expect(asNobody()).toBe("EACCES");
      // Control: with the socket opened up, the same process gets in, so the refusals above were the modes.
      chmodSync(endpoint.socketPath, 0o666);
      expect(asNobody()).toBe("connected");
    } finally {
      await endpoint.close();
    }
  });

  it("cleans the files of dead sessions and refuses to take over a live one", async () => {
    const agentDir = tempDir();
    const dir = join(agentDir, "steering");
    mkdirSync(dir, { mode: 0o700 });
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).stdout.toString();
    writeFileSync(
      join(dir, "old.json"),
      JSON.stringify({
        sessionId: "old",
        pid: Number(dead),
        cwd: "/",
        socket: join(dir, "old.sock"),
        startedAt: "2020-01-01T00:00:00Z",
      }),
    );
    writeFileSync(join(dir, "old.sock"), "");
    const first = await startEndpoint({ bridge: bridge("live"), agentDir });
    expect(listSessions(dir, { clean: false }).map((s) => s.sessionId)).toEqual(["live"]);
    expect(() => statSync(join(dir, "old.sock"))).toThrow();
    // Same session id, another (live) owner pid in the registry file: refused.
    const info = JSON.parse(readFileSync(first.infoPath, "utf8"));
    writeFileSync(first.infoPath, JSON.stringify({ ...info, pid: process.ppid, pidStartTime: undefined }));
    await expect(startEndpoint({ bridge: bridge("live"), agentDir })).rejects.toThrow(
      /already served by live pi process/,
    );
    writeFileSync(first.infoPath, JSON.stringify(info));
    await first.close();
  });
});
