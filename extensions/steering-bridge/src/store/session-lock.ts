import { randomBytes } from "node:crypto";
import { closeSync, fstatSync, linkSync, openSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { z } from "zod";
import { isOwnerAlive, pidStartTime } from "../endpoint/session-registry.ts";

const LockOwner = z.object({
  pid: z.number(),
  pidStartTime: z.number().optional(),
  /** Names this one taking of the lock (a lock written before nonces existed has none). */
  nonce: z.string().optional(),
});
/** Who holds a session's steering lock. */
export type LockOwner = z.infer<typeof LockOwner>;

export type LockResult = { acquired: true; release: () => void } | { acquired: false; owner: LockOwner };

/** What a lock or claim file holds: an owner, a file not readable as one (its inode), or nothing at all. */
type Holder = { kind: "owner"; owner: LockOwner } | { kind: "unreadable"; ino: number; young: boolean } | undefined;

const ATTEMPTS = 8;

/**
 * Take a session's steering lock: a file created atomically (written aside, then hard-linked into place, so it never
 * exists empty) holding this process's pid, start time and a nonce. Only the holder restores, delivers and journals
 * the session's items, so two pi processes on one session never both deliver. A lock whose process is gone (or whose
 * pid now names another process) is taken over; the takeover is atomic (`takeOver`): of several processes that
 * find the same stale lock, exactly one removes it, and none removes a lock taken after it was read.
 */
export function acquireSessionLock(path: string): LockResult {
  const self: LockOwner = {
    pid: process.pid,
    pidStartTime: pidStartTime(process.pid),
    nonce: randomBytes(8).toString("hex"),
  };
  let last: LockOwner = { pid: 0 };
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (createExclusive(path, self)) {
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        process.off("exit", release);
        const holder = readHolder(path);
        if (holder?.kind === "owner" && holder.owner.nonce === self.nonce) rmSync(path, { force: true });
      };
      process.once("exit", release);
      return { acquired: true, release };
    }
    const holder = readHolder(path);
    if (holder === undefined) continue; // released meanwhile: try again
    if (holder.kind === "unreadable") {
      if (holder.young) return { acquired: false, owner: { pid: 0 } }; // a lock of an older version being written
    } else {
      last = holder.owner;
      // A live owner keeps it; our own pid is an earlier session object of this process that did not release it.
      if (holder.owner.pid !== process.pid && isOwnerAlive(holder.owner)) return { acquired: false, owner: last };
    }
    // Another process may be taking it over right now: give it a moment before looking again.
    if (!takeOver(path, holder, self)) pause(attempt + 1);
  }
  const holder = readHolder(path);
  return { acquired: false, owner: holder?.kind === "owner" ? holder.owner : last };
}

/**
 * Remove `path` if it still holds `stale`, so that only one of several processes that read the same stale holder
 * removes it. The remover first claims the removal: it creates `<path>.stale-<key>` exclusively, where the key names
 * that holder (its nonce), then reads `path` again and removes it only if it still holds that holder. A claim names
 * its claimant; a claim whose claimant died (before it removed its claim) is itself stale and is taken over the same
 * way, one level down. A process that read an old holder and claims late finds `path` holding another one and
 * removes nothing. Returns whether `path` was removed by this call.
 */
function takeOver(path: string, stale: NonNullable<Holder>, self: LockOwner): boolean {
  const claim = `${path}.stale-${keyOf(stale)}`;
  if (!createExclusive(claim, self)) {
    const claimant = readHolder(claim);
    if (claimant === undefined) return false; // finished meanwhile
    if (claimant.kind === "owner" && isOwnerAlive(claimant.owner)) return false; // another process is at it
    if (claimant.kind === "unreadable" && claimant.young) return false;
    takeOver(claim, claimant, self); // its claimant died mid-takeover
    return false;
  }
  try {
    if (!sameHolder(readHolder(path), stale)) return false; // taken and replaced since it was read
    rmSync(path, { force: true });
    return true;
  } finally {
    rmSync(claim, { force: true });
  }
}

/** The part of a claim's name that names the holder it removes (nonces are hex; older locks: pid and start). */
function keyOf(holder: NonNullable<Holder>): string {
  if (holder.kind === "unreadable") return `inode-${holder.ino}`;
  const { nonce, pid, pidStartTime } = holder.owner;
  return nonce ?? `pid-${pid}-${pidStartTime ?? "unknown"}`;
}

function sameHolder(now: Holder, then: NonNullable<Holder>): boolean {
  if (now === undefined || now.kind !== then.kind) return false;
  if (now.kind === "unreadable") return then.kind === "unreadable" && now.ino === then.ino;
  const was = (then as { owner: LockOwner }).owner;
  return now.owner.nonce === was.nonce && now.owner.pid === was.pid && now.owner.pidStartTime === was.pidStartTime;
}

/** Create `path` holding `owner` if it does not exist, atomically (written aside, then linked into place). */
function createExclusive(path: string, owner: LockOwner): boolean {
  const aside = `${path}.${owner.nonce}.tmp`;
  writeFileSync(aside, JSON.stringify(owner), { mode: 0o600 });
  try {
    linkSync(aside, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return false;
  } finally {
    unlinkSync(aside);
  }
}

/** What `path` holds now (one open file: its inode and its text belong together). */
function readHolder(path: string): Holder {
  let text: string;
  let ino: number;
  let mtimeMs: number;
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    ({ ino, mtimeMs } = fstatSync(fd));
    text = readFileSync(fd, "utf8");
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  try {
    const parsed = LockOwner.safeParse(JSON.parse(text));
    if (parsed.success) return { kind: "owner", owner: parsed.data };
  } catch {}
  return { kind: "unreadable", ino, young: Date.now() - mtimeMs < 2000 };
}

/** Block this thread for `ms` (the lock is taken synchronously, at session start). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
