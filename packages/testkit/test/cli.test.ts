/**
 * runPi runs the workspace's real `pi` CLI in a temp HOME against the loopback server.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import {
  assertNodeForPi,
  type CliHome,
  deltasOf,
  installStockPi,
  type ModelServer,
  messageText,
  parseJsonLines,
  prepareCliHome,
  resolvePiCli,
  runPi,
  STOCK_PI_VERSION,
  startModelServer,
} from "../src/index.ts";
import { MARKER } from "./fixtures/marker-extension.ts";

const fixtureExtension = fileURLToPath(new URL("./fixtures/marker-extension.ts", import.meta.url));
const LOOPBACK = ["--provider", "loopback", "--model", "loopback-model"];

let server: ModelServer | undefined;
let home: CliHome | undefined;
afterEach(async () => {
  home?.dispose();
  home = undefined;
  await server?.close();
  server = undefined;
});

function sessionFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".jsonl"))
    .map((name) => join(dir, name));
}

describe("runPi against the loopback server", () => {
  it("prints the scripted answer in print mode, with the extension loaded via -e", async () => {
    server = await startModelServer({ script: [{ text: "The answer is 42.", thinking: "compute" }] });
    home = prepareCliHome({ server });

    const result = await runPi(["-p", "hello from the cli", ...LOOPBACK, "-e", fixtureExtension], { home });

    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("The answer is 42.\n");
    expect(server.requests).toHaveLength(1);
    const messages = server.requests[0]!.messages;
    expect(messages[0]?.role).toBe("system");
    expect(messageText(messages[0]?.content)).toContain(MARKER);
    expect(messageText(messages.at(-1)?.content)).toBe("hello from the cli");

    // The session went to the sandbox agent dir, never the real ~/.pi.
    const files = sessionFiles(join(home.agentDir, "sessions"));
    expect(files).toHaveLength(1);
    const entries = parseJsonLines<{ type: string; customType?: string; data?: unknown }>(
      readFileSync(files[0]!, "utf8"),
    );
    expect(entries.find((e) => e.type === "custom")).toMatchObject({
      customType: "testkit-fixture",
      data: { cwd: home.cwd },
    });
  });

  it("yields parsed events in JSON mode", async () => {
    const text = "streamed over json mode";
    server = await startModelServer({ script: [{ text, chunkSize: 3 }] });
    home = prepareCliHome({ server });

    const result = await runPi(["--mode", "json", "-p", "hi", "--no-session", ...LOOPBACK], { home });

    expect(result.code).toBe(0);
    expect(result.nonJsonLines).toEqual([]);
    expect(result.events[0]?.type).toBe("session");
    const types = result.events.map((e) => e.type);
    expect(types).toContain("agent_start");
    // pi 1.6: agent_end, then agent_settled once nothing follows (no retry, compaction or queued work).
    expect(types.slice(-2)).toEqual(["agent_end", "agent_settled"]);
    const deltas = deltasOf(result.events, "text_delta");
    expect(deltas.length).toBe(Math.ceil(text.length / 3));
    expect(deltas.join("")).toBe(text);
  });

  it("uses the loopback model by default in a prepared home, and reads the prompt from stdin", async () => {
    server = await startModelServer({
      script: (request) => ({ text: `got: ${messageText(request.messages.at(-1)?.content)}` }),
    });
    home = prepareCliHome({ server, files: { "README.md": "project\n" } });

    const result = await runPi(["-p", "--no-session"], { home, stdin: "piped prompt" });

    expect(result.code).toBe(0);
    expect(result.stdout).toBe("got: piped prompt\n");
  });

  it("exits non-zero with the provider's error on an HTTP failure, after exactly one request", async () => {
    server = await startModelServer({
      script: () => ({ httpStatus: 503, errorBody: JSON.stringify({ error: { message: "overloaded by script" } }) }),
    });
    home = prepareCliHome({ server, settings: { retry: { enabled: false } } });

    const result = await runPi(["-p", "hi", "--no-session"], { home });

    expect(result.code).toBe(1);
    expect(result.stderr).toContain("overloaded by script");
    // 503 is retryable for the OpenAI SDK; the testkit default (retry.provider.maxRetries 0) keeps it to one.
    expect(server.requests).toHaveLength(1);
  });
});

describe("which pi runs", () => {
  it("runPi runs the workspace's launcher, packages/pi/bin/pi.mjs: pi 1.6.0, named by pi-rails", async () => {
    expect(resolvePiCli()).toBe(fileURLToPath(new URL("../../pi/bin/pi.mjs", import.meta.url)));
    const result = await runPi(["--version"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^1\.6\.0 \(pi-rails /);
  });

  it("refuses a Node older than pi 1.6 needs, saying how to get one", () => {
    expect(() => assertNodeForPi("20.20.0")).toThrow(
      /pi 1\.6 needs Node >= 22\.19\.0, this process runs Node 20\.20\.0/,
    );
    expect(() => assertNodeForPi("22.18.9")).toThrow(/run it through pnpm/);
    expect(() => assertNodeForPi("22.19.0")).not.toThrow();
    expect(() => assertNodeForPi("23.0.0")).not.toThrow();
  });

  it("installStockPi: the published pi's bin.pi (pi 1.6's bundle), one shared install reused", async () => {
    const stock = installStockPi({ shared: true });
    expect(stock.version).toBe(STOCK_PI_VERSION);
    expect(stock.cli).toBe(join(stock.packageDir, "dist", "bundle", "cli.js"));
    expect(installStockPi({ shared: true }).dir).toBe(stock.dir);
    const result = await runPi(["--version"], { piCli: stock.cli });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe(STOCK_PI_VERSION);
  }, 300_000);
});
