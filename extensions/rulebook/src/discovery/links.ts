import { existsSync, realpathSync } from "node:fs";
import { basename, dirname, join, parse, resolve } from "node:path";
import { homeDir, isInside, noteExists, noteReadError, noteResolved, relativeInside } from "@pi-rails/agent-core/kit";

/**
 * Where rule files may live once symlinks are resolved. A link inside the project to `/` or to a
 * file full of secrets must not be read silently: only the project (its git repository, else cwd), the
 * user's own rule folders and folders named in `rulebook.allowedLinkRoots` (or `extraDirs`) are allowed targets.
 */
export interface LinkPolicy {
  /** Real paths rule files may resolve into. */
  allowed: readonly string[];
  /** Real paths that are too broad to be a rule folder (filesystem root, home). */
  tooBroad: readonly string[];
}

export function realOrUndefined(path: string): string | undefined {
  noteResolved(path);
  // most paths asked about are missing (a tool's folder the user does not have): no exception for those
  if (!existsSync(path)) return undefined;
  try {
    return realpathSync(path);
  } catch (error) {
    noteReadError(error);
    return undefined;
  }
}

/**
 * The project a cwd belongs to: the nearest folder upward with a `.git` (a monorepo package links to
 * rules at the repository root), else cwd itself.
 */
export function projectRoot(cwd: string): string {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    noteExists(join(dir, ".git"));
    if (existsSync(join(dir, ".git"))) return dir;
    if (dirname(dir) === dir) return resolve(cwd);
  }
}

/** Build the policy once per `loadRules`: real cwd, real user rule folders, the allowed roots from settings. */
export function createLinkPolicy(cwd: string, home: string, userRoots: readonly string[], extra: readonly string[]) {
  const reals = (paths: readonly string[]) => paths.map(realOrUndefined).filter((real) => real !== undefined);
  const allowed = new Set(reals([projectRoot(cwd), ...userRoots, ...extra]));
  const tooBroad = new Set([parse(resolve(cwd)).root, ...reals([home, homeDir()])]);
  return { allowed: [...allowed], tooBroad: [...tooBroad] } satisfies LinkPolicy;
}

export function isAllowed(policy: LinkPolicy, real: string): boolean {
  return policy.allowed.some((root) => isInside(root, real));
}

/**
 * Does `path` (below `base`, e.g. the cwd) pass through a symlink? Compares its real path with the
 * real base plus the lexical rest; `undefined` when the path does not exist. For a path outside
 * `base` (Cline's `.clinerules` above cwd) only its last component is checked.
 */
export function resolveBelow(base: string, path: string): { real: string; linked: boolean } | undefined {
  const real = realOrUndefined(path);
  if (!real) return undefined;
  const rel = relativeInside(base, path);
  if (rel === "") return { real, linked: false };
  if (rel !== undefined) {
    const realBase = realOrUndefined(base);
    return { real, linked: !realBase || join(realBase, rel) !== real };
  }
  const parentReal = realOrUndefined(dirname(path));
  return { real, linked: !parentReal || join(parentReal, basename(path)) !== real };
}

/** The message for a link that is not followed. */
export function outsideMessage(link: string, target: string): string {
  return `symlink ${link} -> ${target} resolves outside the project and your rule folders; not read (allow its target with rulebook.allowedLinkRoots)`;
}
