import type { Dirent } from "node:fs";
import { readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { noteFolders, noteReadError } from "@pi-rails/agent-core/kit";
import { compareNames } from "./fs.ts";

/** Folders never searched for nested rule folders: dependencies, VCS data, build output. */
const SKIP = new Set(["node_modules", ".git", ".hg", ".svn", "dist", "build", "out", "target", "vendor", ".venv"]);

export interface NestedSearch {
  /** Directories (relative to `root`, `/`-separated, never "") containing a `marker` folder. */
  found: string[];
  /** Set when the search stopped at the directory budget. */
  truncated: boolean;
}

/**
 * Find directories below `root` that contain a `marker` folder (e.g. `.cursor`), for monorepos
 * that keep rules next to each package. Does not follow symlinks (no loops), skips dependency and
 * hidden folders, and stops at `maxDepth` and `maxDirs` so a huge tree cannot stall session start.
 */
export async function findNestedRuleDirs(
  root: string,
  marker: string,
  options: { maxDepth: number; maxDirs: number },
): Promise<NestedSearch> {
  const found: string[] = [];
  let budget = options.maxDirs;
  let truncated = false;
  let level: string[] = [root];
  for (let depth = 0; depth <= options.maxDepth && level.length > 0; depth++) {
    const next: string[] = [];
    for (const dir of level) {
      let entries: Dirent[] = [];
      // only its folders matter (a file saved by rename in the project leaves the search's answer as it was)
      noteFolders(dir);
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch (error) {
        noteReadError(error);
        // an unreadable folder (permissions, vanished) has nothing to search
      }
      for (const entry of entries) {
        if (!entry.isDirectory()) continue;
        if (entry.name === marker) {
          if (depth > 0) found.push(relative(root, dir).split(sep).join("/"));
          continue;
        }
        if (entry.name.startsWith(".") || SKIP.has(entry.name)) continue;
        if (budget-- <= 0) {
          truncated = true;
          continue;
        }
        next.push(join(dir, entry.name));
      }
    }
    level = next;
  }
  return { found: found.sort(compareNames), truncated };
}
