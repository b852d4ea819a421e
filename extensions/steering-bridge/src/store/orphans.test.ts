import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { SteeringItem } from "../queue/types.ts";
import { QueueJournal } from "./journal.ts";
import { adoptOrphans, markUnsaved, type UnsavedSession } from "./orphans.ts";

const item = (id: string) =>
  ({ id, content: id, kind: "message", channel: "bridge", mode: "finish_step", leftover: "carry" }) as SteeringItem;

let dir = "";
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A session that accepted one item `<id>-item`, marked unsaved unless `session` is undefined. */
function leave(id: string, session: UnsavedSession | undefined): void {
  const { journal } = QueueJournal.open(join(dir, `${id}.journal`));
  journal.accept(item(`${id}-item`));
  journal.close();
  if (session) markUnsaved(dir, id, session);
}

function pendingOf(id: string): string[] {
  const { journal, state } = QueueJournal.open(join(dir, `${id}.journal`));
  journal.close();
  return state.pending.map((i) => i.id);
}

function adopt(sessionId: string): string[] {
  const { journal } = QueueJournal.open(join(dir, `${sessionId}.journal`));
  const adopted = adoptOrphans(dir, { sessionId, cwd: "/p" }, journal).map((i) => i.id);
  journal.close();
  return adopted;
}

describe("adoptOrphans", () => {
  it("adopts, once, the sessions of this cwd whose process is gone and whose session file was never written", () => {
    dir = mkdtempSync(join(tmpdir(), "orphans-"));
    const dead = spawnSync(process.execPath, ["-e", ""]).pid;
    const never = join(dir, "never.jsonl");
    const saved = join(dir, "saved.jsonl");
    writeFileSync(saved, "");
    leave("gone", { cwd: "/p", sessionFile: never, pid: dead });
    leave("elsewhere", { cwd: "/q", sessionFile: never, pid: dead });
    leave("saved", { cwd: "/p", sessionFile: saved, pid: dead }); // --continue reaches it
    leave("running", { cwd: "/p", sessionFile: never, pid: process.pid }); // not prompted yet
    leave("unmarked", undefined); // an in-memory session, or one of an older version

    expect(adopt("a")).toEqual(["gone-item"]);
    expect(adopt("b")).toEqual([]);
    expect(pendingOf("a")).toEqual(["gone-item"]);
    expect(existsSync(join(dir, "gone.journal"))).toBe(false);
    for (const kept of ["elsewhere", "saved", "running", "unmarked"]) expect(pendingOf(kept)).toEqual([`${kept}-item`]);
    // The marker of the saved session is dropped; the others wait.
    expect(readdirSync(join(dir, "unsaved")).sort()).toEqual(["elsewhere.json", "running.json"]);
  });

  it("a claim cut short by a crash (marker renamed, items not yet adopted) is finished at the claimer's next open", () => {
    dir = mkdtempSync(join(tmpdir(), "orphans-"));
    leave("gone", { cwd: "/p", sessionFile: join(dir, "never.jsonl"), pid: process.pid });
    const marker = join(dir, "unsaved", "gone.json");
    rmSync(marker);
    writeFileSync(`${marker}.adopted-by-a`, "{}");
    expect(adopt("b")).toEqual([]);
    expect(adopt("a")).toEqual(["gone-item"]);
    expect(readdirSync(join(dir, "unsaved"))).toEqual([]);
  });
});
