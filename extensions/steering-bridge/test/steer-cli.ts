import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { CliHome } from "@pi-rails/testkit";

export const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
export const PI_STEER = join(PACKAGE_DIR, "bin", "pi-steer.mjs");

export interface SteerRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run the real `pi-steer` bin as a second process, in the pi home's project dir and environment. */
export function runSteer(
  args: string[],
  home: Pick<CliHome, "cwd" | "env">,
  options: { cwd?: string; timeoutMs?: number } = {},
): Promise<SteerRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [PI_STEER, ...args], { cwd: options.cwd ?? home.cwd, env: home.env });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 30_000);
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The process is running and not a zombie (a killed child stays in the table until its parent reaps it). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, "utf8") : "";
  return stat !== "" && !/\) Z /.test(stat);
}

/** Polls `check` until it holds; throws naming `what` after `timeoutMs`. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A bash command for a tool call to cancel: records its shell's pid in `sleep.pid` (pi's cwd), then sleeps 30 s. */
export const SLEEPING_BASH = "echo $$ > sleep.pid; exec sleep 30";

/** Waits until the `SLEEPING_BASH` call runs in `cwd` (pi's project dir); the pid of its sleep. */
export async function sleepingBashPid(cwd: string): Promise<number> {
  const pidFile = join(cwd, "sleep.pid");
  const written = () => (existsSync(pidFile) ? readFileSync(pidFile, "utf8").trim() : "");
  await waitFor(() => written() !== "", "bash to start sleep");
  return Number(written());
}

/** The tool calls running in the session of `home`, as `pi-steer status --json` lists them. */
export async function callsInFlight(home: Pick<CliHome, "cwd" | "env">): Promise<{ callId: string; tool: string }[]> {
  const status = await runSteer(["status", "--json"], home);
  if (status.code !== 0) throw new Error(`pi-steer status failed (${status.code}): ${status.stderr}`);
  return (JSON.parse(status.stdout) as { toolCallsInFlight: { callId: string; tool: string }[] }).toolCallsInFlight;
}

/**
 * `pi-steer inject` once the session's socket answers (it is up once pi's session started): retried for up to 30 s;
 * the last run when it never succeeded, so the test's own check names why.
 */
export async function injectWhenUp(home: Pick<CliHome, "cwd" | "env">, args: string[]): Promise<SteerRun> {
  let run = await runSteer(["inject", ...args], home);
  for (const deadline = Date.now() + 30_000; run.code !== 0 && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    run = await runSteer(["inject", ...args], home);
  }
  return run;
}

/** A gate a model server's script awaits: the answer is held until the test opens it (items then arrive mid-turn). */
export function gate(): { held: Promise<void>; open: () => void } {
  let open: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { held, open };
}
