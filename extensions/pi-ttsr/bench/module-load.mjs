// Module load as pi does it: pi loads every extension through jiti (its own copy, `moduleCache: false`), which
// transforms and evaluates TypeScript modules one by one and hands a built ES module to Node's own loader. Loads the unbundled extension (src/extension.ts and the
// ~60 modules it pulls in) and the package's bundled pi entry side by side, each in fresh processes that have
// already loaded pi itself (as pi has when it reaches the extensions). Minimum and median of `rounds`.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");

/** pi's entry and the jiti pi itself loads extensions with (`jiti/static`, resolved from pi's package). */
function piPaths() {
  const index = fileURLToPath(import.meta.resolve("@mariozechner/pi-coding-agent"));
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

/** Per entry: ms to load it through pi's loader, fresh process each time (the first run fills jiti's cache). */
export function runModuleLoadBench({ rounds = Number(process.env.TTSR_MODULE_ROUNDS ?? 11) } = {}) {
  const { index, jiti } = piPaths();
  const piEntry = JSON.parse(readFileSync(join(PACKAGE_DIR, "package.json"), "utf8")).pi.extensions[0];
  const entries = [
    { name: "unbundled (src/extension.ts)", path: join(PACKAGE_DIR, "src", "extension.ts") },
    { name: `pi entry (${piEntry})`, path: join(PACKAGE_DIR, piEntry) },
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
  const result = runModuleLoadBench();
  if (process.argv.includes("--json")) console.log(JSON.stringify(result, null, 2));
  else {
    console.log(`pi-ttsr module load through pi's loader (jiti), fresh processes, ${result.rounds} rounds`);
    console.table(result.rows);
  }
}
