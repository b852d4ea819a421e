import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type CliHome,
  installStockPi,
  type ModelServer,
  prepareCliHome,
  runPi,
  type StockPi,
  startModelServer,
} from "@pi-rails/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const packageRoot = join(import.meta.dirname, "..");
let stock: StockPi;
let launcher: string;
let server: ModelServer;
let probe: string;
let home: CliHome;

// The launcher next to the published, pristine pi 0.73.1 (installed from the registry by the testkit), laid out
// as `npm i @pi-rails/pi` lays it out: the swap, the marker, the hash check and the refusal, on real files.
beforeAll(async () => {
  stock = installStockPi();
  const installed = join(stock.dir, "node_modules", "@pi-rails", "pi");
  mkdirSync(installed, { recursive: true });
  for (const entry of ["package.json", "bin", "dist"])
    cpSync(join(packageRoot, entry), join(installed, entry), { recursive: true });
  launcher = join(installed, "bin", "pi.mjs");
  probe = join(stock.dir, "probe.ts");
  writeFileSync(
    probe,
    `export default function (pi: any) {
  const marker = (globalThis as any)[Symbol.for("@pi-rails/pi-patch")];
  console.error("PROBE " + JSON.stringify({ features: marker?.features ?? null, cancel: typeof pi.cancelToolCall }));
}
`,
  );
  server = await startModelServer({ script: () => ({ text: "hello from the model" }) });
  home = prepareCliHome({ server });
}, 300_000);
afterAll(async () => {
  stock?.dispose();
  home?.dispose();
  await server?.close();
}, 120_000);

const probeOf = (stderr: string) =>
  JSON.parse(
    stderr
      .split("\n")
      .find((line) => line.startsWith("PROBE "))
      ?.slice(6) ?? "null",
  );

describe("the pi command of @pi-rails/pi on a pristine upstream pi", () => {
  it("names both versions", () => {
    const result = spawnSync(process.execPath, [launcher, "--version"], { encoding: "utf8" });
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toMatch(/^0\.73\.1 \(pi-rails \d+\.\d+\.\d+: @pi-rails\/pi, patched/);
  });

  it("runs upstream pi with the patched files swapped in: the marker and the patch's API are there", async () => {
    // Both runs at once: the same install, once through the launcher and once as stock pi.
    const [patched, plain] = await Promise.all([
      runPi(["-p", "hi", "-e", probe], { home, piCli: launcher, timeoutMs: 150_000 }),
      runPi(["-p", "hi", "-e", probe], { home, piCli: stock.cli, timeoutMs: 150_000 }),
    ]);
    expect(patched.code, patched.stderr).toBe(0);
    expect(patched.stdout).toContain("hello from the model");
    expect(probeOf(patched.stderr)).toEqual({
      features: ["stream_text", "checkpoint", "loop_checkpoint", "cancel_tool_call"],
      cancel: "function",
    });
    // The same install run as stock pi: nothing on disk was patched.
    expect(probeOf(plain.stderr)).toEqual({ features: null, cancel: "undefined" });
  }, 180_000); // on a loaded CI machine (the registry e2e installs in parallel) a cold pi start took over a minute

  it("refuses to start when an upstream file is not the one the patch was made for, naming it", () => {
    const loop = join(stock.dir, "node_modules", "@earendil-works", "pi-agent-core", "dist", "agent-loop.js");
    const pristine = readFileSync(loop);
    writeFileSync(loop, `${pristine}\n// changed\n`);
    try {
      const result = spawnSync(process.execPath, [launcher, "-p", "hi"], { encoding: "utf8" });
      expect(result.status).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain("pi-rails: refusing to start");
      expect(result.stderr).toContain(
        `@earendil-works/pi-agent-core/dist/agent-loop.js differs from the file the patch was made for (${loop})`,
      );
    } finally {
      writeFileSync(loop, pristine);
    }
  });

  it("does not self-update an install that is not a global npm install (and never runs stock pi's update)", () => {
    const result = spawnSync(process.execPath, [launcher, "update", "--self"], { encoding: "utf8" });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("cannot update this installation of @pi-rails/pi");
  });
});
