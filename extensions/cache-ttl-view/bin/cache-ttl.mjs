#!/usr/bin/env node
// cache-ttl: what pruning would have saved in a recorded session. Runs the built CLI (in a checkout, `pnpm build` first).
import { cli } from "../dist/report/cli.js";

await cli.main();
