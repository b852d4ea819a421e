import { statSync } from "node:fs";
import { resolve } from "node:path";
import {
  type CliOutput,
  formatHelp,
  homeDir,
  invocationCwd,
  parseCliArgs,
  RefusedError,
  resolveAgentDir,
  runCommand,
  UsageError,
} from "@pi-rails/agent-core/kit";
import { streamConditionProblem } from "../conditions/stream.ts";
import { loadRules } from "../discovery/load.ts";
import { stripControl } from "../prompt/escape.ts";
import type { Rule } from "../rule.ts";
import { readRulebookSettings } from "../settings/read.ts";
import { doctorReport, formatDoctor, formatList, formatShow } from "./report.ts";
import { askInstalledTtsr } from "./ttsr-judge.ts";

export const USAGE = formatHelp({
  title: "rulebook: where each rule came from, its bucket, why it was shadowed or skipped",
  commands: [
    ["rulebook list", "every rule in effect: name, bucket, provider, scope, path"],
    ["rulebook show <name>", "one rule: where it came from, how it is delivered, what it shadows, its content"],
    ["rulebook doctor", "providers, buckets, and why rules were shadowed, skipped or not delivered"],
  ],
  options: [
    ["--cwd <dir>", "project directory (default: where you ran it)"],
    ["--home <dir>", "home directory (default: $HOME)"],
    ["--agent-dir <dir>", "pi agent dir (default: $PI_CODING_AGENT_DIR or <home>/.pi/agent)"],
  ],
  notes:
    'Stream-condition rules are shown in the "ttsr" bucket (delivered by pi-ttsr when it is loaded), or as not delivered\nwhen pi-ttsr cannot use any of their conditions (asked of the pi-ttsr installed next to rulebook, if any).',
  exit1: "no rule of that name",
});

/**
 * Run the CLI with `argv` (without node and script). Returns the kit's exit code: 0 done, 1 not found, 2 usage
 * (bad option, `--cwd` not a folder), 3 internal. Never throws and never prints a stack.
 */
export async function runCli(
  argv: readonly string[],
  io: CliOutput,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  // names and paths can carry ESC sequences: nothing reaches the terminal unfiltered
  const safe: CliOutput = {
    stdout: (t) => io.stdout(stripControl(t)),
    stderr: (t) => io.stderr(stripControl(t)),
  };
  return runCommand("rulebook", { ...safe, json: argv.includes("--json"), usage: USAGE }, () => run(argv, safe, env));
}

async function run(argv: readonly string[], io: CliOutput, env: NodeJS.ProcessEnv): Promise<number> {
  const { values, positionals } = parseCliArgs(argv, {
    cwd: { type: "string" },
    home: { type: "string" },
    "agent-dir": { type: "string" },
  });
  const [command, ...rest] = positionals;
  if (values.help) {
    io.stdout(`${USAGE}`);
    return 0;
  }
  if (!command) throw new UsageError("no command given");
  const out = (text: string) => io.stdout(`${text}\n`);
  const cwd = resolve(values.cwd ?? invocationCwd("rulebook", env));
  const home = resolve(values.home ?? homeDir(env));
  const agentDir = resolve(values["agent-dir"] ?? resolveAgentDir({ ...env, HOME: home, USERPROFILE: home }));
  const cwdStats = statSync(cwd, { throwIfNoEntry: false });
  if (!cwdStats?.isDirectory()) throw new UsageError(`--cwd ${cwd} ${cwdStats ? "is not a folder" : "does not exist"}`);
  const { settings, errors, ttsrDisabledRules } = await readRulebookSettings(cwd, agentDir);
  const result = await loadRules({ cwd, home, agentDir, settings, ttsrDisabledRules });
  result.warnings.unshift(...errors);
  // the pi-ttsr installed next to rulebook decides for stream rules, as in a session; else rulebook's own check
  const ttsr = await askInstalledTtsr(result.rules);
  const streamProblem = ttsr ? (rule: Rule) => ttsr.problems.get(rule.name) : streamConditionProblem;
  // `report.rules` describes `result.rules`, in the same order
  const report = {
    ...doctorReport(result, settings, { ttsrActive: true, streamProblem }),
    streamConditionsCheckedBy: ttsr?.by ?? "rulebook (no pi-ttsr installed next to it)",
  };
  /** `--json` prints the value, else the text; both only when asked for. */
  const print = (json: () => unknown, text: () => string): number => {
    out(values.json ? JSON.stringify(json(), null, 2) : text());
    return 0;
  };

  switch (command) {
    case "list":
      return print(
        () => report.rules,
        () => formatList(report.rules),
      );
    case "show": {
      const name = rest[0];
      if (!name) throw new UsageError("show: missing <name>");
      const index = result.rules.findIndex((r) => r.name === name);
      const rule = result.rules[index];
      const described = report.rules[index];
      if (!rule || !described)
        throw new RefusedError(
          `No rule named "${name}". Rules: ${result.rules.map((r) => r.name).join(", ") || "(none)"}`,
        );
      const shadows = result.shadowed.filter((s) => s.by === rule);
      const notDelivered = report.notDelivered.find((n) => n.name === name)?.reason;
      return print(
        () => ({
          ...described,
          ...(notDelivered ? { notDelivered } : {}),
          source: rule.source,
          meta: rule.meta,
          content: rule.content,
          shadows: shadows.map((s) => ({ path: s.rule.path, provider: s.rule.source.provider })),
        }),
        () => formatShow(rule, described.bucket, result.shadowed, described.autoAttach, notDelivered),
      );
    }
    case "doctor":
      return print(
        () => report,
        () => formatDoctor(report),
      );
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}
