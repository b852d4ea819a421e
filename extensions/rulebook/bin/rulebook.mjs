#!/usr/bin/env node
// rulebook: list | show <name> | doctor: where each rule came from. Runs the built CLI (in a checkout, `pnpm build` first).
import { cli } from "../dist/cli/main.js";

await cli.main();
