import { join } from "node:path";
import { collectSingleFiles, loadRuleFolder, type Normalizer, type RuleFileSpec, rejectUnless } from "./collect.ts";
import { CONDITION_KEYS, readBoolean, readCondition, readGlobs, readString } from "./fields.ts";
import { findNestedRuleDirs } from "./nested.ts";
import { type DiscoveryContext, mergeOutputs, type ProviderOutput, type RuleProvider } from "./provider.ts";

const SUFFIX = /\.(mdc|md)$/;
const CURSORRULES = { name: "cursorrules", scope: "project", legacy: true } as const;

/** Cursor keeps `alwaysApply` only when it is a real `true`, `description` only as a string. */
export const normalizeCursor: Normalizer = (f) => ({
  description: readString(f, "description"),
  globs: readGlobs(f, "globs"),
  alwaysApply: readBoolean(f, "alwaysApply", { onlyTrue: true }),
  condition: readCondition(f, CONDITION_KEYS),
});

function loadCursorDir(
  dir: string,
  scope: "project" | "user",
  ctx: DiscoveryContext,
  nested?: { base: string; level: number },
): Promise<ProviderOutput> {
  const decorate = nested
    ? (spec: RuleFileSpec): RuleFileSpec => ({
        ...spec,
        name: `${nested.base}/${spec.name}`,
        level: nested.level,
        globBase: nested.base,
      })
    : undefined;
  const folder = {
    dir,
    scope,
    suffix: SUFFIX,
    preferred: [".mdc", ".md"],
    recursive: true,
    decorate,
    reject: rejectUnless("Cursor reads only *.mdc and *.md in .cursor/rules"),
  };
  return loadRuleFolder(cursorProvider, folder, normalizeCursor, ctx);
}

/**
 * Cursor: `<cwd>/.cursor/rules/**`, then legacy `<cwd>/.cursorrules`, then nested `<pkg>/.cursor/rules/**` folders (named
 * `<pkg>/<rule>`, globs relative to `<pkg>`), then `~/.cursor/rules/**`.
 */
export const cursorProvider: RuleProvider = {
  id: "cursor",
  priority: 50,
  description:
    "Cursor: <cwd>/.cursor/rules/**/*.{mdc,md}, <cwd>/.cursorrules, nested <dir>/.cursor/rules, ~/.cursor/rules",
  async load(ctx) {
    const projectDir = join(ctx.cwd, ".cursor", "rules");
    const userDir = join(ctx.home, ".cursor", "rules");
    const legacyFile = join(ctx.cwd, ".cursorrules");
    const nested = await findNestedRuleDirs(ctx.cwd, ".cursor", { maxDepth: 6, maxDirs: 5000 });
    const parts = await Promise.all([
      loadCursorDir(projectDir, "project", ctx),
      // legacy `.cursorrules`: one file Cursor applies to every request
      collectSingleFiles(cursorProvider, [{ path: legacyFile, ...CURSORRULES }], normalizeCursor, ctx),
      ...nested.found.map((base) =>
        loadCursorDir(join(ctx.cwd, base, ".cursor", "rules"), "project", ctx, {
          base,
          level: base.split("/").length,
        }),
      ),
      loadCursorDir(userDir, "user", ctx),
    ]);
    const out = mergeOutputs(parts);
    if (nested.truncated) {
      out.warnings.push({
        provider: "cursor",
        message: `stopped looking for nested .cursor/rules folders after 5000 directories under ${ctx.cwd}`,
      });
    }
    return out;
  },
};
