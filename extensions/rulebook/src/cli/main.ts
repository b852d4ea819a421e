import { statSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { resolveAgentDir } from "@pi-rails/agent-core/kit";
import { bucketOf, bucketRules } from "../buckets/buckets.ts";
import { loadRules } from "../discovery/load.ts";
import { stripControl } from "../prompt/escape.ts";
import { readRulebookSettings } from "../settings/read.ts";
import { describeRule, doctorReport, formatDoctor, formatList, formatShow } from "./report.ts";

const USAGE = `Usage: rulebook <command> [options]

Commands:
  list              every rule in effect: name, bucket, provider, scope, path
  show <name>       one rule: where it came from, how it is delivered, what it shadows, its content
  doctor            providers, buckets, and why rules were shadowed, skipped or not delivered

Options:
  --cwd <dir>        project directory (default: where you ran it)
  --home <dir>       home directory (default: $HOME)
  --agent-dir <dir>  pi agent dir (default: $PI_CODING_AGENT_DIR or <home>/.pi/agent)
  --json             machine-readable output
  -h, --help         this help

Stream-condition rules are shown in the "ttsr" bucket (delivered by pi-ttsr when it is loaded).`;

export interface CliIO {
  out: (text: string) => void;
  err: (text: string) => void;
}

/**
 * Run the CLI with `argv` (without node and script). Returns the exit code: 0 done, 1 not found,
 * 2 usage (bad option, `--cwd` not a folder). Never throws and never prints a stack: an unexpected
 * error is one line naming what failed.
 */
export async function runCli(
  argv: readonly string[],
  io: CliIO,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  // names and paths can carry ESC sequences: nothing reaches the terminal unfiltered
  const safe: CliIO = { out: (t) => io.out(stripControl(t)), err: (t) => io.err(stripControl(t)) };
  try {
    return await run(argv, safe, env);
  } catch (error) {
    safe.err(`rulebook: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

async function run(argv: readonly string[], io: CliIO, env: NodeJS.ProcessEnv): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    (command || values.help ? io.out : io.err)(USAGE);
    return values.help ? 0 : 2;
  }
  // `pnpm rulebook` runs in the repo root; INIT_CWD is where the user typed it.
  const cwd = resolve(values.cwd ?? env["INIT_CWD"] ?? process.cwd());
  const home = resolve(values.home ?? env["HOME"] ?? homedir());
  const agentDir = resolve(values["agent-dir"] ?? resolveAgentDir({ ...env, HOME: home, USERPROFILE: home }));
  const cwdStats = statSync(cwd, { throwIfNoEntry: false });
  if (!cwdStats?.isDirectory()) {
    io.err(`rulebook: --cwd ${cwd} ${cwdStats ? "is not a folder" : "does not exist"}`);
    return 2;
  }
  const { settings, errors, ttsrDisabledRules } = await readRulebookSettings(cwd, agentDir);
  const result = await loadRules({ cwd, home, agentDir, settings, ttsrDisabledRules });
  result.warnings.unshift(...errors);
  const buckets = bucketRules(result.rules, { ttsrActive: true, globAttach: settings.globAttach });
  const attach = new Set(buckets.attach);

  switch (command) {
    case "list": {
      if (values.json)
        io.out(
          JSON.stringify(
            result.rules.map((r) => describeRule(r, bucketOf(buckets, r), attach.has(r))),
            null,
            2,
          ),
        );
      else io.out(formatList(result, buckets));
      return 0;
    }
    case "show": {
      const name = rest[0];
      if (!name) {
        io.err("rulebook show: missing <name>");
        return 2;
      }
      const rule = result.rules.find((r) => r.name === name);
      if (!rule) {
        io.err(`No rule named "${name}". Rules: ${result.rules.map((r) => r.name).join(", ") || "(none)"}`);
        return 1;
      }
      const shadows = result.shadowed.filter((s) => s.by === rule);
      if (values.json) {
        io.out(
          JSON.stringify(
            {
              ...describeRule(rule, bucketOf(buckets, rule), attach.has(rule)),
              source: rule.source,
              meta: rule.meta,
              content: rule.content,
              shadows: shadows.map((s) => ({ path: s.rule.path, provider: s.rule.source.provider })),
            },
            null,
            2,
          ),
        );
      } else {
        io.out(formatShow(rule, bucketOf(buckets, rule), result.shadowed, attach.has(rule)));
      }
      return 0;
    }
    case "doctor": {
      const report = doctorReport(result, settings, { ttsrActive: true });
      io.out(values.json ? JSON.stringify(report, null, 2) : formatDoctor(report));
      return 0;
    }
    default:
      io.err(`Unknown command "${command}".\n\n${USAGE}`);
      return 2;
  }
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      cwd: { type: "string" },
      home: { type: "string" },
      "agent-dir": { type: "string" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
}
