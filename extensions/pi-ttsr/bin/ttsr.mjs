#!/usr/bin/env node
// ttsr: test output against the rules, list them, scan a codebase. Runs the built CLI (in a checkout, `pnpm build` first).
import { cli } from "../dist/pi/cli.js";

await cli.main();
