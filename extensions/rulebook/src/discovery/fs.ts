import type { Dirent, Stats } from "node:fs";
import { lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { isInside, noteRead, noteReadError, noteResolved } from "@pi-rails/agent-core/kit";
import { isAllowed, type LinkPolicy, outsideMessage, resolveBelow } from "./links.ts";

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
  /** See `SkippedRule.kind`. */
  kind?: string;
}

export interface ListOptions {
  /** Which file names are rules. */
  accept: (fileName: string) => boolean;
  /** Enter folders below the root (8 levels at most). */
  recursive: boolean;
  /** Why a file that `accept` refuses is not a rule (listed by doctor); `undefined` ignores it silently. */
  reject?: (fileName: string) => string | undefined;
  /** Symlink policy: links resolving outside allowed roots are reported, not followed. */
  links?: LinkScope;
}

/** How `listRuleFiles` treats symlinks for one root. */
export interface LinkScope {
  policy: LinkPolicy;
  /** The folder the root was found from (cwd for project rules, home for user rules). */
  base: string;
  /** A user's own rule folder may itself link anywhere (dotfiles), except to a too-broad target. */
  trustRoot: boolean;
}

export interface ListResult {
  files: Candidate[];
  problems: Problem[];
  /** Files in the folder that are not rules for this tool, with the reason. */
  ignored: Problem[];
}

/**
 * Check the root folder (or single rule file) against the link policy. Returns the problem when it
 * must not be read, else its real path.
 */
export function checkRootLink(path: string, links: LinkScope | undefined): { real?: string; problem?: Problem } {
  if (!links) return {};
  const resolved = resolveBelow(links.base, path);
  if (!resolved) return {};
  if (!resolved.linked) return { real: resolved.real };
  if (links.policy.tooBroad.some((broad) => isInside(resolved.real, broad))) {
    return {
      problem: {
        path,
        kind: "symlink",
        reason: `symlink ${path} -> ${resolved.real} points at a whole filesystem or home folder; not read`,
      },
    };
  }
  if (links.trustRoot || isAllowed(links.policy, resolved.real)) return { real: resolved.real };
  return { problem: { path, kind: "symlink", reason: outsideMessage(path, resolved.real) } };
}

/**
 * Made on first use: creating it loads ICU's collation data (about 9 ms in a fresh process), and a start that reads
 * pi-ttsr's snapshot lists no folder.
 */
let collator: Intl.Collator | undefined;

/** Deterministic order: numeric-aware ("2-x" before "10-x", as Cline users expect), then code units. */
export function compareNames(a: string, b: string): number {
  collator ??= new Intl.Collator("en", { numeric: true, sensitivity: "variant" });
  return collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}

/** Explain an fs error in words a user can act on. */
export function describeFsError(error: unknown): string {
  // one that may pass (too many open files) keeps what was read from being kept (kit read-set)
  noteReadError(error);
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
  noteRead(path);
  return statSync(path, { throwIfNoEntry: false });
}

/**
 * List rule files under `root`, sorted, following symlinks but never looping: every directory is
 * visited once by its real path. Files that match `accept` but cannot be used (dangling symlinks,
 * FIFOs, loops) come back as problems, never silently dropped. A missing root is simply empty.
 * Uses synchronous fs calls on purpose: for hundreds of small files they are several times faster
 * than the promise API's thread-pool round trips, and discovery runs once per session start.
 */
export async function listRuleFiles(root: string, options: ListOptions): Promise<ListResult> {
  const files: Candidate[] = [];
  const problems: Problem[] = [];
  const ignored: Problem[] = [];
  const rootStats = await statIfExists(root);
  if (!rootStats?.isDirectory()) return { files, problems, ignored };
  const rootLink = checkRootLink(root, options.links);
  if (rootLink.problem) return { files, problems: [rootLink.problem], ignored };
  const rootReal = rootLink.real;
  const links = options.links;
  const outside = (real: string) =>
    links !== undefined && !isInside(rootReal ?? real, real) && !isAllowed(links.policy, real);
  const visited = new Set<string>();
  const maxDepth = options.recursive ? 8 : 0;

  /** The real path of `path`, or `undefined` with the problem said (unresolvable, or outside what is allowed). */
  const realInside = (path: string): string | undefined => {
    let real: string;
    noteResolved(path);
    try {
      real = realpathSync(path);
    } catch (error) {
      problems.push({ path, reason: describeFsError(error) });
      return undefined;
    }
    if (!outside(real)) return real;
    problems.push({ path, kind: "symlink", reason: outsideMessage(path, real) });
    return undefined;
  };
  const ignore = (path: string, name: string, isFile: boolean): void => {
    const why = isFile ? options.reject?.(name) : undefined;
    if (why) ignored.push({ path, reason: why, kind: "not-a-rule" });
  };

  /** `rel`: the folder relative to root, `/`-separated ("" for root): what `relative()` would give, without it. */
  const walk = (dir: string, depth: number, rel: string): void => {
    const real = realInside(dir);
    if (real === undefined) return;
    if (visited.has(real)) {
      problems.push({ path: dir, reason: `symlink loop: directory ${real} was already scanned` });
      return;
    }
    visited.add(real);
    let entries: Dirent[];
    try {
      noteRead(dir);
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      problems.push({ path: dir, reason: describeFsError(error) });
      return;
    }
    entries.sort((a, b) => compareNames(a.name, b.name));
    const subdirs: Array<{ path: string; rel: string }> = [];
    for (const entry of entries) {
      const path = join(dir, entry.name);
      const relPath = rel + entry.name;
      const accepted = options.accept(entry.name);
      if (entry.isDirectory()) {
        if (depth < maxDepth) subdirs.push({ path, rel: `${relPath}/` });
        continue;
      }
      if (!entry.isSymbolicLink() && !accepted) {
        ignore(path, entry.name, entry.isFile());
        continue;
      }
      let stats: Stats;
      try {
        noteRead(path);
        stats = entry.isSymbolicLink() ? statSync(path) : lstatSync(path);
      } catch (error) {
        if (accepted) problems.push({ path, reason: describeFsError(error) });
        continue;
      }
      if (stats.isDirectory()) {
        if (depth < maxDepth) subdirs.push({ path, rel: `${relPath}/` });
        continue;
      }
      if (!accepted) {
        ignore(path, entry.name, stats.isFile());
        continue;
      }
      if (entry.isSymbolicLink() && links && realInside(path) === undefined) continue;
      if (!stats.isFile()) {
        problems.push({ path, reason: `${kindOf(stats)}, not a regular file` });
        continue;
      }
      files.push({ path, relPath, stats });
    }
    subdirs.sort((a, b) => compareNames(a.path, b.path));
    for (const sub of subdirs) walk(sub.path, depth + 1, sub.rel);
  };

  walk(root, 0, "");
  files.sort((a, b) => compareNames(a.relPath, b.relPath));
  problems.sort((a, b) => compareNames(a.path, b.path));
  ignored.sort((a, b) => compareNames(a.path, b.path));
  return { files, problems, ignored };
}
