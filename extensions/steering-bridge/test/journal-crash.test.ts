import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { QueueJournal, replayJournal } from "../src/store/journal.ts";
import { PACKAGE_DIR } from "./steer-cli.ts";

const WRITER = join(PACKAGE_DIR, "test", "fixtures", "journal-writer.ts");
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * Run the writer on `path` until it has reported `count` accepts, then SIGKILL it (or, with `tear`, until it kills
 * itself half-way through writing its `count`-th record); what it reported as on disk.
 */
function writeUntilKilled(
  path: string,
  prefix: string,
  count: number,
  tear: boolean,
): Promise<{ accepted: string[]; settled: string[] }> {
  return new Promise((resolve, reject) => {
    const args = [WRITER, path, prefix, ...(tear ? [String(count)] : [])];
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
    const accepted: string[] = [];
    const settled: string[] = [];
    let buffered = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split("\n");
      buffered = lines.pop()!;
      for (const line of lines) {
        const [what, id] = line.split(" ");
        (what === "accepted" ? accepted : settled).push(id!);
      }
      if (!tear && accepted.length >= count) child.kill("SIGKILL");
    });
    child.once("error", reject);
    child.once("close", (code, signal) => {
      if (signal !== "SIGKILL") reject(new Error(`the writer ended by itself (${code})`));
      else resolve({ accepted, settled });
    });
  });
}

describe("the journal of a process killed mid-append (real processes, SIGKILL)", () => {
  it("nothing acknowledged is lost, nothing settled comes back, no record is glued onto a torn one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "journal-crash-"));
    dirs.push(dir);
    const path = join(dir, "s.journal");
    const accepted: string[] = [];
    const settled: string[] = [];
    let torn = 0;
    // Each round a new process opens what the last one left and appends: killed from outside after `count` accepts
    // (whether a write is cut short then is up to the kernel), or dying half-way through its `count`-th record.
    const rounds = [3, 8, 1, 13, 5, 21, 2, 9].map((count, round) => ({ count, tear: round % 2 === 1 }));
    for (const [round, { count, tear }] of rounds.entries()) {
      const reported = await writeUntilKilled(path, `r${round}`, count, tear);
      if (tear) expect(reported.accepted).toHaveLength(count);
      accepted.push(...reported.accepted);
      settled.push(...reported.settled);
      // Read as it is left (the next writer is the one to open it and mend it).
      const text = readFileSync(path, "utf8");
      if (!text.endsWith("\n")) torn++;
      const state = replayJournal(text.slice(0, text.lastIndexOf("\n") + 1));
      expect(state.skippedLines).toBe(0);
      const known = new Set([...state.pending.map((i) => i.id), ...state.settled.keys()]);
      expect(accepted.filter((id) => !known.has(id))).toEqual([]); // acknowledged as on disk: still there
      const pending = new Set(state.pending.map((i) => i.id));
      expect(settled.filter((id) => pending.has(id))).toEqual([]); // settled: never delivered again
    }
    // Records were cut short (more than these when an outside kill cut one), and each next writer mended the file.
    expect(torn).toBeGreaterThanOrEqual(rounds.filter((r) => r.tear).length);
    const lastTorn = !readFileSync(path, "utf8").endsWith("\n");
    const { journal, state } = QueueJournal.open(path);
    journal.close();
    expect(state.notices.length).toBe(lastTorn ? 1 : 0);
    expect(state.skippedLines).toBe(0);
    expect(readFileSync(path, "utf8").endsWith("\n")).toBe(true);
  }, 120_000);
});
