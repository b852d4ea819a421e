import { chmodSync, lstatSync, mkdirSync, type Stats } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveAgentDir } from "@pi-rails/agent-core/kit";

/** `<agentDir>/steering`: one socket and one registry file per live session. */
export function steeringDir(agentDir: string = resolveAgentDir()): string {
  return join(agentDir, "steering");
}

/**
 * Where sockets go when `<agentDir>/steering/<id>.sock` is past the Unix socket path limit (a long HOME):
 * `$XDG_RUNTIME_DIR/pi-steering`, else `<tmpdir>/pi-steering-<uid>`; checked like the steering dir (a real dir,
 * ours, 0700). The registry file stays in the agent dir and names the socket, so clients still find it.
 */
export function runtimeSocketDir(env: NodeJS.ProcessEnv = process.env): string {
  const runtime = env["XDG_RUNTIME_DIR"];
  if (runtime?.startsWith("/")) return join(runtime, "pi-steering");
  return join(tmpdir(), `pi-steering-${process.getuid?.() ?? "user"}`);
}

/** Longest Unix socket path the kernel accepts (sun_path, with its terminating NUL) on Linux; macOS allows 103. */
export const MAX_SOCKET_PATH = process.platform === "darwin" ? 103 : 107;

/** The session's socket and registry file in `dir`; refuses an id that cannot name a file. */
export function sessionPaths(dir: string, sessionId: string): { socket: string; info: string } {
  if (!/^[A-Za-z0-9._-]{1,128}$/.test(sessionId) || sessionId.startsWith(".")) {
    throw new Error(`session id ${JSON.stringify(sessionId)} cannot name a socket file`);
  }
  return { socket: join(dir, `${sessionId}.sock`), info: join(dir, `${sessionId}.json`) };
}

/** A refusal to use a path that is not safely ours. */
export class UnsafePathError extends Error {
  constructor(path: string, why: string) {
    super(`steering endpoint refuses ${path}: ${why}`);
    this.name = "UnsafePathError";
  }
}

/**
 * Create (or check) the steering dir: a real directory (not a symlink), owned by this user, mode 0700.
 * A dir we own with looser bits is tightened; anything owned by someone else is refused.
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = checkOurs(dir, lstatSync(dir));
  if (!stat.isDirectory()) throw new UnsafePathError(dir, "it is not a directory");
  if ((stat.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

/**
 * Check an existing file at `path` before we replace it: it must be ours and not a symlink. Returns whether
 * something is there.
 */
export function checkReplaceable(path: string): boolean {
  try {
    checkOurs(path, lstatSync(path));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

/** Refuse a symbolic link, or a path another user owns. */
export function checkOurs(path: string, stat: Stats): Stats {
  if (stat.isSymbolicLink()) throw new UnsafePathError(path, "it is a symbolic link");
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid)
    throw new UnsafePathError(path, `it is owned by uid ${stat.uid}, not ${uid}`);
  return stat;
}
