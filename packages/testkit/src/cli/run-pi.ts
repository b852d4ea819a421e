/**
 * Runs the workspace's real `pi` CLI as a child process in a sandbox HOME, for end-to-end tests
 * of print mode (`-p`) and JSON mode (`--mode json`).
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import type { AgentSessionEvent, SessionHeader } from "@earendil-works/pi-coding-agent";
import { childEnv } from "./child-env.ts";
import { type CliHome, prepareCliHome } from "./cli-home.ts";
import { nodeAtLeast, PI_MIN_NODE, resolvePiCli } from "./resolve-pi.ts";

export interface RunPiOptions {
  /** A home from `prepareCliHome`, or a bare HOME path (agent dir `<home>/.pi/agent`). Default: a fresh empty home, removed afterwards. */
  home?: CliHome | string;
  /** Working directory; default the CliHome's project dir (or the HOME path). */
  cwd?: string;
  /** Extra env for pi; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  /** Written to pi's stdin, then closed. Without it stdin is /dev/null. */
  stdin?: string;
  /** Kill pi (SIGKILL) after this long; default 60000. */
  timeoutMs?: number;
  /** Path of the CLI script; default the workspace's `pi` (the @pi-rails/pi launcher, see `resolvePiCli`). */
  piCli?: string;
}

/** One line of `pi --mode json` output: the session header, then AgentSession events. */
export type PiJsonEvent = SessionHeader | AgentSessionEvent;

export interface RunPiResult {
  /** Exit code (null when killed by a signal). */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Parsed stdout lines when the args select `--mode json`; else empty. */
  events: PiJsonEvent[];
  /** stdout lines in JSON mode that were not JSON (should stay empty: anything here polluted the stream). */
  nonJsonLines: string[];
  timedOut: boolean;
  durationMs: number;
}

const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * Run `pi <args>` with `process.execPath`, offline, in a sandbox HOME. Never throws on a non-zero exit; throws when
 * this Node is older than pi 1.6 needs (run the tests through pnpm: the workspace's `node` is Node 22).
 */
export async function runPi(args: string[], options: RunPiOptions = {}): Promise<RunPiResult> {
  assertNodeForPi();
  const ownHome = options.home === undefined ? prepareCliHome() : undefined;
  const home = ownHome ?? options.home;
  const homeDir = typeof home === "string" ? home : (home?.home ?? "");
  const agentDir = typeof home === "string" ? join(home, ".pi", "agent") : (home?.agentDir ?? "");
  const cwd = options.cwd ?? (typeof home === "string" ? home : (home?.cwd ?? process.cwd()));
  const env = childEnv(homeDir, agentDir, options.env);
  const cli = options.piCli ?? resolvePiCli();
  const started = Date.now();

  try {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd,
      env,
      stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    if (options.stdin !== undefined && child.stdin) {
      child.stdin.on("error", () => {});
      child.stdin.end(options.stdin);
    }
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);

    const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
      (resolve, reject) => {
        child.once("error", reject);
        child.once("close", (exitCode, exitSignal) => resolve({ code: exitCode, signal: exitSignal }));
      },
    ).finally(() => clearTimeout(timer));

    const { events, nonJsonLines } = isJsonMode(args) ? splitJsonLines(stdout) : { events: [], nonJsonLines: [] };
    return { code, signal, stdout, stderr, events, nonJsonLines, timedOut, durationMs: Date.now() - started };
  } finally {
    ownHome?.dispose();
  }
}

/** Throws a clear error when `process.execPath` cannot run pi 1.6 (Node >= 22.19). */
export function assertNodeForPi(version: string = process.versions.node): void {
  if (!nodeAtLeast(version)) {
    throw new Error(
      `runPi: pi 1.6 needs Node >= ${PI_MIN_NODE}, this process runs Node ${version} (${process.execPath}); ` +
        "run it through pnpm, whose node_modules/.bin/node is the workspace's Node 22",
    );
  }
}

/** Whether the args select `--mode json`. */
export function isJsonMode(args: string[]): boolean {
  return args.some((arg, i) => arg === "--mode=json" || (arg === "--mode" && args[i + 1] === "json"));
}

/** Parse JSON-mode stdout leniently: JSON lines become events, others are kept aside. */
export function splitJsonLines(stdout: string): { events: PiJsonEvent[]; nonJsonLines: string[] } {
  const events: PiJsonEvent[] = [];
  const nonJsonLines: string[] = [];
  for (const line of stdout.split("\n")) {
    if (line.trim() === "") continue;
    try {
      events.push(JSON.parse(line) as PiJsonEvent);
    } catch {
      nonJsonLines.push(line);
    }
  }
  return { events, nonJsonLines };
}
