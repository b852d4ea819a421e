import type { Dirent, Stats } from "node:fs";
import { lstat, readdir, realpath, stat } from "node:fs/promises";
import { join, relative, sep } from "node:path";

/** A file a provider may turn into a rule. */
export interface Candidate {
  path: string;
  /** Path relative to the scanned folder, with `/` separators. */
  relPath: string;
  stats: Stats;
}

export interface Problem {
  path: string;
  reason: string;
}

export interface ListOptions {
  /** Which file names are rules. */
  accept: (fileName: string) => boolean;
  recursive: boolean;
  /** Max directory depth below the root (recursive only). */
  maxDepth?: number;
}

export interface ListResult {
  files: Candidate[];
  problems: Problem[];
}

/** Deterministic order: numeric-aware ("2-x" before "10-x", as Cline users expect), then code units. */
const collator = new Intl.Collator("en", { numeric: true, sensitivity: "variant" });
export function compareNames(a: string, b: string): number {
  return collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}

/** Explain an fs error in words a user can act on. */
export function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case "ENOENT":
      return "dangling symlink or vanished file (ENOENT)";
    case "ELOOP":
      return "symlink loop (ELOOP)";
    case "EACCES":
    case "EPERM":
      return `permission denied (${code})`;
    case "EISDIR":
      return "is a directory";
    default:
      return error instanceof Error ? error.message : String(error);
  }
}

function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return "a FIFO";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  if (stats.isDirectory()) return "a directory";
  return "not a regular file";
}

/** Stat a path if it exists (following symlinks); `undefined` when absent. */
export async function statIfExists(path: string): Promise<Stats | undefined> {
  try {
    return await stat(path);
  } catch {
    return undefined;
  }
}

/**
 * List rule files under `root`, sorted, following symlinks but never looping: every directory is
 * visited once by its real path. Files that match `accept` but cannot be used (dangling symlinks,
 * FIFOs, loops) come back as problems, never silently dropped. A missing root is simply empty.
 */
export async function listRuleFiles(root: string, options: ListOptions): Promise<ListResult> {
  const files: Candidate[] = [];
  const problems: Problem[] = [];
  const rootStats = await statIfExists(root);
  if (!rootStats?.isDirectory()) return { files, problems };
  const visited = new Set<string>();
  const maxDepth = options.recursive ? (options.maxDepth ?? 8) : 0;

  const walk = async (dir: string, depth: number): Promise<void> => {
    let real: string;
    try {
      real = await realpath(dir);
    } catch (error) {
      problems.push({ path: dir, reason: describeFsError(error) });
      return;
    }
    if (visited.has(real)) {
      problems.push({ path: dir, reason: `symlink loop: directory ${real} was already scanned` });
      return;
    }
    visited.add(real);
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      problems.push({ path: dir, reason: describeFsError(error) });
      return;
    }
    entries.sort((a, b) => compareNames(a.name, b.name));
    const subdirs: string[] = [];
    await Promise.all(
      entries.map(async (entry) => {
        const path = join(dir, entry.name);
        const accepted = options.accept(entry.name);
        if (entry.isDirectory()) {
          if (depth < maxDepth) subdirs.push(path);
          return;
        }
        if (!entry.isSymbolicLink() && !entry.isFile() && !accepted) return;
        let stats: Stats;
        try {
          stats = entry.isSymbolicLink() ? await stat(path) : await lstat(path);
        } catch (error) {
          if (accepted) problems.push({ path, reason: describeFsError(error) });
          return;
        }
        if (stats.isDirectory()) {
          if (depth < maxDepth) subdirs.push(path);
          return;
        }
        if (!accepted) return;
        if (!stats.isFile()) {
          problems.push({ path, reason: `${kindOf(stats)}, not a regular file` });
          return;
        }
        files.push({ path, relPath: relative(root, path).split(sep).join("/"), stats });
      }),
    );
    subdirs.sort(compareNames);
    for (const sub of subdirs) await walk(sub, depth + 1);
  };

  await walk(root, 0);
  files.sort((a, b) => compareNames(a.relPath, b.relPath));
  problems.sort((a, b) => compareNames(a.path, b.path));
  return { files, problems };
}
