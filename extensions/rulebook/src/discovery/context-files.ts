import { readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import type { PiContextFile } from "../rule.ts";

/** pi's own context file names, in the order pi tries them in each folder (it loads the first only). */
export const PI_CONTEXT_NAMES = ["AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"] as const;

/**
 * The context files pi 0.73 loads by itself: the first of `PI_CONTEXT_NAMES` in the agent dir, then
 * in every folder from the filesystem root down to cwd. Others in the same folder are skipped by pi
 * (a CLAUDE.md beside an AGENTS.md): reported so `doctor` can say so, and loadable as rules.
 */
export function piContextFiles(cwd: string, agentDir: string): PiContextFile[] {
  const dirs: string[] = [];
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    dirs.unshift(dir);
    if (dirname(dir) === dir) break;
  }
  const out: PiContextFile[] = [];
  const seen = new Set<string>();
  for (const dir of [resolve(agentDir), ...dirs]) {
    if (seen.has(dir)) continue;
    seen.add(dir);
    // a stat per name, as pi does (a readdir of a big folder such as /tmp would cost more);
    // a listing only when two names answer, to tell AGENTS.md from AGENTS.MD on a case-insensitive disk
    let present = PI_CONTEXT_NAMES.filter((n) => statSync(join(dir, n), { throwIfNoEntry: false })?.isFile());
    if (present.length > 1) {
      try {
        const names = new Set(readdirSync(dir));
        present = present.filter((n) => names.has(n));
      } catch {
        continue;
      }
    }
    const [loaded, ...skipped] = present;
    if (loaded) out.push({ path: join(dir, loaded), loadedByPi: true });
    for (const name of skipped) {
      const hint = name.startsWith("CLAUDE")
        ? "; set rulebook.loadClaudeMdBesideAgentsMd: true to load it as an always-apply rule"
        : "";
      const note = `pi loads only ${loaded} from ${dir} and skips this file${hint}`;
      out.push({ path: join(dir, name), loadedByPi: false, note });
    }
  }
  return out;
}

/** A readable rule name for a CLAUDE.md pi skips: `CLAUDE.md` in cwd, else its path relative to cwd. */
export function contextRuleName(cwd: string, path: string): string {
  return relative(resolve(cwd), path).split("\\").join("/");
}
