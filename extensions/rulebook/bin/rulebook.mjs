#!/usr/bin/env node
// rulebook CLI: list | show <name> | doctor [--json]. Runs the built library (dist/).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const entry = new URL("../dist/cli/main.js", import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write("rulebook: dist/ is missing; run `pnpm build` in extensions/rulebook first.\n");
  process.exit(1);
}
const { runCli } = await import(entry.href);
const code = await runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
});
process.exitCode = code;
