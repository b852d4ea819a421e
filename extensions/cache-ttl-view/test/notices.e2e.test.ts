import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import {
  type CliHome,
  closeAfterEach,
  type ModelServer,
  prepareCliHome,
  resolvePiCli,
  runPi,
  startProviderServer,
} from "@pi-rails/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { saidFile } from "../src/state/said.ts";
import { PACKAGE_DIR } from "./cli-scenario.ts";

/** What the user is told, in one pi process or another: one message per thing to say, not one per start. */

const NOTICE = "pruning is off: the prompt-cache TTL of loopback/loopback-model";
const count = (text: string, needle: string) => text.split(needle).length - 1;

const keep = closeAfterEach(afterEach);
let server: ModelServer | undefined;
let home: CliHome | undefined;

async function loopbackHome(projectSettings?: Record<string, unknown>): Promise<CliHome> {
  server = keep(
    await startProviderServer("openai-completions", { script: (_request, index) => ({ text: `ok ${index}` }) }),
  );
  home = keep(
    prepareCliHome({
      server,
      settings: { cacheWarming: "off" },
      ...(projectSettings ? { projectSettings } : {}),
    }),
  );
  return home;
}

const print = async (h: CliHome, prompt: string) => {
  const run = await runPi(["-e", PACKAGE_DIR, "-p", prompt], { home: h, timeoutMs: 120_000 });
  expect(run.code, run.stderr).toBe(0);
  return run;
};

/**
 * `pi --mode rpc` driven one command at a time: each command waits for its answer (a prompt for `agent_settled`),
 * as a client would, so `new_session` never races a running prompt. Returns every stdout line, in order.
 */
async function rpcSession(
  h: CliHome,
  commands: Record<string, unknown>[],
): Promise<{ lines: string[]; stderr: string }> {
  const child = spawn(process.execPath, [resolvePiCli(), "-e", PACKAGE_DIR, "--mode", "rpc"], {
    cwd: h.cwd,
    env: h.env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const lines: string[] = [];
  let waiting: { until: (line: string) => boolean; done: () => void } | undefined;
  createInterface({ input: child.stdout }).on("line", (line) => {
    lines.push(line);
    if (waiting?.until(line)) waiting.done();
  });
  const closed = new Promise((done) => child.once("close", done));
  try {
    for (const [n, command] of commands.entries()) {
      const id = `c${n}`;
      const settled = command["type"] === "prompt" ? '"type":"agent_settled"' : `"id":"${id}","type":"response"`;
      await new Promise<void>((done) => {
        waiting = { until: (line) => line.includes(settled), done };
        child.stdin.write(`${JSON.stringify({ id, ...command })}\n`);
      });
    }
  } finally {
    child.stdin.end();
    await closed;
  }
  return { lines, stderr };
}

describe("the notice that a model's cache TTL is not known (real pi CLI, loopback model)", () => {
  it("is said once per agent dir and model: not on the next pi -p nor after /new, again once something changed", async () => {
    const h = await loopbackHome({});
    const first = await print(h, "hello");
    expect(count(first.stderr, NOTICE)).toBe(1);
    expect(first.stderr).toContain("set cacheTtl.ttlSeconds to prune");
    expect(JSON.parse(readFileSync(saidFile(h.agentDir), "utf8"))).toEqual({
      "loopback/loopback-model": expect.stringContaining("is not known"),
    });

    // The next run of pi with the same agent dir: nothing new to say.
    expect(count((await print(h, "again")).stderr, NOTICE)).toBe(0);

    // One process, two sessions (`/new` in the RPC mode): the notice is a notification there; none comes.
    const rpc = await rpcSession(h, [
      { type: "prompt", message: "one" },
      { type: "new_session" },
      { type: "prompt", message: "two" },
    ]);
    const out = rpc.lines.join("\n");
    expect(count(out, '"command":"new_session","success":true'), out.slice(0, 3000)).toBe(1);
    expect(out).not.toContain("extension_error");
    expect(server?.requests.length).toBe(4);
    expect(count(out + rpc.stderr, NOTICE)).toBe(0);

    // Something changed: the TTL became known (set in the project), then unknown again: said once more.
    writeFileSync(join(h.cwd, ".pi", "settings.json"), JSON.stringify({ cacheTtl: { ttlSeconds: 300 } }));
    expect(count((await print(h, "known")).stderr, "pruning is off")).toBe(0);
    expect(JSON.parse(readFileSync(saidFile(h.agentDir), "utf8"))).toEqual({});
    rmSync(join(h.cwd, ".pi", "settings.json"));
    expect(count((await print(h, "unknown again")).stderr, NOTICE)).toBe(1);
    expect(count((await print(h, "and once more")).stderr, NOTICE)).toBe(0);
  }, 300_000);

  it("a read-only record costs a repeat, never a failure", async () => {
    const h = await loopbackHome();
    const file = saidFile(h.agentDir);
    await print(h, "hello");
    rmSync(file);
    expect(existsSync(file)).toBe(false);
    // A directory where the file should be: it can be neither read nor written.
    mkdirSync(file, { recursive: true });
    expect(count((await print(h, "one")).stderr, NOTICE)).toBe(1);
    expect(count((await print(h, "two")).stderr, NOTICE)).toBe(1);
  }, 300_000);
});

describe("a settings file pi cannot load (real pi CLI)", () => {
  it("a trailing comma in .pi/settings.json: pi says so, cache-ttl-view adds nothing", async () => {
    const h = await loopbackHome({});
    writeFileSync(join(h.cwd, ".pi", "settings.json"), '{ "cacheTtl": { "ttlSeconds": 300 }, }\n');
    const run = await print(h, "hello");
    // pi's own message names the file.
    expect(run.stderr).toContain(join(h.cwd, ".pi", "settings.json"));
    expect(run.stderr).not.toMatch(/cache-ttl-view: (warning: )?\S*settings\.json/);
    expect(run.stderr).not.toContain("not valid JSON");
  }, 120_000);

  it("a bad key in its own section is said once, by cache-ttl-view alone", async () => {
    const h = await loopbackHome({ cacheTtl: { ttlSeconds: 300, keepRecentTurnz: 2 } });
    const run = await print(h, "hello");
    expect(count(run.stderr, "cacheTtl.keepRecentTurnz: unknown key")).toBe(1);
  }, 120_000);
});
