// pi-ttsr's own start-up work, apart from pi: fresh Node processes run what the extension's session_start runs
// (the settings and rules through the start-up snapshot, the registry over the compile cache, the manager) and check
// one short delta, with 200 rules: nothing changed since the last start, one rule edited, and a cold cache. Wall
// ms of each phase, least and median over the processes. The whole `pi -p` (startup.mjs) is what users pay; on a
// shared machine its noise is the size of these numbers, which this measures apart from it.
// `TTSR_PHASES_PACKAGE=<pi-ttsr dir>` measures another build (a checkout of an earlier commit) the same way.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { RACY_CHANGE_MS } from "@pi-rails/agent-core/kit";
import { prepareCliHome, startModelServer } from "@pi-rails/testkit";
import { benchRules } from "./workload.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const CHILD = join(HERE, "startup-phases-child.mjs");

function ruleFiles() {
  const files = {};
  benchRules().forEach((spec, i) => {
    const flags = spec.flags ? `flags: ${JSON.stringify(spec.flags)}\n` : "";
    files[`.pi/rules/bench-${i}.md`] =
      `---\ndescription: bench rule ${i}\ncondition: ${JSON.stringify(spec.source)}\n${flags}scope: text\n---\nBench rule ${i}.\n`;
  });
  return files;
}

const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const least = (a) => Math.min(...a);

/** Runs each start `rounds` times (interleaved), each in a fresh process; least and median ms per phase. */
export async function runStartupPhasesBench({ rounds = Number(process.env.TTSR_PHASES_ROUNDS ?? 15) } = {}) {
  const packageDir = process.env.TTSR_PHASES_PACKAGE ?? join(HERE, "..");
  // the homes only: no model is asked
  const server = await startModelServer({ script: () => ({ text: "unused" }) });
  const scratch = mkdtempSync(join(tmpdir(), "ttsr-phases-"));
  const starts = [
    { name: "nothing changed", env: () => ({}) },
    {
      name: "one rule edited",
      env: (round, home) => {
        const condition = JSON.stringify(`forbiddenCall0Edit${round}x\\(`);
        writeFileSync(
          join(home.cwd, ".pi/rules/bench-0.md"),
          `---\ndescription: e\ncondition: ${condition}\n---\nE.\n`,
        );
        return {};
      },
    },
    { name: "cold cache", env: () => ({ PI_TTSR_CACHE_DIR: mkdtempSync(join(scratch, "cold-")) }) },
  ];
  const homes = starts.map(() => prepareCliHome({ server, files: ruleFiles() }));
  const run = (home, env) => {
    const out = execFileSync(process.execPath, [CHILD, packageDir, home.cwd, home.agentDir], {
      env: { ...process.env, ...env },
      encoding: "utf8",
    });
    return JSON.parse(out);
  };
  try {
    // rule files older than the snapshot's racy window, as a user's are; then a first start that compiles all
    // (the session's idle compile) and one that keeps the snapshot
    await new Promise((resolve) => setTimeout(resolve, RACY_CHANGE_MS + 200));
    for (const home of homes) {
      run(home, { PRIME: "1" });
      run(home, {});
    }
    const results = starts.map(() => []);
    for (let round = 0; round < rounds; round++) {
      for (const [i, start] of starts.entries()) results[i].push(run(homes[i], start.env(round, homes[i])));
    }
    const rows = starts.map((start, i) => {
      const r = results[i];
      const row = { start: start.name, snapshot: r.at(-1).snapshot, rules: r.at(-1).loaded };
      for (const phase of ["rules", "registry", "firstDelta"]) {
        const ms = r.map((x) => x.phases[phase]);
        row[`${phase}Ms`] = `${least(ms).toFixed(1)} / ${median(ms).toFixed(1)}`;
      }
      const total = r.map((x) => x.phases.rules + x.phases.registry + x.phases.firstDelta);
      row.totalMs = `${least(total).toFixed(1)} / ${median(total).toFixed(1)}`;
      return row;
    });
    return { rounds, rows };
  } finally {
    for (const home of homes) home.dispose();
    rmSync(scratch, { recursive: true, force: true });
    await server.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await runStartupPhasesBench();
  if (process.argv.includes("--json")) console.log(JSON.stringify(result, null, 2));
  else {
    console.log(
      `pi-ttsr's start-up work apart from pi, 200 rules, ${result.rounds} fresh processes each (wall ms, least / median):`,
    );
    console.table(result.rows);
  }
}
