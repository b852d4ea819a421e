import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { SteeringItem } from "../queue/types.ts";
import { type JournalOrigin, QueueJournal } from "./journal.ts";
import { adoptOrphans } from "./orphans.ts";

const item = (id: string) =>
  ({ id, content: id, kind: "message", channel: "bridge", mode: "finish_step", leftover: "carry" }) as SteeringItem;

let dir = "";
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A journal left by a session: its origin, one accepted item `<id>-item`. */
function leaveJournal(id: string, origin: JournalOrigin | undefined, name = `${id}.journal`): void {
  const { journal } = QueueJournal.open(join(dir, name), origin);
  journal.accept(item(`${id}-item`));
  journal.close();
}

function pendingOf(id: string): string[] {
  const { journal, state } = QueueJournal.open(join(dir, `${id}.journal`));
  journal.close();
  return state.pending.map((i) => i.id);
}

describe("adoptOrphans", () => {
  it("adopts, once, the journals of this cwd whose process is gone and whose session file was never written", () => {
    dir = mkdtempSync(join(tmpdir(), "orphans-"));
    const dead = spawnSync(process.execPath, ["-e", ""]).pid;
    const never = join(dir, "never.jsonl");
    const saved = join(dir, "saved.jsonl");
    writeFileSync(saved, "");
    leaveJournal("gone", { cwd: "/p", sessionFile: never, pid: dead });
    leaveJournal("elsewhere", { cwd: "/q", sessionFile: never, pid: dead });
    leaveJournal("saved", { cwd: "/p", sessionFile: saved, pid: dead }); // --continue reaches it
    leaveJournal("running", { cwd: "/p", sessionFile: never, pid: process.pid }); // still in its first answer
    leaveJournal("in-memory", { cwd: "/p", pid: dead });
    leaveJournal("older-version", undefined);

    const a = QueueJournal.open(join(dir, "a.journal"), { cwd: "/p", pid: process.pid });
    expect(adoptOrphans(dir, { sessionId: "a", cwd: "/p" }, a.journal).map((i) => i.id)).toEqual(["gone-item"]);
    a.journal.close();
    const b = QueueJournal.open(join(dir, "b.journal"), { cwd: "/p", pid: process.pid });
    expect(adoptOrphans(dir, { sessionId: "b", cwd: "/p" }, b.journal)).toEqual([]);
    b.journal.close();

    expect(pendingOf("a")).toEqual(["gone-item"]);
    expect(existsSync(join(dir, "gone.journal"))).toBe(false);
    for (const kept of ["elsewhere", "saved", "running", "in-memory", "older-version"]) {
      expect(pendingOf(kept)).toEqual([`${kept}-item`]);
    }
  });

  it("a claim cut short by a crash (renamed, not yet adopted) is finished at the claimer's next open", () => {
    dir = mkdtempSync(join(tmpdir(), "orphans-"));
    leaveJournal("gone", undefined, "gone.journal.adopted-by-a");
    const a = QueueJournal.open(join(dir, "a.journal"));
    expect(adoptOrphans(dir, { sessionId: "a", cwd: "/p" }, a.journal).map((i) => i.id)).toEqual(["gone-item"]);
    a.journal.close();
    expect(existsSync(join(dir, "gone.journal.adopted-by-a"))).toBe(false);
    expect(pendingOf("a")).toEqual(["gone-item"]);
  });
});
