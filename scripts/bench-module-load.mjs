// Module load as pi does it, for a bench of any extension with a bundled pi entry (scripts/bundle-extension.mjs): pi
// loads every extension through jiti (its own copy, `moduleCache: false`), which transforms and evaluates TypeScript
// modules one by one and hands a built ES module to Node's own loader. Loads the unbundled extension (src/extension.ts
// and the modules it pulls in) and the package's bundled pi entry side by side, each in fresh processes that have
// already loaded pi itself (as pi has when it reaches the extensions). Minimum and median of `rounds`.
// `node scripts/bench-module-load.mjs <package dir>` prints the table.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** pi's entry (the workspace's pinned pi) and the jiti pi itself loads extensions with (`jiti/static`). */
function piPaths() {
  const index = fileURLToPath(import.meta.resolve("@earendil-works/pi-coding-agent"));
  const jitiManifest = createRequire(index).resolve("jiti/package.json");
  return { index, jiti: join(dirname(jitiManifest), "lib", "jiti-static.mjs") };
}

const PROBE = `
const [index, jitiPath, entry] = process.argv.slice(1);
await import(index);
const { createJiti } = await import(jitiPath);
const t0 = performance.now();
const jiti = createJiti(index, { moduleCache: false });
const factory = await jiti.import(entry, { default: true });
const ms = performance.now() - t0;
if (typeof factory !== "function") throw new Error("no extension factory in " + entry);
console.log(ms.toFixed(2));
`;

const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];

/**
 * Per entry of the package in `packageDir`: ms to load it through pi's loader, fresh process each time (the first run
 * fills jiti's cache). `MODULE_LOAD_ROUNDS` overrides the rounds.
 */
export function runModuleLoadBench(packageDir, { rounds = Number(process.env.MODULE_LOAD_ROUNDS ?? 11) } = {}) {
  const { index, jiti } = piPaths();
  const piEntry = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")).pi.extensions[0];
  const entries = [
    { name: "unbundled (src/extension.ts)", path: join(packageDir, "src", "extension.ts") },
    { name: `pi entry (${piEntry})`, path: join(packageDir, piEntry) },
  ];
  const times = entries.map(() => []);
  for (let round = -1; round < rounds; round++) {
    for (const [i, e] of entries.entries()) {
      const out = execFileSync(
        process.execPath,
        ["--input-type=module", "-e", PROBE, pathToFileURL(index).href, pathToFileURL(jiti).href, e.path],
        { encoding: "utf8" },
      );
      if (round >= 0) times[i].push(Number(out.trim()));
    }
  }
  return {
    rounds,
    rows: entries.map((e, i) => ({ entry: e.name, minMs: Math.min(...times[i]), medianMs: median(times[i]) })),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const packageDir = resolve(process.argv[2] ?? ".");
  const result = runModuleLoadBench(packageDir);
  if (process.argv.includes("--json")) console.log(JSON.stringify(result, null, 2));
  else {
    console.log(`${packageDir}: module load through pi's loader (jiti), fresh processes, ${result.rounds} rounds`);
    console.table(result.rows);
  }
}
