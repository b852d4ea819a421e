import { type ParseArgsConfig, parseArgs } from "node:util";

/**
 * What the four pi-rails bins (`ttsr`, `rulebook`, `pi-steer`, `cache-ttl`) share, so a script can rely on one
 * behaviour. Each bin is a `defineCli` spec; `runCli` owns everything around its commands, decided once here:
 *
 * - `--json` output is compact: one JSON document per line. `jq` reads it as well as an indented one (and indents
 *   it), `head -1` / `grep` / `while read` take one result per line, and `pi-steer watch --json` is a stream of such
 *   lines (one per event), which an indented format could not be.
 * - Errors: one line `<bin>: <message>` on stderr (no stack), with the usage after a usage error. With `--json` the
 *   error is also one JSON document on stdout, `{"error":{"kind":...,"message":...}}` (a bin may add fields), so
 *   `<bin> ... --json | jq` always gets a document and a script needs no `2>&1`.
 * - Exit codes: `EXIT` below. A runtime error the user can act on (no such file, rule or session) is 1, a usage error
 *   2, and 3 is kept for what should not happen (a bug), so a script can tell "fix your input" from "report this".
 * - A closed stdout (`| head -1`, `| head -c 0`) ends the bin at its next write, quietly: exit 0, or the code the
 *   command already returned.
 * - Text from users' files (rule names, paths, session content) can carry terminal escapes: control characters are
 *   stripped from everything printed; in JSON they stay data (`\u001b`), never raw bytes on the terminal.
 */

/** Exit codes of every pi-rails bin. */
export const EXIT = {
  /** Done; nothing found (a test with no match). */
  ok: 0,
  /** Refused (unknown name or id, a file that cannot be read, a request the session declined) or found (a match). */
  refused: 1,
  /** Bad arguments or options; the message names the argument. */
  usage: 2,
  /** An unexpected error: one line naming what failed, no stack. */
  internal: 3,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A bad argument or option: exit 2 with the message and the usage. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** A refusal the user should see as such (exit 1), e.g. an unknown rule name. */
export class RefusedError extends Error {
  override name = "RefusedError";
}

/** Where a bin writes; tests pass buffers, the bin the process streams. */
export interface CliOutput {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** What a command reads of its process besides the output; `processIo` for the bin, a test's own values else. */
export interface CliIo extends CliOutput {
  /** The folder the command was typed in (relative paths resolve here). */
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** All of stdin, or undefined when stdin is a terminal. */
  readStdin: () => Promise<string | undefined>;
  /** Settles once stdout's reader is gone: a long-running command (`pi-steer watch`) stops then. */
  stdoutClosed?: Promise<void>;
}

/** What a command is given: every part of the io set, `--json`, and the one way to print its result. */
export interface CliContext extends Required<CliIo> {
  json: boolean;
  /** The command's result: `value` as one JSON line with `--json`, else `text` and a newline. */
  result: (value: unknown, text: string) => void;
}

type Options = NonNullable<ParseArgsConfig["options"]>;
/** The parsed command line a command is given (`parseCliArgs` with its options). */
export type CliArgs<O extends Options> = ReturnType<typeof parseCliArgs<O>>;

/** How an error a bin knows is reported: its exit code, the JSON error's `kind`, and fields the JSON error adds. */
export interface CliFailure {
  exit: ExitCode;
  kind: string;
  details?: Record<string, unknown>;
}

/** One bin: its name, help, options, and its commands as one `run`. */
export interface CliSpec<O extends Options> {
  /** The name typed (`ttsr`): the prefix of every error line. */
  bin: string;
  help: HelpText;
  /** Options besides the common `--json` and `-h, --help`. */
  options: O;
  /** Runs the command line (never called for `--help`); returns the exit code or throws a `UsageError`... */
  run: (args: CliArgs<O>, io: CliContext) => Promise<number>;
  /** Errors of this bin's own kinds (an RPC error, a timeout); `UsageError`, `RefusedError` and others are known. */
  failure?: (error: unknown) => CliFailure | undefined;
}

/** A defined bin: `run` for tests and library callers, `main` for the bin shim. */
export interface Cli {
  /** The `--help` text. */
  usage: string;
  run: (argv: readonly string[], io: CliOutput & Partial<CliIo>) => Promise<number>;
  /** Runs on `process.argv` and the process streams, and sets the exit code. */
  main: () => Promise<void>;
}

export function defineCli<const O extends Options>(spec: CliSpec<O>): Cli {
  return {
    usage: formatHelp(spec.help),
    run: (argv, io) => runCli(spec, argv, io),
    main: async () => {
      const io = processIo(spec.bin);
      // The reader is gone: stop at once, whatever the command left running (a scan, a socket), with its exit code
      // when it has one.
      io.stdoutClosed.then(() => process.exit());
      process.exitCode = await runCli(spec, process.argv.slice(2), io);
    },
  };
}

/**
 * Runs a bin's command line: parses it (the common options too), prints `--help`, runs the command, and turns what
 * it throws into one error line and the exit code (see the module comment). Never throws.
 */
export async function runCli<O extends Options>(
  spec: CliSpec<O>,
  argv: readonly string[],
  io: CliOutput & Partial<CliIo>,
): Promise<number> {
  // Known before the command line parses, so a usage error is JSON too; `--` ends the options.
  const end = argv.indexOf("--");
  const json = (end < 0 ? argv : argv.slice(0, end)).includes("--json");
  const stdout = (text: string) => io.stdout(stripControl(json ? escapeForJson(text) : text));
  const stderr = (text: string) => io.stderr(stripControl(text));
  const context: CliContext = {
    stdout,
    stderr,
    cwd: io.cwd ?? process.cwd(),
    env: io.env ?? process.env,
    readStdin: io.readStdin ?? (async () => undefined),
    stdoutClosed: io.stdoutClosed ?? new Promise<void>(() => {}),
    json,
    result: (value, text) => (json ? writeJson(stdout, value) : stdout(`${text}\n`)),
  };
  const usage = formatHelp(spec.help);
  try {
    const args = parseCliArgs(argv, spec.options);
    if (!(args.values as { help?: boolean }).help) return await spec.run(args, context);
    stdout(usage);
    return EXIT.ok;
  } catch (error) {
    const { exit, kind, details } = spec.failure?.(error) ?? knownFailure(error);
    const message = error instanceof Error ? error.message : String(error);
    stderr(`${spec.bin}: ${message}\n${kind === "usage" ? `\n${usage}` : ""}`);
    if (json) writeJson(stdout, { error: { kind, message, ...details } });
    return exit;
  }
}

function knownFailure(error: unknown): CliFailure {
  if (error instanceof UsageError) return { exit: EXIT.usage, kind: "usage" };
  if (error instanceof RefusedError) return { exit: EXIT.refused, kind: "refused" };
  return { exit: EXIT.internal, kind: "internal" };
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;

/** Text without control characters (ESC sequences, BEL, NUL, C1) but tab, newline and carriage return. */
export function stripControl(text: string): string {
  return text.replace(CONTROL, "");
}

/** DEL and C1 characters, which `JSON.stringify` leaves raw, as `\u` escapes: the same value to a JSON parser. */
function escapeForJson(text: string): string {
  return text.replace(/[\u007F-\u009F]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * A process stream that goes quiet once its reader is gone (`ttsr list | head -1`): EPIPE is not an error of the
 * CLI, so nothing more is written and no stack is printed. SIGPIPE is ignored by Node, so EPIPE is what a closed
 * pipe looks like.
 */
function quietOnClosedPipe(stream: NodeJS.WriteStream, onClosed?: () => void): (text: string) => void {
  let closed = false;
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED") throw error;
    closed = true;
    onClosed?.();
  });
  return (text) => {
    if (!closed) stream.write(text);
  };
}

/** This process's io for `bin`: quiet on a closed pipe, in the folder `pnpm <bin>` was typed in. */
export function processIo(bin: string): CliIo & { stdoutClosed: Promise<void> } {
  let onClosed = () => {};
  const stdoutClosed = new Promise<void>((resolve) => {
    onClosed = resolve;
  });
  return {
    stdout: quietOnClosedPipe(process.stdout, onClosed),
    stderr: quietOnClosedPipe(process.stderr),
    cwd: invocationCwd(bin),
    env: process.env,
    readStdin: async () => {
      if (process.stdin.isTTY) return undefined;
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString("utf8");
    },
    stdoutClosed,
  };
}

/**
 * The folder the user typed the command in: `pnpm <bin>` from the checkout runs in the repository root and names
 * the user's folder in `INIT_CWD` (only for the script named `bin`, so another package script's INIT_CWD is not
 * taken for ours).
 */
export function invocationCwd(bin: string, env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): string {
  return env["npm_lifecycle_event"] === bin && env["INIT_CWD"] ? env["INIT_CWD"] : cwd;
}

/** Options every bin takes. */
const COMMON_OPTIONS = {
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const satisfies Options;

/** `node:util` parseArgs, strict, with positionals and the common options; a bad option is a `UsageError`. */
export function parseCliArgs<const O extends Options>(argv: readonly string[], options: O) {
  try {
    return parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: { ...COMMON_OPTIONS, ...options },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** The parts of a bin's help, laid out the same way in every bin. */
export interface HelpText {
  /** `ttsr: Time Traveling Streamed Rules` */
  title: string;
  /** Usage lines (`ttsr test [snippet...] ...`) with what each does. */
  commands: readonly (readonly [string, string])[];
  /** Options with what they do (`--json` and `-h, --help` are added). */
  options?: readonly (readonly [string, string])[];
  /** Free text after the options. */
  notes?: string;
  /** What exit code 1 means for this bin (refused or found). */
  exit1: string;
}

/** The help layout every bin prints for `--help` (to stdout, exit 0) and after a usage error (to stderr). */
export function formatHelp(help: HelpText): string {
  const table = (rows: readonly (readonly [string, string])[]) => {
    const width = Math.min(48, Math.max(...rows.map(([left]) => left.length)) + 2);
    return rows
      .map(([left, right]) =>
        left.length + 2 > width ? `  ${left}\n  ${" ".repeat(width)}${right}` : `  ${left.padEnd(width)}${right}`,
      )
      .join("\n");
  };
  const options = [
    ...(help.options ?? []),
    ["--json", "machine-readable output, one JSON document a line (errors too, on stdout)"],
    ["-h, --help", "this help, as plain text (--json does not change it)"],
  ] as const;
  return [
    help.title,
    "",
    "Usage:",
    table(help.commands),
    "",
    "Options:",
    table(options),
    ...(help.notes ? ["", help.notes.trimEnd()] : []),
    "",
    `Exit codes: 0 ok, 1 ${help.exit1}, 2 usage, 3 internal error.`,
    "",
  ].join("\n");
}

/** Writes one JSON value and a newline: the `--json` output of every bin. */
export function writeJson(out: (text: string) => void, value: unknown): void {
  out(`${JSON.stringify(value)}\n`);
}
