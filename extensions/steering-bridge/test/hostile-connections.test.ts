import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CliHome, type ModelServer, prepareCliHome, runPi, startModelServer } from "@pi-rails/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { SteeringBridge } from "../src/bridge/steering-bridge.ts";
import { type Endpoint, startEndpoint } from "../src/endpoint/server.ts";
import { PACKAGE_DIR } from "./steer-cli.ts";

const sockets: Socket[] = [];
const dirs: string[] = [];
let endpoint: Endpoint | undefined;
let server: ModelServer | undefined;
let home: CliHome | undefined;
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await endpoint?.close();
  endpoint = undefined;
  await server?.close();
  server = undefined;
  home?.dispose();
  home = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A connection that records what the server sends and when it closed. */
function open(path: string): Promise<{ socket: Socket; lines: () => unknown[]; closed: () => boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    sockets.push(socket);
    let buffer = "";
    let closed = false;
    socket.on("data", (chunk) => {
      buffer += chunk.toString("utf8");
    });
    socket.on("close", () => {
      closed = true;
    });
    socket.on("error", () => {});
    socket.once("connect", () =>
      resolve({
        socket,
        lines: () =>
          buffer
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l)),
        closed: () => closed,
      }),
    );
    socket.once("error", reject);
  });
}

describe("the endpoint bounds what clients can make pi hold", () => {
  it("caps connections (-32004), closes idle ones and ones that leave a frame unfinished (-32005), keeps subscribers", async () => {
    const agentDir = realpathSync(mkdtempSync(join(tmpdir(), "steer-conn-")));
    dirs.push(agentDir);
    endpoint = await startEndpoint({
      bridge: new SteeringBridge({ sessionId: "conn", cwd: agentDir }),
      agentDir,
      limits: { maxConnections: 3, idleTimeoutMs: 400, frameTimeoutMs: 400 },
    });
    const path = endpoint.socketPath;
    const idle = await open(path);
    const half = await open(path);
    half.socket.write(`{"jsonrpc":"2.0","id":1,"method":"steer/status"${" ".repeat(64 * 1024)}`);
    const subscriber = await open(path);
    subscriber.socket.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "steer/subscribe", params: {} })}\n`);
    await expect.poll(() => subscriber.lines().length).toBe(1);
    const fourth = await open(path);
    await expect.poll(() => fourth.closed()).toBe(true);
    expect(fourth.lines()).toMatchObject([{ id: null, error: { code: -32004, data: { max: 3 } } }]);
    expect(endpoint.connections()).toBe(3);

    await expect.poll(() => idle.closed() && half.closed(), { timeout: 5000 }).toBe(true);
    expect(idle.lines()).toMatchObject([{ id: null, error: { code: -32005, message: expect.stringMatching(/idle/) } }]);
    expect(half.lines()).toMatchObject([
      { id: null, error: { code: -32005, message: expect.stringMatching(/frame was left unfinished/) } },
    ]);
    expect(subscriber.closed()).toBe(false);
    expect(endpoint.connections()).toBe(1);
  });

  it("pi -p with 128 descriptors: 300 hostile connections parking half frames, and the model call still succeeds", async () => {
    server = await startModelServer({
      script: [
        { toolCalls: [{ id: "s1", name: "bash", arguments: { command: "sleep 2" } }] },
        { text: "MODEL-CALL-OK" },
      ],
    });
    home = prepareCliHome({ server });
    const pi = runPi(["-e", PACKAGE_DIR, "-p", "go"], { home, timeoutMs: 60_000 });
    await server.waitForRequests(1, 30_000);
    const steering = join(home.agentDir, "steering");
    const registry = readdirSync(steering).find((name) => name.endsWith(".json"))!;
    const { pid, socket } = JSON.parse(readFileSync(join(steering, registry), "utf8")) as {
      pid: number;
      socket: string;
    };
    const limited = spawnSync("prlimit", ["--pid", String(pid), "--nofile=128:128"], { encoding: "utf8" });
    expect(limited.status, limited.stderr).toBe(0);
    const descriptors = () => readdirSync(`/proc/${pid}/fd`).length;
    const before = descriptors();
    const halfFrame = Buffer.alloc(64 * 1024, 0x20);
    const hostile = await Promise.all(
      Array.from({ length: 300 }, () =>
        open(socket).then(
          (c) => {
            c.socket.write(halfFrame);
            return c;
          },
          () => undefined,
        ),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    // pi holds at most the cap (32) of them; the rest were turned away at once.
    const during = descriptors();
    expect(during - before).toBeLessThanOrEqual(32 + 4);
    const result = await pi;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("MODEL-CALL-OK");
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.completed).toBe(true);
    // Never more than the cap was held open by pi at once.
    expect(hostile.every((c) => c?.closed())).toBe(true);
  }, 90_000);
});
