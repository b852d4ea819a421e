#!/usr/bin/env node
// The ttsr CLI: runs the built library (pnpm build first).
import { main, processIo } from "../dist/cli/main.js";

// `pnpm ttsr` (the pi-rails checkout's root script) runs in the repository root: work where the user typed it.
if (process.env.npm_lifecycle_event === "ttsr" && process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);

process.exitCode = await main(process.argv.slice(2), processIo());
