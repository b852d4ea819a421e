#!/usr/bin/env node
// ttsr: test output against the rules, list them, scan a codebase. Runs the built CLI (a checkout: `pnpm build`).
import { existsSync } from "node:fs";

const entry = new URL("../dist/pi/cli.js", import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write("ttsr: dist/ is missing; run `pnpm build` in this package first.\n");
  process.exit(3);
}
await (await import(entry.href)).cli.main();
