#!/usr/bin/env node
// Discovery benchmark: 1,000 rule files across every provider, loaded by a fresh Node process
// (empty parse cache: "cold"), then again in the same process (warm: re-stat, no re-read).
// Run with `pnpm bench` (builds first under turbo) or `node bench/discovery.bench.mjs` after `pnpm build`.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const dist = fileURLToPath(new URL("../dist/index.js", import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const TOTAL = 1000;

const root = mkdtempSync(join(tmpdir(), "rulebook-bench-"));
const home = join(root, "home");
const cwd = join(home, "work", "project");
const put = (path, text) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};
const body = (i) => `# Rule ${i}\n\n${"Keep functions small and names precise. ".repeat(20)}\n`;
const layouts = [
  (i) =>
    put(
      join(cwd, ".pi/rules", `native-${i}.md`),
      `---\ndescription: native ${i}\nglobs: ["src/**/*.ts"]\n---\n${body(i)}`,
    ),
  (i) => put(join(home, ".pi/agent/rules", `user-${i}.md`), `---\nalwaysApply: ${i % 2 === 0}\n---\n${body(i)}`),
  (i) =>
    put(
      join(cwd, ".cursor/rules", `group-${i % 10}`, `cursor-${i}.mdc`),
      `---\ndescription: cursor ${i}\nglobs: "*.tsx, lib/**"\nalwaysApply: false\n---\n${body(i)}`,
    ),
  (i) =>
    put(
      join(cwd, "packages", `pkg-${i % 20}`, ".cursor/rules", `nested-${i}.mdc`),
      `---\nglobs: "*.ts"\n---\n${body(i)}`,
    ),
  (i) =>
    put(
      join(cwd, ".windsurf/rules", `ws-${i}.md`),
      `---\ntrigger: model_decision\ndescription: windsurf ${i}\n---\n${body(i)}`,
    ),
  (i) =>
    put(join(cwd, ".claude/rules", `area-${i % 5}`, `claude-${i}.md`), `---\npaths:\n  - "docs/**"\n---\n${body(i)}`),
  (i) => put(join(home, "work", ".clinerules", `${i}-cline.md`), `---\npaths: ["lib/**"]\n---\n${body(i)}`),
  (i) =>
    put(join(cwd, ".github/instructions", `copilot-${i}.instructions.md`), `---\napplyTo: "**/*.py"\n---\n${body(i)}`),
];
for (let i = 0; i < TOTAL; i++) layouts[i % layouts.length](i);
// a plausible project tree around the rules, for the nested .cursor search
for (let d = 0; d < 200; d++) put(join(cwd, "src", `mod-${d % 20}`, `file-${d}.ts`), "export {};\n");
put(join(home, ".codeium/windsurf/memories/global_rules.md"), body("global"));

const child = `
const ti = performance.now();
const { loadRules } = await import(${JSON.stringify(dist)});
const importMs = performance.now() - ti;
const opts = { cwd: ${JSON.stringify(cwd)}, home: ${JSON.stringify(home)} };
const t0 = performance.now();
const cold = await loadRules(opts);
const coldMs = performance.now() - t0;
const t1 = performance.now();
const warm = await loadRules(opts);
const warmMs = performance.now() - t1;
process.stdout.write(JSON.stringify({ importMs, coldMs, warmMs, files: cold.stats.files, rules: cold.rules.length,
  shadowed: cold.shadowed.length, skipped: cold.skipped.length, warnings: cold.warnings.length, warmHits: warm.stats.cacheHits }));
`;

const results = [];
for (let r = 0; r < RUNS; r++) {
  results.push(JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", child], { encoding: "utf8" })));
}
if (!process.env.BENCH_KEEP) rmSync(root, { recursive: true, force: true });
else console.log(cwd, home);

const stat = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0], median: s[Math.floor(s.length / 2)], max: s[s.length - 1] };
};
const fmt = ({ min, median, max }) => `median ${median.toFixed(1)} ms (min ${min.toFixed(1)}, max ${max.toFixed(1)})`;
const first = results[0];
console.log(`rulebook discovery bench: ${first.files} rule files across 7 providers, ${RUNS} fresh processes`);
console.log(`  node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? "cpu"}`);
console.log(
  `  result: ${first.rules} rules in effect, ${first.shadowed} shadowed, ${first.skipped} skipped, ${first.warnings} warnings`,
);
console.log(
  `  import of the library (gray-matter, js-yaml, zod, minimatch): ${fmt(stat(results.map((x) => x.importMs)))}`,
);
console.log(
  `  cold (fresh process, empty parse cache; OS page cache warm): ${fmt(stat(results.map((x) => x.coldMs)))}`,
);
console.log(`  warm (same process, ${first.warmHits} cache hits): ${fmt(stat(results.map((x) => x.warmMs)))}`);
const coldMedian = stat(results.map((x) => x.coldMs)).median;
console.log(
  `  budget: cold under 300 ms: ${coldMedian < 300 ? "OK" : "OVER"} (ratio warm/cold ${(stat(results.map((x) => x.warmMs)).median / coldMedian).toFixed(2)})`,
);
