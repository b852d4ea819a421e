import { join } from "node:path";
import { sessionPaths } from "../endpoint/paths.ts";
import { type JournalState, QueueJournal } from "./journal.ts";
import { acquireSessionLock, type LockOwner } from "./session-lock.ts";

/** The session's steering state on disk, owned by this process; or the process that owns it. */
export type SessionStore =
  | { owned: true; journal: QueueJournal; state: JournalState; close: () => void }
  | { owned: false; owner: LockOwner };

/**
 * Open a session's steering store in `dir` (the steering dir): take its lock (`<id>.lock`), then open its journal
 * (`<id>.journal`). Keyed by session id, so every later process of the session (`pi --continue`, a resume) reads
 * the same journal: what was accepted and not settled, and which ids were settled.
 */
export function openSessionStore(dir: string, sessionId: string): SessionStore {
  sessionPaths(dir, sessionId); // refuses an id that cannot name a file
  const lock = acquireSessionLock(join(dir, `${sessionId}.lock`));
  if (!lock.acquired) return { owned: false, owner: lock.owner };
  try {
    const { journal, state } = QueueJournal.open(join(dir, `${sessionId}.journal`));
    return {
      owned: true,
      journal,
      state,
      close: () => {
        journal.close();
        lock.release();
      },
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}
