#!/usr/bin/env node
// pnpm patches:rebase <version>: move the core patch to another pi release without switching the pin. Fetches
// that version's tarballs from the npm registry, recovers its sources, applies the series with a 3-way merge
// and names each hunk that needs a hand; on success writes the regenerated dist patches into a temp dir, runs the
// series' own tests (pi's packages/agent and packages/coding-agent) in the rebased tree, and the patched-core suite
// (packages/agent-core) against that version's pi-agent-core with the patch applied.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  buildFromSeries,
  conflictReport,
  PACKAGES,
  packageName,
  root,
  run,
  runSeriesTests,
  seriesLineCounts,
} from "./lib.mjs";

const version = process.argv[2];
if (!version || !/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(version)) {
  console.error("usage: pnpm patches:rebase <version>   e.g. pnpm patches:rebase 0.73.0");
  process.exit(2);
}
console.log(`patches:rebase: the series in patches/source/ onto pi ${version}`);
const result = buildFromSeries(version, { threeWay: true, keep: true, log: (line) => console.log(`  ${line}`) });
console.log(`  work tree: ${result.tree}`);
if (!result.ok) {
  const report = conflictReport(result.tree, result.am);
  console.log(`\nneeds a hand: git am stopped at ${report.stopped}`);
  for (const hunk of report.hunks) console.log(`  conflict: ${hunk}`);
  const unmerged = report.unmerged;
  if (unmerged.length === 0) console.log(result.am.output.trim());
  console.log(
    `\nResolve in ${result.tree} (git am --continue after each), then export the series with\n` +
      `  git -C ${result.tree} format-patch --no-signature --zero-commit --no-numbered v${version}..HEAD -o patches/source`,
  );
  process.exit(1);
}
console.log("  the series applies");
for (const problem of [...result.problems, ...result.newErrors]) console.log(`  warning: ${problem}`);
const out = join(result.scratch, "dist-patches");
mkdirSync(out, { recursive: true });
for (const pkg of PACKAGES) {
  const file = join(out, `${pkg.name.replace("/", "__")}@${version}.patch`);
  writeFileSync(file, result.patches[pkg.name]);
  const files = result.patches[pkg.name].match(/^diff --git /gm)?.length ?? 0;
  console.log(`  wrote ${file} (${files} files)`);
}
for (const count of seriesLineCounts()) {
  console.log(`  series ${count.file}: +${count.added} lines of pi TypeScript, +${count.testAdded} of tests`);
}

// The series' own tests (packages/agent and packages/coding-agent) in the rebased tree.
console.log(`\nrunning the series' tests (pi's packages/agent/test and packages/coding-agent/test) on pi ${version}`);
// With that version's own dependencies (they may differ from the pinned ones), installed from the registry.
for (const pkg of PACKAGES) {
  console.log(`  npm install ${packageName(pkg, version)}@${version}'s dependencies`);
  run("npm", ["install", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: result.packageDirs[pkg.name],
  });
}
const seriesRuns = runSeriesTests(result.tree, (pkg) => join(result.packageDirs[pkg.name], "node_modules"));

// pi-agent-core at that version with the regenerated patch applied, resolving pi-ai like the installed one.
const corePatch = join(out, `@earendil-works__pi-agent-core@${version}.patch`);
const coreDir = join(result.scratch, "patched-pi-agent-core");
const published = result.packageDirs["@earendil-works/pi-agent-core"];
// Without the dependencies installed for the series' tests: the suite resolves pi-ai like the installed core.
cpSync(published, coreDir, { recursive: true, filter: (source) => source !== join(published, "node_modules") });
run("git", ["apply", corePatch], { cwd: coreDir });
const installed = realpathSync(join(root, "node_modules", "@earendil-works", "pi-agent-core"));
symlinkSync(resolve(installed, "..", ".."), join(coreDir, "node_modules"));
console.log(`\nrunning the patched-core suite (packages/agent-core) against pi-agent-core ${version} + the patch`);
const suite = spawnSync("pnpm", ["--filter", "@pi-rails/agent-core", "exec", "vitest", "run", "test/"], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, PI_RAILS_CORE_DIR: coreDir, PI_RAILS_CORE_PATCH: corePatch },
});
const failed = [
  ...seriesRuns.filter((r) => r.status !== 0).map((r) => `the series' tests in ${r.repoDir}`),
  ...(suite.status === 0 ? [] : ["the patched-core suite (packages/agent-core)"]),
];
console.log(
  failed.length === 0
    ? `\npatches:rebase: pi ${version} OK. To move the pin: bump the three @earendil-works/pi-* versions, then ` +
        `pnpm patches:build (it reads the version from patchedDependencies).`
    : `\npatches:rebase: the series applies to pi ${version} but these fail (see above): ${failed.join("; ")}`,
);
process.exit(failed.length === 0 ? 0 : 1);
