import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { SteeringItem } from "../queue/types.ts";
import { QueueJournal, replayJournal } from "./journal.ts";

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
