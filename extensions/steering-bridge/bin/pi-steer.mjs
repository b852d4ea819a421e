#!/usr/bin/env node
// pi-steer: steer a running pi session over its steering socket (runs the built library).
import { main, processIo } from "../dist/cli/main.js";

process.exitCode = await main(process.argv.slice(2), processIo());
