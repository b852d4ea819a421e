import { type ChildProcess, fork, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PACKAGE_DIR } from "./steer-cli.ts";

const CONTENDER = join(PACKAGE_DIR, "test", "fixtures", "lock-contender.ts");
const children: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The next IPC message of `child`. */
const next = <T>(child: ChildProcess): Promise<T> =>
  new Promise((resolve, reject) => {
    child.once("message", (message) => resolve(message as T));
    child.once("exit", (code) => reject(new Error(`a contender exited (${code})`)));
  });

/** A pid that names no live process: a child that has exited (and was reaped). */
function deadPid(): number {
  const gone = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(gone.stdout);
}

describe("the session lock under contention (real processes)", () => {
  it("a stale lock raced for by 4 processes, 40 rounds: exactly one owner each round, never two", async () => {
    const dir = mkdtempSync(join(tmpdir(), "steer-lock-"));
    dirs.push(dir);
    const path = join(dir, "session.lock");
    for (let i = 0; i < 4; i++) {
      const child = fork(CONTENDER, [path], {
        execPath: process.execPath,
        stdio: ["ignore", "ignore", "inherit", "ipc"],
      });
      children.push(child);
    }
    await Promise.all(children.map((child) => next(child)));
    const dead = deadPid();
    const owners: number[] = [];
    for (let round = 0; round < 40; round++) {
      // A lock left by a process that is gone (its pid no longer names it: start time 1).
      writeFileSync(path, JSON.stringify({ pid: dead, pidStartTime: 1 }));
      const answers = await Promise.all(
        children.map((child) => {
          const answer = next<{ acquired: boolean }>(child);
          child.send("go");
          return answer;
        }),
      );
      owners.push(answers.filter((a) => a.acquired).length);
      await Promise.all(
        children.map((child) => {
          const answer = next(child);
          child.send("release");
          return answer;
        }),
      );
    }
    expect(
      owners.filter((n) => n > 1),
      `rounds with two owners: ${owners.join(",")}`,
    ).toEqual([]);
    expect(owners.every((n) => n === 1)).toBe(true);
    // Nothing is left behind: no lock (every owner released it), no claim files.
    expect(readdirSync(dir)).toEqual([]);
  }, 120_000);
});

describe("a takeover cut short", () => {
  it("a claim left by a process that died mid-takeover does not block the lock for ever", async () => {
    const { acquireSessionLock } = await import("../src/store/session-lock.ts");
    const dir = mkdtempSync(join(tmpdir(), "steer-lock-"));
    dirs.push(dir);
    const path = join(dir, "session.lock");
    const dead = deadPid();
    writeFileSync(path, JSON.stringify({ pid: dead, pidStartTime: 1, nonce: "aaaa" }));
    // The dead claimant had claimed the removal of that lock, and died before removing either file.
    writeFileSync(`${path}.stale-aaaa`, JSON.stringify({ pid: dead, pidStartTime: 1, nonce: "bbbb" }));
    const lock = acquireSessionLock(path);
    expect(lock.acquired).toBe(true);
    if (lock.acquired) lock.release();
    expect(readdirSync(dir)).toEqual([]);
  });
});
