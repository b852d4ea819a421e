import { createHash } from "node:crypto";
import { type BigIntStats, existsSync, lstatSync, readdirSync, realpathSync, statSync } from "node:fs";

/**
 * The paths a computation read from disk (files read, folders listed, paths looked for and found missing), and
 * what each looked like: a result computed from files can then be kept across processes and trusted for as long as
 * every one of them still looks the same, which one `lstat` each can tell (a start-up that would otherwise walk,
 * read and parse them all). The readers say what they touch, and what of it their answer depends on:
 * - `noteRead`: the path's content or listing (any write, entry added or removed, chmod, relink moves it);
 * - `noteExists`: only whether it is there, and a file or a folder (`.git` looked for upward, whose folder changes
 *   with every git command);
 * - `noteResolved`: where its symlinks lead (`realpath`), not what is there (the home, for the link policy);
 * - `noteFolders`: the names of the folders in it (a project tree searched for nested rule folders: a file saved
 *   by rename in it changes its listing, not its folders);
 * - `noteReadError` where a read failed.
 * `recordReads` collects them.
 *
 * Every recording running gets every path noted while it runs: two computations that overlap each get their own
 * reads and the other's, which only makes their results stricter to trust. (Not AsyncLocalStorage: once used, it
 * slows every promise of the process, pi's streaming included.)
 */
interface Recording {
  paths: Set<string>;
  exists: Set<string>;
  resolved: Set<string>;
  folders: Set<string>;
  unsettled?: string;
}
const recordings = new Set<Recording>();

/** Says that the running computation read (or listed, or looked for) `path`. Free when nothing records. */
export function noteRead(path: string): void {
  for (const r of recordings) r.paths.add(path);
}

/** Says that the answer depends only on whether `path` exists, and whether it is a file or a folder. */
export function noteExists(path: string): void {
  for (const r of recordings) r.exists.add(path);
}

/**
 * Says that the computation resolved `path`'s symlinks (`realpath`): where it leads is part of the answer, and a
 * folder part-way along it (a link retargeted below a listed folder) moves no signature of `path` itself.
 */
export function noteResolved(path: string): void {
  for (const r of recordings) r.resolved.add(path);
}

/** Says that the answer depends on the names of the folders in folder `dir` (not on its files). */
export function noteFolders(dir: string): void {
  for (const r of recordings) r.folders.add(dir);
}

/**
 * Errors that say something about the files, which their signatures keep: a missing path, a file where a folder was
 * expected, a symlink loop, no permission. Any other (too many open files, I/O, a busy or stale handle) may not
 * happen again: what was computed despite it is not kept.
 */
const LASTING_ERRORS = new Set(["ENOENT", "ENOTDIR", "ELOOP", "EACCES", "EPERM", "EISDIR", "ENAMETOOLONG", "EINVAL"]);

/** Says that a read failed (`error` as caught). One that may not happen again makes the result not worth keeping. */
export function noteReadError(error: unknown): void {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code !== "string" || LASTING_ERRORS.has(code)) return;
  for (const r of recordings) r.unsettled ??= code;
}

/** What `recordReads` collected, by what the answer depends on (see `noteRead` and the others), and an error. */
export interface RecordedReads<T> {
  value: T;
  paths: string[];
  exists: string[];
  resolved: string[];
  folders: string[];
  /** The code of a read error that may not happen again (`EMFILE`): the value must not be kept. */
  unsettled?: string;
}

/** Runs `run`, collecting the paths noted until it settles (its own, and any other computation's meanwhile). */
export async function recordReads<T>(run: () => Promise<T>): Promise<RecordedReads<T>> {
  const recording: Recording = { paths: new Set(), exists: new Set(), resolved: new Set(), folders: new Set() };
  recordings.add(recording);
  try {
    const value = await run();
    const { unsettled } = recording;
    return {
      value,
      paths: [...recording.paths],
      exists: [...recording.exists],
      resolved: [...recording.resolved],
      folders: [...recording.folders],
      ...(unsettled ? { unsettled } : {}),
    };
  } finally {
    recordings.delete(recording);
  }
}

/** One path and what it looked like (`pathSignature`). */
export type ReadSignature = [path: string, signature: string];

/**
 * What a path looks like, as one string: missing, or its inode, mode, size, modification and change times (the
 * change time moves on any write, rename or chmod; a folder's on any entry added, removed or renamed), and for a
 * symlink the same of what it points at. An error other than "missing" is part of the answer (`!EACCES`).
 */
export function pathSignature(path: string): string {
  return look(path).signature;
}

/** A path's signature and the latest of its (and its symlink target's) modification and change times, in ms. */
function look(path: string): { signature: string; changedAt: number } {
  try {
    const own = lstatSync(path, { bigint: true, throwIfNoEntry: false });
    if (!own) return { signature: "-", changedAt: 0 };
    const target = own.isSymbolicLink() ? statSync(path, { bigint: true, throwIfNoEntry: false }) : undefined;
    const text = (s: BigIntStats) => `${s.ino}:${s.mode}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
    const latest = (s: BigIntStats | undefined) => (s ? Math.max(Number(s.mtimeNs), Number(s.ctimeNs)) / 1e6 : 0);
    const signature = own.isSymbolicLink() ? `${text(own)}>${target ? text(target) : "-"}` : text(own);
    return { signature, changedAt: Math.max(latest(own), latest(target)) };
  } catch (error) {
    return { signature: `!${(error as NodeJS.ErrnoException).code ?? "error"}`, changedAt: 0 };
  }
}

/**
 * How recent a change must be for a signature not to be trusted: a file written within a timestamp tick of being
 * read can change again without its times moving (the "racy" entries git re-reads). A few seconds also covers
 * filesystems that keep whole seconds.
 */
export const RACY_CHANGE_MS = 3000;

/** What a computation read, as it was: one list per kind of note (`recordReads`). */
export interface ReadSet {
  signatures: ReadSignature[];
  exists: ReadSignature[];
  resolved: ReadSignature[];
  /** Each folder's signature (checked first) and the names of the folders in it (checked when that moved). */
  folders: Array<[path: string, signature: string, folders: string]>;
}

/**
 * The read set of a recording, or undefined when it must not be kept: a read failed in a way that may pass, or a
 * path read or listed changed too recently to be trusted (within `RACY_CHANGE_MS` before `since`, the time the
 * computation started, or later: it may have changed while it was read, or change again unseen).
 */
export function settledReads(recorded: Omit<RecordedReads<unknown>, "value">, since: number): ReadSet | undefined {
  if (recorded.unsettled) return undefined;
  const signatures: ReadSignature[] = [];
  for (const path of recorded.paths) {
    const { signature, changedAt } = look(path);
    if (changedAt >= since - RACY_CHANGE_MS) return undefined;
    signatures.push([path, signature]);
  }
  const folders: ReadSet["folders"] = [];
  for (const dir of recorded.folders) {
    const { signature, changedAt } = look(dir);
    if (changedAt >= since - RACY_CHANGE_MS) return undefined;
    folders.push([dir, signature, folderNames(dir)]);
  }
  return {
    signatures,
    exists: recorded.exists.map((path) => [path, kindOf(path)]),
    resolved: recorded.resolved.map((path) => [path, resolvedPath(path)]),
    folders,
  };
}

/** Where `path` leads once its symlinks are resolved (`-` when it does not). */
function resolvedPath(path: string): string {
  // (missing is the usual answer: checked without the exception realpath throws)
  if (!existsSync(path)) return "-";
  try {
    return realpathSync(path);
  } catch {
    return "-";
  }
}

/** Whether `path` is there, following symlinks: `f` a file, `d` a folder, `o` anything else, `-` missing. */
function kindOf(path: string): string {
  try {
    const stats = statSync(path, { throwIfNoEntry: false });
    if (!stats) return "-";
    return stats.isFile() ? "f" : stats.isDirectory() ? "d" : "o";
  } catch (error) {
    return `!${(error as NodeJS.ErrnoException).code ?? "error"}`;
  }
}

/** The names of the folders in folder `dir`, sorted, as one string (`-` when it cannot be listed). */
function folderNames(dir: string): string {
  try {
    const names = readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    return createHash("sha256").update(names.join("\0")).digest("base64url");
  } catch {
    return "-";
  }
}

/** Whether everything still looks as it did: a result read from these paths still holds. */
export function unchangedReads(set: ReadSet): boolean {
  return firstChangedRead(set) === undefined;
}

/**
 * Whether each of `paths` was read (noted with `noteRead`) in `set` and still has its signature: a part of a result
 * that depends on those paths alone still holds when others changed.
 */
export function unchangedPaths(set: ReadSet, paths: readonly string[]): boolean {
  const signatures = new Map(set.signatures);
  return paths.every((path) => {
    const signature = signatures.get(path);
    return signature !== undefined && pathSignature(path) === signature;
  });
}

/**
 * The first path that no longer looks as it did when it was read (undefined: none), named with what changed about
 * it: what a start that could not use its snapshot can say about why.
 */
export function firstChangedRead(set: ReadSet): string | undefined {
  for (const [path, signature] of set.signatures) if (pathSignature(path) !== signature) return `${path} (changed)`;
  for (const [path, kind] of set.exists) if (kindOf(path) !== kind) return `${path} (appeared, went or changed kind)`;
  for (const [path, real] of set.resolved) if (resolvedPath(path) !== real) return `${path} (resolves elsewhere)`;
  for (const [dir, signature, names] of set.folders) {
    if (pathSignature(dir) !== signature && folderNames(dir) !== names) return `${dir} (its folders changed)`;
  }
  return undefined;
}
