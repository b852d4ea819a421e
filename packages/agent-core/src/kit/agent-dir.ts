import { homedir } from "node:os";
import { join } from "node:path";

/** The variable pi 1.6 reads for its agent dir (`ENV_AGENT_DIR` in pi's config.js). */
export const AGENT_DIR_ENV = "PI_CODING_AGENT_DIR";

/**
 * The home directory `env` names: `HOME` (`USERPROFILE` on Windows), else the OS account's. Equal to pi's
 * `os.homedir()` when `env` is `process.env`; a CLI run with a test's env sees that env's home.
 */
export function homeDir(env: NodeJS.ProcessEnv = process.env): string {
  return (process.platform === "win32" ? env["USERPROFILE"] : env["HOME"]) || homedir();
}

/**
 * Expands a leading `~` exactly as pi's `expandTildePath` does: `~` alone and `~/...` only (`~user` and `~x` are
 * left as written), so every reader lands where pi itself reads and writes.
 */
export function expandTilde(path: string, home: string = homeDir()): string {
  if (path === "~") return home;
  if (path.startsWith("~/")) return home + path.slice(1);
  return path;
}

/**
 * pi's agent dir, resolved the way pi's `getAgentDir()` does: a non-empty `PI_CODING_AGENT_DIR` (tilde expanded),
 * else `<home>/.pi/agent`. Stated once here so the extensions and their CLIs find pi's settings without loading pi.
 */
export function resolveAgentDir(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env[AGENT_DIR_ENV];
  if (fromEnv) return expandTilde(fromEnv, homeDir(env));
  return join(homeDir(env), ".pi", "agent");
}
