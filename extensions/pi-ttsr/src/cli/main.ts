import { type CliIo, type CliOutput, defineCli, processIo as kitProcessIo, UsageError } from "@pi-rails/agent-core/kit";
import { type CommonFlags, listCommand, scanCommand, testCommand } from "./commands.ts";

/** The ttsr bin (the kit's `runCli` around its commands): exit 0 no match, 1 match, 2 usage, 3 internal. */
export const cli = defineCli({
  bin: "ttsr",
  help: {
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
  },
  options: {
    cwd: { type: "string" },
    rule: { type: "string", multiple: true },
    source: { type: "string" },
    tool: { type: "string" },
    path: { type: "string" },
    file: { type: "string", short: "f" },
  },
  run: async ({ values, positionals }, io) => {
    const [command, ...args] = positionals;
    const flags: CommonFlags = {
      json: io.json,
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
  },
});

export const USAGE = cli.usage;

/** Runs the CLI with `io` (a test's buffers, or `processIo()`); returns the exit code. Never throws. */
export const main = (argv: readonly string[], io: CliOutput & Partial<CliIo>): Promise<number> => cli.run(argv, io);

/** The process-backed io of the bin: quiet on a closed pipe, in the folder `pnpm ttsr` was typed in. */
export const processIo = () => kitProcessIo("ttsr");
