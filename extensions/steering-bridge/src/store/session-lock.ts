import { rmSync, statSync, writeFileSync } from "node:fs";
import { z } from "zod";
import { isOwnerAlive, pidStartTime, readJsonFile } from "../endpoint/session-registry.ts";

const LockOwner = z.object({ pid: z.number(), pidStartTime: z.number().optional() });
/** Who holds a session's steering lock. */
export type LockOwner = z.infer<typeof LockOwner>;

export type LockResult = { acquired: true; release: () => void } | { acquired: false; owner: LockOwner };

/**
 * Take a session's steering lock: a file created exclusively (`O_EXCL`) holding this process's pid and start
 * time. Only the holder restores, delivers and journals the session's items, so two pi processes on one session
 * never both deliver. A lock whose process is gone (or whose pid now names another process) is taken over.
 */
export function acquireSessionLock(path: string): LockResult {
  const self: LockOwner = { pid: process.pid, pidStartTime: pidStartTime(process.pid) };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(path, JSON.stringify(self), { flag: "wx", mode: 0o600 });
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        process.off("exit", release);
        if (readOwner(path)?.pid === process.pid) rmSync(path, { force: true });
      };
      process.once("exit", release);
      return { acquired: true, release };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const owner = readOwner(path);
    if (!owner && justCreated(path)) return { acquired: false, owner: { pid: 0 } }; // being written by its taker
    if (owner && owner.pid !== process.pid && isOwnerAlive(owner)) return { acquired: false, owner };
    // Stale (or our own from an earlier session object of this process): remove and try again.
    rmSync(path, { force: true });
  }
  return { acquired: false, owner: readOwner(path) ?? { pid: 0 } };
}

const readOwner = (path: string) => readJsonFile(path, LockOwner);

function justCreated(path: string): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs < 2000;
  } catch {
    return false;
  }
}
