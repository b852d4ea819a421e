#!/usr/bin/env node
// rulebook: list | show <name> | doctor, where each rule came from. Runs the built CLI (a checkout: `pnpm build`).
import { existsSync } from "node:fs";

const entry = new URL("../dist/cli/main.js", import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write("rulebook: dist/ is missing; run `pnpm build` in this package first.\n");
  process.exit(3);
}
await (await import(entry.href)).cli.main();
