import type { Stats } from "node:fs";
import { basename, dirname, join } from "node:path";
import { collectRules, loadRuleFolder, type Normalizer, type RuleFileSpec, rejectUnless } from "./collect.ts";
import { CONDITION_KEYS, drop, has, readBoolean, readCondition, readGlobs, readString } from "./fields.ts";
import { checkRootLink, type Problem, statIfExists } from "./fs.ts";
import { linkScope, type RuleProvider } from "./provider.ts";

const SUFFIX = /\.(md|txt)$/;

/**
 * Cline: `paths` (string or list) scope a rule to matching files; a rule without `paths` applies
 * always (Cline's documented behaviour), whatever else it has: a `description` is kept for listing,
 * a Cursor-style `globs` key is not read by Cline and is reported. Only an explicit
 * `alwaysApply: false` or a stream condition (pi-rails' own key) keeps it out of the prompt.
 */
export const normalizeCline: Normalizer = (f) => {
  const globs = readGlobs(f, "paths");
  if (has(f, "globs")) {
    drop(
      f,
      "globs",
      f.data.globs,
      "nothing: Cline reads paths, not globs",
      globs ? undefined : "This rule applies always, as in Cline; write paths: to scope it",
    );
  }
  const description = readString(f, "description");
  const condition = readCondition(f, CONDITION_KEYS);
  let alwaysApply = readBoolean(f, "alwaysApply");
  if (alwaysApply === undefined && !globs && !condition && !has(f, "paths")) alwaysApply = true;
  return { description, globs, alwaysApply, condition };
};

/** Find the nearest `.clinerules` (file or folder) from `cwd` upward; `level` is how many folders up. */
async function findClinerules(cwd: string): Promise<{ path: string; level: number; stats: Stats } | undefined> {
  for (let dir = cwd, level = 0; ; dir = dirname(dir), level++) {
    const path = join(dir, ".clinerules");
    const stats = await statIfExists(path);
    if (stats) return { path, level, stats };
    if (dirname(dir) === dir) return undefined;
  }
}

/** Cline: the nearest `.clinerules` upward from cwd: a folder of `*.md` / `*.txt`, or one file named `clinerules`. */
export const clineProvider: RuleProvider = {
  id: "cline",
  priority: 40,
  description: "Cline: nearest .clinerules upward from cwd (folder of *.md/*.txt, or one file)",
  async load(ctx) {
    const collect = async (searched: string, specs: RuleFileSpec[], problems: Problem[]) => {
      const out = await collectRules(clineProvider, specs, problems, normalizeCline, ctx);
      out.searched.push(searched);
      return out;
    };
    const found = await findClinerules(ctx.cwd);
    if (!found) return collect(join(ctx.cwd, ".clinerules"), [], []);
    const scope = "project" as const;
    const link = checkRootLink(found.path, linkScope(ctx, scope));
    if (link.problem) return collect(found.path, [], [link.problem]);
    if (found.stats.isFile()) {
      const file = { path: found.path, relPath: basename(found.path), stats: found.stats };
      return collect(found.path, [{ file, name: "clinerules", scope, root: found.path, level: found.level }], []);
    }
    if (!found.stats.isDirectory())
      return collect(found.path, [], [{ path: found.path, reason: "neither a file nor a folder" }]);
    const folder = {
      dir: found.path,
      scope,
      suffix: SUFFIX,
      preferred: [".md", ".txt"],
      recursive: false,
      decorate: (spec: RuleFileSpec): RuleFileSpec => ({ ...spec, level: found.level }),
      reject: rejectUnless("Cline reads only *.md and *.txt in .clinerules"),
    };
    return loadRuleFolder(clineProvider, folder, normalizeCline, ctx);
  },
};
