// One start of pi-ttsr's session work in this fresh process (see startup-phases.mjs): what the extension's
// session_start runs, then one short delta. Prints the wall ms of each phase as JSON.
import { pathToFileURL } from "node:url";

const [packageDir, cwd, agentDir] = process.argv.slice(2);
const dist = (path) => import(pathToFileURL(`${packageDir}/dist/${path}`).href);
const { loadSessionRules } = await dist("rules/session-rules.js");
const { buildRegistry } = await dist("manager/build-registry.js");
const { TtsrManager } = await dist("manager/ttsr-manager.js");

// pi has ICU's collation data loaded when it starts an extension (a collator costs about 1 ms there, 9 ms in a bare
// Node process); rulebook sorts folders with one
new Intl.Collator("en").compare("a", "b");

const t0 = performance.now();
const read = await loadSessionRules({ cwd, agentDir, projectTrusted: true });
const t1 = performance.now();
const built = buildRegistry(read.loaded.rules, { defer: true });
const manager = new TtsrManager(built.registry, { settings: read.settings, cwd });
const t2 = performance.now();
const decision = manager.checkDelta({ source: "text", chunk: "Done: the module is written." });
const t3 = performance.now();
if (decision.interrupt.length > 0) throw new Error("a rule fired on the bench's answer");
// The session's idle compile, at once (`PRIME`): the compiled set a session leaves for the next start.
if (process.env.PRIME) built.registry.patternSet.compileDeferred(Number.POSITIVE_INFINITY);
const phases = { rules: t1 - t0, registry: t2 - t1, firstDelta: t3 - t2 };
console.log(JSON.stringify({ phases, snapshot: read.snapshot, loaded: read.loaded.rules.length }));
