import { type ParseArgsConfig, parseArgs } from "node:util";

/**
 * What the four pi-rails bins (`ttsr`, `rulebook`, `pi-steer`, `cache-ttl`) share, so a script can rely on one
 * behaviour: the exit codes, `--json`, `--help`, a closed pipe, and the folder `pnpm <bin>` was typed in.
 */

/** Exit codes of every pi-rails bin. */
export const EXIT = {
  /** Done; nothing found (a test with no match). */
  ok: 0,
  /** Refused (unknown name or id, a request the session declined) or found (a rule matched). */
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

/** Where a bin writes; tests pass buffers, the bin passes `processOutput()`. Text is written as given. */
export interface CliOutput {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/**
 * A process stream that goes quiet once its reader is gone (`ttsr list | head -1`): EPIPE is not an error of the
 * CLI, so nothing more is written and no stack is printed; the command finishes with its own exit code. SIGPIPE is
 * ignored by Node, so EPIPE is what a closed pipe looks like.
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

/** stdout and stderr of this process, quiet on a closed pipe. */
export function processOutput(): CliOutput {
  return { stdout: quietOnClosedPipe(process.stdout), stderr: quietOnClosedPipe(process.stderr) };
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
} as const satisfies NonNullable<ParseArgsConfig["options"]>;

/** `node:util` parseArgs, strict, with positionals and the common options; a bad option is a `UsageError`. */
export function parseCliArgs<const O extends NonNullable<ParseArgsConfig["options"]>>(
  argv: readonly string[],
  options: O,
) {
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
    ["--json", "machine-readable output (errors too, on stdout)"],
    ["-h, --help", "this help"],
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

/**
 * Runs a bin's command and turns what it throws into the shared exit codes: `UsageError` exits 2 (message and
 * usage on stderr), `RefusedError` 1, anything else 3 (one line, no stack). With `json`, the error is also one
 * JSON object on stdout (`{"error":{"kind":"usage"|"refused"|"internal","message":...}}`). Never throws.
 */
export async function runCommand(
  bin: string,
  io: CliOutput & { json: boolean; usage: string },
  command: () => Promise<number>,
): Promise<number> {
  try {
    return await command();
  } catch (error) {
    const kind = error instanceof UsageError ? "usage" : error instanceof RefusedError ? "refused" : "internal";
    const message = error instanceof Error ? error.message : String(error);
    io.stderr(`${bin}: ${message}\n${kind === "usage" ? `\n${io.usage}` : ""}`);
    if (io.json) writeJson(io.stdout, { error: { kind, message } });
    return EXIT[kind];
  }
}
