import { statSync } from "node:fs";
import { resolve } from "node:path";
import {
  type CliOutput,
  defineCli,
  homeDir,
  invocationCwd,
  RefusedError,
  resolveAgentDir,
  UsageError,
} from "@pi-rails/agent-core/kit";
import { streamConditionProblem } from "../conditions/stream.ts";
import { loadRules } from "../discovery/load.ts";
import type { Rule } from "../rule.ts";
import { readRulebookSettings } from "../settings/read.ts";
import { doctorReport, formatDoctor, formatList, formatShow } from "./report.ts";
import { askInstalledTtsr } from "./ttsr-judge.ts";

/** The rulebook bin (the kit's `runCli` around its commands): exit 0 done, 1 no rule of that name, 2 usage. */
export const cli = defineCli({
  bin: "rulebook",
  help: {
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
  },
  options: {
    cwd: { type: "string" },
    home: { type: "string" },
    "agent-dir": { type: "string" },
  },
  run: async ({ values, positionals }, io) => {
    const [command, ...rest] = positionals;
    if (!command) throw new UsageError("no command given");
    const cwd = resolve(io.cwd, values.cwd ?? ".");
    const home = resolve(values.home ?? homeDir(io.env));
    const agentDir = resolve(values["agent-dir"] ?? resolveAgentDir({ ...io.env, HOME: home, USERPROFILE: home }));
    const cwdStats = statSync(cwd, { throwIfNoEntry: false });
    if (!cwdStats?.isDirectory())
      throw new UsageError(`--cwd ${cwd} ${cwdStats ? "is not a folder" : "does not exist"}`);
    const { settings, issues, ttsrDisabledRules } = await readRulebookSettings(cwd, agentDir);
    const result = await loadRules({ cwd, home, agentDir, settings, ttsrDisabledRules });
    result.warnings.unshift(...issues);
    // the pi-ttsr installed next to rulebook decides for stream rules, as in a session; else rulebook's own check
    const ttsr = await askInstalledTtsr(result.rules);
    const streamProblem = ttsr ? (rule: Rule) => ttsr.problems.get(rule.name) : streamConditionProblem;
    // `report.rules` describes `result.rules`, in the same order
    const report = {
      ...doctorReport(result, settings, { ttsrActive: true, streamProblem }),
      streamConditionsCheckedBy: ttsr?.by ?? "rulebook (no pi-ttsr installed next to it)",
    };
    switch (command) {
      case "list":
        io.result(report.rules, formatList(report.rules));
        return 0;
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
        const shown = {
          ...described,
          ...(notDelivered ? { notDelivered } : {}),
          source: rule.source,
          meta: rule.meta,
          content: rule.content,
          shadows: shadows.map((s) => ({ path: s.rule.path, provider: s.rule.source.provider })),
        };
        io.result(shown, formatShow(rule, described.bucket, result.shadowed, described.autoAttach, notDelivered));
        return 0;
      }
      case "doctor":
        io.result(report, formatDoctor(report));
        return 0;
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  },
});

export const USAGE = cli.usage;

/**
 * Run the CLI with `argv` (without node and script) in `env`. Returns the kit's exit code: 0 done, 1 not found,
 * 2 usage (bad option, `--cwd` not a folder), 3 internal. Never throws and never prints a stack.
 */
export function runCli(argv: readonly string[], io: CliOutput, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return cli.run(argv, { ...io, env, cwd: invocationCwd("rulebook", env) });
}
