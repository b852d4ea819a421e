// Start-up cost: the real `pi -p` against the loopback model server, with and without pi-ttsr, side by side in
// one run. Each configuration answers the same 64 KB response that matches no rule, so the ratio is what
// pi-ttsr adds to a whole run (module load, rule discovery, compiling or reading the compiled rules, matching).
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { prepareCliHome, resolvePiCli, runPi, startModelServer } from "@pi-rails/testkit";
import { benchRules, benchText } from "./workload.mjs";

const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
const CPU_PROBE = join(dirname(fileURLToPath(import.meta.url)), "cpu-probe.mjs");
const ANSWER_KB = 64;

function ruleFiles(count) {
  const files = {};
  benchRules()
    .slice(0, count)
    .forEach((spec, i) => {
      const flags = spec.flags ? `flags: ${JSON.stringify(spec.flags)}\n` : "";
      files[`.pi/rules/bench-${i}.md`] =
        `---\ndescription: bench rule ${i}\ncondition: ${JSON.stringify(spec.source)}\n${flags}scope: text\n---\nBench rule ${i}.\n`;
    });
  return files;
}

/** bench-0.md with a condition no earlier round used (and that the answer does not match). */
function editedRule(round) {
  const condition = JSON.stringify(`forbiddenCall0Edit${round + 2}x\\(`);
  return `---\ndescription: bench rule 0, edited\ncondition: ${condition}\nscope: text\n---\nBench rule 0.\n`;
}

/** Compiled patterns in the default compile cache of an agent dir (one file each; not the whole-set files). */
function cachedPatterns(agentDir) {
  const dir = join(agentDir, "cache", "pi-ttsr");
  if (!existsSync(dir)) return 0;
  return readdirSync(dir)
    .filter((name) => name.startsWith("patterns-"))
    .reduce((n, folder) => n + readdirSync(join(dir, folder)).filter((f) => !f.startsWith("set-")).length, 0);
}

const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];

/** Runs every configuration `rounds` times, interleaved (load drifts hit all alike); medians and ratios. */
export async function runStartupBench({ rounds = Number(process.env.TTSR_STARTUP_ROUNDS ?? 11) } = {}) {
  const answer = benchText(ANSWER_KB * 1024);
  const server = await startModelServer({ script: () => ({ text: answer, chunkSize: 256 }) });
  const rules = ruleFiles(200);
  const scratch = mkdtempSync(join(tmpdir(), "ttsr-startup-"));
  // What any extension package costs pi (finding, loading and calling it): the floor under pi-ttsr's own part.
  const emptyPackage = join(scratch, "empty-extension");
  mkdirSync(emptyPackage);
  writeFileSync(
    join(emptyPackage, "package.json"),
    JSON.stringify({ name: "empty-extension", type: "module", pi: { extensions: ["./extension.js"] } }),
  );
  writeFileSync(join(emptyPackage, "extension.js"), "export default function () {}\n");
  const configs = [
    { name: "pi without pi-ttsr (200 rule files present)", args: [], files: rules },
    { name: "pi with an empty extension package", args: ["-e", emptyPackage], files: {} },
    { name: "pi-ttsr, 4 builtin rules", args: ["-e", PACKAGE_DIR], files: {} },
    { name: "pi-ttsr, 200 rules + builtins", args: ["-e", PACKAGE_DIR], files: rules },
    {
      name: "pi-ttsr, 200 rules, compile cache off",
      args: ["-e", PACKAGE_DIR],
      files: rules,
      env: { PI_TTSR_CACHE_DIR: "off" },
    },
    {
      // A first start: nothing compiled yet (a new install, or a new pi-ttsr), every pattern compiled and written.
      name: "pi-ttsr, 200 rules, cold compile cache",
      args: ["-e", PACKAGE_DIR],
      files: rules,
      before: () => ({ PI_TTSR_CACHE_DIR: mkdtempSync(join(scratch, "cold-cache-")) }),
    },
    {
      // The start after editing one rule: its pattern is new, the other 199 are read back.
      name: "pi-ttsr, 200 rules, one rule edited",
      args: ["-e", PACKAGE_DIR],
      files: rules,
      before: (round, home) => {
        writeFileSync(join(home.cwd, ".pi/rules/bench-0.md"), editedRule(round));
        return {};
      },
      // Exactly one pattern compiled and written: the cache holds one file more than before.
      after: (round, home, before) => {
        const now = cachedPatterns(home.agentDir);
        if (round >= 0 && now !== before + 1) throw new Error(`one rule edited: ${now - before} patterns written`);
        return now;
      },
    },
  ];
  const homes = configs.map((c) => prepareCliHome({ server, files: c.files }));
  const times = configs.map(() => []);
  const cpu = configs.map(() => []);
  const cpuOut = join(scratch, "cpu");
  const piCli = resolvePiCli();
  try {
    // One untimed run each first (fills the compile cache and the page cache, as any earlier session would).
    for (let round = -1; round < rounds; round++) {
      for (const [i, c] of configs.entries()) {
        const extra = c.before ? c.before(round, homes[i]) : {};
        const cachedBefore = cachedPatterns(homes[i].agentDir);
        const run = await runPi([...c.args, "-p", "write the module"], {
          home: homes[i],
          env: { ...c.env, ...extra, PI_TTSR_CPU_OUT: cpuOut, PI_TTSR_PI_CLI: piCli },
          piCli: CPU_PROBE,
        });
        if (run.code !== 0) throw new Error(`${c.name}: pi exited ${run.code}: ${run.stderr}`);
        if (!run.stdout.includes(answer.slice(-200))) throw new Error(`${c.name}: answer cut short (a rule fired?)`);
        c.after?.(round, homes[i], cachedBefore);
        if (round >= 0) {
          times[i].push(run.durationMs);
          cpu[i].push(Number(readFileSync(cpuOut, "utf8")));
        }
      }
    }
  } finally {
    for (const h of homes) h.dispose();
    rmSync(scratch, { recursive: true, force: true });
    await server.close();
  }
  const base = median(times[0]);
  const baseMin = Math.min(...times[0]);
  // On a shared machine one run's noise (±100 ms) is the size of the goal, and it drifts over a run. Each round
  // runs every configuration back to back, so the ratio within a round (`pairedRatio`, the median over rounds)
  // cancels the drift; the ratio of medians and of minimums are printed beside it. `cpuRatio` is the same paired
  // ratio for the process's CPU time (user + system), which other processes on the machine disturb far less.
  const rows = configs.map((c, i) => ({
    config: c.name,
    medianMs: median(times[i]),
    minMs: Math.min(...times[i]),
    pairedRatio: +median(times[i].map((t, round) => t / times[0][round])).toFixed(3),
    ratio: +(median(times[i]) / base).toFixed(3),
    minRatio: +(Math.min(...times[i]) / baseMin).toFixed(3),
    cpuMs: Math.round(median(cpu[i])),
    cpuRatio: +median(cpu[i].map((t, round) => t / cpu[0][round])).toFixed(3),
  }));
  return { rounds, answerKb: ANSWER_KB, rows };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await runStartupBench();
  if (process.argv.includes("--json")) console.log(JSON.stringify(result, null, 2));
  else {
    console.log(
      `pi-ttsr start-up: real pi -p, ${result.answerKb} KB answer, ${result.rounds} rounds (pairedRatio: median of the per-round ratios)`,
    );
    console.table(result.rows);
  }
}
