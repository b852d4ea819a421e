import { type BigIntStats, lstatSync, statSync } from "node:fs";

/**
 * The paths a computation read from disk (files read, folders listed, paths looked for and found missing), and
 * what each looked like: a result computed from files can then be kept across processes and trusted for as long as
 * every one of them still looks the same, which one `lstat` each can tell (a start-up that would otherwise walk,
 * read and parse them all). The readers say what they touch with `noteRead`; `recordReads` collects it.
 *
 * Every recording running gets every path noted while it runs: two computations that overlap each get their own
 * reads and the other's, which only makes their results stricter to trust. (Not AsyncLocalStorage: once used, it
 * slows every promise of the process, pi's streaming included.)
 */
const recordings = new Set<Set<string>>();

/** Says that the running computation read (or listed, or looked for) `path`. Free when nothing records. */
export function noteRead(path: string): void {
  for (const paths of recordings) paths.add(path);
}

/** Runs `run`, collecting the paths noted until it settles (its own, and any other computation's meanwhile). */
export async function recordReads<T>(run: () => Promise<T>): Promise<{ value: T; paths: string[] }> {
  const paths = new Set<string>();
  recordings.add(paths);
  try {
    const value = await run();
    return { value, paths: [...paths] };
  } finally {
    recordings.delete(paths);
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

/**
 * The signatures of `paths`, or undefined when one of them changed too recently to be trusted (`RACY_CHANGE_MS`
 * before `now`, or in the future): the result read from them must then not be kept.
 */
export function settledSignatures(paths: readonly string[], now = Date.now()): ReadSignature[] | undefined {
  const signatures: ReadSignature[] = [];
  for (const path of paths) {
    const { signature, changedAt } = look(path);
    if (changedAt >= now - RACY_CHANGE_MS) return undefined;
    signatures.push([path, signature]);
  }
  return signatures;
}

/** Whether every path still looks as it did (`settledSignatures`): the result read from them still holds. */
export function unchangedReads(signatures: readonly ReadSignature[]): boolean {
  for (const [path, signature] of signatures) if (pathSignature(path) !== signature) return false;
  return true;
}
