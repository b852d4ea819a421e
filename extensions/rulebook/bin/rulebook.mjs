#!/usr/bin/env node
// rulebook CLI: list | show <name> | doctor [--json]. Runs the built library (dist/).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const entry = new URL("../dist/cli/main.js", import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write("rulebook: dist/ is missing; run `pnpm build` in extensions/rulebook first.\n");
  process.exit(3);
}
const { runCli } = await import(entry.href);
const { processOutput } = await import("@pi-rails/agent-core/kit");
process.exitCode = await runCli(process.argv.slice(2), processOutput());
