import { parseArgs } from "node:util";
import { type CommonFlags, listCommand, scanCommand, testCommand } from "./commands.ts";
import { type CliIo, EXIT_USAGE, UsageError } from "./io.ts";

export const USAGE = `ttsr: Time Traveling Streamed Rules

Usage:
  ttsr test [snippet...] [--file <path>] [--source text|thinking|tool] [--tool <name>] [--path <file>]
            [--rule <rule.md>]... [--json]      does this output trigger a rule?
  ttsr list [--rule <rule.md>]... [--json]      the rules a session here would load, and warnings
  ttsr scan <dir> [--source ...] [--tool <name>] [--rule <rule.md>]... [--json]
                                                run the rules over a codebase (honors .gitignore)

Options: --cwd <dir> project to load rules for (default: the current directory).
Without a snippet or --file, test reads stdin. --tool / --path imply --source tool.
--file <path> alone is the model writing that file: a write (and an edit, when a rule watches edits) of it.
Exit codes: 0 no match, 1 match, 2 usage or load error.
`;

/** Runs the CLI; returns the exit code. Never throws. */
export async function main(argv: string[], io: CliIo): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    io.stderr(`ttsr: ${(error as Error).message}\n\n${USAGE}`);
    return EXIT_USAGE;
  }
  const { values, positionals } = parsed;
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
  try {
    switch (command) {
      case "test":
        return await testCommand(io, args, flags);
      case "list":
        if (args.length > 0) throw new UsageError("list takes no arguments");
        return await listCommand(io, flags);
      case "scan":
        return await scanCommand(io, args, flags);
      default:
        io.stderr(command ? `ttsr: unknown command "${command}"\n\n${USAGE}` : USAGE);
        return EXIT_USAGE;
    }
  } catch (error) {
    io.stderr(`ttsr: ${(error as Error).message}\n`);
    return EXIT_USAGE;
  }
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
      cwd: { type: "string" },
      rule: { type: "string", multiple: true },
      source: { type: "string" },
      tool: { type: "string" },
      path: { type: "string" },
      file: { type: "string", short: "f" },
    },
  });
}

/**
 * A process stream that goes quiet once its reader is gone (`ttsr list | head -1`): EPIPE is not an error of
 * the CLI, so nothing more is written and no stack is printed; the command finishes with its own exit code.
 */
function quietOnClosedPipe(stream: NodeJS.WriteStream): (text: string) => void {
  let closed = false;
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE" || error.code === "ERR_STREAM_DESTROYED") closed = true;
    else throw error;
  });
  return (text) => {
    if (!closed) stream.write(text);
  };
}

/** The process-backed IO for the bin. */
export function processIo(): CliIo {
  return {
    stdout: quietOnClosedPipe(process.stdout),
    stderr: quietOnClosedPipe(process.stderr),
    cwd: process.cwd(),
    env: process.env,
    readStdin: async () => {
      if (process.stdin.isTTY) return undefined;
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString("utf8");
    },
  };
}
