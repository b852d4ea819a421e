#!/usr/bin/env node
// cache-ttl report <session.jsonl> [--json] [--ttl <seconds>]: runs the built library (pnpm build first).
import { main } from "../dist/report/cli.js";

// `pnpm cache-ttl` (the pi-rails checkout's root script) runs in the repository root: resolve paths where the user
// typed the command.
if (process.env.npm_lifecycle_event === "cache-ttl" && process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);

process.exitCode = await main(process.argv.slice(2), {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
});
