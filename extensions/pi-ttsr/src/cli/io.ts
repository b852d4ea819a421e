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
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}
