#!/usr/bin/env node
// Sums the vitest JSON reports of every workspace package into the one plain line CI reads:
// "N passed, N failed, N skipped". Exits non-zero when a package that has tests wrote no report.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
let passed = 0;
let failed = 0;
let skipped = 0;
const missing = [];
for (const group of ["packages", "extensions"]) {
  const dir = join(root, group);
  if (!existsSync(dir)) continue;
  for (const name of readdirSync(dir)) {
    const pkgDir = join(dir, name);
    const report = join(pkgDir, ".vitest", "results.json");
    if (!existsSync(join(pkgDir, "vitest.config.ts"))) continue;
    if (!existsSync(report)) {
      missing.push(`${group}/${name}`);
      continue;
    }
    const json = JSON.parse(readFileSync(report, "utf8"));
    passed += json.numPassedTests ?? 0;
    failed += json.numFailedTests ?? 0;
    skipped += (json.numPendingTests ?? 0) + (json.numTodoTests ?? 0);
    if (json.numFailedTestSuites > 0 && (json.numFailedTests ?? 0) === 0) failed += json.numFailedTestSuites;
  }
}
if (missing.length > 0) console.error(`no test report from: ${missing.join(", ")}`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || missing.length > 0 ? 1 : 0);
