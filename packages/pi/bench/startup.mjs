#!/usr/bin/env node
// `pnpm bench` (packages/pi): what the launcher costs at start-up. The published, pristine pi 0.73.1 is installed
// from the registry into a temp project (the testkit's installStockPi) with this package laid next to it as npm lays
// it out; then, in paired rounds, stock pi's `cli.js --help` and this package's `pi --help` (both load pi's whole
// module graph and exit), and `pi --version` (the launcher's own work: the hash check, no pi loaded).
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { installStockPi } from "@pi-rails/testkit";

const rounds = Number(process.env.ROUNDS ?? 9);
const packageRoot = new URL("..", import.meta.url).pathname;
const stock = installStockPi();
try {
  const installed = join(stock.dir, "node_modules", "@pi-rails", "pi");
  mkdirSync(installed, { recursive: true });
  for (const entry of ["package.json", "bin", "dist"])
    cpSync(join(packageRoot, entry), join(installed, entry), { recursive: true });
  const launcher = join(installed, "bin", "pi.mjs");
  const time = (args) => {
    const started = process.hrtime.bigint();
    const result = spawnSync(process.execPath, args, { encoding: "utf8" });
    if (result.status !== 0) throw new Error(`${args.join(" ")} exited ${result.status}: ${result.stderr}`);
    return Number(process.hrtime.bigint() - started) / 1e6;
  };
  const samples = { stock: [], launcher: [], version: [], ratio: [] };
  time([launcher, "--help"]); // warm the file cache
  for (let round = 0; round < rounds; round++) {
    const a = time([stock.cli, "--help"]);
    const b = time([launcher, "--help"]);
    samples.stock.push(a);
    samples.launcher.push(b);
    samples.ratio.push(b / a);
    samples.version.push(time([launcher, "--version"]));
  }
  const median = (values) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];
  const ms = (value) => `${value.toFixed(0)} ms`;
  console.log(`start-up, ${rounds} paired rounds (median), load ${(await import("node:os")).loadavg()[0].toFixed(1)}:`);
  console.log(`  stock pi  cli.js --help   ${ms(median(samples.stock))}`);
  console.log(
    `  pi-rails  pi --help       ${ms(median(samples.launcher))}  (paired ratio ${median(samples.ratio).toFixed(2)})`,
  );
  console.log(`  pi-rails  pi --version    ${ms(median(samples.version))}  (hash check only)`);
} finally {
  stock.dispose();
}
