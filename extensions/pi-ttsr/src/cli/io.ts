import type { CliOutput } from "@pi-rails/agent-core/kit";

export { UsageError } from "@pi-rails/agent-core/kit";

/** Where CLI output goes; tests pass buffers, the bin passes the process streams. */
export interface CliIo extends CliOutput {
  /** Reads all of stdin, or undefined when stdin is a terminal. */
  readStdin: () => Promise<string | undefined>;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** 1-based line and column of an offset (the CLI reports the character that completed a match). */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  return { line: before.split("\n").length, column: offset - before.lastIndexOf("\n") };
}
