#!/usr/bin/env node
// pi-steer: steer a running pi session over its steering socket (runs the built library).
import { main, processIo } from "../dist/cli/main.js";

// `pnpm pi-steer` (the pi-rails checkout's root script) runs in the repository root: work where the user typed it,
// so "the live session in this directory" means the user's directory.
if (process.env.npm_lifecycle_event === "pi-steer" && process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);

process.exitCode = await main(process.argv.slice(2), processIo());
