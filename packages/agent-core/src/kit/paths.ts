import * as nodePath from "node:path";

/** The parts of `node:path` the containment check uses; pass `path.win32` or `path.posix` to pin a platform. */
export type PathApi = Pick<typeof nodePath, "relative" | "isAbsolute" | "sep">;

/**
 * `child` relative to `parent` when `child` is `parent` itself (`""`) or lies below it, else `undefined`.
 * Stated once because the usual `relative(...).startsWith("..")` is wrong twice: a folder named `..foo` is
 * inside, and on Windows a path on another drive comes back absolute (`D:\x`), which is outside.
 */
export function relativeInside(parent: string, child: string, path: PathApi = nodePath): string | undefined {
  const rel = path.relative(parent, child);
  if (rel === ".." || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) return undefined;
  return rel;
}

/** `child` is `parent` or lies below it (lexically: resolve symlinks first where that matters). */
export function isInside(parent: string, child: string, path: PathApi = nodePath): boolean {
  return relativeInside(parent, child, path) !== undefined;
}
