#!/usr/bin/env node
// pnpm patches:status [version]: how far the pin is behind pi's releases on the npm registry, and whether the series
// still applies to the newest one (or to `version`). A dry run: it fetches the newest tarballs, recovers their sources and runs `git am
// --3way` (against the pinned release as the base), with no compile, no tests and nothing written to the repository.
// Needs only the npm registry. Exit 0 when the series applies to the newest release (or the pin is the newest),
// 1 when it does not, 2 when the registry cannot be read.
import { rmSync } from "node:fs";
import { join } from "node:path";
import {
  applySeries,
  conflictReport,
  fetchPackage,
  makeSourceTree,
  PACKAGES,
  packageName,
  pinnedVersions,
  run,
  scratchDir,
} from "./lib.mjs";

/** Release versions (no prereleases) as numbers, for ordering. */
const parse = (version) => (/^\d+\.\d+\.\d+$/.test(version) ? version.split(".").map(Number) : undefined);
const compare = (a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

const pinned = pinnedVersions()[PACKAGES[0].name].version;
let published;
try {
  // pi releases the packages together: pi-coding-agent's versions are pi's releases.
  published = JSON.parse(run("npm", ["view", PACKAGES[1].name, "versions", "--json"]));
} catch (error) {
  console.error(`patches:status: cannot read ${PACKAGES[1].name}'s versions from the npm registry\n${error.message}`);
  process.exit(2);
}
const pin = parse(pinned);
const newer = published
  .map((version) => ({ version, parts: parse(version) }))
  .filter((release) => release.parts && compare(release.parts, pin) > 0)
  .sort((a, b) => compare(a.parts, b.parts));
const target = process.argv[2];
if (target !== undefined && !published.includes(target)) {
  console.error(`patches:status: pi ${target} is not on the registry (usage: pnpm patches:status [version])`);
  process.exit(2);
}
console.log(
  newer.length === 0
    ? `patches:status: pinned to pi ${pinned}, the newest release on the registry.`
    : `patches:status: pinned to pi ${pinned}; ${newer.length} newer release${newer.length === 1 ? "" : "s"} on the ` +
        `registry (${newer.map((release) => release.version).join(", ")}).`,
);
if (newer.length === 0 && target === undefined) process.exit(0);
const newest = target ?? newer.at(-1).version;
console.log(`dry run: the series in patches/source/ onto pi ${newest} (git am --3way, no compile)`);
const scratch = scratchDir("patches-status");
const dirsOf = (version, folder) =>
  Object.fromEntries(
    PACKAGES.map((pkg) => [
      pkg.name,
      fetchPackage(packageName(pkg, version), version, join(scratch, folder, pkg.repoDir)),
    ]),
  );
const tree = join(scratch, "pi-mono");
// The pinned release first: git am --3way merges against the blobs the series was made on.
makeSourceTree(tree, pinned, dirsOf(pinned, "npm-pinned"));
makeSourceTree(tree, newest, dirsOf(newest, "npm"));
const am = applySeries(tree, true);
if (am.ok) {
  rmSync(scratch, { recursive: true, force: true });
  console.log(`the series applies to pi ${newest}. Next: pnpm patches:rebase ${newest} (compiles and runs the tests).`);
  process.exit(0);
}
const report = conflictReport(tree, am);
console.log(`the series does not apply to pi ${newest}: git am stopped at ${report.stopped}`);
for (const hunk of report.hunks) console.log(`  conflict: ${hunk}`);
if (report.hunks.length === 0) console.log(am.output.trim());
console.log(`work tree: ${tree}. Next: pnpm patches:rebase ${newest}, and resolve there.`);
process.exit(1);
