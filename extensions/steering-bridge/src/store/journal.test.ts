import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { SteeringItem } from "../queue/types.ts";
import { JOURNAL_COMPACT_MIN_BYTES, QueueJournal, replayJournal } from "./journal.ts";

const item = (id: string): SteeringItem => ({
  id,
  content: `content ${id}`,
  kind: "message",
  channel: "bridge",
  mode: "finish_step",
  leftover: "carry",
  source: "test",
  enqueuedAt: 1,
});

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("replayJournal", () => {
  it("pending = accepted minus settled, in arrival order; settled ids keep their state; a torn line is skipped", () => {
    const lines = [
      { t: "accept", item: item("a") },
      { t: "accept", item: item("b") },
      { t: "settle", id: "a", state: "delivered" },
      { t: "accept", item: item("c") },
      { t: "settle", id: "x", state: "revoked" },
    ].map((r) => JSON.stringify(r));
    const state = replayJournal(`${lines.join("\n")}\n{"t":"accept","item":{"id":"d","con`);
    expect(state.pending.map((i) => i.id)).toEqual(["b", "c"]);
    expect([...state.settled]).toEqual([
      ["a", "delivered"],
      ["x", "revoked"],
    ]);
    expect(state.skippedLines).toBe(1);
  });

  it("an accept after its settle (a restore re-journaled) stays settled", () => {
    const text = [
      { t: "settle", id: "a", state: "expired" },
      { t: "accept", item: item("a") },
    ]
      .map((r) => JSON.stringify(r))
      .join("\n");
    expect(replayJournal(text).pending).toEqual([]);
  });
});

describe("QueueJournal", () => {
  it("accept is on disk when it returns; settles of one job are written together before the next", async () => {
    const dir = mkdtempSync(join(tmpdir(), "journal-"));
    dirs.push(dir);
    const path = join(dir, "s.journal");
    const { journal, state } = QueueJournal.open(path);
    expect(state.pending).toEqual([]);
    journal.accept(item("a"));
    journal.accept(item("b"));
    expect(replayJournal(readFileSync(path, "utf8")).pending.map((i) => i.id)).toEqual(["a", "b"]);
    journal.settle({ id: "a", state: "delivered", seam: "iteration_start", iteration: 1, at: 2 });
    journal.settle({ id: "b", state: "discarded", at: 2 });
    await Promise.resolve();
    expect(replayJournal(readFileSync(path, "utf8")).pending).toEqual([]);
    journal.close();
    const reopened = QueueJournal.open(path);
    expect([...reopened.state.settled.keys()]).toEqual(["a", "b"]);
    reopened.journal.close();
  });

  it("settleNow writes before it returns; the same settle told later is not written again", () => {
    const dir = mkdtempSync(join(tmpdir(), "journal-"));
    dirs.push(dir);
    const path = join(dir, "s.journal");
    const { journal } = QueueJournal.open(path);
    journal.accept(item("a"));
    const ack = { id: "a", state: "delivered", seam: "iteration_start", iteration: 1, at: 2 } as const;
    journal.settleNow([ack]);
    expect(replayJournal(readFileSync(path, "utf8")).settled.get("a")).toBe("delivered");
    journal.settle(ack);
    journal.close();
    expect(readFileSync(path, "utf8").trim().split("\n")).toHaveLength(2);
  });

  it("reopen: an item settled before a hand-over that pi dropped is pending again, for this and a later process", () => {
    const dir = mkdtempSync(join(tmpdir(), "journal-"));
    dirs.push(dir);
    const path = join(dir, "s.journal");
    const { journal } = QueueJournal.open(path);
    journal.accept(item("a"));
    const ack = { id: "a", state: "delivered", seam: "iteration_end", iteration: 1, at: 2 } as const;
    journal.settleNow([ack]);
    journal.reopen([item("a")]);
    expect(replayJournal(readFileSync(path, "utf8"))).toMatchObject({ pending: [item("a")], skippedLines: 0 });
    expect(replayJournal(readFileSync(path, "utf8")).settled.has("a")).toBe(false);
    // Delivered at the next hand-over: settled again, written again (the reopen forgot the first settle).
    journal.settleNow([ack]);
    journal.settle(ack);
    journal.close();
    const state = replayJournal(readFileSync(path, "utf8"));
    expect({ pending: state.pending, settled: state.settled.get("a") }).toEqual({ pending: [], settled: "delivered" });
    expect(readFileSync(path, "utf8").trim().split("\n")).toHaveLength(4);
  });

  it("a long journal is rewritten at open to its pending items and newest settled ids", () => {
    const dir = mkdtempSync(join(tmpdir(), "journal-"));
    dirs.push(dir);
    const path = join(dir, "s.journal");
    const lines: string[] = [];
    for (let i = 0; i < 25_000; i++) lines.push(JSON.stringify({ t: "settle", id: `old-${i}`, state: "delivered" }));
    lines.push(JSON.stringify({ t: "accept", item: item("keep") }));
    writeFileSync(path, `${lines.join("\n")}\n`);
    const { journal, state } = QueueJournal.open(path);
    journal.close();
    expect(state.pending.map((i) => i.id)).toEqual(["keep"]);
    expect(state.settled.size).toBe(10_000);
    expect(state.settled.has("old-24999")).toBe(true);
    expect(state.settled.has("old-0")).toBe(false);
    expect(readFileSync(path, "utf8").trim().split("\n")).toHaveLength(10_001);
  });
});

describe("QueueJournal: a torn last line, a journal that only grows", () => {
  const open = (path: string) => {
    const opened = QueueJournal.open(path);
    opened.journal.close();
    return opened.state;
  };

  it("a last line cut short by a crash is cut off at open, said once naming the file; the next record is whole", () => {
    const dir = mkdtempSync(join(tmpdir(), "journal-"));
    dirs.push(dir);
    const path = join(dir, "s.journal");
    const whole = `${JSON.stringify({ t: "accept", item: item("a") })}\n`;
    // A settle of "a" that a crash cut short: never acknowledged as written.
    writeFileSync(path, `${whole}{"t":"settle","id":"a","sta`);
    const { journal, state } = QueueJournal.open(path);
    expect(state.pending.map((i) => i.id)).toEqual(["a"]);
    expect(state.notices).toEqual([
      `steering journal ${path}: its last record was cut short by a crash mid-write (27 bytes without a line end); it was never acknowledged and was removed`,
    ]);
    expect(readFileSync(path, "utf8")).toBe(whole);
    // The settle written now is a line of its own, not glued onto the torn one: "a" stays settled.
    journal.settle({ id: "a", state: "delivered", seam: "iteration_start", iteration: 1, at: 2 });
    journal.accept(item("b"));
    journal.close();
    const reopened = open(path);
    expect(reopened.pending.map((i) => i.id)).toEqual(["b"]);
    expect(reopened.settled.get("a")).toBe("delivered");
    expect(reopened.skippedLines).toBe(0);
    expect(reopened.notices).toEqual([]);
  });

  it("is compacted while running once settled records dominate: its size stays bounded, its state exact", async () => {
    const dir = mkdtempSync(join(tmpdir(), "journal-"));
    dirs.push(dir);
    const path = join(dir, "s.journal");
    const { journal } = QueueJournal.open(path);
    const content = "c".repeat(200 * 1024);
    let largest = 0;
    for (let i = 0; i < 200; i++) {
      journal.accept({ ...item(`i${i}`), content });
      if (i % 10 !== 9)
        journal.settle({ id: `i${i}`, state: "delivered", seam: "iteration_start", iteration: i, at: i });
      await Promise.resolve();
      largest = Math.max(largest, statSync(path).size);
    }
    journal.close();
    // 200 items of 200 KiB went through (40 MiB); what is left: 20 pending items (4 MiB) and 180 settled ids.
    expect(largest).toBeLessThan(3 * JOURNAL_COMPACT_MIN_BYTES);
    expect(statSync(path).size).toBeLessThan(2 * JOURNAL_COMPACT_MIN_BYTES);
    const state = open(path);
    expect(state.pending.map((i) => i.id)).toEqual(Array.from({ length: 20 }, (_, k) => `i${10 * k + 9}`));
    expect(state.settled.size).toBe(180);
    expect(state.skippedLines).toBe(0);
  });

  it("an accept that would pass the size bound is refused with a message naming the file", () => {
    const dir = mkdtempSync(join(tmpdir(), "journal-"));
    dirs.push(dir);
    const path = join(dir, "s.journal");
    const { journal } = QueueJournal.open(path);
    const content = "p".repeat(4 * 1024 * 1024);
    let accepted = 0;
    expect(() => {
      for (let i = 0; i < 20; i++) {
        journal.accept({ ...item(`p${i}`), content });
        accepted++;
      }
    }).toThrow(`steering journal ${path} is full: 60.0 MiB of pending items and settled ids, the bound is 64.0 MiB`);
    journal.close();
    expect(accepted).toBe(15);
    expect(open(path).pending).toHaveLength(15);
  });

  it("is read streamed: a journal past the longest string (512 MiB) opens, and is rewritten to what it holds", () => {
    const dir = mkdtempSync(join(tmpdir(), "journal-"));
    dirs.push(dir);
    const path = join(dir, "s.journal");
    const fd = openSync(path, "w");
    const big = Buffer.from(
      `${JSON.stringify({ t: "accept", item: { ...item("big"), content: "x".repeat(256 * 1024) } })}\n`,
    );
    for (let written = 0; written < 540 * 1024 * 1024; written += big.length) writeSync(fd, big);
    writeSync(fd, `${JSON.stringify({ t: "settle", id: "big", state: "delivered" })}\n`);
    writeSync(fd, `${JSON.stringify({ t: "accept", item: item("keep") })}\n`);
    closeSync(fd);
    const state = open(path);
    expect(state.pending.map((i) => i.id)).toEqual(["keep"]);
    expect(state.notices).toEqual([
      expect.stringMatching(/^steering journal \S+ was 540\.\d MiB: rewritten to 0\.0 MiB$/),
    ]);
    expect(statSync(path).size).toBeLessThan(1024);
  }, 120_000);
});
