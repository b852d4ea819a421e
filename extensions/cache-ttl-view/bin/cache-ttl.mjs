#!/usr/bin/env node
// cache-ttl report <session.jsonl> [--json] [--ttl <seconds>]: runs the built library (pnpm build first).
import { invocationCwd, processOutput } from "@pi-rails/agent-core/kit";
import { main } from "../dist/report/cli.js";

// `pnpm cache-ttl` runs in the repository root: resolve paths where the user typed the command.
process.chdir(invocationCwd("cache-ttl"));
process.exitCode = await main(process.argv.slice(2), processOutput());
