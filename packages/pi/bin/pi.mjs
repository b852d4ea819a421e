#!/usr/bin/env node
// `pi` and `pi-rails`: upstream pi with the pi-rails patch (see the package README).
import { main } from "../dist/cli.js";

await main(process.argv.slice(2));
