#!/usr/bin/env node
// cache-ttl: what pruning would have saved in a recorded session. Runs the built CLI (a checkout: `pnpm build`).
import { existsSync } from "node:fs";

const entry = new URL("../dist/report/cli.js", import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write("cache-ttl: dist/ is missing; run `pnpm build` in this package first.\n");
  process.exit(3);
}
await (await import(entry.href)).cli.main();
