import { existsSync } from "node:fs";
import { join } from "node:path";
import { sessionPaths } from "../endpoint/paths.ts";
import { pidStartTime } from "../endpoint/session-registry.ts";
import { type JournalState, QueueJournal } from "./journal.ts";
import { adoptOrphans, forgetIfSaved, markUnsaved } from "./orphans.ts";
import { acquireSessionLock, type LockOwner } from "./session-lock.ts";

/** The session's steering state on disk, owned by this process; or the process that owns it. */
export type SessionStore =
  | { owned: true; journal: QueueJournal; state: JournalState; adopted: number; close: () => void }
  | { owned: false; owner: LockOwner };

/**
 * Open a session's steering store in `dir` (the steering dir): take its lock (`<id>.lock`), then open its journal
 * (`<id>.journal`). Keyed by session id, so every later process of the session (`pi --continue`, a resume) reads
 * the same journal: what was accepted and not settled, and which ids were settled. The pending items of orphaned
 * sessions of the same cwd (orphans.ts) are adopted into it and counted in `adopted`; a session whose file pi has
 * not written yet is marked so that it can be adopted in turn.
 */
export function openSessionStore(
  dir: string,
  session: { sessionId: string; cwd: string; sessionFile?: string | undefined },
): SessionStore {
  const { sessionId, cwd, sessionFile } = session;
  sessionPaths(dir, sessionId); // refuses an id that cannot name a file
  const lock = acquireSessionLock(join(dir, `${sessionId}.lock`));
  if (!lock.acquired) return { owned: false, owner: lock.owner };
  try {
    const { journal, state } = QueueJournal.open(join(dir, `${sessionId}.journal`));
    const adopted = adoptOrphans(dir, session, journal);
    state.pending.push(...adopted.filter((item) => !state.settled.has(item.id)));
    if (sessionFile !== undefined && !existsSync(sessionFile)) {
      markUnsaved(dir, sessionId, { cwd, sessionFile, pid: process.pid, pidStartTime: pidStartTime(process.pid) });
    }
    const close = () => {
      journal.close();
      if (sessionFile !== undefined) forgetIfSaved(dir, sessionId, sessionFile);
      lock.release();
    };
    return { owned: true, journal, state, adopted: adopted.length, close };
  } catch (error) {
    lock.release();
    throw error;
  }
}
