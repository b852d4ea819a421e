#!/usr/bin/env node
// pi-steer: steer a running pi session over its steering socket. Runs the built CLI (in a checkout, `pnpm build` first).
import { cli } from "../dist/cli/main.js";

await cli.main();
