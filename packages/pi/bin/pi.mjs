#!/usr/bin/env node
// `pi` and `pi-rails`: pi 1.6 with the pi-rails patch, as a bundle the launcher verifies (see the package README).
// This file and dist/argv.js use nothing newer than old Node can parse, so an old Node gets one clear line.
import { readFileSync } from "node:fs";
import * as nodeModule from "node:module";
import { nodeTooOld } from "../dist/argv.js";

const { engines } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const tooOld = nodeTooOld(process.versions.node, engines.node);
if (tooOld) {
  console.error(tooOld);
  process.exit(1);
}
// As pi's own bundle does: V8's code cache on disk, for every module compiled from here on.
nodeModule.enableCompileCache();
const { main } = await import("../dist/launcher.js");
main();
