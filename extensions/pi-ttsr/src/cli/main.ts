import { formatHelp, invocationCwd, parseCliArgs, processOutput, runCommand } from "@pi-rails/agent-core/kit";
import { type CommonFlags, listCommand, scanCommand, testCommand } from "./commands.ts";
import { type CliIo, UsageError } from "./io.ts";

export const USAGE = formatHelp({
  title: "ttsr: Time Traveling Streamed Rules",
  commands: [
    [
      "ttsr test [snippet...] [--file <path>] [--source text|thinking|tool] [--tool <name>] [--path <file>] [--rule <rule.md>]...",
      "does this output trigger a rule?",
    ],
    ["ttsr list [--rule <rule.md>]...", "the rules a session here would load, and warnings"],
    [
      "ttsr scan <dir> [--source ...] [--tool <name>] [--rule <rule.md>]...",
      "run the rules over a codebase (honors .gitignore)",
    ],
  ],
  options: [["--cwd <dir>", "project to load rules for (default: the current directory)"]],
  notes: `Without a snippet or --file, test reads stdin. --tool / --path imply --source tool.
--file <path> alone is the model writing that file: a write (and an edit, when a rule watches edits) of it.
A rule that cannot be loaded (--rule) is a usage error.`,
  exit1: "a rule matched",
});

/** Runs the CLI; returns the exit code (the kit's: 0 no match, 1 match, 2 usage, 3 internal). Never throws. */
export async function main(argv: string[], io: CliIo): Promise<number> {
  const json = argv.includes("--json");
  return runCommand("ttsr", { ...io, json, usage: USAGE }, async () => {
    const { values, positionals } = parseCliArgs(argv, {
      cwd: { type: "string" },
      rule: { type: "string", multiple: true },
      source: { type: "string" },
      tool: { type: "string" },
      path: { type: "string" },
      file: { type: "string", short: "f" },
    });
    if (values.help) {
      io.stdout(USAGE);
      return 0;
    }
    const [command, ...args] = positionals;
    const flags: CommonFlags = {
      json: values.json ?? false,
      ...(values.cwd ? { cwd: values.cwd } : {}),
      ...(values.rule ? { rule: values.rule } : {}),
      ...(values.source ? { source: values.source } : {}),
      ...(values.tool ? { tool: values.tool } : {}),
      ...(values.path ? { path: values.path } : {}),
      ...(values.file ? { file: values.file } : {}),
    };
    switch (command) {
      case "test":
        return await testCommand(io, args, flags);
      case "list":
        if (args.length > 0) throw new UsageError("list takes no arguments");
        return await listCommand(io, flags);
      case "scan":
        return await scanCommand(io, args, flags);
      default:
        throw new UsageError(command ? `unknown command "${command}"` : "no command given");
    }
  });
}

/** The process-backed IO for the bin: quiet on a closed pipe, in the folder `pnpm ttsr` was typed in. */
export function processIo(): CliIo {
  return {
    ...processOutput(),
    cwd: invocationCwd("ttsr"),
    env: process.env,
    readStdin: async () => {
      if (process.stdin.isTTY) return undefined;
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString("utf8");
    },
  };
}
