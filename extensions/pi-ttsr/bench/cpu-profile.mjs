// Where a start's CPU time goes: CPU profiles of the real `pi -p` (64 KB answer, as bench/startup.mjs), summed by
// the outermost pi-ttsr frame on each sample's stack (its call tree: loading rules, building the registry, matching)
// and by module, with the self time of the frames under ours. `node bench/cpu-profile.mjs [warm|edited|cold|builtin|none]`,
// PROFILES=<n> runs (default 4), SHORT=1 for the one-line answer (start-up alone); compare a mode with `builtin` (the
// shipped rules only) to see what the 200 rules add.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { RACY_CHANGE_MS } from "@pi-rails/agent-core/kit";
import { prepareCliHome, runPi, startModelServer } from "@pi-rails/testkit";
import { benchRules, benchText } from "./workload.mjs";

const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
const mode = process.argv[2] ?? "warm";
const files = {};
if (mode !== "builtin") {
  benchRules().forEach((spec, i) => {
    const flags = spec.flags ? `flags: ${JSON.stringify(spec.flags)}\n` : "";
    files[`.pi/rules/bench-${i}.md`] =
      `---\ndescription: bench rule ${i}\ncondition: ${JSON.stringify(spec.source)}\n${flags}scope: text\n---\nBench rule ${i}.\n`;
  });
}
const OURS = /pi-ttsr\/dist|rulebook\/dist|agent-core\/dist/;
const short = (url) =>
  url
    .replace(/^file:\/\//, "")
    .replace(/.*\/node_modules\/(\.pnpm\/)?/, "")
    .replace(/.*\/(packages|extensions)\//, "");
const frame = (n) => `${n.callFrame.functionName || "(top)"} ${short(n.callFrame.url)}:${n.callFrame.lineNumber}`;
const top = (map, count) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([k, v]) => `${v.toFixed(1).padStart(7)} ${k}`)
    .join("\n");

const long = benchText(64 * 1024);
let answer = long;
const server = await startModelServer({ script: () => ({ text: answer, chunkSize: 256 }) });
const home = prepareCliHome({ server, files });
// older than the start-up snapshot's racy window, as a user's rule files are (see bench/startup.mjs)
await new Promise((resolve) => setTimeout(resolve, RACY_CHANGE_MS + 200));
const profDir = mkdtempSync(join(tmpdir(), "ttsr-profile-"));
const run = (env = {}) =>
  runPi([...(mode === "none" ? [] : ["-e", PACKAGE_DIR]), "-p", "write the module"], { home, env });
try {
  // fills the caches, as earlier sessions would (a long answer: deferred rules are compiled once one passes 2 KB)
  for (let i = 0; i < 2; i++) await run();
  if (process.env.SHORT) answer = "Done: the module is written.";
  const count = Number(process.env.PROFILES ?? 4);
  for (let i = 0; i < count; i++) {
    const env = { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profDir} --cpu-prof-interval=200` };
    if (mode === "cold") env.PI_TTSR_CACHE_DIR = mkdtempSync(join(profDir, "cold-"));
    if (mode === "edited") {
      const rule = `---\ndescription: edited\ncondition: "forbiddenEdit${i}x\\\\("\nscope: text\n---\nEdited.\n`;
      writeFileSync(join(home.cwd, ".pi/rules/bench-0.md"), rule);
    }
    const result = await run(env);
    if (result.code !== 0) throw new Error(`pi exited ${result.code}: ${result.stderr}`);
  }
  const profiles = readdirSync(profDir).filter((f) => f.endsWith(".cpuprofile"));
  const byModule = new Map();
  const byOurs = new Map();
  const bySelf = new Map();
  const byInclusive = new Map();
  for (const file of profiles) {
    const p = JSON.parse(readFileSync(join(profDir, file), "utf8"));
    const parent = new Map();
    const byId = new Map();
    for (const node of p.nodes) {
      byId.set(node.id, node);
      for (const child of node.children ?? []) parent.set(child, node.id);
    }
    p.samples.forEach((id, k) => {
      const ms = (p.timeDeltas[k] ?? 0) / 1000 / profiles.length;
      const leaf = byId.get(id);
      const module = short(leaf.callFrame.url).split("/").slice(0, 3).join("/") || `(${leaf.callFrame.functionName})`;
      byModule.set(module, (byModule.get(module) ?? 0) + ms);
      let outer;
      const seen = new Set();
      for (let n = id; n !== undefined; n = parent.get(n)) {
        if (!OURS.test(byId.get(n).callFrame.url)) continue;
        outer = byId.get(n);
        if (!seen.has(frame(outer))) byInclusive.set(frame(outer), (byInclusive.get(frame(outer)) ?? 0) + ms);
        seen.add(frame(outer));
      }
      if (outer) {
        byOurs.set(frame(outer), (byOurs.get(frame(outer)) ?? 0) + ms);
        bySelf.set(frame(leaf), (bySelf.get(frame(leaf)) ?? 0) + ms);
      }
    });
  }
  const total = [...byModule.values()].reduce((a, b) => a + b, 0);
  const ours = [...byOurs.values()].reduce((a, b) => a + b, 0);
  console.log(
    `${mode}: ${profiles.length} profiles, ${total.toFixed(0)} ms sampled per run, ${ours.toFixed(1)} under ours`,
  );
  console.log(`\nby the outermost frame of ours (ms per run):\n${top(byOurs, 15)}`);
  console.log(`\ninclusive, frames of ours (ms per run):\n${top(byInclusive, Number(process.env.INCLUSIVE ?? 40))}`);
  console.log(`\nself under ours:\n${top(bySelf, 40)}`);
  console.log(`\nby module (self time, ms per run):\n${top(byModule, 15)}`);
} finally {
  home.dispose();
  rmSync(profDir, { recursive: true, force: true });
  await server.close();
}
