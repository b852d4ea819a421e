#!/usr/bin/env node
// The ttsr CLI: runs the built library (pnpm build first).
import { main, processIo } from "../dist/pi/cli.js";

process.exitCode = await main(process.argv.slice(2), processIo());
