import { readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { isInside, noteExists, noteRead, noteReadError, noteResolved } from "@pi-rails/agent-core/kit";
import type { PiContextFile } from "../rule.ts";

/** pi's own context file names, in the order pi 1.6 tries them in each folder (it loads the first only). */
export const PI_CONTEXT_NAMES = ["AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"] as const;

const isFile = (path: string) => {
  noteExists(path);
  return statSync(path, { throwIfNoEntry: false })?.isFile() === true;
};
const real = (path: string) => {
  noteResolved(path);
  try {
    return realpathSync(path);
  } catch (error) {
    noteReadError(error);
    return path;
  }
};

/**
 * The context file names present in `dir`, in pi's order: a stat per name, as pi does (a readdir of a big folder
 * such as /tmp would cost more); a listing only when two names answer, to tell AGENTS.md from AGENTS.MD on a
 * case-insensitive disk. `undefined` when the folder cannot be listed then.
 */
function namesIn(dir: string): string[] | undefined {
  const present = PI_CONTEXT_NAMES.filter((n) => isFile(join(dir, n)));
  if (present.length < 2) return present;
  try {
    noteRead(dir);
    const names = new Set(readdirSync(dir));
    return present.filter((n) => names.has(n));
  } catch (error) {
    noteReadError(error);
    return undefined;
  }
}

/**
 * pi 1.6 skips the main repository's context file when cwd is in a linked git worktree nested inside that
 * repository and the worktree has its own: both stand for the same repository, and loading both would apply it
 * twice. The skipped file's real path and the worktree, or `undefined` (an ordinary repository, a sibling
 * worktree, no git). Found as pi finds it: the nearest `.git` upward that is a `gitdir:` file or a folder.
 */
function worktreeShadowedFile(cwd: string): { file: string; worktree: string } | undefined {
  for (let dir = cwd; ; dir = dirname(dir)) {
    const git = join(dir, ".git");
    noteExists(git);
    const stat = statSync(git, { throwIfNoEntry: false });
    // a plain repository: its context files shadow nothing
    if (stat?.isDirectory()) return undefined;
    if (stat?.isFile()) {
      let content: string;
      noteRead(git);
      try {
        content = readFileSync(git, "utf8").trim();
      } catch (error) {
        noteReadError(error);
        return undefined;
      }
      if (content.startsWith("gitdir: ")) return shadowedByWorktree(dir, resolve(dir, content.slice(8).trim()));
    }
    if (dirname(dir) === dir) return undefined;
  }
}

function shadowedByWorktree(repoDir: string, gitDir: string): { file: string; worktree: string } | undefined {
  let commonGitDir = gitDir;
  try {
    if (!isFile(join(gitDir, "HEAD"))) return undefined;
    const commonDir = join(gitDir, "commondir");
    if (isFile(commonDir)) {
      noteRead(commonDir);
      commonGitDir = resolve(gitDir, readFileSync(commonDir, "utf8").trim());
    }
  } catch (error) {
    noteReadError(error);
    return undefined;
  }
  const common = real(commonGitDir);
  const worktree = real(repoDir);
  const mainRoot = dirname(common);
  // only a worktree inside its main repository, which is itself checked out (not a bare layout or a submodule)
  if (worktree === mainRoot || !isInside(mainRoot, worktree)) return undefined;
  if (real(join(mainRoot, ".git")) !== common) return undefined;
  const own = namesIn(repoDir)?.[0];
  return own ? { file: join(mainRoot, own), worktree: repoDir } : undefined;
}

/**
 * The context files pi 1.6 loads by itself: the first of `PI_CONTEXT_NAMES` in the agent dir, then in every folder
 * from the filesystem root down to cwd. Others in the same folder are skipped by pi (a CLAUDE.md beside an
 * AGENTS.md, an AGENTS.md beside an AGENTS.override.md), and so is the main repository's file when cwd is in a
 * nested linked worktree with its own: reported so `doctor` can say so; a skipped CLAUDE.md beside an AGENTS file
 * is loadable as a rule.
 */
export function piContextFiles(cwd: string, agentDir: string): PiContextFile[] {
  const dirs: string[] = [];
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    dirs.unshift(dir);
    if (dirname(dir) === dir) break;
  }
  const shadowed = worktreeShadowedFile(resolve(cwd));
  const out: PiContextFile[] = [];
  const seen = new Set<string>();
  for (const [index, dir] of [resolve(agentDir), ...dirs].entries()) {
    if (seen.has(dir)) continue;
    seen.add(dir);
    const present = namesIn(dir);
    if (!present) continue;
    const [loaded, ...skipped] = present;
    if (loaded) {
      const path = join(dir, loaded);
      if (index > 0 && shadowed !== undefined && join(real(dir), loaded) === shadowed.file) {
        const note = `pi skips the main repository's ${loaded}: cwd is in the linked worktree ${shadowed.worktree}, which has its own`;
        out.push({ path, loadedByPi: false, note, skippedFor: "worktree" });
      } else out.push({ path, loadedByPi: true });
    }
    for (const name of skipped) {
      const hint = name.startsWith("CLAUDE")
        ? "; set rulebook.loadClaudeMdBesideAgentsMd: true to load it as an always-apply rule"
        : "";
      const note = `pi loads only ${loaded} from ${dir} and skips this file${hint}`;
      out.push({ path: join(dir, name), loadedByPi: false, note, skippedFor: "sibling" });
    }
  }
  return out;
}

/** A readable rule name for a CLAUDE.md pi skips: `CLAUDE.md` in cwd, else its path relative to cwd. */
export function contextRuleName(cwd: string, path: string): string {
  return relative(resolve(cwd), path).split("\\").join("/");
}
