#!/usr/bin/env node
// Sums the vitest JSON reports of every workspace package into the one plain line CI reads:
// "N passed, N failed, N skipped". Reports older than --since (ms epoch) are stale and count as missing.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const sinceArg = process.argv.find((arg) => arg.startsWith("--since="));
const since = sinceArg ? Number(sinceArg.slice("--since=".length)) : 0;

export function summarize() {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const missing = [];
  const failures = [];
  for (const group of ["packages", "extensions"]) {
    const dir = join(root, group);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).sort()) {
      const pkgDir = join(dir, name);
      if (!existsSync(join(pkgDir, "vitest.config.ts"))) continue;
      const report = join(pkgDir, ".vitest", "results.json");
      if (!existsSync(report) || statSync(report).mtimeMs < since) {
        missing.push(`${group}/${name}`);
        continue;
      }
      const json = JSON.parse(readFileSync(report, "utf8"));
      passed += json.numPassedTests ?? 0;
      failed += json.numFailedTests ?? 0;
      skipped += (json.numPendingTests ?? 0) + (json.numTodoTests ?? 0);
      // A file that fails to load has no failed test in it, but it is a failure.
      if ((json.numFailedTestSuites ?? 0) > 0 && (json.numFailedTests ?? 0) === 0) failed += json.numFailedTestSuites;
      for (const file of json.testResults ?? []) {
        const where = `${group}/${name}/${file.name.slice(pkgDir.length + 1)}`;
        const broken = (file.assertionResults ?? []).filter((test) => test.status === "failed");
        for (const test of broken) failures.push(`${where} > ${test.fullName}: ${firstLine(test.failureMessages)}`);
        if (broken.length === 0 && file.status === "failed") failures.push(`${where}: ${firstLine([file.message])}`);
      }
    }
  }
  return { passed, failed, skipped, missing, failures };
}

/** The first line of a failure, enough to tell which assertion or timeout it was when only the log tail is kept. */
function firstLine(messages) {
  const text = (messages ?? []).find((m) => typeof m === "string" && m.trim() !== "") ?? "";
  return text.trim().split("\n")[0].slice(0, 300);
}

const { passed, failed, skipped, missing, failures } = summarize();
if (missing.length > 0) console.error(`no test report from: ${missing.join(", ")} (their tests did not run)`);
for (const failure of failures) console.log(`failed: ${failure}`);
console.log(`${passed} passed, ${failed + missing.length} failed, ${skipped} skipped`);
process.exit(failed > 0 || missing.length > 0 ? 1 : 0);
