import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { isOwnerAlive } from "../endpoint/session-registry.ts";
import type { SteeringItem } from "../queue/types.ts";
import { type JournalOrigin, type QueueJournal, replayJournal } from "./journal.ts";

const JOURNAL = ".journal";

/**
 * pi writes a new session's file only from its first answer on, so items accepted before that have no session to
 * `--continue` once their pi dies (SIGKILL, Ctrl-C on `pi -p`). Such a journal is an orphan: its origin names a
 * session file that was never written and a process that is gone. The next session started in the same cwd adopts
 * it: claims it by renaming it (one rename wins, so two pi processes never both adopt), appends its pending items to
 * its own journal, then deletes it; a claim cut short by a crash is finished at the claimer's next open.
 * Returns the items adopted, for the caller to queue.
 */
export function adoptOrphans(
  dir: string,
  self: { sessionId: string; cwd: string },
  into: QueueJournal,
): SteeringItem[] {
  const claimSuffix = `${JOURNAL}.adopted-by-${self.sessionId}`;
  const adopted: SteeringItem[] = [];
  for (const name of readdirSync(dir)) {
    let claimed = join(dir, name);
    let orphanId = name.slice(0, -claimSuffix.length);
    if (!name.endsWith(claimSuffix)) {
      orphanId = name.slice(0, -JOURNAL.length);
      if (!name.endsWith(JOURNAL) || orphanId === self.sessionId || !isOrphanOf(readOrigin(claimed), self.cwd))
        continue;
      claimed = join(dir, `${orphanId}${claimSuffix}`);
      try {
        renameSync(join(dir, name), claimed);
      } catch {
        continue; // another process claimed it first
      }
    }
    try {
      const { pending } = replayJournal(readFileSync(claimed, "utf8"));
      for (const item of pending) into.accept(item);
      adopted.push(...pending);
      rmSync(claimed, { force: true });
      rmSync(join(dir, `${orphanId}.lock`), { force: true });
    } catch {
      // Left claimed: the next open of this session tries again, and the items stay on disk until then.
    }
  }
  return adopted;
}

function isOrphanOf(origin: JournalOrigin | undefined, cwd: string): boolean {
  return (
    origin?.cwd === cwd && origin.sessionFile !== undefined && !existsSync(origin.sessionFile) && !isOwnerAlive(origin)
  );
}

/** A journal's origin: its first line (read alone, since a journal can hold thousands of lines). */
function readOrigin(path: string): JournalOrigin | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const head = Buffer.alloc(16_384);
    const text = head.toString("utf8", 0, readSync(fd, head));
    return replayJournal(text.slice(0, text.indexOf("\n") + 1)).origin;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
