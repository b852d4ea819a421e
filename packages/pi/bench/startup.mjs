#!/usr/bin/env node
// `pnpm --filter @pi-rails/pi bench`: start-up of this package's `pi` against stock pi 1.6.0's own `pi` (its
// bundle, dist/bundle/cli.js). The published pi 1.6.0 is installed from the registry into a temp project (the
// testkit's installStockPi) and this package is laid next to it as npm lays it out. Paired rounds, the order
// alternating: `pi --version` and `pi -p hi` against the testkit's loopback model, stock then ours (or ours then
// stock). Both use Node's compile cache (pi's bundle enables it, so does the launcher), warmed once before timing.
// A third column runs the launcher's own steps without the verifier's module hooks (bench/unverified.mjs), to
// show what the hooks cost. Wall time and CPU time (user + system, from bench/cpu-probe.mjs preloaded into every
// run alike): on a machine shared with other work the CPU time is the steadier of the two. Medians, and the
// median of the per-round ratios.
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { installStockPi, prepareCliHome, startModelServer } from "@pi-rails/testkit";

const rounds = Number(process.env.ROUNDS ?? 9);
const packageRoot = new URL("..", import.meta.url).pathname;
const manifest = JSON.parse(readFileSync(join(packageRoot, "dist", "bundle", "manifest.json"), "utf8"));
const stock = installStockPi({ version: "1.6.0" });
const server = await startModelServer({ script: () => ({ text: "hello from the model" }) });
const home = prepareCliHome({ server });
try {
  const installed = join(stock.dir, "node_modules", "@pi-rails", "pi");
  mkdirSync(installed, { recursive: true });
  for (const entry of ["package.json", "bin", "dist"]) {
    cpSync(join(packageRoot, entry), join(installed, entry), { recursive: true });
  }
  const cli = {
    stock: [join(stock.dir, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js")],
    ours: [join(installed, "bin", "pi.mjs")],
    unverified: [join(packageRoot, "bench", "unverified.mjs"), installed],
  };
  const env = {
    ...process.env,
    HOME: home.home,
    PI_CODING_AGENT_DIR: home.agentDir,
    PI_OFFLINE: "1",
    PI_SKIP_VERSION_CHECK: "1",
    NO_COLOR: "1",
    ...(manifest.patches.length === 0 ? { PI_RAILS_ALLOW_UNPATCHED: "1" } : {}),
  };
  const probe = join(packageRoot, "bench", "cpu-probe.mjs");
  const cpuFile = join(mkdtempSync(join(tmpdir(), "pi-rails-bench-")), "cpu");
  /** Wall and CPU time of one run, in ms (async: the loopback model lives in this process). */
  const time = (which, args) =>
    new Promise((resolve, reject) => {
      const started = process.hrtime.bigint();
      const child = spawn(process.execPath, ["--import", probe, ...cli[which], ...args], {
        cwd: home.cwd,
        env: { ...env, PI_RAILS_BENCH_CPU: cpuFile },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout.on("data", (chunk) => {
        output += chunk;
      });
      child.stderr.on("data", (chunk) => {
        output += chunk;
      });
      child.on("error", reject);
      child.on("close", (code) => {
        if (code !== 0) reject(new Error(`${which} ${args.join(" ")} exited ${code}: ${output}`));
        else
          resolve({
            wall: Number(process.hrtime.bigint() - started) / 1e6,
            cpu: Number(readFileSync(cpuFile, "utf8")),
          });
      });
    });
  const cases = { "--version": ["--version"], "-p hi": ["-p", "hi"] };
  const samples = {};
  for (const [name, args] of Object.entries(cases)) {
    for (const which of Object.keys(cli)) await time(which, args); // compile caches and file cache warm
    samples[name] = {};
    for (const measure of ["wall", "cpu"]) {
      samples[name][measure] = { stock: [], ours: [], unverified: [], ratio: [], unverifiedRatio: [] };
    }
  }
  for (let round = 0; round < rounds; round++) {
    for (const [name, args] of Object.entries(cases)) {
      const order = round % 2 === 0 ? ["stock", "ours", "unverified"] : ["unverified", "ours", "stock"];
      const took = {};
      for (const which of order) took[which] = await time(which, args);
      for (const measure of ["wall", "cpu"]) {
        const s = samples[name][measure];
        s.stock.push(took.stock[measure]);
        s.ours.push(took.ours[measure]);
        s.unverified.push(took.unverified[measure]);
        s.ratio.push(took.ours[measure] / took.stock[measure]);
        s.unverifiedRatio.push(took.unverified[measure] / took.stock[measure]);
      }
    }
  }
  const median = (values) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];
  const ms = (value) => `${value.toFixed(0)} ms`.padStart(8);
  console.log(
    `start-up, ${rounds} paired rounds (medians), load ${loadavg()[0].toFixed(1)}, ` +
      `${manifest.patches.length ? "patched" : "UNPATCHED"} bundle of pi ${manifest.pi.version}:`,
  );
  console.log("  command       time  stock pi 1.6   @pi-rails/pi   ratio   (no hooks   ratio)");
  const ratios = [];
  for (const [name, measures] of Object.entries(samples)) {
    for (const [measure, s] of Object.entries(measures)) {
      ratios.push({ measure, ratio: median(s.ratio) });
      console.log(
        `  pi ${name.padEnd(10)} ${measure.padEnd(4)} ${ms(median(s.stock))}      ${ms(median(s.ours))}      ` +
          `${median(s.ratio).toFixed(2)}   (${ms(median(s.unverified))}   ${median(s.unverifiedRatio).toFixed(2)})`,
      );
    }
  }
  for (const measure of ["wall", "cpu"]) {
    const worst = Math.max(...ratios.filter((r) => r.measure === measure).map((r) => r.ratio));
    console.log(
      `  ${measure}: ${worst <= 1.1 ? "within" : "OVER"} 1.10x of stock pi 1.6 (worst paired ratio ${worst.toFixed(2)})`,
    );
  }
  rmSync(dirname(cpuFile), { recursive: true, force: true });
} finally {
  home.dispose();
  await server.close();
  stock.dispose();
}
