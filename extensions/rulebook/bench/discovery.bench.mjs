#!/usr/bin/env node
// Discovery benchmark: rule files across every provider, loaded by fresh Node processes (empty parse
// cache: "cold"), then again in the same process (warm: re-stat, no re-read). Sizes 1k / 5k / 20k show
// that discovery stays linear; two hostile variants of the 1k tree (combinatorial brace globs; a
// billion-laughs file, a 70,000-character glob and a `.cursor/rules -> /` link) show that bad files
// cost nothing noticeable. Run with `pnpm bench` (builds first) or `node bench/discovery.bench.mjs`
// after `pnpm build`. BENCH_DIST=<dir>/index.js compares another build in the same run (see README).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const dists = [
  ["this build", fileURLToPath(new URL("../dist/index.js", import.meta.url))],
  ...(process.env.BENCH_DIST ? [["BENCH_DIST", process.env.BENCH_DIST]] : []),
];
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const SIZES = (process.env.BENCH_SIZES ?? "1000,5000,20000").split(",").map(Number);

const put = (path, text) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};
const body = (i) => `# Rule ${i}\n\n${"Keep functions small and names precise. ".repeat(20)}\n`;

/** The same mix as always: every provider, nested Cursor folders, a .clinerules folder above cwd. */
function buildTree(total, variant) {
  const root = mkdtempSync(join(tmpdir(), "rulebook-bench-"));
  const home = join(root, "home");
  const cwd = join(home, "work", "project");
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
      put(
        join(cwd, ".github/instructions", `copilot-${i}.instructions.md`),
        `---\napplyTo: "**/*.py"\n---\n${body(i)}`,
      ),
  ];
  for (let i = 0; i < total; i++) layouts[i % layouts.length](i);
  // a plausible project tree around the rules, for the nested .cursor search
  for (let d = 0; d < 200; d++) put(join(cwd, "src", `mod-${d % 20}`, `file-${d}.ts`), "export {};\n");
  put(join(home, ".codeium/windsurf/memories/global_rules.md"), body("global"));
  if (variant === "braces") {
    const set = "{a,b,c,d,e,f,g,h}";
    for (let i = 0; i < 10; i++)
      put(join(cwd, ".cursor/rules", `braces-${i}.mdc`), `---\nglobs: "${set.repeat(6)}/*.ts"\n---\nB.`);
  }
  if (variant === "hostile") {
    const laughs = ['---\na: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (const [k, prev] of [
      ["b", "a"],
      ["c", "b"],
      ["d", "c"],
      ["e", "d"],
      ["f", "e"],
    ]) {
      laughs.push(`${k}: &${k} [${Array(9).fill(`*${prev}`).join(",")}]`);
    }
    laughs.push(`description: [${Array(9).fill("*f").join(",")}]`, "---", "lol");
    put(join(cwd, ".cursor/rules", "laughs.mdc"), laughs.join("\n"));
    put(join(cwd, ".cursor/rules", "huge-glob.mdc"), `---\nglobs: ${"a".repeat(70_000)}\n---\nH.`);
    mkdirSync(join(cwd, ".claude"), { recursive: true });
    rmSync(join(cwd, ".claude/rules"), { recursive: true, force: true });
    symlinkSync("/", join(cwd, ".claude/rules"));
  }
  return { root, home, cwd };
}

const child = (dist, cwd, home) => `
const ti = performance.now();
const { loadRules, compileGlobMatchers, matchRules } = await import(${JSON.stringify(dist)});
const importMs = performance.now() - ti;
// No parse store: "cold" means every file is read and parsed (a store would serve them from the last run).
const opts = { cwd: ${JSON.stringify(cwd)}, home: ${JSON.stringify(home)}, parseStore: false };
const t0 = performance.now();
const cold = await loadRules(opts);
const coldMs = performance.now() - t0;
const t1 = performance.now();
const warm = await loadRules(opts);
const warmMs = performance.now() - t1;
const t2 = performance.now();
const matchers = compileGlobMatchers(cold.rules);
for (let i = 0; i < 200; i++) matchRules(matchers, "src/mod-" + (i % 20) + "/file-" + i + ".ts");
const matchMs = performance.now() - t2;
process.stdout.write(JSON.stringify({ importMs, coldMs, warmMs, matchMs, files: cold.stats.files, rules: cold.rules.length,
  shadowed: cold.shadowed.length, skipped: cold.skipped.length, warnings: cold.warnings.length, warmHits: warm.stats.cacheHits }));
`;

const stat = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0], median: s[Math.floor(s.length / 2)], max: s[s.length - 1] };
};
const ms = (x) => `${x.toFixed(1)} ms`;
const cases = [
  ...SIZES.map((size) => ({ label: `${size.toLocaleString("en")} files`, size, variant: undefined })),
  { label: "1,000 files + 10 brace-set globs (8^6 patterns each)", size: 1000, variant: "braces" },
  { label: "1,000 files + billion laughs, 70k glob, rules -> /", size: 1000, variant: "hostile" },
];

console.log(
  `rulebook discovery bench: ${RUNS} fresh processes per case (3 for 20k), node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? "cpu"}`,
);
console.log(
  "build | case | files read | cold median (min-max) | cold per file | warm median | 200 paths x all rules | import",
);
const baseline = new Map();
for (const c of cases) {
  const tree = buildTree(c.size, c.variant);
  const runs = c.size >= 20000 ? Math.min(RUNS, 3) : RUNS;
  // builds alternate run by run, so machine load falls on both alike
  const results = new Map(dists.map(([name]) => [name, []]));
  const failed = new Map();
  const slow = new Set();
  for (let r = 0; r < runs; r++) {
    for (const [name, dist] of dists) {
      // a build that needs over 10 s for one run has made its point: one run is enough
      if (failed.has(name) || slow.has(name)) continue;
      const started = performance.now();
      try {
        const out = execFileSync(process.execPath, ["--input-type=module", "-e", child(dist, tree.cwd, tree.home)], {
          encoding: "utf8",
          maxBuffer: 1 << 24,
          stdio: ["ignore", "pipe", "pipe"],
          timeout: 120_000,
        });
        results.get(name).push(JSON.parse(out));
        if (performance.now() - started > 10_000) slow.add(name);
      } catch (error) {
        const why = String(error.stderr ?? error.message).match(/^\w*Error: .*$/m)?.[0] ?? "failed";
        failed.set(name, `FAILED after ${ms(performance.now() - started)}: ${why}`);
      }
    }
  }
  for (const [name] of dists) {
    if (failed.has(name)) {
      console.log(`${name} | ${c.label} | ${failed.get(name)}`);
      continue;
    }
    const rs = results.get(name);
    const cold = stat(rs.map((x) => x.coldMs));
    const warm = stat(rs.map((x) => x.warmMs));
    const match = stat(rs.map((x) => x.matchMs));
    const imp = stat(rs.map((x) => x.importMs));
    const first = rs[0];
    const perFile = (cold.median / first.files) * 1000;
    if (name === "this build" && !c.variant) baseline.set(c.size, perFile);
    console.log(
      `${name} | ${c.label}${rs.length < runs ? ` (${rs.length} run)` : ""} | ${first.files} (${first.rules} rules, ${first.skipped} skipped, ${first.warnings} warnings) | ${ms(cold.median)} (${ms(cold.min)}-${ms(cold.max)}) | ${perFile.toFixed(1)} us | ${ms(warm.median)} | ${ms(match.median)} | ${ms(imp.median)}`,
    );
  }
  if (!process.env.BENCH_KEEP) rmSync(tree.root, { recursive: true, force: true });
  else console.log(`  kept: ${tree.cwd}`);
}
const small = baseline.get(SIZES[0]);
if (small) {
  const ratios = SIZES.slice(1).map((s) => `${s}: ${(baseline.get(s) / small).toFixed(2)}x`);
  console.log(`linearity (cold time per file relative to ${SIZES[0]}): ${ratios.join(", ")}`);
}
