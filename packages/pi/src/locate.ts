import { existsSync, readFileSync, realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/**
 * Where Node would find package `name` when it is imported from a file inside `fromDir`: the node_modules folders
 * of `fromDir` and its ancestors, nearest first (a folder named node_modules gets none of its own). Returns the real
 * path (Node loads modules by real path, so the loader hooks must match it), or undefined.
 */
export function findPackageDir(name: string, fromDir: string): string | undefined {
  let dir = fromDir;
  for (;;) {
    if (basename(dir) !== "node_modules") {
      const candidate = join(dir, "node_modules", name);
      if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate);
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The `version` field of the package.json in `dir`, or undefined. */
export function packageVersion(dir: string | undefined): string | undefined {
  if (!dir) return undefined;
  try {
    return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version;
  } catch {
    return undefined;
  }
}
