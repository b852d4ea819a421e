import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SteeringBridge } from "../src/bridge/steering-bridge.ts";
import { main } from "../src/cli/main.ts";
import { SteeringClient } from "../src/client/client.ts";
import { findSessions, resolveSession } from "../src/client/discover.ts";
import { type Endpoint, startEndpoint } from "../src/endpoint/server.ts";

const dirs: string[] = [];
const endpoints: Endpoint[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  await Promise.all(endpoints.splice(0).map((e) => e.close()));
  for (const child of children.splice(0)) child.kill("SIGKILL");
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix = "steer-live-"): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  dirs.push(dir);
  return dir;
}

async function serve(agentDir: string, sessionId: string, cwd = agentDir, runtimeDir?: string): Promise<Endpoint> {
  const endpoint = await startEndpoint({
    bridge: new SteeringBridge({ sessionId, cwd }),
    agentDir,
    ...(runtimeDir ? { runtimeDir } : {}),
  });
  endpoints.push(endpoint);
  return endpoint;
}

/** Run pi-steer's main in-process; stdout and stderr captured. */
async function steer(argv: string[], cwd: string, agentDir: string) {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    cwd,
    env: { PI_CODING_AGENT_DIR: agentDir },
  });
  return { code, stdout, stderr };
}

describe("liveness is more than the pid existing", () => {
  it("a stale registry entry whose pid now names an unrelated live process does not switch the socket off", async () => {
    const unrelated = spawn("sleep", ["30"]);
    children.push(unrelated);
    const agentDir = tempDir();
    const dir = join(agentDir, "steering");
    mkdirSync(dir, { mode: 0o700 });
    for (const [id, startTime] of [
      ["reused-a", 1], // the recorded start time (1 tick after boot) is not the sleep's: another process
      ["reused-b", undefined], // no start time recorded: the dead socket decides
    ] as const) {
      const socket = join(dir, `${id}.sock`);
      writeFileSync(socket, ""); // what a SIGKILLed pi leaves: a socket path nobody listens on
      const stale = { sessionId: id, pid: unrelated.pid, cwd: "/", socket, startedAt: "2020-01-01T00:00:00Z" };
      writeFileSync(join(dir, `${id}.json`), JSON.stringify({ ...stale, pidStartTime: startTime }));
      const endpoint = await serve(agentDir, id);
      const client = await SteeringClient.connect(endpoint.socketPath);
      expect((await client.status()).sessionId).toBe(id);
      await client.close();
    }
    expect(findSessions({ agentDir }).every((s) => s.pid === process.pid)).toBe(true);
  });

  it("a suspended pi: every request times out with a clear message instead of hanging", async () => {
    const agentDir = tempDir();
    // A real endpoint in a child process, then SIGSTOP: the kernel still accepts connections, nobody answers.
    const script = `
      const { SteeringBridge } = await import(${JSON.stringify(join(import.meta.dirname, "..", "dist", "bridge", "steering-bridge.js"))});
      const { startEndpoint } = await import(${JSON.stringify(join(import.meta.dirname, "..", "dist", "endpoint", "server.js"))});
      const endpoint = await startEndpoint({ bridge: new SteeringBridge({ sessionId: "stopped", cwd: ${JSON.stringify(agentDir)} }), agentDir: ${JSON.stringify(agentDir)} });
      process.stdout.write("ready\\n");
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    children.push(child);
    await new Promise<void>((resolve) => child.stdout!.once("data", () => resolve()));
    child.kill("SIGSTOP");
    try {
      const started = Date.now();
      const result = await steer(["status", "--json", "--request-timeout", "500"], agentDir, agentDir);
      expect(result.code).toBe(1);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(JSON.parse(result.stdout)).toMatchObject({
        error: { kind: "timeout", method: "steer/status", message: expect.stringMatching(/suspended/) },
      });
    } finally {
      child.kill("SIGCONT");
    }
  });

  it("pi-steer sessions ignores a steering dir that is a symbolic link", async () => {
    const real = tempDir();
    await serve(real, "linked");
    expect(findSessions({ agentDir: real }).map((s) => s.sessionId)).toEqual(["linked"]);
    const other = tempDir();
    symlinkSync(join(real, "steering"), join(other, "steering"));
    const listed = await steer(["sessions", "--json"], other, other);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([]);
  });
});

describe("pi-steer", () => {
  it("finds the session from a subfolder of its cwd, like git finds its root", async () => {
    const agentDir = tempDir();
    const project = tempDir("steer-project-");
    mkdirSync(join(project, "src", "deep"), { recursive: true });
    await serve(agentDir, "rooted", project);
    const result = await steer(["status", "--json"], join(project, "src", "deep"), agentDir);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ sessionId: "rooted", cwd: project });
  });

  it("--json errors are JSON on stdout", async () => {
    const agentDir = tempDir();
    const none = await steer(["pending", "--json"], agentDir, agentDir);
    expect(none.code).toBe(1);
    expect(JSON.parse(none.stdout)).toMatchObject({
      error: { kind: "session", message: expect.stringMatching(/no live pi session/) },
    });
    const usage = await steer(["inject", "x", "--json"], agentDir, agentDir);
    expect(JSON.parse(usage.stdout)).toMatchObject({
      error: { kind: "usage", message: "inject needs --mode interrupt_immediate|finish_step|audit_only" },
    });
    await serve(agentDir, "errs");
    const bad = await steer(["inject", "x", "--mode", "later", "--json"], agentDir, agentDir);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout)).toMatchObject({ error: { kind: "rpc", code: -32602 } });
  });

  it("watch --count N stops after N events", async () => {
    const agentDir = tempDir();
    const endpoint = await serve(agentDir, "watched");
    const watching = steer(["watch", "--count", "2", "--json"], agentDir, agentDir);
    await expect.poll(() => endpoint.connections()).toBe(1);
    const client = await SteeringClient.connect(endpoint.socketPath);
    // Wait until the watcher's subscription is in place: our own subscribe is answered after its.
    await client.subscribe({ checkpoints: false, acks: false });
    for (let i = 0; i < 3; i++) {
      const { id } = await client.inject({ content: `item ${i}`, mode: "finish_step" });
      await client.revoke(id);
    }
    await client.close();
    const result = await watching;
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines.map((l) => JSON.parse(l))).toMatchObject([{ type: "ack", state: "revoked" }, { type: "ack" }]);
  });

  it("a HOME too long for a Unix socket path: the socket moves to a short runtime dir, the registry stays", async () => {
    const base = tempDir();
    const agentDir = join(base, "h".repeat(60), ".pi", "agent");
    mkdirSync(agentDir, { recursive: true });
    const runtime = join(tempDir("rt-"), "pi-steering");
    const endpoint = await serve(agentDir, "long-home-session", base, runtime);
    expect(endpoint.socketPath).toBe(join(runtime, "long-home-session.sock"));
    expect(endpoint.infoPath).toBe(join(agentDir, "steering", "long-home-session.json"));
    const found = resolveSession({ agentDir, sessionId: "long-home-session" });
    expect(found.socket).toBe(endpoint.socketPath);
    const client = await SteeringClient.connect(found.socket);
    expect((await client.status()).sessionId).toBe("long-home-session");
    await client.close();
  });
});
