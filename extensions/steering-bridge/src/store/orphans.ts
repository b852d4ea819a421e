import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { isOwnerAlive, readJsonFile } from "../endpoint/session-registry.ts";
import type { SteeringItem } from "../queue/types.ts";
import { type QueueJournal, readJournal } from "./journal.ts";

const UnsavedSession = z.object({
  cwd: z.string(),
  /** The file pi will write the session to, once its first prompt is sent (pi 1.6). */
  sessionFile: z.string(),
  pid: z.number(),
  pidStartTime: z.number().optional(),
});
/** Where a session without a session file yet runs: its marker in `<steering dir>/unsaved/<session-id>.json`. */
export type UnsavedSession = z.infer<typeof UnsavedSession>;

const unsavedDir = (dir: string) => join(dir, "unsaved");

/** Mark a session that has no session file yet, so that its items can be adopted if its pi dies before it has. */
export function markUnsaved(dir: string, sessionId: string, session: UnsavedSession): void {
  mkdirSync(unsavedDir(dir), { recursive: true, mode: 0o700 });
  writeFileSync(join(unsavedDir(dir), `${sessionId}.json`), JSON.stringify(session), { mode: 0o600 });
}

/** Drop the marker once pi wrote the session file (a later `--continue` reaches the journal then). */
export function forgetIfSaved(dir: string, sessionId: string, sessionFile: string): void {
  if (existsSync(sessionFile)) rmSync(join(unsavedDir(dir), `${sessionId}.json`), { force: true });
}

/**
 * pi 1.6 writes a new session's file when its first prompt is sent, so items accepted before that (the socket is up
 * from session start) have no session to `--continue` once their pi dies (SIGKILL, SIGINT). Such a session is an orphan: its marker names a
 * session file that was never written and a process that is gone (pid and start time). The next session started in
 * the same cwd adopts it: claims the marker by renaming it (one rename wins, so two pi processes never both adopt),
 * appends the orphan's pending items to its own journal, then deletes the orphan's journal, lock and marker; a claim
 * cut short by a crash is finished at the claimer's next open. Markers of sessions saved after all are dropped.
 * Only markers are read, so the cost does not grow with the number of sessions ever steered.
 * Returns the items adopted, for the caller to queue.
 */
export function adoptOrphans(
  dir: string,
  self: { sessionId: string; cwd: string },
  into: QueueJournal,
): SteeringItem[] {
  const claimSuffix = `.adopted-by-${self.sessionId}`;
  const adopted: SteeringItem[] = [];
  let names: string[] = [];
  try {
    names = readdirSync(unsavedDir(dir));
  } catch {
    return adopted; // no session ever started unsaved here
  }
  for (const name of names) {
    const marker = join(unsavedDir(dir), name);
    let claimed = marker;
    if (!name.endsWith(claimSuffix)) {
      const session = name.endsWith(".json") ? readJsonFile(marker, UnsavedSession) : undefined;
      if (session && existsSync(session.sessionFile)) {
        rmSync(marker, { force: true }); // saved after all: `--continue` reaches its journal
        continue;
      }
      if (session?.cwd !== self.cwd || isOwnerAlive(session)) continue;
      claimed = `${marker}${claimSuffix}`;
      try {
        renameSync(marker, claimed);
      } catch {
        continue; // another process claimed it first
      }
    }
    const orphan = join(dir, name.slice(0, name.indexOf(".json")));
    const journal = `${orphan}.journal`;
    try {
      const { pending } = readJournal(journal);
      for (const item of pending) into.accept(item);
      adopted.push(...pending);
      for (const path of [journal, `${orphan}.lock`, claimed]) rmSync(path, { force: true });
    } catch {
      // Left claimed: the next open of this session tries again, and the items stay on disk until then.
    }
  }
  return adopted;
}
