import { lstatSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { z } from "zod";
import { checkOurs } from "./paths.ts";

const SessionInfoSchema = z.object({
  sessionId: z.string().min(1),
  pid: z.number().int().positive(),
  cwd: z.string(),
  socket: z.string(),
  /** ISO 8601. */
  startedAt: z.string(),
  /** The process's start time (Linux: clock ticks since boot, /proc/<pid>/stat field 22): tells a reused pid apart. */
  pidStartTime: z.number().int().nonnegative().optional(),
});
/** `<session-id>.json` beside the socket: how a client finds live sessions. */
export type SessionInfo = z.infer<typeof SessionInfoSchema>;

/** Write the registry file, owner-only. */
export function writeSessionInfo(path: string, info: SessionInfo): void {
  writeFileSync(path, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
}

/** Parse one of our small JSON files (registry entry, lock, marker); undefined when missing or not one of ours. */
export function readJsonFile<T>(path: string, schema: z.ZodType<T>): T | undefined {
  try {
    const parsed = schema.safeParse(JSON.parse(readFileSync(path, "utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export const readSessionInfo = (path: string) => readJsonFile(path, SessionInfoSchema);

/** Whether a process with this pid exists (EPERM means it exists but is someone else's). */
export function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** When a process started (Linux /proc; undefined elsewhere or when it is gone). */
export function pidStartTime(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 2 (comm) may hold spaces and parentheses: count fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const value = Number(fields[19]);
    return Number.isInteger(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the process a registry entry names is still the pi that wrote it: the pid exists and, when both are
 * known, started at the recorded time (a pid reused by an unrelated process does not count).
 */
export function isOwnerAlive(info: Pick<SessionInfo, "pid" | "pidStartTime">): boolean {
  if (!isPidAlive(info.pid)) return false;
  if (info.pidStartTime === undefined) return true;
  const now = pidStartTime(info.pid);
  return now === undefined || now === info.pidStartTime;
}

/** Whether something accepts connections on `socketPath` (a listening pi, even a suspended one). */
export function probeSocket(socketPath: string, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(socketPath);
    const done = (live: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(live);
    };
    const timer = setTimeout(() => done(true), timeoutMs);
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/**
 * A registry entry's session is live: its process is the one that wrote it (pid and start time) and its socket
 * accepts connections. A stale entry (pid reused, socket gone) is not live, so a resumed session takes it over.
 */
export async function isSessionLive(info: SessionInfo): Promise<boolean> {
  return isOwnerAlive(info) && (await probeSocket(info.socket));
}

/**
 * Live sessions in `dir`, oldest first. Files of dead processes are removed on the way (a crashed pi leaves them),
 * unless `clean` is false. A dir that is a symbolic link, or not ours, lists nothing (the server refuses it too).
 */
export function listSessions(dir: string, options: { clean?: boolean } = {}): SessionInfo[] {
  let names: string[];
  try {
    if (!checkOurs(dir, lstatSync(dir)).isDirectory()) return [];
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const live: SessionInfo[] = [];
  for (const name of names) {
    if (!name.endsWith(".json")) continue;
    const path = join(dir, name);
    const info = readSessionInfo(path);
    if (!info) continue;
    if (isOwnerAlive(info)) {
      live.push(info);
    } else if (options.clean !== false) {
      removeQuietly(path);
      removeQuietly(join(dir, `${name.slice(0, -".json".length)}.sock`));
      if (info.socket.endsWith(`/${info.sessionId}.sock`)) removeQuietly(info.socket);
    }
  }
  return live.sort((a, b) => a.startedAt.localeCompare(b.startedAt));
}

export function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // Best effort: a file we cannot remove is reported by whoever needs the path next.
  }
}
