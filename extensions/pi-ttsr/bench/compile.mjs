// Compiling rules: what a session start pays when the compile cache cannot answer (a fresh install, an edited
// rule, a changed pi-ttsr), measured on the built package (dist/). Run after `pnpm build`:
// `node bench/compile.mjs` (or as part of `pnpm bench`).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { enableCompileCache } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { compilePattern } from "../dist/matcher/compile.js";
import { compileAll } from "../dist/matcher/compile-cache.js";
import { assertionProbeRules, benchRules } from "./workload.mjs";

const HERE = fileURLToPath(new URL(".", import.meta.url));
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** `fn`'s wall and CPU time, ms. */
function measure(fn) {
  const c0 = cpuMs();
  const t0 = performance.now();
  fn();
  return { wall: performance.now() - t0, cpu: cpuMs() - c0 };
}

/** Compiles `set` in a fresh Node process (what the first compile of a session pays: the regex libraries load). */
function freshProcess(set) {
  const out = execFileSync(process.execPath, [join(HERE, "compile.mjs"), "--child", set], { encoding: "utf8" });
  return JSON.parse(out);
}

const SETS = { bench: benchRules, probe: assertionProbeRules };

if (process.argv[2] === "--child") {
  // As pi does (its CLI turns V8's code cache on): the regex libraries load from cached bytecode after a first run.
  enableCompileCache();
  const specs = SETS[process.argv[3]]();
  console.log(JSON.stringify(measure(() => specs.map(compilePattern))));
  process.exit(0);
}

/** Rows for both rule sets: fresh process, warm process, read from the cache, one rule edited. */
export function runCompileBench({ rounds = Number(process.env.TTSR_COMPILE_ROUNDS ?? 5) } = {}) {
  const rows = [];
  for (const [name, make] of Object.entries(SETS)) {
    const specs = make();
    const modes = {};
    for (const r of specs.map(compilePattern)) {
      const mode = r.ok ? r.pattern.mode : "refused";
      modes[mode] = (modes[mode] ?? 0) + 1;
    }
    const fresh = Array.from({ length: rounds }, () => freshProcess(name));
    const warm = Array.from({ length: rounds }, () => measure(() => specs.map(compilePattern)));
    const cacheDir = mkdtempSync(join(tmpdir(), "ttsr-compile-bench-"));
    try {
      compileAll(specs, cacheDir);
      const read = Array.from({ length: rounds }, () => measure(() => compileAll(specs, cacheDir)));
      // One rule edited: its pattern is new (a different one each round), the other 199 are in the cache.
      const edited = Array.from({ length: rounds }, (_, round) => {
        const changed = [...specs];
        changed[100] = { ...specs[100], source: `${specs[100].source}|editedRule${round}` };
        let compiled = 0;
        const m = measure(() => {
          compiled = compileAll(changed, cacheDir).compiled;
        });
        if (compiled !== 1) throw new Error(`one rule edited: ${compiled} compiled`);
        return m;
      });
      const row = (what, runs) => ({
        rules: `${name} (${Object.entries(modes)
          .map(([m, n]) => `${n} ${m}`)
          .join(", ")})`,
        what,
        medianMs: +median(runs.map((r) => r.wall)).toFixed(1),
        minMs: +Math.min(...runs.map((r) => r.wall)).toFixed(1),
        cpuMedianMs: +median(runs.map((r) => r.cpu)).toFixed(1),
      });
      rows.push(
        row("compile, fresh process (loads refa; V8 code cache on, as in pi)", fresh),
        row("compile, warm process", warm),
        row("read back from the cache", read),
        row("one rule edited (1 compiled, 199 read)", edited),
      );
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  }
  return { rounds, rows };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = runCompileBench();
  if (process.argv.includes("--json")) console.log(JSON.stringify(result, null, 2));
  else {
    console.log(`pi-ttsr compile: ${result.rounds} rounds, median and min wall ms, median CPU ms`);
    console.table(result.rows);
  }
}
