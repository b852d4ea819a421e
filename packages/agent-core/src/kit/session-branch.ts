/**
 * The entries of a session branch, root first, read in time linear in its length. It asks pi's session manager only
 * for single entries by id, so it stays linear on every pi (`SessionManager.getBranch()` built the path with
 * `Array.unshift` before pi 1.x, quadratic: about half a second at 100,000 entries).
 */

/** What a branch is made of: pi's `SessionEntry` (an id and its parent's). */
export interface BranchEntry {
  id: string;
  parentId: string | null;
}

/** What reading a branch needs of pi's (read-only) session manager. */
export interface BranchSource<E extends BranchEntry> {
  getLeafId(): string | null;
  getEntry(id: string): E | undefined;
  /** Only asked when the walk gets longer than any path could be (parent links that form a cycle). */
  getEntries(): readonly E[];
}

/**
 * The path from the root to `fromId` (default: the current leaf), root first: what `getBranch()` returns, the same
 * entry objects. A damaged file whose parent links form a cycle gives each entry of the path once (pi's own walk
 * would not end).
 */
export function sessionBranch<E extends BranchEntry>(source: BranchSource<E>, fromId?: string | null): E[] {
  const startId = fromId ?? source.getLeafId();
  const path: E[] = [];
  let limit = Number.POSITIVE_INFINITY;
  for (let entry = startId ? source.getEntry(startId) : undefined; entry !== undefined; ) {
    path.push(entry);
    if (path.length > limit) return distinctPath(path);
    if (path.length === 1 << 16 && limit === Number.POSITIVE_INFINITY) limit = source.getEntries().length;
    entry = entry.parentId ? source.getEntry(entry.parentId) : undefined;
  }
  return path.reverse();
}

/** The path of a walk that went round a cycle: each entry once, up to where the walk came round again. */
function distinctPath<E extends BranchEntry>(walked: readonly E[]): E[] {
  const seen = new Set<E>();
  const path: E[] = [];
  for (const entry of walked) {
    if (seen.has(entry)) break;
    seen.add(entry);
    path.push(entry);
  }
  return path.reverse();
}
