#!/usr/bin/env node
// pi-steer: steer a running pi session over its steering socket. Runs the built CLI (a checkout: `pnpm build`).
import { existsSync } from "node:fs";

const entry = new URL("../dist/cli/main.js", import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write("pi-steer: dist/ is missing; run `pnpm build` in this package first.\n");
  process.exit(3);
}
await (await import(entry.href)).cli.main();
