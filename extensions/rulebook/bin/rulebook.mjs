#!/usr/bin/env node
// rulebook CLI: list | show <name> | doctor [--json]. Runs the built library (dist/).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

// `rulebook list | head -1`: a closed pipe ends the output quietly, as other CLIs do
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
}

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
