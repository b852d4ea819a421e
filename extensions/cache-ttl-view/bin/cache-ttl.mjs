#!/usr/bin/env node
// cache-ttl report <session.jsonl> [--json] [--ttl <seconds>]: runs the built library (pnpm build first).
import { main } from "../dist/report/cli.js";

process.exitCode = await main(process.argv.slice(2), {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
});
