import { spawn } from "node:child_process";
import { cpuMs } from "../matcher/native-budget.ts";

/**
 * How much slower than its own CPU time this thread runs right now: wall time over CPU time of a short spin (1 on
 * an idle machine; about 10 on 2 cores at a load of 20). Tests multiply their timeouts by it, so they fit a machine
 * that CI loads with every suite at once and still fail fast on a hang on a quiet one.
 */
export function measuredSlowdown(spinMs = 30): number {
  const wall0 = performance.now();
  const cpu0 = cpuMs();
  while (performance.now() - wall0 < spinMs) {}
  const cpu = cpuMs() - cpu0;
  return Math.max(1, (performance.now() - wall0) / Math.max(cpu, 1));
}

/** `baseMs` (what a test takes on a quiet machine, with room) scaled by the measured slowdown, at most 15 min. */
export function loadScaledTimeout(baseMs: number): number {
  return Math.min(15 * 60_000, Math.round(baseMs * measuredSlowdown()));
}

/**
 * Busy child processes, each spinning on a core until stopped: a loaded machine for a test's length (a build,
 * CI running every suite). `stop()` ends exactly these processes.
 */
export function spinners(count: number): { stop: () => void } {
  const children = Array.from({ length: count }, () =>
    spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }),
  );
  return {
    stop: () => {
      for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    },
  };
}
