#!/usr/bin/env node
// pnpm demo: the real (patched) pi CLI against the embedded scripted model (a loopback OpenAI-compatible server: no
// API key, no network). Three stages: a pi-ttsr rule fires while the model streams (with rulebook); cache-ttl-view
// prunes the view after the prompt cache expired (scripts/demo/cache-ttl.mjs); pi-steer cancels a running tool
// from a second process (scripts/demo/steering.mjs).
// pnpm demo --stock: the same three stages on the published pi 1.6 (no patch; fetched once from the npm registry),
// narrating what differs from the patched pi.
// pnpm demo --installed: the same three stages on a pi installed from a local npm registry after a release, with
// the extensions installed by `pi install npm:...` (scripts/demo/installed.mjs).
import { spawnSync } from "node:child_process";

// Build first (turbo, cached), quietly: the demo's output is the demo's, not turbo's banner or task log. With
// --installed only the testkit (the embedded model and the local registry): pi and the extensions come from the
// registry, built and released in a clone.
const installed = process.argv.includes("--installed");
const stock = process.argv.includes("--stock");
const only = installed ? ["--filter=@pi-rails/testkit"] : [];
const build = spawnSync("pnpm", ["exec", "turbo", "run", "build", "--output-logs=errors-only", ...only], {
  cwd: new URL("..", import.meta.url).pathname,
  env: { ...process.env, TURBO_TELEMETRY_DISABLED: "1", DO_NOT_TRACK: "1", TURBO_NO_UPDATE_NOTIFIER: "1" },
  encoding: "utf8",
});
if (build.status !== 0) {
  console.error(build.stdout, build.stderr);
  console.error("pnpm demo: the build failed (above)");
  process.exit(1);
}
const root = new URL("..", import.meta.url).pathname;
const bold = (text) => (process.stdout.isTTY ? `\x1b[1m${text}\x1b[0m` : text);
const dim = (text) => (process.stdout.isTTY ? `\x1b[2m${text}\x1b[0m` : text);

if (installed) {
  const { installedChecks, runInstalledDemo } = await import("./demo/installed.mjs");
  const facts = await runInstalledDemo({ root, bold, dim });
  const checks = installedChecks(facts);
  console.log(bold("\nWhat the installed path showed"));
  for (const { ok, text } of checks) console.log(`  ${ok ? "✓" : "✗"} ${text}`);
  process.exit(checks.every((c) => c.ok) ? 0 : 1);
}

// The three jobs pi-rails does, each in the real pi CLI on the embedded model.
const { runTtsrStage, ttsrStagePassed } = await import("./demo/ttsr.mjs");
const { runCacheTtlStage, cacheTtlStagePassed } = await import("./demo/cache-ttl.mjs");
const { runSteeringStage, steeringStagePassed } = await import("./demo/steering.mjs");
const { checkoutTarget, stockTarget } = await import("./demo/target.mjs");
const target = stock ? await stockTarget(root) : checkoutTarget(root);
if (stock) {
  console.log(bold("pi-rails on stock pi 1.6 (the published @earendil-works/pi-coding-agent, no patch)"));
  console.log(
    dim(
      "Each extension works in the user's own pi through pi's public events; where the patched pi does better, the\n" +
        "stage says so.\n",
    ),
  );
}
const stages = [
  [runTtsrStage, ttsrStagePassed],
  [runCacheTtlStage, cacheTtlStagePassed],
  [runSteeringStage, steeringStagePassed],
];
let failed = 0;
for (const [index, [run, passed]] of stages.entries()) {
  if (index > 0) console.log(`\n${"─".repeat(100)}\n`);
  if (!passed(await run({ root, bold, dim, target }))) failed++;
}
console.log(
  dim(
    `\nIn your own project, \`pnpm -s -C ${root.replace(/\/$/, "")} ttsr list\` shows the rules that would load there; \`pnpm test\` (here) runs every test.`,
  ),
);
if (failed > 0) {
  console.error(`pnpm demo: ${failed} of ${stages.length} stages did not show what they are for (above)`);
  process.exit(1);
}
