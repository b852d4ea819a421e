import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";

/** `<session-id>.json` beside the socket: how a client finds live sessions. */
export interface SessionInfo {
  sessionId: string;
  pid: number;
  cwd: string;
  socket: string;
  /** ISO 8601. */
  startedAt: string;
}

const SessionInfoSchema = z.object({
  sessionId: z.string().min(1),
  pid: z.number().int().positive(),
  cwd: z.string(),
  socket: z.string(),
  startedAt: z.string(),
});

/** Write the registry file, owner-only. */
export function writeSessionInfo(path: string, info: SessionInfo): void {
  writeFileSync(path, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
}

/** Parse one registry file; undefined when missing or not one of ours. */
export function readSessionInfo(path: string): SessionInfo | undefined {
  try {
    const parsed = SessionInfoSchema.safeParse(JSON.parse(readFileSync(path, "utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process with this pid exists (EPERM means it exists but is someone else's). */
export function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Live sessions in `dir`, oldest first. Files of dead processes are removed on the way (a crashed pi leaves them),
 * unless `clean` is false.
 */
export function listSessions(dir: string, options: { clean?: boolean } = {}): SessionInfo[] {
  let names: string[];
  try {
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
    if (isPidAlive(info.pid)) {
      live.push(info);
    } else if (options.clean !== false) {
      removeQuietly(path);
      removeQuietly(join(dir, `${name.slice(0, -".json".length)}.sock`));
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
