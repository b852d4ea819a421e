#!/usr/bin/env node
// `pnpm test`: every package's tests through turbo (cached, all packages even when one fails), then one summary
// line counting the tests that ran. Extra arguments go to turbo (e.g. --filter=@pi-rails/pi-ttsr).
import { spawnSync } from "node:child_process";

const started = Date.now() - 1000;
const turbo = spawnSync("pnpm", ["exec", "turbo", "run", "test", "--continue", ...process.argv.slice(2)], {
  stdio: "inherit",
  env: { TURBO_TELEMETRY_DISABLED: "1", DO_NOT_TRACK: "1", ...process.env },
});
const summary = spawnSync(
  process.execPath,
  [new URL("./test-summary.mjs", import.meta.url).pathname, `--since=${started}`],
  {
    stdio: "inherit",
  },
);
process.exit(turbo.status !== 0 || summary.status !== 0 ? 1 : 0);
