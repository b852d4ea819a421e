// Start-up cost: the real `pi -p` against the loopback model server, with and without pi-ttsr, side by side in
// one run. Each configuration runs twice a round: answering one short line (its ratio is pi-ttsr's start-up:
// module load, rule discovery, compiling or reading the compiled rules) and answering the same 64 KB response
// that matches no rule (its ratio is what pi-ttsr adds to a whole run, matching that answer included).
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { RACY_CHANGE_MS } from "@pi-rails/agent-core/kit";
import { prepareCliHome, resolvePiCli, runPi, startModelServer } from "@pi-rails/testkit";
import { benchRules, benchText } from "./workload.mjs";

const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
const CPU_PROBE = join(dirname(fileURLToPath(import.meta.url)), "cpu-probe.mjs");
const ANSWER_KB = 64;
/** The short answer: one line, matching no rule. */
const SHORT_ANSWER = "Done: the module is written.";

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

/** 0..n-1 in an order that depends on `seed` alone (the same runs in the same order for the same round). */
function shuffled(n, seed) {
  let state = (seed + 2) * 0x9e3779b1;
  const random = () => {
    state = (state ^ (state << 13)) >>> 0;
    state = (state ^ (state >>> 17)) >>> 0;
    state = (state ^ (state << 5)) >>> 0;
    return state / 2 ** 32;
  };
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

/** Runs every configuration `rounds` times, interleaved (load drifts hit all alike); medians and ratios. */
export async function runStartupBench({ rounds = Number(process.env.TTSR_STARTUP_ROUNDS ?? 11) } = {}) {
  const long = benchText(ANSWER_KB * 1024);
  const measures = [
    { name: "short", answer: SHORT_ANSWER },
    { name: "64kb", answer: long },
  ];
  let answer = long;
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
  // Rule files as a user has them: older than the start-up snapshot's racy window (files written seconds before a
  // start are read again rather than kept), so the warm starts below read the snapshot as a user's would.
  await new Promise((resolve) => setTimeout(resolve, RACY_CHANGE_MS + 200));
  // times[measure][config][round]
  const times = measures.map(() => configs.map(() => []));
  const cpu = measures.map(() => configs.map(() => []));
  const cpuOut = join(scratch, "cpu");
  const piCli = resolvePiCli();
  try {
    // One untimed run each first (fills the compile cache and the page cache, as any earlier session would).
    for (let round = -1; round < rounds; round++) {
      // A new order each round: with a fixed one, the row after the heaviest start (a cold cache writes hundreds of
      // KB) would carry whatever that does to the next process.
      for (const i of shuffled(configs.length, round)) {
        const c = configs[i];
        for (const [m, measure] of measures.entries()) {
          // a distinct number per run: the edited rule's condition must be new each time
          const run = round * measures.length + m;
          answer = measure.answer;
          const extra = c.before ? c.before(run, homes[i]) : {};
          const cachedBefore = cachedPatterns(homes[i].agentDir);
          const result = await runPi([...c.args, "-p", "write the module"], {
            home: homes[i],
            env: { ...c.env, ...extra, PI_TTSR_CPU_OUT: cpuOut, PI_TTSR_PI_CLI: piCli },
            piCli: CPU_PROBE,
          });
          if (result.code !== 0) throw new Error(`${c.name}: pi exited ${result.code}: ${result.stderr}`);
          if (!result.stdout.includes(answer.slice(-200)))
            throw new Error(`${c.name}: answer cut short (a rule fired?)`);
          c.after?.(run, homes[i], cachedBefore);
          if (round >= 0) {
            times[m][i].push(result.durationMs);
            cpu[m][i].push(Number(readFileSync(cpuOut, "utf8")));
          }
        }
      }
    }
  } finally {
    for (const h of homes) h.dispose();
    rmSync(scratch, { recursive: true, force: true });
    await server.close();
  }
  // On a shared machine one run's noise (±100 ms) is the size of the goal, and it drifts over a run. Each round
  // runs every configuration back to back, so the ratio within a round (`pairedRatio`, the median over rounds)
  // cancels the drift; the ratio of medians and of minimums are printed beside it. `cpuRatio` is the same paired
  // ratio for the process's CPU time (user + system), which other processes on the machine disturb far less.
  const rowsOf = (t, c) => {
    const base = median(t[0]);
    const baseMin = Math.min(...t[0]);
    return configs.map((config, i) => ({
      config: config.name,
      medianMs: median(t[i]),
      minMs: Math.min(...t[i]),
      pairedRatio: +median(t[i].map((x, round) => x / t[0][round])).toFixed(3),
      ratio: +(median(t[i]) / base).toFixed(3),
      minRatio: +(Math.min(...t[i]) / baseMin).toFixed(3),
      cpuMs: Math.round(median(c[i])),
      cpuRatio: +median(c[i].map((x, round) => x / c[0][round])).toFixed(3),
      // noise on a shared machine only ever adds CPU time: the least each configuration took, side by side
      cpuMinMs: Math.round(Math.min(...c[i])),
      cpuMinRatio: +(Math.min(...c[i]) / Math.min(...c[0])).toFixed(3),
    }));
  };
  const short = rowsOf(times[0], cpu[0]);
  const whole = rowsOf(times[1], cpu[1]);
  // One row per configuration, both measures side by side: start-up (short answer) and the whole 64 KB run.
  const rows = configs.map((config, i) => ({
    config: config.name,
    startupCpuMs: short[i].cpuMs,
    startupCpuRatio: short[i].cpuRatio,
    startupPairedRatio: short[i].pairedRatio,
    startupCpuMinRatio: short[i].cpuMinRatio,
    runCpuMs: whole[i].cpuMs,
    runCpuRatio: whole[i].cpuRatio,
    runPairedRatio: whole[i].pairedRatio,
    runCpuMinRatio: whole[i].cpuMinRatio,
  }));
  return { rounds, answerKb: ANSWER_KB, rows, startup: short, run: whole };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await runStartupBench();
  if (process.argv.includes("--json")) console.log(JSON.stringify(result, null, 2));
  else {
    console.log(
      `pi-ttsr start-up: real pi -p, a one-line answer (startup*) and a ${result.answerKb} KB answer (run*), ${result.rounds} rounds; ratios are medians of the per-round ratios to plain pi (CPU: user + system)`,
    );
    console.table(result.rows);
  }
}
