#!/usr/bin/env node
// pnpm patches:build [--out <dir>]: regenerate patches/*.patch (the dist patches pnpm applies) from the
// TypeScript series in patches/source/. Never edit the dist patches by hand: edit the series and run this.
import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { buildFromSeries, PACKAGES, pinnedVersions, root, seriesLineCounts } from "./lib.mjs";

const args = process.argv.slice(2);
const outIndex = args.indexOf("--out");
const outDir = outIndex >= 0 ? args[outIndex + 1] : undefined;
const pins = pinnedVersions();
const versions = new Set(PACKAGES.map((pkg) => pins[pkg.name].version));
if (versions.size !== 1) {
  console.error(`patches:build: the patched packages are pinned to different versions (${[...versions].join(", ")})`);
  process.exit(1);
}
const [version] = versions;
const result = buildFromSeries(version, { log: (line) => console.log(`  ${line}`) });
if (!result.ok) {
  console.error(`patches:build: the series does not apply to pi ${version}: ${result.am.stopped}\n${result.am.output}`);
  process.exit(1);
}
let failed = false;
for (const problem of result.problems) {
  console.error(`reproduce: ${problem}`);
  failed = true;
}
for (const error of result.newErrors) {
  console.error(`typecheck: ${error}`);
  failed = true;
}
for (const pkg of PACKAGES) {
  const target = outDir
    ? join(outDir, pins[pkg.name].patchPath.split("/").at(-1))
    : join(root, pins[pkg.name].patchPath);
  mkdirSync(join(target, ".."), { recursive: true });
  writeFileSync(target, result.patches[pkg.name]);
  const files = result.patches[pkg.name].match(/^diff --git /gm)?.length ?? 0;
  console.log(`wrote   ${relative(process.cwd(), target)} (${files} files)`);
}
for (const count of seriesLineCounts()) {
  console.log(`series  ${count.file}: +${count.added} lines of pi TypeScript, +${count.testAdded} of tests`);
}
process.exit(failed ? 1 : 0);
